//===- workbench/support/output_lock.h - One build per output directory ---===//
//
// Two builds into one output directory used to corrupt each other (one
// removed the other's staging files, a failed job removed the other's
// published outputs). A build holds an flock on `<out>/.kernel-bench.lock`
// from before it touches anything there until it has written build.json;
// a second build finds the holder's pid in /proc/locks to say whom it waits
// for (the file stays empty: locking writes nothing). flock locks die with
// their process: a killed build never leaves the directory locked.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_SUPPORT_OUTPUT_LOCK_H_
#define KB_WORKBENCH_SUPPORT_OUTPUT_LOCK_H_

#include "common/status.h"

#include <filesystem>
#include <functional>
#include <string>

namespace kb::workbench {

class OutputLock {
public:
  static constexpr const char kFileName[] = ".kernel-bench.lock";

  /// Locks |outDir| (which must exist). When another process holds it:
  /// with |wait|, calls |onWait| once with a message naming the holder's pid
  /// and blocks until it is released; without, fails at once with
  /// Unavailable naming the holder.
  static StatusOr<OutputLock>
  acquire(const std::filesystem::path &outDir, bool wait,
          const std::function<void(const std::string &)> &onWait);

  OutputLock(OutputLock &&other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OutputLock &operator=(OutputLock &&) = delete;
  OutputLock(const OutputLock &) = delete;
  OutputLock &operator=(const OutputLock &) = delete;
  ~OutputLock();

private:
  explicit OutputLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_SUPPORT_OUTPUT_LOCK_H_
