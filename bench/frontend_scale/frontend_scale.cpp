// bench/frontend_scale: what the front end costs on a model.
//
// Synthetic TOSA models of 100 and 1,000 linear layers (matmul + bias +
// ReLU, 16 rows x 64 features; one dispatch per layer):
//  1. the front end's conversion part, `kb-opt --kb-lower-model` (TOSA
//     conversion, generalization, elementwise fusion), beside `mlir-opt`
//     running MLIR's own TOSA-to-linalg pipeline (what
//     mlir::tosa::addTosaToLinalgPasses adds) on the same file in the same
//     run: both parse and print, best of N wall times; target <= 1.5x; and
//     the whole front end (`--kb-lower-model --kb-form-dispatches`);
//  2. the whole compile through KBDriver (formation, codegen for cuda:sm_90
//     and vulkan:1.2, .kbm output): ms per dispatch per target, and the
//     wall time per dispatch (flat from 100 to 1,000 layers means linear).
// Not a test: it prints numbers and verdicts.
//
//   build/bench/frontend_scale/frontend_scale [--repetitions=N]
#include "common/process.h"
#include "common/tool_search.h"
#include "kb/Driver/Driver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

constexpr double kTargetRatio = 1.5;

/// |layers| layers of relu(x * w + b) on a 1x16x64 activation.
std::string makeModel(int layers) {
  std::ostringstream os;
  const char *act = "tensor<1x16x64xf32>";
  os << "func.func @main(%x: " << act;
  for (int i = 0; i < layers; ++i)
    os << ", %w" << i << ": tensor<1x64x64xf32>, %b" << i
       << ": tensor<1x1x64xf32>";
  os << ") -> " << act << " {\n";
  std::string in = "%x";
  for (int i = 0; i < layers; ++i) {
    std::string m = "%m" + std::to_string(i), a = "%a" + std::to_string(i),
                r = "%r" + std::to_string(i);
    os << "  " << m << " = \"tosa.matmul\"(" << in << ", %w" << i << ") : ("
       << act << ", tensor<1x64x64xf32>) -> " << act << "\n"
       << "  " << a << " = \"tosa.add\"(" << m << ", %b" << i << ") : (" << act
       << ", tensor<1x1x64xf32>) -> " << act << "\n"
       << "  " << r << " = \"tosa.clamp\"(" << a
       << ") {min_fp = 0.0 : f32, max_fp = 3.4028234e38 : f32, min_int = 0 : "
          "i64, max_int = 9223372036854775807 : i64} : ("
       << act << ") -> " << act << "\n";
    in = r;
  }
  os << "  return " << in << " : " << act << "\n}\n";
  return os.str();
}

/// The best wall time of |repetitions| runs of |argv|, in ms; < 0 on error.
double bestProcessMs(const std::vector<std::string> &argv, int repetitions) {
  double best = -1;
  for (int r = 0; r < repetitions; ++r) {
    kb::ProcessOptions options;
    options.argv = argv;
    options.timeout = std::chrono::minutes(10);
    auto result = kb::runProcess(options);
    if (!result.ok() || result->exitCode != 0) {
      std::cerr << "frontend_scale: " << argv[0] << " failed: "
                << (result.ok() ? result->stderrText
                                : result.status().message())
                << "\n";
      return -1;
    }
    double ms = result->seconds * 1e3;
    best = best < 0 ? ms : std::min(best, ms);
  }
  return best;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Compiled {
  double wallMs = 1e30;
  std::map<std::string, std::vector<double>> msByTarget;
};

/// The least disturbed of |repetitions| whole compiles of |model|.
bool compileModel(const fs::path &model, const fs::path &out, int repetitions,
                  Compiled &best) {
  for (int r = 0; r < repetitions; ++r) {
    fs::remove_all(out);
    kb::driver::CompileOptions options;
    options.programPath = model.string();
    options.targets = {*kb::Target::cuda(90), *kb::Target::vulkan(1, 2)};
    options.emitCubin = false;
    options.outputDir = out.string();
    auto start = std::chrono::steady_clock::now();
    kb::driver::CompileResult result = kb::driver::compile(options);
    double wall = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    if (!result.ok) {
      std::cerr << "frontend_scale: compiling " << model << " failed:\n"
                << result.diagnostics;
      return false;
    }
    if (wall >= best.wallMs)
      continue;
    best = Compiled{wall, {}};
    for (const auto &c : result.codegen)
      best.msByTarget[c.target.toString()].push_back(c.milliseconds);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  int repetitions = 3;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--repetitions=", 14) == 0)
      repetitions = std::max(1, std::atoi(argv[i] + 14));
  auto mlirOpt = kb::searchTool("mlir-opt-16");
  if (!mlirOpt.ok())
    mlirOpt = kb::searchTool("mlir-opt", {{}, "/usr/lib/llvm-16/bin"});
  if (!mlirOpt.ok()) {
    std::cerr << "frontend_scale: the anchor needs mlir-opt (Debian "
                 "mlir-16-tools): "
              << mlirOpt.status().message() << "\n";
    return 1;
  }
  fs::path dir = fs::temp_directory_path() /
                 ("kb_frontend_scale_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string tosaToLinalg =
      "--pass-pipeline=builtin.module(func.func(tosa-optional-"
      "decompositions,tosa-infer-shapes,tosa-make-broadcastable,tosa-to-"
      "linalg-named,canonicalize,tosa-to-linalg,tosa-to-arith,tosa-to-"
      "tensor))";
  // Process start-up (loading libMLIR, registering dialects and passes)
  // differs between the two tools; the work is compared without it.
  fs::path empty = dir / "empty.mlir";
  std::ofstream(empty) << "\n";
  double anchorStartup = bestProcessMs(
      {mlirOpt->string(), empty.string(), "-o", "/dev/null"}, repetitions);
  double oursStartup = bestProcessMs(
      {KB_OPT_PATH, empty.string(), "-o", "/dev/null"}, repetitions);
  std::printf("start-up (empty module): mlir-opt %.1f ms, kb-opt %.1f ms\n",
              anchorStartup, oursStartup);
  std::printf("%-7s %11s %9s %10s %8s %8s %9s %13s %14s %13s\n", "layers",
              "mlir-opt ms", "lower ms", "raw ratio", "ratio", "verdict",
              "+form ms", "cuda ms/disp", "vulkan ms/disp", "wall ms/disp");
  int status = 0;
  for (int layers : {100, 1000}) {
    fs::path model = dir / ("model_" + std::to_string(layers) + ".mlir");
    std::ofstream(model) << makeModel(layers);
    double anchor = bestProcessMs(
        {mlirOpt->string(), model.string(), tosaToLinalg, "-o", "/dev/null"},
        repetitions);
    double ours = bestProcessMs(
        {KB_OPT_PATH, model.string(), "--kb-lower-model", "-o", "/dev/null"},
        repetitions);
    double frontEnd =
        bestProcessMs({KB_OPT_PATH, model.string(), "--kb-lower-model",
                       "--kb-form-dispatches", "-o", "/dev/null"},
                      repetitions);
    Compiled compiled;
    if (anchor <= 0 || ours <= 0 || frontEnd <= 0 ||
        !compileModel(model, dir / "out", repetitions, compiled)) {
      status = 1;
      break;
    }
    double ratio = (ours - oursStartup) / std::max(1.0, anchor - anchorStartup);
    std::printf("%-7d %11.1f %9.1f %9.2fx %7.2fx %8s %9.1f %13.2f %14.2f "
                "%13.2f\n",
                layers, anchor, ours, ours / anchor, ratio,
                ratio <= kTargetRatio ? "ok" : "SLOW", frontEnd,
                median(compiled.msByTarget["cuda:sm_90"]),
                median(compiled.msByTarget["vulkan:1.2"]),
                compiled.wallMs / layers);
  }
  std::printf("anchor: mlir-opt %s with MLIR's TOSA-to-linalg passes, same "
              "file, same run; ratio: kb-opt --kb-lower-model against it, "
              "each less its start-up (target <= %.1fx); +form: the whole "
              "front end; ms/disp: the whole compile (formation, codegen of "
              "both targets, .kbm)\n",
              mlirOpt->string().c_str(), kTargetRatio);
  fs::remove_all(dir);
  return status;
}
