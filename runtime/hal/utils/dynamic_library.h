//===- runtime/hal/utils/dynamic_library.h - dlopen RAII ------------------===//
//
// Vendor libraries are loaded at run time, never linked (docs/architecture.md).
// A library that is not there is Unavailable with dlerror()'s reason.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_HAL_UTILS_DYNAMIC_LIBRARY_H_
#define KB_RUNTIME_HAL_UTILS_DYNAMIC_LIBRARY_H_

#include "common/status.h"

#include <string>

namespace kb::hal {

/// Move-only owner of a dlopen handle.
class DynamicLibrary {
public:
  DynamicLibrary() = default;
  DynamicLibrary(DynamicLibrary &&other) noexcept;
  DynamicLibrary &operator=(DynamicLibrary &&other) noexcept;
  DynamicLibrary(const DynamicLibrary &) = delete;
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;
  ~DynamicLibrary() { destroy(); }

  /// How long the code stays mapped.
  enum class Unload {
    /// dlclose unmaps the library when the last handle goes.
    OnClose,
    /// RTLD_NODELETE: dlclose drops the handle but the code stays mapped
    /// for the life of the process. For vendor drivers that start threads
    /// or register handlers in their init call (cuInit): unmapping them
    /// under those is not safe, and nothing says it is.
    Never,
  };

  /// dlopen(|soname|, RTLD_NOW|RTLD_LOCAL, plus RTLD_NODELETE for
  /// Unload::Never). Unavailable: "<soname> not found (<dlerror>)".
  static StatusOr<DynamicLibrary> open(const std::string &soname,
                                       Unload unload = Unload::OnClose);

  /// dlsym; nullptr when absent.
  void *symbol(const char *name) const;
  const std::string &soname() const { return soname_; }

  void destroy() noexcept;

private:
  void *handle_ = nullptr;
  std::string soname_;
};

} // namespace kb::hal

#endif // KB_RUNTIME_HAL_UTILS_DYNAMIC_LIBRARY_H_
