//===- common/host_reference_entry.h - A host reference's entry point -----===//
//
// The entry point of a host reference's shared object (a C or C++ function
// run on the host as a kernel's reference): the build generates it
// (toolchains/host_reference.h), `run` and `bench` call it
// (runtime/bench/host_reference.h). Its C signature:
//
//   int kb_host_reference_v1(void *const *bindings, uint32_t bindingCount,
//                            const unsigned char *constants,
//                            uint64_t constantBytes,
//                            const uint64_t *workload);
//
// It returns 0 after calling the function, and 1 without calling it when
// the counts are not the ones it was built for. The version is in the name:
// a new signature is a new name, which an old shared object lacks.
//
//===----------------------------------------------------------------------===//
#ifndef KB_COMMON_HOST_REFERENCE_ENTRY_H_
#define KB_COMMON_HOST_REFERENCE_ENTRY_H_

#include <cstdint>

namespace kb {

inline constexpr const char *kHostReferenceEntry = "kb_host_reference_v1";

using HostReferenceEntryFn = int (*)(void *const *bindings,
                                     uint32_t bindingCount,
                                     const unsigned char *constants,
                                     uint64_t constantBytes,
                                     const uint64_t *workload);

} // namespace kb

#endif // KB_COMMON_HOST_REFERENCE_ENTRY_H_
