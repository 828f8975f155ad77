//===- workbench/project/fuzz/toml_fuzzer.cpp - libFuzzer: ----------------===//
//
// Any bytes as a kernel.toml (KB_FUZZ_KERNEL_TOML) or a workbench.toml
// (KB_FUZZ_WORKBENCH_TOML) must load or give an error: no crash, no hang, no
// sanitizer report, no exception escaping. The loaders read files, so each
// input is written into a private directory first; for workbench.toml that
// directory also holds a valid kernel `k` the project may name.
//
//===----------------------------------------------------------------------===//
#include "workbench/project/kernel_toml.h"
#include "workbench/project/workbench_toml.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const fs::path &scratch() {
  static const fs::path dir = [] {
    std::string base = fs::exists("/dev/shm") ? "/dev/shm" : "/tmp";
    std::string pattern = base + "/kb-toml-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      std::abort();
    fs::path root(pattern);
    fs::create_directories(root / "p" / "k");
    std::ofstream(root / "p" / "k" / "kernel.toml")
        << "[kernel]\nname = \"k\"\nsources = [\"k.comp\"]\n\n[abi]\n"
           "workgroup_size = [64, 1, 1]\nbindings = [{ name = \"x\", type = "
           "\"f32\", access = \"readonly\" }]\n";
    std::ofstream(root / "p" / "k" / "k.comp") << "#version 450\n";
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch(), ec);
    });
    return root;
  }();
  return dir;
}

void write(const fs::path &file, const uint8_t *data, size_t size) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(data), std::streamsize(size));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
#if defined(KB_FUZZ_KERNEL_TOML)
  fs::create_directories(scratch() / "f");
  fs::path manifest = scratch() / "f" / "kernel.toml";
  write(manifest, data, size);
  auto target = kb::Target::parse("cuda:sm_90");
  auto kernel = kb::workbench::loadKernel(manifest, {*target});
  (void)kernel;
#elif defined(KB_FUZZ_WORKBENCH_TOML)
  write(scratch() / "p" / "workbench.toml", data, size);
  auto project = kb::workbench::loadProject(scratch() / "p");
  (void)project;
#else
#error "define KB_FUZZ_KERNEL_TOML or KB_FUZZ_WORKBENCH_TOML"
#endif
  return 0;
}
