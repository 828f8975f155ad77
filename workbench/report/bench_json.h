//===- workbench/report/bench_json.h - bench.json reader and writer -------===//
//
// The only code that turns a BenchReport into bench.json and back
// (docs/bench-json.md). The writer emits strict JSON and refuses a
// non-finite number instead of writing NaN; the reader refuses anything it
// cannot vouch for — a file that is not a kernel-bench bench report, a newer
// schema_version, truncated or non-UTF-8 text, NaN/Infinity tokens, a field
// of the wrong type — with a message naming the file, the place, what was
// expected and what was found.
//
// The worker process sends its finished benchmark to its parent as a whole
// one-benchmark report with the same codec (renderBenchJson /
// parseBenchJson), so device and settings travel with it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_BENCH_JSON_H_
#define KB_WORKBENCH_REPORT_BENCH_JSON_H_

#include "common/status.h"
#include "workbench/report/bench_results.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace kb::report {

/// The value of bench.json's "format" key: what makes a file ours.
inline constexpr const char *kBenchFormatName = "kernel-bench/bench";

/// bench.json text: indented, one trailing newline. InvalidArgument naming
/// the field (e.g. "benchmarks[2].variants[0].flops") when a number is NaN
/// or infinite: the producer has a bug, and a file is not written.
StatusOr<std::string> renderBenchJson(const BenchReport &report);

/// Parses bench.json text; |source| names the file in messages.
StatusOr<BenchReport> parseBenchJson(std::string_view text,
                                     std::string_view source);

/// Reads |path| (NotFound when it cannot be read) and parses it.
StatusOr<BenchReport> readBenchJson(const std::filesystem::path &path);

/// Renders |report| and writes it to |path| atomically (a reader sees the
/// previous file or the new one, never half of it).
Status writeBenchJson(const std::filesystem::path &path,
                      const BenchReport &report);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_BENCH_JSON_H_
