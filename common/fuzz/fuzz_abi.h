//===- common/fuzz/fuzz_abi.h - The ABI the reader fuzzers check against -===//
//
// A fixed declared ABI with every kind of binding and constant, so a module
// the reader accepts also exercises each comparison of the ABI check.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_FUZZ_FUZZ_ABI_H_
#define KB_COMMON_FUZZ_FUZZ_ABI_H_

#include "common/kernel_abi.h"

#include <string>

inline kb::KernelAbi fuzzAbi(const std::string &entry) {
  kb::KernelAbi abi;
  abi.entry = entry;
  abi.bindings = {{"x", kb::ElementType::F32, kb::Access::ReadOnly},
                  {"y", kb::ElementType::F32, kb::Access::ReadWrite}};
  abi.constants = {{"a", kb::ScalarType::F32}, {"n", kb::ScalarType::U32}};
  abi.workgroupSize = {256, 1, 1};
  return abi;
}

#endif // KB_COMMON_FUZZ_FUZZ_ABI_H_
