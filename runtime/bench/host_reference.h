//===- runtime/bench/host_reference.h - A C/C++ reference run on the host -===//
//
// A standalone kernel's reference written as a C or C++ function (declared.h,
// HostReferenceDecl), built by `kernel-bench build` into a shared object
// whose one entry point takes the dispatch's buffers, its packed constants
// and its workload (toolchains/host_reference.h). `run` and `bench` load it
// here and call it on host copies of the buffers the candidate starts from,
// so the candidate is compared with it on every input set, as with a
// reference kernel.
//
// The shared object is native code from the build directory (or a bundle):
// it must still have the sha256 build.json recorded, and the bytes checked
// are the bytes loaded (copied into a memfd and loaded from there), so a
// file swapped between the check and the load is never run. It runs in the
// process that runs the benchmark (a bench worker): a reference that
// crashes ends that worker, which `bench` reports as the benchmark's error.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_BENCH_HOST_REFERENCE_H_
#define KB_RUNTIME_BENCH_HOST_REFERENCE_H_

#include "common/dynamic_library.h"
#include "common/host_reference_entry.h"
#include "common/status.h"
#include "runtime/bench/declared.h"
#include "runtime/module/executor.h"
#include "runtime/module/module.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kb::bench {

class HostReference {
public:
  /// Loads |decl|'s shared object. NotFound for a missing file;
  /// InvalidArgument (naming the file) for one whose sha256 is not the
  /// recorded one, that does not load, or that lacks the entry point.
  static StatusOr<std::shared_ptr<const HostReference>>
  load(const HostReferenceDecl &decl);

  HostReference(const HostReference &) = delete;
  HostReference &operator=(const HostReference &) = delete;

  /// Runs the reference for |function|'s one dispatch on |buffers| (every
  /// buffer of |function|, by index, holding what the dispatch starts
  /// from); returns |function|'s outputs, in Function::outputs order.
  /// InvalidArgument when |function| is not one dispatch (a program) or a
  /// binding lies outside its buffer.
  StatusOr<std::vector<module::OutputData>>
  run(const module::Function &function,
      std::vector<std::vector<uint8_t>> buffers) const;

  /// "host function saxpy_ref (ref.cpp)".
  std::string describe() const;

private:
  using Entry = HostReferenceEntryFn;
  HostReference(HostReferenceDecl decl, DynamicLibrary library, Entry entry)
      : decl_(std::move(decl)), library_(std::move(library)), entry_(entry) {}

  HostReferenceDecl decl_;
  DynamicLibrary library_;
  Entry entry_ = nullptr;
};

/// The contents a candidate starts from for one input set, as host copies:
/// each buffer's initial contents, the ones in |poisoned| filled with
/// |pattern| (what PreparedFunction::initialize uploads).
std::vector<std::vector<uint8_t>>
startingContents(const module::PreparedFunction &prepared, uint64_t seedOffset,
                 bool zeroInputs, module::SpecialValues special,
                 const std::vector<uint32_t> &poisoned, uint32_t pattern);

/// The contents a function starts from when run once as it is (`run`):
/// each buffer's drawn contents, or its |fixed| ones.
std::vector<std::vector<uint8_t>>
initialContents(const module::Function &function,
                const module::FixedContents &fixed);

} // namespace kb::bench

#endif // KB_RUNTIME_BENCH_HOST_REFERENCE_H_
