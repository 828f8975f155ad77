//===- common/specialization.h - SPIR-V specialization constants ----------===//
//
// kernel.toml's [specialization] table sets SPIR-V specialization constants
// (GLSL `layout(constant_id = N) const T NAME = ...;` and
// `layout(local_size_x_id = N) in;`). A key names a constant by its OpName
// (what glslc emits for `constant_id` constants), by `local_size_x`/`_y`/`_z`
// (the SpecId of that workgroup-size dimension, which glslc leaves unnamed),
// or by its SpecId in decimal (`1 = 64`). The value's type comes from the
// module (OpSpecConstant's result type), so one resolver, used by the
// toolchain's ABI check and by the compiler when it stores the values in the
// .kbm, turns the settings into SpecializationValues.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_SPECIALIZATION_H_
#define KB_COMMON_SPECIALIZATION_H_

#include "common/kernel_abi.h"
#include "common/spirv_reader.h"
#include "common/status.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// One [specialization] entry as written: |value| is an integer ("-3"), a
/// float ("1.5", "1e-3") or "true"/"false".
struct SpecializationSetting {
  std::string key;
  std::string value;
};

/// "KEY=VALUE" and back: how settings cross the compiler's options.
std::string formatSpecializationSetting(const SpecializationSetting &setting);
std::optional<SpecializationSetting>
parseSpecializationSetting(std::string_view text);

/// Resolves |settings| against |spirv|'s specialization constants; the
/// `local_size_*` keys refer to the GLCompute entry point |entry| (or the
/// module's only one). InvalidArgument naming the key for an unknown name or
/// SpecId (listing what the module declares), a value that does not fit the
/// constant's type, or two keys for one constant. Sorted by SpecId.
StatusOr<std::vector<SpecializationValue>>
resolveSpecialization(const SpirvModule &spirv, std::string_view entry,
                      const std::vector<SpecializationSetting> &settings);

/// |entry|'s workgroup size with |values| applied to the dimensions that are
/// specialization constants; nullopt when the module declares none.
std::optional<std::array<uint32_t, 3>>
specializedWorkgroupSize(const SpirvEntryPoint &entry,
                         const std::vector<SpecializationValue> &values);

/// "TILE (SpecId 1, u32, default 4), local_size_x (SpecId 0, u32, default
/// 1)": what |spirv| declares, for messages; "none" when nothing.
std::string describeSpecConstants(const SpirvModule &spirv,
                                  std::string_view entry);

} // namespace kb

#endif // KB_COMMON_SPECIALIZATION_H_
