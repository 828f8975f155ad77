//===- runtime/hal/drivers/cuda/cuda_fake_symbols.h - Recording fake ------===//
//
// A test double of the CUDA driver API: a CudaSymbols table whose entries
// answer from a script and record every call (name and the arguments worth
// checking: stream, flags, attribute, size). The driver's ordering rules
// (copies on the device's stream, event records under graph capture, the
// shared-memory opt-in, synchronizing before reporting an issue error) are
// checked against it on machines without a GPU; the real driver runs the
// same HAL tests on a GPU host.
//
// Function pointers carry no state, so one FakeCuda is live at a time (its
// constructor installs it; tests are single-threaded). Recording does not
// allocate while |calls| has capacity left, so allocation counts of the
// driver's own hot path can be measured around it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_FAKE_SYMBOLS_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_FAKE_SYMBOLS_H_

#include "runtime/hal/drivers/cuda/cuda_symbols.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb::hal::cuda::testing {

struct FakeCall {
  const char *fn = "";
  uint64_t a = 0, b = 0, c = 0;
};

class FakeCuda {
public:
  FakeCuda();
  ~FakeCuda();
  FakeCuda(const FakeCuda &) = delete;
  FakeCuda &operator=(const FakeCuda &) = delete;

  /// A table with every entry pointing at this fake (cuFuncGetParamInfo
  /// only when |paramInfoAvailable|).
  CudaSymbols symbols() const;

  // The script.
  int driverVersion = 13000;
  int staticSharedBytes = 0;
  /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES before any opt-in.
  int maxDynamicSharedBytes = 48 * 1024;
  int sharedOptinBytes = 227 * 1024;
  int maxThreadsPerFunction = 1024;
  /// CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT (0: unknown).
  int multiprocessorCount = 0;
  CUresult memAllocResult = CUDA_SUCCESS;
  CUresult moduleLoadResult = CUDA_SUCCESS;
  CUresult streamSyncResult = CUDA_SUCCESS;
  /// The result of the Nth cuLaunchKernel (0-based) of the process's fake;
  /// success when absent.
  std::map<unsigned, CUresult> launchResults;
  bool paramInfoAvailable = true;
  /// What cuFuncGetParamInfo reports for every function: (offset, size).
  std::vector<std::pair<size_t, size_t>> params;
  /// What the Nth cuEventElapsedTime (0-based) reports, in ms; 0.25 when
  /// absent.
  std::map<unsigned, float> elapsedMs;

  // What happened.
  std::vector<FakeCall> calls;
  unsigned launches = 0;

  size_t count(std::string_view fn) const;
  /// Index of the first call of |fn| at or after |from|; npos when none.
  size_t find(std::string_view fn, size_t from = 0) const;
  /// Every call, one per line, for failure messages.
  std::string trace() const;

  // State the fake functions share (public for them; tests read it).
  struct Event {
    bool recorded = false;
    bool capturedInternal = false; // plain record under capture: no node
  };
  std::vector<Event> events; // by handle - 1
  /// Per graph (handle - 1; a graph's exec shares its handle): the events
  /// of its event-record nodes.
  std::vector<std::vector<size_t>> graphs;
  bool capturing = false;
  uint64_t nextPointer = 0x10000;

  static FakeCuda *current;
};

} // namespace kb::hal::cuda::testing

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUDA_FAKE_SYMBOLS_H_
