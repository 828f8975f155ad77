//===- DeviceRun.h - one dispatch of a generated binary on a HAL device ---===//
#ifndef KB_LIB_TESTING_DEVICERUN_H_
#define KB_LIB_TESTING_DEVICERUN_H_

#include "common/kernel_abi.h"
#include "common/status.h"
#include "runtime/hal/executable.h"

#include <array>
#include <cstdint>
#include <vector>

namespace kb::hal {
class Device;
} // namespace kb::hal

namespace kb::differential {

/// Loads |spec| (one export, |abi|) on |device|, uploads |buffers|,
/// dispatches |workgroupCount| workgroups with |constants| (each constant's
/// bits, packed per kb::pushConstantLayout), waits, and downloads every
/// buffer back into |buffers|.
Status runOnDevice(hal::Device &device, const hal::ExecutableSpec &spec,
                   const KernelAbi &abi, const std::vector<uint64_t> &constants,
                   std::array<uint32_t, 3> workgroupCount,
                   std::vector<std::vector<uint8_t>> &buffers);

} // namespace kb::differential

#endif // KB_LIB_TESTING_DEVICERUN_H_
