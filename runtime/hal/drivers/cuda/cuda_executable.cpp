//===- runtime/hal/drivers/cuda/cuda_executable.cpp - Module load ---------===//
//
// cuModuleLoadDataEx with the JIT error and info logs captured, so that a PTX
// the driver rejects is reported with the driver's own words.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

#include "common/ptx_reader.h"

#include <algorithm>
#include <cstring>

namespace kb::hal::cuda {

namespace {
constexpr size_t kLogBytes = 16 * 1024;

std::string trimLog(const char *log) {
  std::string s(log, strnlen(log, kLogBytes));
  while (!s.empty() &&
         (s.back() == '\n' || s.back() == ' ' || s.back() == '\0'))
    s.pop_back();
  return s;
}

/// The newest PTX ISA a driver of |driverVersion| (cuDriverGetVersion)
/// JIT-compiles, from the PTX ISA release notes; "" when not known.
std::string maxPtxIsa(int driverVersion) {
  static const struct {
    int driver;
    const char *isa;
  } kTable[] = {{13000, "9.0"}, {12090, "8.8"}, {12080, "8.7"}, {12060, "8.5"},
                {12050, "8.5"}, {12040, "8.4"}, {12030, "8.3"}, {12020, "8.2"},
                {12010, "8.1"}, {12000, "8.0"}};
  for (const auto &row : kTable)
    if (driverVersion >= row.driver)
      return row.isa;
  return "";
}

std::string cudaVersionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

/// CUDA_ERROR_UNSUPPORTED_PTX_VERSION: which ISA the module has, which the
/// driver takes, and the ways out.
std::string unsupportedPtxMessage(const std::string &moduleIsa,
                                  int driverVersion) {
  std::string takes = maxPtxIsa(driverVersion);
  return "\nthe module is PTX ISA " +
         (moduleIsa.empty() ? std::string("(unknown)") : moduleIsa) +
         " (its .version line), but this driver (CUDA " +
         cudaVersionText(driverVersion) + ") takes PTX ISA " +
         (takes.empty() ? std::string("older than 8.0") : takes + " at most") +
         ": build the PTX with a toolkit no newer than the driver (or nvcc "
         "-arch=compute_XX of that toolkit), ship a cubin built by ptxas for "
         "this GPU, or update the NVIDIA driver";
}

} // namespace

StatusOr<std::shared_ptr<Executable>>
CudaExecutable::create(CudaDevice &device, const ExecutableSpec &spec) {
  std::string where = "executable `" + spec.name + "` (" +
                      toString(spec.format) + ", " + spec.target + ")";
  if (spec.format == ExecutableFormat::Spirv)
    return unimplemented(where + ": the CUDA driver loads PTX or cubin, not "
                                 "SPIR-V");
  if (spec.exports.empty())
    return invalidArgument(where + ": no exports");
  if (spec.data.empty())
    return invalidArgument(where + ": empty " + toString(spec.format));
  for (size_t i = 0; i < spec.exports.size(); ++i) {
    KB_RETURN_IF_ERROR(checkExportFitsDevice(spec.name, i, spec.exports[i],
                                             device.properties().limits));
    KB_RETURN_IF_ERROR(
        checkSubgroupSize(spec.name, i, spec.exports[i], device.properties()));
  }
  std::unique_ptr<CudaExecutable> exe(new CudaExecutable(device, spec));
  KB_RETURN_IF_ERROR(exe->load(spec, where));
  const CudaSymbols &s = device.syms();
  for (size_t i = 0; i < spec.exports.size(); ++i) {
    const KernelAbi &abi = spec.exports[i];
    CUfunction fn = nullptr;
    CUresult r = s.cuModuleGetFunction(&fn, exe->module_, abi.entry.c_str());
    if (r != CUDA_SUCCESS)
      return notFound(where + " export " + std::to_string(i) + ": kernel `" +
                      abi.entry + "` not found in the loaded module (" +
                      s.describe(r) + ")");
    KB_RETURN_IF_ERROR(exe->prepareFunction(i, abi, fn, where));
    exe->functions_.push_back(fn);
    exe->paramSlots_.push_back(cudaParamLayout(abi));
    exe->constantSlots_.push_back(pushConstantLayout(abi));
  }
  return std::shared_ptr<Executable>(std::move(exe));
}

Status CudaExecutable::load(const ExecutableSpec &spec,
                            const std::string &where) {
  // Untrusted input: check what we can before the driver sees it.
  std::string image(spec.data); // cuModuleLoadDataEx wants NUL-terminated PTX
  std::string ptxIsa;
  if (spec.format == ExecutableFormat::Ptx) {
    if (image.find('\0') != std::string::npos)
      return invalidArgument(where + ": PTX text contains a NUL byte");
    auto ptx = readPtx(image);
    if (!ptx.ok())
      return ptx.status().withContext(where);
    for (size_t i = 0; i < spec.exports.size(); ++i)
      if (!ptx->findEntry(spec.exports[i].entry))
        return notFound(where + " export " + std::to_string(i) +
                        ": the PTX has no .entry `" + spec.exports[i].entry +
                        "`");
    ptxIsa = ptx->version;
  } else if (image.size() < 4 || std::memcmp(image.data(),
                                             "\x7f"
                                             "ELF",
                                             4) != 0) {
    return invalidArgument(where + ": a cubin must be an ELF file (ptxas "
                                   "-arch=sm_XX output)");
  }
  const CudaSymbols &s = device_.syms();
  std::vector<char> infoLog(kLogBytes, 0), errorLog(kLogBytes, 0);
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  void *values[] = {infoLog.data(), reinterpret_cast<void *>(kLogBytes),
                    errorLog.data(), reinterpret_cast<void *>(kLogBytes),
                    reinterpret_cast<void *>(uintptr_t(1))};
  CUresult r = s.cuModuleLoadDataEx(&module_, image.c_str(),
                                    sizeof(options) / sizeof(options[0]),
                                    options, values);
  infoLog_ = trimLog(infoLog.data());
  if (r == CUDA_SUCCESS)
    return okStatus();
  module_ = nullptr;
  Status checked = device_.check(r, "cuModuleLoadDataEx");
  if (device_.lost())
    return checked.withContext(where);
  std::string message =
      where + ": the CUDA driver rejected the module: " + s.describe(r);
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    message += unsupportedPtxMessage(ptxIsa, device_.driverVersion());
  std::string err = trimLog(errorLog.data());
  message += err.empty() ? "\n(the JIT error log is empty)"
                         : "\nJIT error log:\n" + err;
  if (!infoLog_.empty())
    message += "\nJIT info log:\n" + infoLog_;
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU)
    message += "\n(the object was built for another architecture than "
               "this device's sm_" +
               std::to_string(device_.properties().ccMajor) +
               std::to_string(device_.properties().ccMinor) + ")";
  return invalidArgument(message);
}

Status CudaExecutable::prepareFunction(size_t index, const KernelAbi &abi,
                                       CUfunction fn,
                                       const std::string &where) {
  const CudaSymbols &s = device_.syms();
  std::string what =
      where + " export " + std::to_string(index) + " (`" + abi.entry + "`)";
  // What the compiled kernel can launch with (registers, .maxntid) may be
  // below the device limit checked before the load: refuse here, with the
  // reason, rather than at cuLaunchKernel.
  int maxThreads = 0, staticShared = 0, maxDynamicShared = 0;
  KB_CU_RETURN_IF_ERROR(
      s,
      s.cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                           fn),
      where + ": cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  KB_CU_RETURN_IF_ERROR(
      s,
      s.cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                           fn),
      where + ": cuFuncGetAttribute(SHARED_SIZE_BYTES)");
  uint64_t threads = uint64_t(abi.workgroupSize[0]) * abi.workgroupSize[1] *
                     abi.workgroupSize[2];
  if (maxThreads > 0 && threads > uint64_t(maxThreads))
    return invalidArgument(
        what + ": workgroup size of " + std::to_string(threads) +
        " threads, but the compiled kernel launches at most " +
        std::to_string(maxThreads) +
        " per block (register use or .maxntid); lower the workgroup size "
        "or the kernel's register use");
  // The per-block limit covers static and dynamic shared memory together
  // (MAX_SHARED_MEMORY_PER_BLOCK_OPTIN): checked here, at load, so no
  // dispatch of an export that cannot launch is ever recorded.
  uint32_t limit = device_.properties().limits.maxSharedMemoryBytes;
  if (uint64_t(staticShared) + abi.dynamicSharedMemoryBytes > limit)
    return invalidArgument(
        what + ": " + std::to_string(staticShared) + " bytes of static and " +
        std::to_string(abi.dynamicSharedMemoryBytes) +
        " bytes of dynamic shared memory exceed the device's per-block limit "
        "of " +
        std::to_string(limit) +
        " bytes (MAX_SHARED_MEMORY_PER_BLOCK_OPTIN); use less shared memory");
  // Without opt-in a kernel may use 48 KiB of shared memory in all, static
  // included, so the dynamic budget it starts with is what the attribute
  // says (48 KiB minus the static part), not 48 KiB: raise it whenever the
  // request exceeds it (the sum was checked against the opt-in limit).
  KB_CU_RETURN_IF_ERROR(
      s,
      s.cuFuncGetAttribute(&maxDynamicShared,
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn),
      where + ": cuFuncGetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  if (abi.dynamicSharedMemoryBytes > uint64_t(std::max(maxDynamicShared, 0)))
    KB_CU_RETURN_IF_ERROR(
        s,
        s.cuFuncSetAttribute(fn,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(abi.dynamicSharedMemoryBytes)),
        what + ": cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
            std::to_string(abi.dynamicSharedMemoryBytes) + ")");
  return checkParameters(index, abi, fn, what);
}

Status CudaExecutable::checkParameters(size_t, const KernelAbi &abi,
                                       CUfunction fn, const std::string &what) {
  const CudaSymbols &s = device_.syms();
  if (!s.cuFuncGetParamInfo) {
    // A cubin carries no readable parameter list of ours (PTX was read
    // before the load), so without the driver's answer nothing checks it.
    addLoadNote(what +
                ": kernel parameters not checked against the ABI: the driver "
                "(CUDA " +
                cudaVersionText(device_.driverVersion()) +
                ") has no cuFuncGetParamInfo (CUDA 12.4 or newer has it)");
    return okStatus();
  }
  std::vector<ParamSlot> slots = cudaParamLayout(abi);
  for (size_t i = 0; i <= slots.size(); ++i) {
    size_t offset = 0, size = 0;
    CUresult r = s.cuFuncGetParamInfo(fn, i, &offset, &size);
    if (i == slots.size()) {
      if (r == CUDA_SUCCESS)
        return invalidArgument(
            what + ": the kernel takes more than the " +
            std::to_string(slots.size()) + " parameters the ABI declares (" +
            std::to_string(abi.bindings.size()) + " bindings, " +
            std::to_string(abi.constants.size()) + " constants); parameter " +
            std::to_string(i) + " is at offset " + std::to_string(offset) +
            ", " + std::to_string(size) + " bytes");
      break;
    }
    std::string label = describeSlot(abi, slots[i].slot);
    if (r == CUDA_ERROR_INVALID_VALUE)
      return invalidArgument(what + ": the kernel takes " + std::to_string(i) +
                             " parameters, the ABI declares " +
                             std::to_string(slots.size()) + "; " + label +
                             " has no parameter");
    KB_CU_RETURN_IF_ERROR(s, r, what + ": cuFuncGetParamInfo");
    if (offset != slots[i].offset || size != slots[i].size)
      return invalidArgument(
          what + ": parameter " + std::to_string(i) + " (" + label +
          "): expected offset " + std::to_string(slots[i].offset) + ", " +
          std::to_string(slots[i].size) + " bytes, found offset " +
          std::to_string(offset) + ", " + std::to_string(size) + " bytes");
  }
  return okStatus();
}

CudaExecutable::~CudaExecutable() {
  if (module_) {
    (void)device_.makeCurrent();
    (void)device_.syms().cuModuleUnload(module_);
  }
}

} // namespace kb::hal::cuda
