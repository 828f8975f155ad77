//===- runtime/hal/drivers/cuda/cuda_executable.cpp - Module load ---------===//
//
// cuModuleLoadDataEx with the JIT error and info logs captured, so that a PTX
// the driver rejects is reported with the driver's own words.
//
//===----------------------------------------------------------------------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

#include "common/ptx_reader.h"

#include <cstring>

namespace kb::hal::cuda {

namespace {
constexpr size_t kLogBytes = 16 * 1024;
constexpr uint32_t kDefaultDynamicSharedLimit = 48 * 1024;

std::string trimLog(const char *log) {
  std::string s(log, strnlen(log, kLogBytes));
  while (!s.empty() &&
         (s.back() == '\n' || s.back() == ' ' || s.back() == '\0'))
    s.pop_back();
  return s;
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
  // Untrusted input: check what we can before the driver sees it.
  std::string image(spec.data); // cuModuleLoadDataEx wants NUL-terminated PTX
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
  } else if (image.size() < 4 || std::memcmp(image.data(),
                                             "\x7f"
                                             "ELF",
                                             4) != 0) {
    return invalidArgument(where + ": a cubin must be an ELF file (ptxas "
                                   "-arch=sm_XX output)");
  }
  for (size_t i = 0; i < spec.exports.size(); ++i)
    KB_RETURN_IF_ERROR(checkExportFitsDevice(spec.name, i, spec.exports[i],
                                             device.properties().limits));

  std::unique_ptr<CudaExecutable> exe(new CudaExecutable(device, spec));
  const CudaSymbols &s = device.syms();
  std::vector<char> infoLog(kLogBytes, 0), errorLog(kLogBytes, 0);
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  void *values[] = {infoLog.data(), reinterpret_cast<void *>(kLogBytes),
                    errorLog.data(), reinterpret_cast<void *>(kLogBytes),
                    reinterpret_cast<void *>(uintptr_t(1))};
  CUresult r = s.cuModuleLoadDataEx(&exe->module_, image.c_str(),
                                    sizeof(options) / sizeof(options[0]),
                                    options, values);
  exe->infoLog_ = trimLog(infoLog.data());
  if (r != CUDA_SUCCESS) {
    std::string message =
        where + ": the CUDA driver rejected the module: " + s.describe(r);
    std::string err = trimLog(errorLog.data());
    message += err.empty() ? "\n(the JIT error log is empty)"
                           : "\nJIT error log:\n" + err;
    if (!exe->infoLog_.empty())
      message += "\nJIT info log:\n" + exe->infoLog_;
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU)
      message += "\n(the object was built for another architecture than "
                 "this device's sm_" +
                 std::to_string(device.properties().ccMajor) +
                 std::to_string(device.properties().ccMinor) + ")";
    exe->module_ = nullptr;
    return invalidArgument(message);
  }
  for (size_t i = 0; i < spec.exports.size(); ++i) {
    const KernelAbi &abi = spec.exports[i];
    CUfunction fn = nullptr;
    r = s.cuModuleGetFunction(&fn, exe->module_, abi.entry.c_str());
    if (r != CUDA_SUCCESS)
      return notFound(where + " export " + std::to_string(i) + ": kernel `" +
                      abi.entry + "` not found in the loaded module (" +
                      s.describe(r) + ")");
    // What the compiled kernel can launch with (registers, .maxntid) may be
    // below the device limit checked before the load: refuse here, with
    // the reason, rather than at cuLaunchKernel.
    int maxThreads = 0, staticShared = 0;
    KB_CU_RETURN_IF_ERROR(
        s,
        s.cuFuncGetAttribute(&maxThreads,
                             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn),
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
          where + " export " + std::to_string(i) + " (`" + abi.entry +
          "`): workgroup size of " + std::to_string(threads) +
          " threads, but the compiled kernel launches at most " +
          std::to_string(maxThreads) +
          " per block (register use or .maxntid); lower the workgroup size "
          "or the kernel's register use");
    if (uint64_t(staticShared) + abi.dynamicSharedMemoryBytes >
        device.properties().limits.maxSharedMemoryBytes)
      return invalidArgument(
          where + " export " + std::to_string(i) + " (`" + abi.entry +
          "`): " + std::to_string(staticShared) + " bytes of static and " +
          std::to_string(abi.dynamicSharedMemoryBytes) +
          " bytes of dynamic shared memory exceed the device limit of " +
          std::to_string(device.properties().limits.maxSharedMemoryBytes));
    if (abi.dynamicSharedMemoryBytes > kDefaultDynamicSharedLimit)
      KB_CU_RETURN_IF_ERROR(
          s,
          s.cuFuncSetAttribute(fn,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(abi.dynamicSharedMemoryBytes)),
          where + ": cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    exe->functions_.push_back(fn);
  }
  return std::shared_ptr<Executable>(std::move(exe));
}

CudaExecutable::~CudaExecutable() {
  if (module_) {
    (void)device_.makeCurrent();
    (void)device_.syms().cuModuleUnload(module_);
  }
}

} // namespace kb::hal::cuda
