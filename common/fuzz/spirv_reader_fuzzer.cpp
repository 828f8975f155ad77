//===- common/fuzz/spirv_reader_fuzzer.cpp - libFuzzer: the SPIR-V reader -===//
//
// Any byte string must give a module or a clear error: no crash, no hang, no
// sanitizer report. An accepted module goes through the ABI check.
//
//===----------------------------------------------------------------------===//
#include "common/abi_check.h"
#include "common/fuzz/fuzz_abi.h"
#include "common/spirv_reader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto spirv = kb::readSpirvBytes(
      std::string_view(reinterpret_cast<const char *>(data), size));
  if (!spirv.ok())
    return 0;
  kb::formatMismatches(kb::checkSpirvAbi(*spirv, fuzzAbi("main")));
  return 0;
}
