//===- workbench/build/declared_figures.h - Declared figures in -----------===//
//
// `kernel-bench build` records each job's bench::KernelDeclared
// (runtime/bench/declared.h) in build.json as `jobs[].declared`; a bench worker
// reads them back by the sha256 of the object it runs (as build_resources.h
// does for ptxas's figures), so a GPU host needs neither the kernel.toml nor
// the project.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_DECLARED_FIGURES_H_
#define KB_WORKBENCH_BUILD_DECLARED_FIGURES_H_

#include "common/status.h"
#include "runtime/bench/declared.h"
#include "workbench/support/json_fields.h"
#include "workbench/support/sweep_fields.h"

#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kb::workbench {

/// `jobs[].declared`: null when the kernel declares nothing.
nlohmann::ordered_json declaredJson(const bench::KernelDeclared &declared);

/// A job's kernel and what it declares (empty when nothing).
struct JobDeclared {
  std::string kernel;
  bench::KernelDeclared declared;
};

/// sha256 of an object file -> every job that wrote it: kernels of one
/// source that share a compile can write the same bytes.
using DeclaredByObject = std::map<std::string, std::vector<JobDeclared>>;

/// Reads |buildJson|: every job with its outputs (a job without `declared`,
/// written before it existed, declares nothing). InvalidArgument for a file
/// this version cannot read or a `declared` of the wrong shape (naming the
/// job); NotFound when it does not exist.
StatusOr<DeclaredByObject>
readDeclaredFigures(const std::filesystem::path &buildJson);

/// What the kernel of the object |sha256| declares, run as executable
/// |executable|: the job of the kernel named so (a standalone kernel's
/// executable is its name), else the only job that wrote the object. Null
/// when none did; null with |ambiguity| set when several kernels did and
/// none is named |executable|.
const bench::KernelDeclared *findDeclared(const DeclaredByObject &byObject,
                                          const std::string &sha256,
                                          const std::string &executable,
                                          std::string &ambiguity);

// `jobs[].declared`'s keys, for build.json's writer and reader.

template <> struct JsonFields<module::ToleranceOverride> {
  template <typename IO, typename S> static Status map(IO &io, S &t) {
    KB_RETURN_IF_ERROR(io.field("abs", t.abs));
    KB_RETURN_IF_ERROR(io.field("rel", t.rel));
    KB_RETURN_IF_ERROR(io.field("ulp", t.ulp));
    return io.field("reduction_length", t.reductionLength);
  }
};

template <> struct JsonFields<bench::OutputTolerance> {
  template <typename IO, typename S> static Status map(IO &io, S &o) {
    KB_RETURN_IF_ERROR(io.field("name", o.name));
    KB_RETURN_IF_ERROR(io.field("binding", o.binding));
    return io.field("tolerance", o.tolerance);
  }
};

template <> struct JsonFields<bench::OutputShape> {
  template <typename IO, typename S> static Status map(IO &io, S &o) {
    KB_RETURN_IF_ERROR(io.field("name", o.name));
    KB_RETURN_IF_ERROR(io.field("binding", o.binding));
    return io.field("dims", o.dims);
  }
};

/// The file is written as the build directory's path (|stored|); the
/// reader joins it to the directory it read build.json from.
template <> struct JsonFields<bench::FixedArray> {
  template <typename IO, typename S> static Status map(IO &io, S &a) {
    KB_RETURN_IF_ERROR(io.field("name", a.name));
    KB_RETURN_IF_ERROR(io.field("binding", a.binding));
    KB_RETURN_IF_ERROR(io.field("source", a.source));
    KB_RETURN_IF_ERROR(io.field("file", a.stored));
    return io.field("sha256", a.sha256);
  }
};

/// The shared object is written as the build directory's path (|stored|),
/// as a fixed array's file is.
template <> struct JsonFields<bench::HostReferenceDecl> {
  template <typename IO, typename S> static Status map(IO &io, S &h) {
    KB_RETURN_IF_ERROR(io.field("source", h.source));
    KB_RETURN_IF_ERROR(io.field("function", h.function));
    KB_RETURN_IF_ERROR(io.field("file", h.stored));
    return io.field("sha256", h.sha256);
  }
};

/// The special values a kernel's inputs may hold, as a list of their names.
struct SpecialValueNames {
  using Stored = std::vector<std::string>;
  Stored store(const bench::KernelDeclared &d) const;
  /// A name this version does not know is left out: a newer kernel-bench
  /// may declare more, and the ones known here still apply.
  std::string load(const Stored &names, bench::KernelDeclared &d) const;
};

template <> struct JsonFields<bench::KernelDeclared> {
  template <typename IO, typename S> static Status map(IO &io, S &d) {
    KB_RETURN_IF_ERROR(io.field("flops", d.flops));
    KB_RETURN_IF_ERROR(io.field("bytes_moved", d.bytesMoved));
    KB_RETURN_IF_ERROR(io.field("tolerance", d.tolerance));
    KB_RETURN_IF_ERROR(io.field("output_tolerances", d.outputTolerances));
    KB_RETURN_IF_ERROR(io.field("special_values", d, SpecialValueNames()));
    // Absent from files written before fixed arrays existed.
    KB_RETURN_IF_ERROR(
        io.field("fixed_inputs", d.fixedInputs, Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(
        io.field("expected_outputs", d.expectedOutputs, Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(
        io.field("host_reference", d.hostReference, Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(
        io.field("output_shapes", d.outputShapes, Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(io.field("flops_expression", d.flopsExpression,
                                Presence::OmitWhenEmpty));
    KB_RETURN_IF_ERROR(io.field("bytes_moved_expression",
                                d.bytesMovedExpression,
                                Presence::OmitWhenEmpty));
    KB_RETURN_IF_ERROR(io.field("expression_names", d.expressionNames,
                                Presence::OmitWhenEmpty));
    // Written only for a copy of a swept kernel.
    return io.field("sweep", d.sweep, Presence::OmitWhenEmpty);
  }
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_DECLARED_FIGURES_H_
