//===- common/dynamic_library.h - dlopen RAII -----------------------------===//
//
// Libraries opened at run time, never linked (docs/architecture.md): the GPU
// drivers (libcuda, libvulkan), NVML, and the compiler library that
// kernel-bench opens only when a build compiles a program. Every dlopen in
// the project goes through this class.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_DYNAMIC_LIBRARY_H_
#define KB_COMMON_DYNAMIC_LIBRARY_H_

#include "common/status.h"

#include <string>

namespace kb {

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
  /// Unload::Never). A soname is looked for on the loader's path, a name
  /// with a slash is a file. RTLD_LOCAL keeps the library's symbols (LLVM's,
  /// in the compiler library) out of ours; RTLD_NOW makes a missing
  /// dependency fail here rather than at the first call. Unavailable with
  /// dlerror()'s text, which names the file; the caller says what it was for.
  static StatusOr<DynamicLibrary> open(const std::string &soname,
                                       Unload unload = Unload::OnClose);

  /// dlsym; nullptr when absent.
  void *symbol(const char *name) const;
  /// dlsym as a function pointer type; nullptr when absent.
  template <typename Fn> Fn function(const char *name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }
  const std::string &soname() const { return soname_; }

  void destroy() noexcept;

private:
  void *handle_ = nullptr;
  std::string soname_;
};

} // namespace kb

#endif // KB_COMMON_DYNAMIC_LIBRARY_H_
