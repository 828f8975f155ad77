//===- common/status.h - Status and StatusOr for non-MLIR code -----------===//
//
// The error currency of common/, toolchains/, runtime/ and workbench/. The
// codes follow absl/IREE. `Unavailable` is reserved for "this backend, device
// or tool is not present": callers and tests branch on it (skip rather than
// fail), so it must never mean anything else.
//
// Header-only and exception-free so that compiler/ (built with LLVM's
// -fno-exceptions -fno-rtti) can use the shared readers that return it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_STATUS_H_
#define KB_COMMON_STATUS_H_

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kb {

enum class StatusCode {
  Ok = 0,
  InvalidArgument,
  NotFound,
  AlreadyExists,
  FailedPrecondition,
  OutOfRange,
  Unavailable,
  Unimplemented,
  Internal,
  DeadlineExceeded,
  ResourceExhausted,
  Aborted,
  DataLoss,
  /// Well-formed, but something kernel-bench will not do whatever the
  /// source (a password in a URL that logs and records would show): the
  /// commands report it as a usage error.
  PermissionDenied,
};

/// Returns the lower-case name of |code| ("invalid argument", ...).
inline const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "ok";
  case StatusCode::InvalidArgument:
    return "invalid argument";
  case StatusCode::NotFound:
    return "not found";
  case StatusCode::AlreadyExists:
    return "already exists";
  case StatusCode::FailedPrecondition:
    return "failed precondition";
  case StatusCode::OutOfRange:
    return "out of range";
  case StatusCode::Unavailable:
    return "unavailable";
  case StatusCode::Unimplemented:
    return "unimplemented";
  case StatusCode::Internal:
    return "internal";
  case StatusCode::DeadlineExceeded:
    return "deadline exceeded";
  case StatusCode::ResourceExhausted:
    return "resource exhausted";
  case StatusCode::Aborted:
    return "aborted";
  case StatusCode::DataLoss:
    return "data loss";
  case StatusCode::PermissionDenied:
    return "permission denied";
  }
  return "unknown";
}

/// A success or an error code with a human-readable message. The message is
/// what the user sees: it names the file/thing, what was expected, what was
/// found and what to do.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }
  bool isUnavailable() const { return code_ == StatusCode::Unavailable; }

  /// "message" for errors, "ok" for success.
  std::string toString() const { return ok() ? "ok" : message_; }

  /// Returns a copy whose message is "|prefix|: message" (context added
  /// while an error propagates upwards).
  Status withContext(std::string_view prefix) const {
    if (ok())
      return *this;
    return Status(code_, std::string(prefix) + ": " + message_);
  }

  /// Explicitly drops an error (cleanup paths, destructors).
  void ignoreError() const {}

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

inline Status okStatus() { return Status(); }
inline Status invalidArgument(std::string m) {
  return Status(StatusCode::InvalidArgument, std::move(m));
}
inline Status notFound(std::string m) {
  return Status(StatusCode::NotFound, std::move(m));
}
inline Status failedPrecondition(std::string m) {
  return Status(StatusCode::FailedPrecondition, std::move(m));
}
inline Status outOfRange(std::string m) {
  return Status(StatusCode::OutOfRange, std::move(m));
}
inline Status unavailable(std::string m) {
  return Status(StatusCode::Unavailable, std::move(m));
}
inline Status unimplemented(std::string m) {
  return Status(StatusCode::Unimplemented, std::move(m));
}
inline Status internalError(std::string m) {
  return Status(StatusCode::Internal, std::move(m));
}
inline Status deadlineExceeded(std::string m) {
  return Status(StatusCode::DeadlineExceeded, std::move(m));
}
inline Status resourceExhausted(std::string m) {
  return Status(StatusCode::ResourceExhausted, std::move(m));
}
inline Status dataLoss(std::string m) {
  return Status(StatusCode::DataLoss, std::move(m));
}
inline Status permissionDenied(std::string m) {
  return Status(StatusCode::PermissionDenied, std::move(m));
}

/// A value or an error Status. Accessing the value of an error aborts (an
/// internal invariant, never a user-input check).
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(Status status) : status_(std::move(status)) {
    if (status_.ok())
      std::abort(); // An ok Status carries no value.
  }
  StatusOr(T value) : value_(std::move(value)) {}
  template <typename U, typename = std::enable_if_t<
                            std::is_convertible_v<U &&, T> &&
                            !std::is_same_v<std::decay_t<U>, T> &&
                            !std::is_same_v<std::decay_t<U>, Status>>>
  StatusOr(U &&value) : value_(T(std::forward<U>(value))) {}

  bool ok() const { return status_.ok(); }
  const Status &status() const { return status_; }

  T &value() & { return checked(); }
  const T &value() const & { return const_cast<StatusOr *>(this)->checked(); }
  T &&value() && { return std::move(checked()); }
  T &operator*() & { return checked(); }
  const T &operator*() const & {
    return const_cast<StatusOr *>(this)->checked();
  }
  T *operator->() { return &checked(); }
  const T *operator->() const {
    return &const_cast<StatusOr *>(this)->checked();
  }

private:
  T &checked() {
    if (!value_)
      std::abort();
    return *value_;
  }
  Status status_;
  std::optional<T> value_;
};

} // namespace kb

#define KB_STATUS_CONCAT_INNER_(a, b) a##b
#define KB_STATUS_CONCAT_(a, b) KB_STATUS_CONCAT_INNER_(a, b)

/// Returns the Status of |expr| from the enclosing function if it is an error.
#define KB_RETURN_IF_ERROR(expr)                                               \
  do {                                                                         \
    ::kb::Status kb_status_ = (expr);                                          \
    if (!kb_status_.ok())                                                      \
      return kb_status_;                                                       \
  } while (false)

/// `KB_ASSIGN_OR_RETURN(auto x, makeX());` — binds the value or returns the
/// error.
#define KB_ASSIGN_OR_RETURN(lhs, expr)                                         \
  KB_ASSIGN_OR_RETURN_IMPL_(KB_STATUS_CONCAT_(kb_statusor_, __LINE__), lhs,    \
                            expr)
#define KB_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)                              \
  auto tmp = (expr);                                                           \
  if (!tmp.ok())                                                               \
    return tmp.status();                                                       \
  lhs = std::move(tmp).value()

#endif // KB_COMMON_STATUS_H_
