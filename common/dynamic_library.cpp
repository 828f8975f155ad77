//===- common/dynamic_library.cpp - dlopen RAII ---------------------------===//
#include "common/dynamic_library.h"

#include <dlfcn.h>

#include <utility>

namespace kb {

DynamicLibrary::DynamicLibrary(DynamicLibrary &&other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      soname_(std::move(other.soname_)) {}

DynamicLibrary &DynamicLibrary::operator=(DynamicLibrary &&other) noexcept {
  if (this != &other) {
    destroy();
    handle_ = std::exchange(other.handle_, nullptr);
    soname_ = std::move(other.soname_);
  }
  return *this;
}

StatusOr<DynamicLibrary> DynamicLibrary::open(const std::string &soname,
                                              Unload unload) {
  dlerror();
  int flags = RTLD_NOW | RTLD_LOCAL;
  if (unload == Unload::Never)
    flags |= RTLD_NODELETE;
  void *handle = dlopen(soname.c_str(), flags);
  if (!handle) {
    const char *why = dlerror();
    return unavailable(why ? why : soname + ": dlopen failed");
  }
  DynamicLibrary library;
  library.handle_ = handle;
  library.soname_ = soname;
  return library;
}

void *DynamicLibrary::symbol(const char *name) const {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

void DynamicLibrary::destroy() noexcept {
  if (handle_)
    dlclose(std::exchange(handle_, nullptr));
}

} // namespace kb
