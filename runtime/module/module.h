//===- runtime/module/module.h - A loaded .kbm module ---------------------===//
//
// The .kbm file (common/kbm/kbm.fbs) parsed into plain C++ structs after the
// FlatBuffers verifier and a structural check have accepted it, so nothing
// past this point touches FlatBuffers or trusts an index:
//
//  1. parseModule: identifier "KBM1", verifier, schema version, then every
//     index (executable, export, buffer, op), size, range and layout checked
//     and reported as "<file>: function `main` op 3 (dispatch): ...".
//  2. checkModuleForDevice: every export of every variant the device would
//     load, against the device's limits and against the kernel ABI of
//     docs/kernel-abi.md (common/abi_check.h on the PTX or SPIR-V), BEFORE
//     any driver call.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_MODULE_H_
#define KB_RUNTIME_MODULE_MODULE_H_

#include "common/kernel_abi.h"
#include "common/status.h"
#include "runtime/hal/device.h"
#include "runtime/hal/executable.h"
#include "runtime/module/tolerance.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::module {

/// The schema version this runtime reads (kbm.fbs SchemaVersion.Current).
constexpr uint32_t kSchemaVersion = 1;

enum class VariantRole { Reference, Candidate };
const char *toString(VariantRole role);

struct Variant {
  hal::ExecutableFormat format = hal::ExecutableFormat::Spirv;
  std::string target; // "sm_90", "vulkan1.2"
  VariantRole role = VariantRole::Reference;
  std::string data;
  std::vector<KernelAbi> exports;
  /// The device model a candidate was tuned for; empty: any device.
  std::string device;
};

struct Executable {
  std::string name;
  std::vector<Variant> variants;
};

enum class Distribution { Zero, Uniform, Normal, Range };
const char *toString(Distribution distribution);

struct InitSpec {
  Distribution distribution = Distribution::Zero;
  uint64_t seed = 0;
  double low = 0, high = 1, mean = 0, stddev = 1, start = 0, step = 1;
};

struct BufferDecl {
  std::string name;
  ElementType elementType = ElementType::F32;
  uint64_t elementCount = 0;
  InitSpec init;
  /// A buffer of struct elements (|elementType| U8, |elementCount| bytes):
  /// the layout of the struct binding a dispatch binds it to, so that it is
  /// filled member by member (each member drawn as its own type, padding
  /// zero). Not in the .kbm's Buffer: parseModule takes it from the
  /// binding's layout, where the kernel's SPIR-V recorded it.
  std::optional<StructLayout> structLayout;
  uint64_t byteSize() const { return elementCount * kb::byteSize(elementType); }
};

struct BindingRef {
  uint32_t buffer = 0;
  uint64_t offset = 0;
  uint64_t length = 0; // 0 = to the end
};

struct Op {
  enum class Kind { Alloc, Fill, Copy, Dispatch, Barrier } kind = Kind::Barrier;
  // Alloc / Fill: |buffer|. Copy: |buffer| is the source, |target| the target.
  uint32_t buffer = 0, target = 0;
  uint64_t offset = 0, targetOffset = 0, length = 0;
  uint32_t pattern = 0;
  // Dispatch
  uint32_t executable = 0, exportIndex = 0;
  std::vector<BindingRef> bindings;
  std::vector<uint8_t> constants; // packed per kb::pushConstantLayout
  std::array<uint32_t, 3> workgroupCount = {1, 1, 1};
  /// The dispatch's workload, when the module records it: a variant whose
  /// export declares a workload per workgroup runs its own count
  /// (workgroupCountFor); the others run |workgroupCount|.
  std::optional<std::array<uint64_t, 3>> workload;
  /// The count |variant| runs this dispatch with.
  std::array<uint32_t, 3> workgroupCountFor(const Variant &variant) const;
};
const char *toString(Op::Kind kind);

struct Output {
  uint32_t buffer = 0;
  std::optional<double> absTolerance, relTolerance;
  /// The module's tolerances as a layer (tolerance.h).
  ToleranceOverride tolerance() const {
    return {absTolerance, relTolerance, std::nullopt, std::nullopt};
  }
};

struct Function {
  std::string name;
  std::vector<BufferDecl> buffers;
  std::vector<Op> ops;
  std::vector<Output> outputs;
};

struct Benchmark {
  std::string name;
  uint32_t function = 0;
  uint32_t dispatchOp = 0;
};

struct Module {
  std::string sourceName; // file path, for messages
  uint32_t schemaVersion = 0;
  std::string name;
  std::vector<Executable> executables;
  std::vector<Function> functions;
  std::string entryFunction;
  std::vector<Benchmark> benchmarks;

  const Function *findFunction(std::string_view name) const;
};

/// Verifies and parses |bytes| (the contents of |sourceName|). Every error is
/// InvalidArgument (DataLoss for a file that is not a .kbm at all) and names
/// the file and the offending element.
StatusOr<Module> parseModule(std::string_view bytes,
                             std::string_view sourceName);

/// Reads |path| and parses it. NotFound when the file does not exist.
StatusOr<Module> loadModuleFile(const std::string &path);

/// Which variants a run uses.
enum class VariantChoice {
  /// Candidate variants where an executable has one for the device, else its
  /// reference (the program "with the substitutions").
  PreferCandidate,
  /// Reference variants only (the program "with only generated kernels").
  ReferenceOnly,
};
const char *toString(VariantChoice choice);

/// The variant of |exe| that |device| would load for |choice|, or an error
/// naming the executable, what the device needs and what the module has.
/// A candidate tuned for a device model (Variant::device) is loaded on that
/// model only, and preferred there over one for any device.
StatusOr<const Variant *> selectVariant(const Executable &exe,
                                        const hal::DeviceProperties &device,
                                        VariantChoice choice);

/// What |chosen| (selectVariant's pick on |device|) is with respect to
/// tuning: "tuned for <model>" when it is a candidate tuned for the
/// device; "default parameters: none tuned for <model> (tuned for: A, B)"
/// when |exe| has candidates tuned for other models only; empty when
/// |exe| has no tuned candidates, and for a reference (generated code).
std::string tuningNote(const Executable &exe, const Variant &chosen,
                       const hal::DeviceProperties &device);

/// Why |device| cannot run |function|: the first executable it dispatches
/// that has no variant the device loads (selectVariant's message), or whose
/// variant requires a subgroup size the device cannot give
/// (hal::checkSubgroupSize); empty when it can. `--device auto` picks only
/// devices for which this is empty.
std::string whyDeviceCannotRun(const Module &module, const Function &function,
                               const hal::DeviceProperties &device);

/// Checks every variant selected for |device| under |choice| (all
/// executables): limits (hal::checkExportFitsDevice), then the ABI against
/// the PTX (.entry parameters, .reqntid) or SPIR-V (bindings, push
/// constants, LocalSize); cubins have no reflection and only get the limit
/// check. Runs no driver call. The error lists every failing export.
Status checkModuleForDevice(const Module &module,
                            const hal::DeviceProperties &device,
                            VariantChoice choice);

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_MODULE_H_
