//===- runtime/hal/drivers/cuda/cupti_fake.h - Recording fake of CUPTI ----===//
//
// A test double of the CUPTI entry points the counter sessions use
// (cupti_symbols.h), as FakeCuda is of the driver: each call answers from a
// script and is recorded, so the session's protocol (initialize, the host's
// configuration, enable, one Start/Stop per pass until every pass is
// submitted, decode, evaluate each kernel, and the teardown on every path) is
// checked where no GPU or libcupti exists. It keeps no CUPTI type in this
// header, so a test can include it beside FakeCuda's.
//
// Function pointers carry no state, so one FakeCupti is live at a time.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_FAKE_H_
#define KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_FAKE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb::hal::cuda {
struct CuptiSymbols;
} // namespace kb::hal::cuda

namespace kb::hal::cuda::testing {

class FakeCupti {
public:
  FakeCupti();
  ~FakeCupti();
  FakeCupti(const FakeCupti &) = delete;
  FakeCupti &operator=(const FakeCupti &) = delete;

  /// A table with every entry pointing at this fake.
  std::shared_ptr<const CuptiSymbols> symbols() const;

  // The script.
  /// Passes the configuration needs: the Nth Stop (1-based) reports every
  /// pass submitted.
  unsigned passes = 2;
  /// The call (by CUPTI's name) that fails with
  /// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, as on a host that restricts
  /// counters to administrators; empty: none.
  std::string refuse;
  /// The kernels each pass counts (one range each, as in auto-range mode),
  /// and what EvaluateToGpuValues gives for each metric of each; a metric
  /// missing here fails with CUPTI_ERROR_INVALID_METRIC_NAME.
  std::vector<std::map<std::string, double>> kernels;
  /// Told every call's name, in order (to interleave with FakeCuda's log).
  std::function<void(const char *fn)> onCall;

  // What happened.
  /// Every call: its name, and for EvaluateToGpuValues the range's index
  /// after a space.
  std::vector<std::string> calls;
  /// The metrics ConfigAddMetrics was given.
  std::vector<std::string> configuredMetrics;
  /// The context Enable and GetCounterAvailability were given.
  void *context = nullptr;
  size_t deviceIndex = ~size_t(0);

  size_t count(const std::string &fn) const;
  /// Every call, one per line, for failure messages.
  std::string trace() const;

  // State the fake functions share (public for them).
  unsigned stops = 0;
  int open = 0; // Start without Stop
};

} // namespace kb::hal::cuda::testing

#endif // KB_RUNTIME_HAL_DRIVERS_CUDA_CUPTI_FAKE_H_
