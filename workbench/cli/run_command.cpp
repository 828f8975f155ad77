//===- workbench/cli/run_command.cpp - `kernel-bench run` -----------------===//
//
// Runs the program module's host function twice on one device — with the
// substitutions (candidate variants) and with only the generated (reference)
// variants — from the same seeded inputs, and compares every output with
// per-type tolerances, printing the first mismatches with their index.
//
// Streams: stdout carries the report — the device picked, the module and
// function, the variants each run used, one verdict per output and the
// `result:` line — so `kernel-bench run > file` keeps a complete record;
// stderr carries only diagnostics (`error:`, Vulkan validation messages).
//
// An executable with no reference variant at all (a standalone kernel
// without `reference`) leaves nothing to compare: the program runs once with
// the handwritten kernels, the report says so, and the exit code is 0 —
// unless the kernel's reference is expected outputs in .npy files: then the
// one run is compared with them, or its reference is a C/C++ function: then
// the host function runs on the CPU from the same inputs in place of the
// generated run. What the kernel declares (its tolerances,
// fixed inputs and expected outputs) comes from the build.json of the build
// directory holding the module (bench/run_declared.h), as `bench` applies it.
//
// Isolation: the device work runs in a worker process (worker.h: a
// `kernel-bench __worker run ...` child with its own process group, a
// watchdog, and death with its parent). Its report is relayed line by line
// as it is printed, so nothing is lost when the worker dies or stdout is a
// file. A worker killed by a signal (a driver crash) or by the watchdog
// (--timeout; a kernel that never returns) becomes an error naming the
// module, the function and the dispatches in flight.
//
// Exit codes: 0 outputs agree (or nothing to compare); 1 a mismatch, a bad
// module, a runtime error, or the worker died or timed out; 2 usage; 77 the
// requested device is unavailable; 130/143 interrupted by SIGINT/SIGTERM.
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/bench_settings.h"
#include "workbench/bench/compute_sanitizer.h"
#include "workbench/bench/cuda_printf.h"
#include "workbench/cli/command.h"
#include "workbench/bench/device_option.h"
#include "workbench/bench/run_declared.h"
#include "workbench/bench/sanitizer.h"
#include "workbench/report/mismatch_maps.h"
#include "workbench/support/interrupt_forwarder.h"
#include "workbench/support/worker.h"

#include "common/file_util.h"
#include "common/terminal_text.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/module/compare.h"
#include "runtime/module/executor.h"
#include "runtime/module/first_difference.h"
#include "runtime/module/module.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

namespace kb::workbench {

namespace {

struct RunFlags {
  std::string build = "kb-out";
  std::string device = "auto";
  std::string function;
  bool vkValidation = false;
  bool sanitize = false;
  size_t maxMismatches = 8;
  double timeoutS = 300;
};

int fail(const Status &status) {
  // Unavailable: nothing here can run it (no device, or none that gives the
  // kernel its subgroup size): skipped, not failed.
  std::fprintf(stderr, "kernel-bench run: %s: %s\n",
               status.isUnavailable() ? "skipped" : "error",
               status.message().c_str());
  return status.isUnavailable() ? kExitUnavailable : kExitUserError;
}

/// BUILD (a build directory or a .kbm file) as the module file to run.
StatusOr<std::string> modulePath(const std::string &build) {
  namespace fs = std::filesystem;
  std::string path = build;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    path = (fs::path(path) / "program.kbm").string();
  if (!fs::exists(path, ec))
    return notFound(
        path + " does not exist; run `kernel-bench build` first, or pass the "
               "build directory (or a .kbm file) as BUILD");
  return path;
}

/// --function, else the module's entry function, else its only function (a
/// benchmark module has no entry function: it runs its one benchmark).
StatusOr<const module::Function *>
chooseFunction(const module::Module &module, const std::string &path,
               const std::string &requested) {
  std::string fnName = requested.empty() ? module.entryFunction : requested;
  if (fnName.empty() && module.functions.size() == 1)
    fnName = module.functions.front().name;
  std::string names;
  for (const module::Function &f : module.functions)
    names += (names.empty() ? "" : ", ") + f.name;
  if (fnName.empty())
    return invalidArgument(
        path + " has no entry function and " +
        std::to_string(module.functions.size()) +
        " functions; pass --function NAME, one of: " + names);
  const module::Function *function = module.findFunction(fnName);
  if (!function)
    return notFound(path + ": no function `" + fnName +
                    "`; it has: " + (names.empty() ? "none" : names));
  return function;
}

/// Executables |function| dispatches that hold no reference variant at all
/// (a standalone kernel without `reference`): there is nothing to compare
/// the handwritten kernel with, so it runs once.
std::vector<std::string> withoutReference(const module::Module &module,
                                          const module::Function &function) {
  std::vector<std::string> names;
  for (const module::Op &op : function.ops) {
    if (op.kind != module::Op::Kind::Dispatch)
      continue;
    const module::Executable &exe = module.executables[op.executable];
    bool hasReference = false;
    for (const module::Variant &v : exe.variants)
      hasReference |= v.role == module::VariantRole::Reference;
    if (!hasReference &&
        std::find(names.begin(), names.end(), exe.name) == names.end())
      names.push_back(exe.name);
  }
  return names;
}

bool hasCandidate(const module::Module &module) {
  for (const module::Executable &exe : module.executables)
    for (const module::Variant &v : exe.variants)
      if (v.role == module::VariantRole::Candidate)
        return true;
  return false;
}

/// "op 4 (`saxpy` export 0), ...": what a crash in a run was running.
std::string describeDispatches(const module::Module &module,
                               const module::Function &function) {
  std::string list;
  for (size_t i = 0; i < function.ops.size(); ++i) {
    const module::Op &op = function.ops[i];
    if (op.kind == module::Op::Kind::Dispatch)
      list += (list.empty() ? "" : ", ") + std::string("op ") +
              std::to_string(i) + " (`" +
              module.executables[op.executable].name + "` export " +
              std::to_string(op.exportIndex) + ")";
  }
  return list;
}

std::string variantsUsed(const module::FunctionResult &r) {
  std::string s;
  for (const std::string &v : r.variantsUsed)
    s += (s.empty() ? "" : ", ") + v;
  return s;
}

std::string outputName(const module::OutputData &data) {
  return data.name.empty() ? "buffer " + std::to_string(data.buffer)
                           : data.name;
}

/// What one element of |out| is: "f32", or "struct Particle" for an
/// output of structs.
std::string elementText(const module::OutputData &out) {
  if (!out.structLayout)
    return toString(out.elementType);
  return "struct" +
         (out.structLayout->name.empty() ? "" : " " + out.structLayout->name);
}

/// The elements |out| holds (structs for an output of structs).
unsigned long long elementCount(const module::OutputData &out) {
  uint32_t size = out.structLayout && out.structLayout->stride
                      ? out.structLayout->stride
                      : byteSize(out.elementType);
  return out.bytes.size() / size;
}

/// The one run of kernels without a reference: outputs listed, not compared.
void printUncompared(const module::FunctionResult &candidate,
                     const std::vector<std::string> &noReference) {
  std::string names;
  for (const std::string &name : noReference)
    names += (names.empty() ? "`" : ", `") + name + "`";
  std::printf("with substitutions: %s\n", variantsUsed(candidate).c_str());
  for (size_t i = 0; i < candidate.outputs.size(); ++i) {
    const module::OutputData &out = candidate.outputs[i];
    std::printf("output %zu %s (%s x %llu): not compared\n", i,
                outputName(out).c_str(), elementText(out).c_str(),
                elementCount(out));
  }
  bool structs = false;
  for (const module::OutputData &out : candidate.outputs)
    structs = structs || static_cast<bool>(out.structLayout);
  // A struct buffer is checked only against a twin with the same struct.
  std::printf("result: no reference for %s: ran the handwritten kernel%s "
              "once; nothing to compare (give it a `[bench] reference` in "
              "its kernel.toml to check its results: %s)\n",
              names.c_str(), noReference.size() == 1 ? "" : "s",
              structs ? "a naive twin (.comp) declaring the same struct"
                      : "a naive twin, a C/C++ function, .npy expected "
                        "outputs or an MLIR kb.executable");
}

/// Compares and prints one output; returns whether it agrees. The
/// tolerance: the module's for |out|, then what |declared| declares.
bool compareOutput(size_t i, const module::Output &out,
                   const module::OutputData &ref,
                   const module::OutputData &cand, size_t maxMismatches,
                   const RunDeclared *declared, const char *refLabel) {
  module::ToleranceOverride fromModule = out.tolerance();
  const module::ToleranceOverride *perOutput = nullptr;
  if (declared) {
    auto it = declared->outputTolerances.find(out.buffer);
    if (it != declared->outputTolerances.end())
      perOutput = &it->second;
  }
  std::initializer_list<const module::ToleranceOverride *> layers = {
      &fromModule, declared ? &declared->tolerance : nullptr, perOutput};
  module::Tolerance tol = module::resolveTolerance(ref.elementType, layers);
  std::vector<uint64_t> shape;
  if (declared)
    if (auto it = declared->outputShapes.find(out.buffer);
        it != declared->outputShapes.end())
      shape = it->second;
  std::string mapNote;
  const std::optional<StructLayout> &layout = ref.structLayout;
  module::MismatchMap map = module::MismatchMap::create(
      std::min(ref.bytes.size(), cand.bytes.size()) /
          (layout ? layout->stride : byteSize(ref.elementType)),
      shape, &mapNote);
  // A struct output: each member with its own type's tolerance.
  module::Comparison cmp =
      layout ? module::compareStructs(*layout, ref.bytes, cand.bytes, layers,
                                      maxMismatches, &map)
             : module::compareElements(ref.elementType, ref.bytes, cand.bytes,
                                       tol, maxMismatches, &map);
  std::string name = outputName(ref);
  // A struct's members each have their own type's tolerance.
  char tolerance[64];
  if (layout)
    std::snprintf(tolerance, sizeof tolerance, "each member's type's");
  else
    std::snprintf(tolerance, sizeof tolerance, "abs %g + rel %g", tol.abs,
                  tol.rel);
  if (cmp.ok()) {
    std::printf("output %zu %s (%s x %llu): OK (max abs error %.3g; "
                "tolerance %s)\n",
                i, name.c_str(), elementText(ref).c_str(),
                static_cast<unsigned long long>(cmp.elementCount),
                cmp.maxAbsError, tolerance);
    return true;
  }
  std::printf("output %zu %s (%s x %llu): MISMATCH in %llu element(s) "
              "(tolerance %s); first:\n",
              i, name.c_str(), elementText(ref).c_str(),
              static_cast<unsigned long long>(cmp.elementCount),
              static_cast<unsigned long long>(cmp.mismatchCount), tolerance);
  for (const module::Mismatch &m : cmp.firstMismatches)
    std::printf("    index %llu%s: %s %.9g, substituted %.9g (diff %.3g)\n",
                static_cast<unsigned long long>(m.index),
                m.member.empty() ? "" : (" " + m.member).c_str(), refLabel,
                m.reference, m.candidate, m.candidate - m.reference);
  std::printf("    where: %s%s\n",
              terminalText(report::whereWrong(map)).c_str(),
              mapNote.empty() ? "" : (" (" + mapNote + ")").c_str());
  return false;
}

/// The one run compared with |expected| (some of the function's outputs:
/// the kernel's .npy arrays, or all of them: what its host reference
/// computed), which |against| names: the exit code.
int compareAgainst(const module::Function &function,
                   const module::FunctionResult &candidate,
                   const std::vector<module::OutputData> &expected,
                   const RunDeclared &declared, size_t maxMismatches,
                   const std::string &against) {
  std::printf("with substitutions: %s\n", variantsUsed(candidate).c_str());
  if (!declared.fixed.description.empty())
    std::printf("checks: %s\n", declared.fixed.description.c_str());
  bool allAgree = true;
  for (size_t i = 0; i < function.outputs.size(); ++i) {
    const module::OutputData &out = candidate.outputs[i];
    auto match = std::find_if(
        expected.begin(), expected.end(),
        [&](const module::OutputData &e) { return e.buffer == out.buffer; });
    if (match == expected.end())
      std::printf("output %zu %s (%s x %llu): not compared (no expected "
                  "array)\n",
                  i, outputName(out).c_str(), elementText(out).c_str(),
                  elementCount(out));
    else
      allAgree &= compareOutput(i, function.outputs[i], *match, out,
                                maxMismatches, &declared, "expected");
  }
  std::printf("result: %s %s\n",
              allAgree ? "outputs match" : "OUTPUTS DIFFER from",
              against.c_str());
  return allAgree ? kExitOk : kExitUserError;
}

/// What the kernel's host reference computes from the inputs the run with
/// substitutions started from.
StatusOr<std::vector<module::OutputData>>
hostReferenceOutputs(const module::Function &function,
                     const RunDeclared &declared) {
  announceStage("function `" + function.name + "` on the CPU: the " +
                declared.hostReference->describe());
  return declared.hostReference->run(
      function, bench::initialContents(function, declared.fixed.inputs));
}

/// After outputs differ in a function of several dispatches: the first
/// dispatch whose substituted kernel disagrees with the generated one on the
/// same inputs (module/first_difference.h), so a wrong early kernel is not
/// blamed on the final output it spoiled.
void printFirstDifference(hal::Device &device, const module::Module &module,
                          const module::Function &function,
                          const module::FixedContents &fixed,
                          size_t maxMismatches) {
  size_t dispatches = std::count_if(
      function.ops.begin(), function.ops.end(), [](const module::Op &op) {
        return op.kind == module::Op::Kind::Dispatch;
      });
  if (dispatches < 2)
    return;
  announceStage("function `" + function.name +
                "` again, dispatch by dispatch, to find the first that "
                "differs");
  auto replay = module::findFirstDifferingDispatch(device, module, function,
                                                   fixed, maxMismatches);
  if (!replay.ok()) {
    std::printf("first wrong dispatch: not found (the replay failed: %s)\n",
                replay.status().message().c_str());
    return;
  }
  if (!replay->first) {
    std::printf("first wrong dispatch: none; each of the %zu substituted "
                "dispatch(es) agrees with the generated kernel on the same "
                "inputs (the differences add up across dispatches)\n",
                replay->compared);
    return;
  }
  const module::DispatchDifference &d = *replay->first;
  const module::BufferDecl &buffer = function.buffers[d.buffer];
  std::printf("first wrong dispatch: op %zu (`%s` export %u): binding %u "
              "(buffer %u%s%s%s) differs in %llu of %llu element(s) from "
              "the same inputs; first:\n",
              d.op, module.executables[d.executable].name.c_str(),
              d.exportIndex, d.binding, d.buffer,
              buffer.name.empty() ? "" : " `", buffer.name.c_str(),
              buffer.name.empty() ? "" : "`",
              static_cast<unsigned long long>(d.comparison.mismatchCount),
              static_cast<unsigned long long>(d.comparison.elementCount));
  for (const module::Mismatch &m : d.comparison.firstMismatches)
    std::printf("    index %llu: generated %.9g, substituted %.9g (diff "
                "%.3g)\n",
                static_cast<unsigned long long>(m.index), m.reference,
                m.candidate, m.candidate - m.reference);
}

/// The hooks that attribute the checking layer's messages (--sanitize) and
/// what CUDA kernels print (|printed|) to |run|'s dispatches; none
/// otherwise.
module::RunHooks hooksFor(Sanitizer *sanitizer, CudaPrintf *printed,
                          const std::string &run, const module::Module &module,
                          const module::Function &function, bool substituted) {
  module::RunHooks hooks =
      sanitizer ? sanitizer->hooks(run, module, function, substituted)
                : module::RunHooks{};
  if (printed)
    printed->addTo(hooks, run, module, function, substituted);
  return hooks;
}

/// runFunction with hooksFor's hooks; what the kernels printed is read back
/// whether the run failed or not.
StatusOr<module::FunctionResult>
runHooked(hal::Device &device, const module::Module &module,
          const module::Function &function, module::VariantChoice choice,
          const module::FixedContents &fixed, Sanitizer *sanitizer,
          CudaPrintf *printed, const std::string &run) {
  bool substituted = choice != module::VariantChoice::ReferenceOnly;
  auto result = module::runFunction(
      device, module, function, choice, fixed,
      hooksFor(sanitizer, printed, run, module, function, substituted));
  if (printed)
    printed->stop(run);
  return result;
}

/// Runs the function with substitutions, then (when every dispatched
/// executable has a reference) with generated kernels only, and compares;
/// or compares the one run with the kernel's expected outputs.
int runAndCompare(hal::Device &device, const std::string &path,
                  const module::Module &module,
                  const module::Function &function, const RunFlags &flags,
                  Sanitizer *sanitizer, CudaPrintf *printed) {
  auto declared = declaredForRun(path, module, function, device.properties());
  if (!declared.ok())
    return fail(declared.status());
  const RunDeclared *kernel = declared->has_value() ? &**declared : nullptr;
  module::FixedContents fixed;
  if (kernel)
    fixed = kernel->fixed.inputs;
  const std::string dispatches = describeDispatches(module, function);
  announceStage(path + ": function `" + function.name +
                "` with substitutions; dispatches " + dispatches);
  auto candidate = runHooked(device, module, function,
                             module::VariantChoice::PreferCandidate, fixed,
                             sanitizer, printed, "run with substitutions");
  if (!candidate.ok())
    return fail(candidate.status().withContext("run with substitutions"));
  if (kernel && !kernel->fixed.expected.empty())
    return compareAgainst(function, *candidate, kernel->fixed.expected, *kernel,
                          flags.maxMismatches, "the expected .npy arrays");
  std::vector<std::string> noReference = withoutReference(module, function);
  if (!noReference.empty() && kernel && kernel->hostReference) {
    auto expected = hostReferenceOutputs(function, *kernel);
    if (!expected.ok())
      return fail(expected.status());
    return compareAgainst(
        function, *candidate, *expected, *kernel, flags.maxMismatches,
        "the " + kernel->hostReference->describe() + ", run on the CPU");
  }
  if (!noReference.empty()) {
    printUncompared(*candidate, noReference);
    return kExitOk;
  }
  announceStage(path + ": function `" + function.name +
                "` with generated kernels only; dispatches " + dispatches);
  auto reference =
      runHooked(device, module, function, module::VariantChoice::ReferenceOnly,
                fixed, sanitizer, printed, "run with generated kernels only");
  if (!reference.ok())
    return fail(
        reference.status().withContext("run with generated kernels only"));
  std::printf("with substitutions: %s\n", variantsUsed(*candidate).c_str());
  std::printf("generated only:     %s\n", variantsUsed(*reference).c_str());
  if (kernel && !kernel->fixed.description.empty())
    std::printf("checks: %s\n", kernel->fixed.description.c_str());

  bool allAgree = true;
  for (size_t i = 0; i < function.outputs.size(); ++i)
    allAgree &= compareOutput(i, function.outputs[i], reference->outputs[i],
                              candidate->outputs[i], flags.maxMismatches,
                              kernel, "generated");
  if (!allAgree)
    printFirstDifference(device, module, function, fixed, flags.maxMismatches);
  std::printf("result: %s%s\n",
              allAgree ? "outputs agree"
                       : "OUTPUTS DIFFER between the substituted and the "
                         "generated kernels",
              hasCandidate(module)
                  ? ""
                  : " (the module has no substituted kernels: both runs "
                    "used the generated ones)");
  return allAgree ? kExitOk : kExitUserError;
}

/// --sanitize's second pass where a shader calls debugPrintfEXT: the layer
/// cannot print and check bounds at once, so the run with substitutions runs
/// again on the same device opened with debug printf only, from the same
/// inputs, and each line is shown with its dispatch and invocation.
void runPrintfPass(const std::string &path, const module::Module &module,
                   const module::Function &function,
                   const hal::DeviceProperties &on, Sanitizer &sanitizer) {
  hal::DriverOptions options;
  options.vulkanDebugPrintf = true;
  options.validationLog = sanitizer.log();
  announceStage("function `" + function.name +
                "` again with debug printf (its shaders call debugPrintfEXT)");
  auto selected = hal::selectDevice(
      hal::builtinDrivers(), "vulkan:" + std::to_string(on.index), options);
  auto declared = declaredForRun(path, module, function, on);
  if (!selected.ok() || !declared.ok()) {
    std::printf("printf: not run: %s\n",
                (selected.ok() ? declared.status() : selected.status())
                    .message()
                    .c_str());
    return;
  }
  module::FixedContents fixed;
  if (declared->has_value())
    fixed = (*declared)->fixed.inputs;
  // The checked run had the guard bands; this pass only prints.
  module::RunHooks hooks =
      sanitizer.hooks("printf pass", module, function, true);
  hooks.guardBytes = 0;
  auto ran =
      module::runFunction(*selected->device, module, function,
                          module::VariantChoice::PreferCandidate, fixed, hooks);
  sanitizer.attribute("printf pass, after the run");
  if (!ran.ok())
    std::printf("printf: the pass failed: %s\n",
                ran.status().message().c_str());
  sanitizer.printPrinted(/*maxShown=*/50);
}

/// BUILD's module file and the module in it.
struct BuildModule {
  std::string path;
  module::Module module;
};
StatusOr<BuildModule> loadBuildModule(const std::string &build) {
  KB_ASSIGN_OR_RETURN(std::string path, modulePath(build));
  KB_ASSIGN_OR_RETURN(module::Module module, module::loadModuleFile(path));
  return BuildModule{std::move(path), std::move(module)};
}

/// Loads the module, picks the function and the device, then
/// runAndCompare.
int runProgram(const RunFlags &flags) {
  StatusOr<BuildModule> loaded = loadBuildModule(flags.build);
  if (!loaded.ok())
    return fail(loaded.status());
  const std::string &path = loaded->path;
  const module::Module &program = loaded->module;
  StatusOr<const module::Function *> chosen =
      chooseFunction(program, path, flags.function);
  if (!chosen.ok())
    return fail(chosen.status());
  const module::Function &function = **chosen;

  hal::DriverOptions driverOptions;
  driverOptions.vulkanValidation = flags.vkValidation;
  std::optional<Sanitizer> sanitizer;
  if (flags.sanitize) {
    sanitizer.emplace();
    driverOptions.vulkanGpuValidation = true;
    driverOptions.validationLog = sanitizer->log();
  }
  // The checking layer is Vulkan's: --sanitize picks a Vulkan device.
  std::string wanted =
      flags.sanitize && flags.device == "auto" ? "vulkan" : flags.device;
  auto selected = hal::selectDevice(
      hal::builtinDrivers(), wanted, driverOptions, {},
      [&](const hal::DeviceProperties &device) {
        return module::whyDeviceCannotRun(program, function, device);
      });
  if (!selected.ok())
    return fail(selected.status());
  hal::Device &device = *selected->device;
  if (sanitizer && device.properties().driver != "vulkan") {
    std::fprintf(stderr,
                 "kernel-bench run: error: --sanitize checks kernels with "
                 "the Khronos validation layer, on a Vulkan device; %s is "
                 "not one: pass --device vulkan (or vulkan:N)\n",
                 flags.device.c_str());
    return kExitUsage;
  }
  // A device named explicitly is not filtered: one without a variant, or
  // without the subgroup size a kernel requires, skips the run here, before
  // anything is dispatched.
  if (std::string why =
          module::whyDeviceCannotRun(program, function, device.properties());
      !why.empty())
    return fail(unavailable(why));
  std::printf("device: %s\n", selected->reason.c_str());
  std::printf("module: %s, function `%s` (%zu ops)\n", path.c_str(),
              function.name.c_str(), function.ops.size());
  // A CUDA kernel's printf reaches stdout: attributed to its dispatch.
  std::optional<CudaPrintf> printed;
  if (device.properties().driver == "cuda" && callsCudaPrintf(program))
    printed.emplace();
  int code = runAndCompare(device, path, program, function, flags,
                           sanitizer ? &*sanitizer : nullptr,
                           printed ? &*printed : nullptr);
  if (printed)
    printed->print(/*maxShown=*/50);
  if (!sanitizer)
    return code;
  sanitizer->attribute("after the runs (the dispatch-by-dispatch "
                       "replay, or device teardown)");
  if (usesDebugPrintf(program))
    runPrintfPass(path, program, function, device.properties(), *sanitizer);
  bool clean = sanitizer->print(/*maxShown=*/20);
  return clean ? code : std::max<int>(code, kExitUserError);
}

/// The worker running |flags| (under --sanitize only when |sanitize|), its
/// stdout relayed as it arrives.
WorkerOptions runWorkerOptions(const RunFlags &flags, bool sanitize) {
  WorkerOptions worker;
  worker.args = {
      "run",        flags.build,        "--device",
      flags.device, "--max-mismatches", std::to_string(flags.maxMismatches)};
  if (!flags.function.empty())
    worker.args.insert(worker.args.end(), {"--function", flags.function});
  if (flags.vkValidation)
    worker.args.push_back("--vk-validation");
  if (sanitize)
    worker.args.push_back("--sanitize");
  worker.timeoutS = flags.timeoutS;
  worker.onStdout = [](std::string_view chunk) {
    std::fwrite(chunk.data(), 1, chunk.size(), stdout);
    std::fflush(stdout);
  };
  worker.onDiagnostic = [](const std::string &line) {
    std::fprintf(stderr, "%s\n", line.c_str());
  };
  return worker;
}

/// The worker's end as run's exit code: its own, or an error naming how it
/// died (or the signal that interrupted us).
int workerExit(const StatusOr<WorkerRun> &run, const RunFlags &flags,
               const InterruptForwarder &interrupt) {
  if (!run.ok())
    return fail(run.status());
  if (interrupt.signal() != 0) {
    std::fprintf(stderr, "kernel-bench run: interrupted by %s\n",
                 signalName(interrupt.signal()).c_str());
    return kExitInterruptedBase + interrupt.signal();
  }
  std::string death = run->death();
  if (death.empty())
    return run->process.exitCode;
  std::fprintf(stderr,
               "kernel-bench run: error: the worker process running the "
               "program %s%s%s\n",
               death.c_str(), run->lastStage.empty() ? "" : "; it was running ",
               run->lastStage.c_str());
  if (run->process.timedOut)
    std::fprintf(stderr,
                 "  (a kernel that never returns? raise --timeout, "
                 "now %g s, if the program is just slow)\n",
                 flags.timeoutS);
  return kExitUserError;
}

/// `run --sanitize` on a CUDA device: the worker runs the program (as a
/// plain run) once under each compute-sanitizer tool; the first pass's
/// output is the run's, every pass's report becomes findings.
int runUnderComputeSanitizer(const RunFlags &flags) {
  namespace fs = std::filesystem;
  StatusOr<fs::path> tool = findComputeSanitizer();
  if (!tool.ok())
    return fail(tool.status());
  StatusOr<BuildModule> loaded = loadBuildModule(flags.build);
  if (!loaded.ok())
    return fail(loaded.status());
  StatusOr<TempDir> logs =
      TempDir::create(fs::temp_directory_path(), "kb-compute-sanitizer.");
  if (!logs.ok())
    return fail(logs.status());
  Sanitizer found("compute-sanitizer: memcheck, racecheck, initcheck and "
                  "synccheck, each a run of its own");
  InterruptForwarder interrupt;
  int code = kExitOk;
  for (CudaCheck check : kCudaChecks) {
    fs::path log = logs->path() / (std::string(toolName(check)) + ".log");
    WorkerOptions worker = runWorkerOptions(flags, /*sanitize=*/false);
    worker.wrapper = computeSanitizerArgv(*tool, check, log, {});
    worker.timeoutS *= kSanitizerSlowdown;
    if (check != CudaCheck::Memcheck)
      worker.onStdout = nullptr; // the same run again: its report once
    int passCode = workerExit(runWorker(worker), flags, interrupt);
    if (interrupt.signal() != 0)
      return passCode;
    for (SanitizerFinding &f : cudaFindings(check, log, loaded->module))
      found.add(std::move(f));
    code = std::max(code, passCode);
    if (passCode == kExitUnavailable)
      break; // no CUDA device: the other tools would not run either
  }
  bool clean = found.print(/*maxShown=*/20);
  return clean ? code : std::max<int>(code, kExitUserError);
}

/// The parent side: the same flags to a worker, its death turned into an
/// error; --sanitize on a CUDA device under compute-sanitizer.
int runInWorker(const RunFlags &flags) {
  if (flags.sanitize && flags.device.rfind("cuda", 0) == 0)
    return runUnderComputeSanitizer(flags);
  InterruptForwarder interrupt;
  return workerExit(runWorker(runWorkerOptions(flags, flags.sanitize)), flags,
                    interrupt);
}

void addRunFlags(CLI::App &app, RunFlags &flags) {
  app.add_option("BUILD", flags.build,
                 "Build directory holding program.kbm, or a .kbm file "
                 "(default: kb-out)")
      ->type_name("PATH");
  addDeviceOption(app, flags.device,
                  "the first of CUDA, a Vulkan GPU, a Vulkan CPU device such "
                  "as lavapipe, that the module has variants for");
  app.add_option("--function", flags.function,
                 "Function to run (default: the module's entry function)")
      ->type_name("NAME");
  app.add_option("--max-mismatches", flags.maxMismatches,
                 "Mismatches printed per output (default 8)");
  app.add_flag("--vk-validation", flags.vkValidation,
               "Enable the Vulkan validation layers (must be installed)");
  app.add_flag("--sanitize", flags.sanitize,
               "Check the kernels under the Khronos validation layer on a "
               "Vulkan device: out-of-bounds buffer accesses (GPU-assisted "
               "validation), synchronization hazards and, through a guard "
               "band after every buffer, writes a little past its end, each "
               "attributed to its dispatch; with --device cuda, under "
               "compute-sanitizer (memcheck, racecheck, initcheck, "
               "synccheck), each finding attributed to its kernel; any error "
               "fails the run (exit 1)");
}

} // namespace

CommandRegistration addRunWorkerCommand(CLI::App &worker) {
  CLI::App *app = worker.add_subcommand("run", "");
  auto flags = std::make_shared<RunFlags>();
  addRunFlags(*app, *flags);
  return {app, [flags]() {
            becomeWorker();
            return runProgram(*flags);
          }};
}

CommandRegistration addRunCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "run", "Run the program once with the substituted kernels and once with "
             "the generated ones, and compare the outputs");
  auto flags = std::make_shared<RunFlags>();
  addRunFlags(*app, *flags);
  app->add_option("--timeout", flags->timeoutS,
                  "Seconds before the worker running the program is killed "
                  "(default 300)")
      ->check(positiveFinite());
  return {app, [flags]() { return runInWorker(*flags); }};
}

} // namespace kb::workbench
