//===- runtime/hal/validation_log.h - A validation layer's messages -------===//
//
// Where a driver's checking layer (the Khronos validation layer on Vulkan)
// puts its messages when the caller wants to attribute them rather than see
// them on stderr: `run --sanitize` drains it after each dispatch, so every
// finding names the dispatch that caused it. The layer calls from its own
// threads (GPU-assisted validation reports when the queue work completes), so
// it is guarded by a mutex.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_VALIDATION_LOG_H_
#define KB_RUNTIME_HAL_VALIDATION_LOG_H_

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kb::hal {

struct ValidationMessage {
  bool error = false; // else a warning, or:
  bool info = false;  // information (debugPrintfEXT's lines come as such)
  std::string text;
};

class ValidationLog {
public:
  void add(bool error, bool info, std::string text) {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back({error, info, std::move(text)});
  }
  /// The messages since the last take(), oldest first.
  std::vector<ValidationMessage> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(messages_, {});
  }

private:
  std::mutex mutex_;
  std::vector<ValidationMessage> messages_;
};

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_VALIDATION_LOG_H_
