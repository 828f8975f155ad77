//===- workbench/project/kernel_toml_tune.h - kernel.toml's [tune] --------===//
//
// The part of kernel.toml (kernel_toml.h) that declares what `kernel-bench
// tune` may vary (tune_space.h), and the tuned.toml beside it (tuned_toml.h)
// that gives `build` the values `tune` chose.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_KERNEL_TOML_TUNE_H_
#define KB_WORKBENCH_PROJECT_KERNEL_TOML_TUNE_H_

#include "workbench/project/project.h"
#include "workbench/project/toml_file.h"

namespace kb::workbench {

/// `[tune]` of |root| into |kernel.tune|: each parameter a list of
/// integers, `{ range = [lo, hi] }`, `{ range = [lo, hi, step] }`,
/// `{ pow2 = [lo, hi] }` or `{ values = [...] }`, with `as = "define"` (the
/// default) or `"specialization"`; `constraints = ["EXPR", ...]`. A tuned
/// name may not also be in `[kernel.defines]` or `[specialization]`.
Status readTune(const TomlFile &file, const toml::table &root,
                const toml::table &kernelTable, Kernel &kernel);

/// One of [tune]'s value forms at |node| (a list of integers, `{ range =
/// [lo, hi(, step)] }`, `{ pow2 = [lo, hi] }`, `{ values = [...] }`), its
/// values in order without duplicates. |key| names it in messages
/// (`tune.TILE`, `bench.sweep.n`), |context| in an unknown-key error
/// (`[tune] TILE`); the table form may also hold |otherKeys|, which the
/// caller reads. Also what `[bench] sweep` reads its sizes with.
StatusOr<std::vector<int64_t>>
readValueForm(const TomlFile &file, const toml::node &node,
              const std::string &key, const std::string &context,
              const std::vector<std::string> &otherKeys = {});

/// The tuned.toml beside the kernel.toml, when there is one, into the
/// specs of |kernel|: each source gets the values of the first entry
/// without a `device` for its backend (`cuda` for a .cu, `vulkan` for
/// GLSL); each entry with a `device` becomes a spec of its own in
/// Kernel::tunedSpecs, the source's spec with that entry's values. Without
/// an entry, tuned names keep their defaults (or, without one, are not
/// set: the source's own defaults apply).
Status applyTunedFile(Kernel &kernel);

/// Gives every source the `default` of each tuned name that has one (before
/// applyTunedFile, whose values replace them).
void applyTuneDefaults(Kernel &kernel);

/// Sets |values| (one per tuned name) on |spec|: defines, or GLSL
/// specialization constants. Replaces earlier values of the same names.
void applyTuneValues(const TuneSpace &space, const TuneValues &values,
                     toolchains::KernelSpec &spec);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_KERNEL_TOML_TUNE_H_
