//===- runtime/hal/cts/cts_support.cpp - Conformance-suite helpers --------===//
#include "runtime/hal/cts/cts_support.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kb::hal::cts {

std::string kernelDir() {
  if (const char *env = std::getenv("KB_CTS_KERNEL_DIR"))
    return env;
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  auto besideBinary = exe.parent_path() / "kernels";
  if (std::filesystem::is_directory(besideBinary, ec))
    return besideBinary.string();
  return KB_CTS_BUILD_KERNEL_DIR;
}

KernelAbi kernelAbi(const std::string &driver, const std::string &name) {
  KernelAbi abi;
  bool vulkan = driver == "vulkan";
  abi.entry = vulkan ? "main" : name;
  if (name == "double_plus_one") {
    abi.bindings = {{"a", ElementType::U32, Access::ReadOnly},
                    {"b", ElementType::U32, Access::WriteOnly}};
    abi.constants = {{"n", ScalarType::U32}};
    abi.workgroupSize = {64, 1, 1};
  } else if (name == "constants") {
    abi.bindings = {{"o", ElementType::U32, Access::WriteOnly}};
    abi.constants = {{"a", ScalarType::I32}, {"b", ScalarType::U32},
                     {"c", ScalarType::F32}, {"d", ScalarType::I64},
                     {"e", ScalarType::U64}, {"f", ScalarType::F64}};
  } else if (name == "fault") {
    abi.bindings = {{"p", ElementType::U32, Access::ReadWrite}};
  } else if (name == "spin") {
    abi.bindings = {{"flag", ElementType::U32, Access::ReadWrite}};
  } else if (name == "big_shared") {
    abi.bindings = {{"o", ElementType::U32, Access::WriteOnly}};
    abi.workgroupSize = {64, 1, 1};
  } else if (name == "workgroup_info") {
    // Unspecialized: local_size_x_id's default, 1.
    abi.bindings = {{"o", ElementType::U32, Access::WriteOnly}};
  }
  return abi;
}

StatusOr<std::string> readKernelFile(const std::string &driver,
                                     const std::string &name, bool cubin) {
  std::string file = driver == "vulkan" ? name + ".spv"
                                        : (cubin ? "cts_kernels.sm_90.cubin"
                                                 : "cts_kernels.ptx");
  std::string path = kernelDir() + "/" + file;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return notFound(
        path + " is missing: " + (driver == "vulkan" ? "glslc" : "nvcc/ptxas") +
        " was not found when this build was configured");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ExecutableSpec kernelSpec(const std::string &driver, const std::string &name,
                          const std::string &data, bool cubin) {
  ExecutableSpec spec;
  spec.name = "cts_" + name;
  spec.format = driver == "vulkan"
                    ? ExecutableFormat::Spirv
                    : (cubin ? ExecutableFormat::Cubin : ExecutableFormat::Ptx);
  spec.target = driver == "vulkan" ? "vulkan1.1" : (cubin ? "sm_90" : "sm_75");
  spec.data = data;
  spec.exports = {kernelAbi(driver, name)};
  return spec;
}

} // namespace kb::hal::cts
