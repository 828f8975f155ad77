//===- workbench/inspect/inspect_report.h - What `inspect` finds ----------===//
//
// The typed request and report of `kernel-bench inspect BUILD [BENCHMARK]`:
// for each benchmark of a build, per target, every variant of the
// benchmarked executable side by side — the handwritten candidate, the
// candidates tuned for a device model, and the compiler's reference — with
// what can be read from its code without running it, and the reasons the
// candidate differs from the reference. Text and JSON are rendered from
// this at the edge (inspect_render.h).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_INSPECT_INSPECT_REPORT_H_
#define KB_WORKBENCH_INSPECT_INSPECT_REPORT_H_

#include "common/ptx_mix.h"
#include "common/resource_usage.h"
#include "common/sass_mix.h"
#include "common/spirv_mix.h"
#include "runtime/hal/executable.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace kb::workbench {

struct InspectRequest {
  /// A `kernel-bench build` output directory.
  std::string buildDir;
  /// One benchmark's name (`saxpy_1048576x1x1`); empty: every benchmark.
  std::string benchmark;
  /// Where the Vulkan driver's own statistics come from
  /// (driver_statistics.h): "auto", "vulkan[:N]", or "none".
  std::string device = "auto";
};

/// One variant of the benchmarked executable for one target.
struct VariantInspection {
  std::string role;   // "candidate" | "reference"
  std::string device; // the model a tuned candidate is for; empty: any
  /// "candidate", "reference", "tuned:<device>": the column heading, and
  /// the stem of its files under BUILD/inspect/<benchmark>/.
  std::string label;
  std::string format; // "ptx" | "cubin" | "spirv"
  std::string entry;
  std::array<uint32_t, 3> workgroupSize = {1, 1, 1};
  /// CUDA: the PTX mix (none for a cubin object), ptxas's figures and the
  /// theoretical occupancy they give (none without ptxas), the SASS mix
  /// (none without nvdisasm or cuobjdump).
  std::optional<PtxInstructionMix> ptx;
  std::optional<ResourceUsage> resources;
  std::optional<double> occupancy;
  std::optional<SassInstructionMix> sass;
  /// Vulkan: the SPIR-V mix, and the driver's own statistics of the
  /// pipeline it compiled (driver_statistics.h; empty, with a note, where
  /// the driver reports none).
  std::optional<SpirvInstructionMix> spirv;
  std::vector<hal::DriverExecutable> driverStatistics;
  /// The code as text (PTX; spirv-dis's listing; SASS), by file extension:
  /// {"ptx", text}, {"sass", text}, {"spvasm", text}.
  std::vector<std::pair<std::string, std::string>> listings;
  /// What could not be shown, and why ("SASS: ...").
  std::vector<std::string> notes;
};

/// The variants of one target, the reference last, and why the candidates
/// differ from it.
struct TargetInspection {
  std::string target; // "sm_90", "vulkan1.2"
  std::vector<VariantInspection> variants;
  /// One line per difference found between the (untuned) candidate and the
  /// reference, the most telling first; empty without both.
  std::vector<std::string> why;
};

struct BenchmarkInspection {
  std::string name;
  std::string executable;
  std::string modulePath;
  std::vector<TargetInspection> targets;
  /// BUILD/inspect/<name>/ and the files written there, relative to it.
  std::string outputDir;
  std::vector<std::string> files;
  /// What was not written (a disassembler or diff that is not installed).
  std::vector<std::string> notes;
};

struct InspectReport {
  std::string buildDir;
  std::vector<BenchmarkInspection> benchmarks;
  /// The device the Vulkan driver statistics came from; empty: none.
  std::string statisticsDevice;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_INSPECT_INSPECT_REPORT_H_
