//===- runtime/bench/clock_stamp.cpp - SM clock per sample ----------------===//
#include "runtime/bench/clock_stamp.h"

#include <algorithm>

namespace kb::bench {

KernelAbi clockStampAbi() {
  KernelAbi abi;
  abi.entry = "kb_clock_stamp";
  abi.bindings = {{"out", ElementType::U64, Access::WriteOnly}};
  abi.constants = {{"slot", ScalarType::U32}};
  abi.workgroupSize = {1, 1, 1};
  return abi;
}

uint32_t clockStampBlocks(uint32_t computeUnits) {
  constexpr uint32_t kUnknownSmCountBlocks = 1024;
  return computeUnits ? computeUnits : kUnknownSmCountBlocks;
}

std::optional<double> clockFromStamps(uint64_t beginNs, uint64_t beginCycles,
                                      uint64_t endNs, uint64_t endCycles) {
  if (beginNs == 0 || endNs == 0 || endNs <= beginNs || endCycles < beginCycles)
    return std::nullopt;
  return double(endCycles - beginCycles) / (double(endNs - beginNs) * 1e-9);
}

bool ThrottleRule::accept(double clockHz) {
  if (defaultClockHz_ <= 0 || clockHz >= threshold_ * defaultClockHz_) {
    consecutive_ = 0;
    delayS_ = 0.05;
    return true;
  }
  if (++consecutive_ > 2)
    delayS_ = std::min(1.5 * delayS_, 0.5);
  return false;
}

} // namespace kb::bench
