/*===- kb-c/Compiler.h - The compiler library's C interface -------*- C -*-===*\
|*                                                                            *|
|* libKBCompiler.so exports these functions and nothing else. kernel-bench    *|
|* opens the library with dlopen only when a build compiles a program (as     *|
|* iree-compile opens libIREECompiler.so), so a no-op build and the runtime   *|
|* commands never load LLVM/MLIR, and a host without the library still runs   *|
|* everything but the program step.                                           *|
|*                                                                            *|
|* Plain C on purpose: kernel-bench may link libstdc++ statically while the   *|
|* library uses the shared one with libLLVM, so no C++ type (std::string,     *|
|* std::vector, exceptions) may cross. Strings are NUL-terminated UTF-8;      *|
|* arrays are a pointer and a count. Everything the caller passes is only     *|
|* read during the call; everything a result points to is owned by the        *|
|* result and lives until kbCompilerResultDestroy.                            *|
|*                                                                            *|
|* Versioning: KB_COMPILER_API_VERSION changes whenever any struct or         *|
|* function here changes; a caller refuses a library whose                    *|
|* kbCompilerApiVersion() differs from the version it was built with.         *|
|*                                                                            *|
|* The C++ side of each half is one thin wrapper: compiler/lib/CAPI/ (C to    *|
|* kb::driver types, inside the library) and
workbench/build/compiler_library.cpp   *|
|* (kb::driver types to C, inside kernel-bench).                              *|
\*===----------------------------------------------------------------------===*/
#ifndef KB_C_COMPILER_H_
#define KB_C_COMPILER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KB_COMPILER_API_VERSION 8

#if defined(KB_COMPILER_BUILDING_LIBRARY)
#define KB_COMPILER_EXPORT __attribute__((visibility("default")))
#else
#define KB_COMPILER_EXPORT
#endif

/* The file name kernel-bench looks for (see workbench/README.md). */
#define KB_COMPILER_LIBRARY_NAME "libKBCompiler.so"

typedef struct kbCompilerStrings {
  const char *const *items;
  size_t count;
} kbCompilerStrings;

typedef struct kbCompilerSubstitution {
  const char *executable; /* "exe" or "exe/variant" */
  const char *file;
  const char *origin; /* the kernel.toml that asked for it; may be "" */
  /* An object's dynamic shared memory in bytes (stored on the variants it
   * replaces); -1: the export's. */
  int64_t sharedMemoryBytes;
  /* Required subgroup size (0 = any), full subgroups (0/1) and the
   * [specialization] settings as "KEY=VALUE" (kb::driver::Substitution). */
  uint32_t subgroupSize;
  int fullSubgroups;
  kbCompilerStrings specialization;
  /* The object's own workgroup size (0 or 3 entries) and workload per
   * workgroup (0 to 3); none: the export's (kb::driver::Substitution). */
  const int64_t *workgroupSize;
  size_t workgroupSizeCount;
  const int64_t *workloadPerWorkgroup;
  size_t workloadPerWorkgroupCount;
  /* The device model the object was tuned for ("" = any device): it goes
   * into a variant of its own beside the one for any device
   * (kb::driver::Substitution::device). */
  const char *device;
  /* The object's entry name when it is not the export's (kernel.toml
   * `entry`); "" = the export's (kb::driver::Substitution::entry). */
  const char *entry;
  /* A CUDA object's parameters in its own order, each an ABI slot
   * (bindings, then constants); none: the bindings, then the constants
   * (kb::driver::Substitution::parameterOrder). */
  const uint32_t *parameterOrder;
  size_t parameterOrderCount;
} kbCompilerSubstitution;

typedef struct kbCompilerOptions {
  const char *programPath;
  const kbCompilerSubstitution *sourceSubstitutions;
  size_t sourceSubstitutionCount;
  kbCompilerStrings sourceDirectories;
  const kbCompilerSubstitution *objectSubstitutions;
  size_t objectSubstitutionCount;
  kbCompilerStrings objectDirectories;
  kbCompilerStrings searchPaths;
  kbCompilerStrings targets; /* "cuda:sm_90", "vulkan:1.2" */
  int strict;
  int printNotes;
  const char *outputPath; /* "" = none */
  int emitBytecode;
  const char *dumpSourcesDir;  /* "" = none */
  const char *dumpBinariesDir; /* "" = none */
  int codegen;
  int emitCubin;
  const char *ptxasPath;         /* "" = search */
  const char *outputDir;         /* "" = no .kbm output */
  const char *dumpBenchmarksDir; /* "" = none */
} kbCompilerOptions;

typedef struct kbCompilerAppliedSubstitution {
  const char *executable;
  const char *variant; /* "" for a source substitution */
  const char *kind;    /* "source" or "object" */
  const char *file;
  const char *reference;
  const char *origin;
  const char *device; /* "" unless the object was tuned for a device model */
} kbCompilerAppliedSubstitution;

typedef struct kbCompilerCodegenRecord {
  const char *executable;
  const char *variant;
  const char *target;
  double milliseconds;
  double ptxasMilliseconds;
} kbCompilerCodegenRecord;

typedef struct kbCompilerBenchmark {
  const char *name;
  const char *executable;
  const char *exportName;
  int64_t workload[3];
  int64_t workgroupCount[3];
  kbCompilerStrings candidates;
  kbCompilerStrings references;
  kbCompilerStrings sites;
  const char *file; /* relative to outputDir; "" without one */
} kbCompilerBenchmark;

typedef struct kbCompilerUnbenchmarked {
  const char *executable;
  const char *exportName;
  const char *site;
  const char *reason;
} kbCompilerUnbenchmarked;

typedef struct kbCompilerResult {
  int ok;
  const char *diagnostics;
  kbCompilerStrings notes;
  const kbCompilerAppliedSubstitution *substitutions;
  size_t substitutionCount;
  const kbCompilerCodegenRecord *codegen;
  size_t codegenCount;
  const kbCompilerBenchmark *benchmarks;
  size_t benchmarkCount;
  const kbCompilerUnbenchmarked *unbenchmarked;
  size_t unbenchmarkedCount;
  kbCompilerStrings writtenFiles;
  uint64_t kbmBytes;
  double kbmMilliseconds;
} kbCompilerResult;

typedef struct kbCompilerStandaloneBinding {
  const char *name;
  const char *elementType; /* kernel.toml spelling: "f32", "u32", ...;
                              "struct": structs laid out by the SPIR-V */
  const char *access;      /* "readonly", "writeonly", "readwrite" */
  uint64_t elementCount;
  /* [bench] init: "" (default), "uniform", "normal" or "range", with its
   * parameters (kb::driver::StandaloneBinding). */
  const char *initDistribution;
  double initLow, initHigh, initMean, initStddev, initStart, initStep;
} kbCompilerStandaloneBinding;

typedef struct kbCompilerStandaloneConstant {
  const char *name;
  const char *type;
  const char *value;
} kbCompilerStandaloneConstant;

typedef struct kbCompilerStandaloneObject {
  const char *target;
  const char *file;
  const char *entry;     /* "" = the export name */
  uint32_t subgroupSize; /* as in kbCompilerSubstitution */
  int fullSubgroups;
  kbCompilerStrings specialization;
  int reference; /* nonzero: the reference the candidate is checked against
                    (a handwritten twin), not the candidate */
  const uint32_t *parameterOrder; /* as in kbCompilerSubstitution */
  size_t parameterOrderCount;
} kbCompilerStandaloneObject;

typedef struct kbCompilerStandaloneKernel {
  const char *name;
  const char *entry;
  const kbCompilerStandaloneBinding *bindings;
  size_t bindingCount;
  const kbCompilerStandaloneConstant *constants;
  size_t constantCount;
  const int64_t *workgroupSize; /* workgroupSizeCount entries */
  size_t workgroupSizeCount;
  const int64_t *workload;
  size_t workloadCount;
  const int64_t *workloadPerWorkgroup;
  size_t workloadPerWorkgroupCount;
  int64_t sharedMemoryBytes;
  const char *referenceExecutable; /* "" = none */
  const kbCompilerStandaloneObject *objects;
  size_t objectCount;
} kbCompilerStandaloneKernel;

/* KB_COMPILER_API_VERSION of the library. */
KB_COMPILER_EXPORT uint32_t kbCompilerApiVersion(void);

/* Runs the compiler pipeline (kb/Driver/Driver.h). Never NULL: a failure,
 * an LLVM fatal error included, is a result with ok = 0 and diagnostics.
 * Free with kbCompilerResultDestroy. */
KB_COMPILER_EXPORT kbCompilerResult *
kbCompilerCompile(const kbCompilerOptions *options);

KB_COMPILER_EXPORT void kbCompilerResultDestroy(kbCompilerResult *result);

/* Writes the one-dispatch program of a standalone kernel to |path|. Returns
 * NULL on success, else an error message to free with kbCompilerFreeString. */
KB_COMPILER_EXPORT char *
kbCompilerWriteStandaloneProgram(const kbCompilerStandaloneKernel *kernel,
                                 const char *path);

KB_COMPILER_EXPORT void kbCompilerFreeString(char *text);

#ifdef __cplusplus
}
#endif

#endif /* KB_C_COMPILER_H_ */
