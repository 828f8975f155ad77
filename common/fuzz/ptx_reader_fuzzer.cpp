//===- common/fuzz/ptx_reader_fuzzer.cpp - libFuzzer: the PTX reader -----===//
//
// Any text must give a module or a clear error: no crash, no hang, no
// sanitizer report. Every entry of an accepted module goes through the ABI
// check.
//
//===----------------------------------------------------------------------===//
#include "common/abi_check.h"
#include "common/fuzz/fuzz_abi.h"
#include "common/ptx_reader.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto ptx =
      kb::readPtx(std::string_view(reinterpret_cast<const char *>(data), size));
  if (!ptx.ok())
    return 0;
  for (const auto &entry : ptx->entries) {
    kb::resolvePtxEntry(*ptx, entry.name);
    kb::formatMismatches(kb::checkPtxAbi(*ptx, fuzzAbi(entry.name)));
  }
  kb::checkPtxAbi(*ptx, fuzzAbi("saxpy"));
  return 0;
}
