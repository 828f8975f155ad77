//===- runtime/module/executor.h - Run a module function on a device ------===//
//
// Executes one Function of a Module: checks the module for the device
// (checkModuleForDevice, before any driver call), loads the executables the
// function dispatches (selectVariant), allocates and initialises its
// buffers (inputs.h), records every op into one command buffer — with a
// barrier wherever an op touches a buffer an earlier op since the last
// barrier wrote (or writes one it read) — submits, and reads back the
// outputs.
//
// runFunction does all of that once. The measurement engine (runtime/bench)
// needs the steps apart — load and allocate once, then record the function's
// commands into many command buffers (one per timing sample), re-initialise
// the inputs between correctness runs — so they are exposed as a
// PreparedFunction, and runFunction is built from it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_MODULE_EXECUTOR_H_
#define KB_RUNTIME_MODULE_EXECUTOR_H_

#include "runtime/hal/device.h"
#include "runtime/module/inputs.h"
#include "runtime/module/module.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::module {

struct OutputData {
  uint32_t buffer = 0;
  std::string name;
  ElementType elementType = ElementType::F32;
  std::vector<uint8_t> bytes;
  /// A buffer of structs (BufferDecl::structLayout): compared member by
  /// member (compareStructs).
  std::optional<StructLayout> structLayout;
};

struct FunctionResult {
  std::vector<OutputData> outputs; // in Function::outputs order
  /// One line per executable loaded: "`exe`: candidate spirv vulkan1.2".
  std::vector<std::string> variantsUsed;
  size_t dispatchCount = 0;
  size_t barrierCount = 0;
};

/// Buffers whose contents are given rather than drawn (a kernel's fixed
/// inputs, read from .npy files): buffer index -> its bytes (byteSize()).
using FixedContents =
    std::map<uint32_t, std::shared_ptr<const std::vector<uint8_t>>>;

/// One executable as a prepared function loaded it.
struct LoadedVariant {
  uint32_t executable = 0; // index into Module::executables
  const Variant *variant = nullptr;
  std::shared_ptr<hal::Executable> loaded;
  double loadMs = 0; // Device::createExecutable wall time (driver JIT)
};

/// A kernel's writes past the declared elements of a buffer, as its guard
/// band saw them (PreparedFunction::checkGuards).
struct GuardDamage {
  uint32_t buffer = 0;
  std::string name;      // the buffer's, may be empty
  uint64_t elements = 0; // declared
  ElementType elementType = ElementType::F32;
  uint64_t firstByte = 0; // past the declared end
  uint64_t changedBytes = 0;
  uint64_t guardBytes = 0;
  /// "wrote past the end of buffer 1 `y` (4096 x f32): 16 of its 4096
  /// guard bytes changed, the first at element 4096"
  std::string describe() const;
};

/// What the guard bands saw after a run: the writes past the buffers' ends,
/// and why there were no guard bands where they were asked for.
struct GuardCheck {
  std::vector<GuardDamage> damage;
  std::string unguarded; // PreparedFunction::guardNote()
};

/// A function whose executables are loaded and whose buffers are allocated.
/// Must not outlive |device| or |module|.
class PreparedFunction {
public:
  /// The guard band's byte of buffer |index|: a kernel that writes past a
  /// buffer's declared elements changes it (checkGuards). Never 0x00, 0x80
  /// or 0xff (what kernels write most), and one per buffer for 126
  /// consecutive buffers, so that a copy that runs past its input and its
  /// output copies a byte that is not the output's.
  static constexpr uint8_t canaryByte(uint32_t index) {
    return static_cast<uint8_t>(0x81 + (0x4a + 37 * index) % 126);
  }

  /// Checks the module for the device, loads the executables |function|
  /// dispatches and allocates its buffers, holding their initial contents.
  /// With |guardBytes|, each buffer has that many canary bytes after its
  /// declared ones, inside the range of every binding that ends at the
  /// buffer's end: a write a little past the declared elements lands there
  /// (outside a bound range a driver may drop it, and llvmpipe does) and
  /// checkGuards() finds it, on any device and with no tool.
  static StatusOr<std::unique_ptr<PreparedFunction>>
  create(hal::Device &device, const Module &module, const Function &function,
         VariantChoice choice, uint64_t guardBytes = 0);

  /// The guard bands changed since the last initialize() or check, each
  /// re-armed; no damage without guard bands.
  StatusOr<GuardCheck> checkGuards();
  /// Why guard bands were asked for and not given ("" otherwise).
  const std::string &guardNote() const { return guardNote_; }

  /// Gives buffers fixed contents: from now on their initial contents
  /// whatever the seed offset, zeroInputs or special values (a fixed input
  /// is the data it is). Each must be its buffer's byteSize(); uploaded by
  /// the next initialize().
  Status setFixedContents(FixedContents fixed);

  /// Re-uploads every buffer's initial contents; each InitSpec seed is
  /// offset by |seedOffset| (0 = the module's own inputs); |zeroInputs|
  /// makes every buffer zero instead. Buffers in |poison| are filled with
  /// |poisonPattern| bytes instead of their initial contents. |special|
  /// goes into every float buffer that has an initial draw (inputs.h).
  Status initialize(uint64_t seedOffset = 0, bool zeroInputs = false,
                    const std::vector<uint32_t> &poison = {},
                    uint32_t poisonPattern = 0,
                    SpecialValues special = SpecialValues::None);
  /// Records the function's ops (barriers where hazards need them) into
  /// |commands|; adds the counts to |result| when given.
  Status record(hal::CommandBuffer &commands,
                FunctionResult *result = nullptr) const;
  /// Records ops [first, end) only (replaying a function op by op).
  Status recordOps(hal::CommandBuffer &commands, size_t first, size_t end,
                   FunctionResult *result = nullptr) const;
  /// Reads back the function's outputs.
  StatusOr<std::vector<OutputData>> readOutputs() const;
  /// Reads back buffer |index| whole.
  StatusOr<std::vector<uint8_t>> readBuffer(uint32_t index) const;
  /// Uploads |bytes| (the buffer's byteSize()) into buffer |index| now,
  /// leaving its initial contents as they were.
  Status writeBuffer(uint32_t index, const std::vector<uint8_t> &bytes);
  /// The initial contents of buffer |index| for |seedOffset| / |zeroInputs|.
  /// Shared and immutable: the last few generated are kept, because a
  /// correctness check asks for the same inputs three times per input set
  /// (candidate, the read-only check, reference), and generating a GiB-sized
  /// buffer takes seconds.
  std::shared_ptr<const std::vector<uint8_t>>
  initialContents(uint32_t index, uint64_t seedOffset = 0,
                  bool zeroInputs = false,
                  SpecialValues special = SpecialValues::None) const;

  /// Buffers the function's ops only read (a kernel that changes one is
  /// caught by a checksum), and buffers its ops only write (safe to poison
  /// before a run).
  std::vector<uint32_t> readOnlyBuffers() const;
  std::vector<uint32_t> writeOnlyBuffers() const;
  /// Bytes the function's dispatches move: each binding's range once per
  /// read and once per write (a read-write binding counts twice).
  uint64_t bytesMoved() const;

  const std::vector<LoadedVariant> &variants() const { return variants_; }
  std::vector<std::string> describeVariants() const;
  const Function &function() const { return function_; }
  const Module &module() const { return module_; }

private:
  PreparedFunction(hal::Device &device, const Module &module,
                   const Function &function)
      : device_(device), module_(module), function_(function) {}
  /// Why the function's kernels cannot have guard bands ("" when they can).
  std::string lengthReader() const;
  /// Allocates every buffer, each with a guard band of |guardBytes| when
  /// it fits.
  Status allocateBuffers(uint64_t guardBytes, const std::string &where);
  /// Where buffer |index|'s guard band starts: its bytes rounded up to 4.
  uint64_t guardStart(uint32_t index) const;
  /// Fills buffer |index|'s guard band with the canary.
  Status armGuard(uint32_t index);
  /// |ref| as bound: a range written through (|access|) that ends at the
  /// buffer's end takes its guard band in.
  hal::BindingRef boundRange(const BindingRef &ref, Access access) const;

  hal::Device &device_;
  const Module &module_;
  const Function &function_;
  std::vector<LoadedVariant> variants_;
  std::map<uint32_t, std::shared_ptr<hal::Executable>> executables_;
  /// The variant each executable was loaded from: its exports' workgroup
  /// count rule gives each dispatch's count.
  std::map<uint32_t, const Variant *> variantOf_;
  std::vector<std::shared_ptr<hal::Buffer>> buffers_;
  FixedContents fixed_;
  std::vector<uint64_t> guardOf_; // per buffer: 0 when it has none
  std::string guardNote_;
};

/// Records ops [first, end) of |prepared| into one command buffer, submits
/// it and waits; adds the counts to |result| when given.
Status submitOps(hal::Device &device, const PreparedFunction &prepared,
                 size_t first, size_t end, FunctionResult *result = nullptr);

/// Observers of a run (a checking layer attributing its messages): with
/// afterDispatch set, every op is submitted and waited for on its own, so
/// whatever the driver reports in between belongs to that dispatch.
struct RunHooks {
  std::function<void()> afterLoad;              // executables loaded
  std::function<void(size_t op)> afterDispatch; // Function::ops index
  /// With afterDispatch: the guard bands (PreparedFunction::create) to give
  /// the buffers, checked after each dispatch and told here.
  uint64_t guardBytes = 0;
  std::function<void(size_t op, const GuardDamage &)> guardDamaged;
  /// Why the run has no guard bands after all (PreparedFunction::guardNote).
  std::function<void(const std::string &why)> unguarded;
};

/// Runs |function| once, from its drawn inputs and the |fixed| ones.
StatusOr<FunctionResult> runFunction(hal::Device &device, const Module &module,
                                     const Function &function,
                                     VariantChoice choice,
                                     const FixedContents &fixed = {},
                                     const RunHooks &hooks = {});

} // namespace kb::module

#endif // KB_RUNTIME_MODULE_EXECUTOR_H_
