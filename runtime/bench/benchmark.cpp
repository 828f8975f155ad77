//===- runtime/bench/benchmark.cpp - The benchmark protocol ---------------===//
#include "runtime/bench/benchmark.h"
#include "runtime/bench/counted_run.h"
#include "runtime/bench/profiled_run.h"

#include "common/sha256.h"
#include "common/target.h"

#include <cmath>
#include <cstdio>
#include <memory>

namespace kb::bench {

namespace {
using module::PreparedFunction;
using module::VariantChoice;

/// "cuda:sm_90" / "vulkan:1.2" from a variant's format and target; the
/// target as stored when it is not one kb::Target knows.
std::string targetName(const module::Variant &v) {
  Target::Kind kind = v.format == hal::ExecutableFormat::Spirv
                          ? Target::Kind::Vulkan
                          : Target::Kind::Cuda;
  StatusOr<Target> target = Target::fromArch(kind, v.target);
  return target.ok() ? target->toString() : v.target;
}

Variant describeVariant(const PreparedFunction &prepared,
                        const std::string &name, bool reference) {
  Variant v;
  v.name = name;
  v.role = reference ? VariantRole::Reference : VariantRole::Candidate;
  std::string objects;
  double loadMs = 0;
  for (const module::LoadedVariant &loaded : prepared.variants()) {
    loadMs += loaded.loadMs;
    // A benchmark dispatches one executable, a program several: the first
    // one's target, every object in the hash.
    if (v.target.empty())
      v.target = targetName(*loaded.variant);
    objects += loaded.variant->data;
  }
  v.objectSha256 = sha256Hex(objects);
  v.loadMs = loadMs;
  v.bytesMoved = prepared.bytesMoved();
  return v;
}

bool hasRole(const module::Executable &exe, module::VariantRole role) {
  for (const module::Variant &v : exe.variants)
    if (v.role == role)
      return true;
  return false;
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// What the candidate declares: its tolerances (by the output buffer each
/// [abi] binding is in the dispatch) into |correctness|, its FLOPs and
/// bytes moved into every variant (they do the same work).
/// Its .npy files (fixed_data.h) too: a file that is missing, changed or
/// does not fit fails the benchmark.
Status applyDeclared(const BenchmarkWork &work, const BenchmarkOptions &options,
                     std::vector<Variant> &variants,
                     CorrectnessSettings &correctness,
                     std::vector<std::string> &warnings) {
  if (!work.dispatch || variants.empty() || !options.declared)
    return okStatus();
  const KernelDeclared *found = options.declared(
      variants.front().objectSha256,
      work.module->executables[work.dispatch->executable].name, warnings);
  if (!found)
    return okStatus();
  if (!found->fixedInputs.empty() || !found->expectedOutputs.empty()) {
    KB_ASSIGN_OR_RETURN(FixedData fixed,
                        loadFixedData(*found, *work.function, *work.dispatch));
    correctness.fixed = std::make_shared<const FixedData>(std::move(fixed));
  }
  if (found->hostReference) {
    KB_ASSIGN_OR_RETURN(correctness.hostReference,
                        HostReference::load(*found->hostReference));
  }
  correctness.kernelTolerance = found->tolerance;
  correctness.nanInputs = found->nanInputs;
  correctness.infInputs = found->infInputs;
  const auto &bindings = work.dispatch->bindings;
  for (const OutputTolerance &o : found->outputTolerances)
    if (o.binding < bindings.size())
      correctness.outputTolerances[bindings[o.binding].buffer] = o.tolerance;
  for (const OutputShape &o : found->outputShapes)
    if (o.binding < bindings.size())
      correctness.outputShapes[bindings[o.binding].buffer] = o.dims;
  for (Variant &v : variants) {
    if (found->flops)
      v.flops = *found->flops;
    if (found->bytesMoved)
      v.bytesMoved = static_cast<uint64_t>(std::llround(*found->bytesMoved));
  }
  return okStatus();
}

/// The prepared functions one benchmark runs, in the order of its variants.
struct Prepared {
  std::unique_ptr<PreparedFunction> candidate, baseline, reference;
  bool hasCandidate = false; // a handwritten kernel, not the generated one
};

void announce(const BenchmarkOptions &options, const std::string &stage) {
  if (options.stage)
    options.stage(stage);
}

/// Loads the candidate (else the generated kernel), the baseline's and the
/// reference's variants, and describes each as a result variant.
Status load(hal::Device &device, const BenchmarkWork &work,
            const BenchmarkWork *baseline, const BenchmarkOptions &options,
            Prepared &p, BenchmarkResult &out) {
  bool references = true;
  for (const module::Op &op : work.function->ops) {
    if (op.kind != module::Op::Kind::Dispatch)
      continue;
    const module::Executable &exe = work.module->executables[op.executable];
    p.hasCandidate |= hasRole(exe, module::VariantRole::Candidate);
    references &= hasRole(exe, module::VariantRole::Reference);
  }
  announce(options, "loading");
  KB_ASSIGN_OR_RETURN(p.candidate,
                      PreparedFunction::create(
                          device, *work.module, *work.function,
                          VariantChoice::PreferCandidate, options.guardBytes));
  if (p.hasCandidate && references) {
    KB_ASSIGN_OR_RETURN(p.reference,
                        PreparedFunction::create(
                            device, *work.module, *work.function,
                            VariantChoice::ReferenceOnly, options.guardBytes));
  }
  out.variants.push_back(
      describeVariant(*p.candidate, p.hasCandidate ? "candidate" : "generated",
                      !p.hasCandidate));
  // A module tuned for other device models runs its default parameters
  // here: the report says so, since the timing is not the tuned one's.
  for (const module::LoadedVariant &loaded : p.candidate->variants())
    if (std::string note =
            module::tuningNote(work.module->executables[loaded.executable],
                               *loaded.variant, device.properties());
        !note.empty() && note.rfind("tuned for ", 0) != 0)
      out.warnings.push_back("`" +
                             work.module->executables[loaded.executable].name +
                             "`: " + note);
  if (baseline) {
    announce(options, "loading the baseline build's kernel");
    KB_ASSIGN_OR_RETURN(
        p.baseline,
        PreparedFunction::create(device, *baseline->module, *baseline->function,
                                 VariantChoice::PreferCandidate));
    out.variants.push_back(
        describeVariant(*p.baseline, kBaselineVariant, false));
  }
  if (p.reference)
    out.variants.push_back(describeVariant(*p.reference, "reference", true));
  return okStatus();
}

/// The prepared functions as subjects named after their variants.
std::vector<Subject> subjectsOf(const Prepared &p,
                                const std::vector<Variant> &variants) {
  std::vector<Subject> subjects;
  for (PreparedFunction *f :
       {p.candidate.get(), p.baseline.get(), p.reference.get()})
    if (f) // the variants were described in this order (load())
      subjects.push_back({variants[subjects.size()].name,
                          [f](hal::CommandBuffer &c) { return f->record(c); }});
  return subjects;
}

/// Every subject timed interleaved in each mode; the timings go to the
/// variants, in order.
Status timeAll(Engine &engine, const Prepared &p,
               const BenchmarkOptions &options,
               std::vector<Variant> &variants) {
  std::vector<Subject> subjects = subjectsOf(p, variants);
  std::vector<std::string> names;
  for (const Subject &s : subjects)
    names.push_back(s.name);
  for (TimingMode mode : options.modes) {
    announce(options, std::string(toString(mode)) + " samples");
    ProgressFn progress =
        options.progress ? options.progress(names, mode) : ProgressFn();
    KB_ASSIGN_OR_RETURN(auto timings,
                        engine.measureInterleaved(subjects, mode, progress));
    for (size_t i = 0; i < timings.size(); ++i)
      variants[i].timings.push_back(std::move(timings[i]));
  }
  return okStatus();
}

/// Each variant's correctness as the report states it: the candidate's
/// verdict, or what the variant is.
void describeVariants(const CorrectnessResult &correctness,
                      std::vector<Variant> &variants) {
  for (Variant &v : variants) {
    if (v.name == kBaselineVariant)
      v.correctness.note = "the baseline build's kernel (--baseline): checked "
                           "in that build's own run, timed here in pairs with "
                           "the candidate";
    else if (v.role == VariantRole::Candidate || variants.size() == 1)
      v.correctness = describeCorrectness(correctness);
    else
      v.correctness.note = "the reference the candidate is checked against";
  }
}

/// The baseline build's kernel is timed in pairs with the candidate, so it
/// runs from the same fixed inputs; a baseline whose buffers do not fit
/// them (another layout) keeps its own, with a warning.
Status fixBaselineInputs(const Prepared &p,
                         const CorrectnessSettings &correctness,
                         std::vector<std::string> &warnings) {
  if (!p.baseline || !correctness.fixed || correctness.fixed->inputs.empty())
    return okStatus();
  if (Status fixed = p.baseline->setFixedContents(correctness.fixed->inputs);
      !fixed.ok()) {
    warnings.push_back("the baseline runs from its own inputs, not the "
                       "candidate's fixed ones: " +
                       fixed.message());
    return okStatus();
  }
  return p.baseline->initialize();
}

/// Marks |out| incorrect (or an error) and drops every timing: a wrong
/// kernel's times are not results.
void fail(BenchmarkResult &out, BenchStatus status, std::string reason) {
  out.status = status;
  out.reason = std::move(reason);
  for (Variant &v : out.variants)
    v.timings.clear();
}

} // namespace

Status runBenchmark(hal::Device &device, Engine *engine,
                    const BenchmarkWork &work, const BenchmarkWork *baseline,
                    const BenchmarkOptions &options, BenchmarkResult &out) {
  Prepared p;
  KB_RETURN_IF_ERROR(load(device, work, baseline, options, p, out));
  announce(options, "correctness check");
  CorrectnessSettings correctness = options.correctness;
  correctness.candidateName = out.variants.front().name;
  KB_RETURN_IF_ERROR(
      applyDeclared(work, options, out.variants, correctness, out.warnings));
  KB_RETURN_IF_ERROR(fixBaselineInputs(p, correctness, out.warnings));
  KB_ASSIGN_OR_RETURN(
      CorrectnessResult checked,
      checkBeforeTiming(device, *p.candidate, p.reference.get(), correctness));
  if (!p.hasCandidate) {
    checked.verdict = Verdict::NotChecked;
    checked.reason = "no handwritten kernel for this device: the generated "
                     "one is timed alone";
  }
  if (checked.verdict == Verdict::Incorrect) {
    describeVariants(checked, out.variants);
    fail(out, BenchStatus::Incorrect, checked.reason);
    return okStatus();
  }
  if (options.checkOnly) {
    describeVariants(checked, out.variants);
    return okStatus();
  }
  if (!options.profileRange.empty()) {
    announce(options, "profiled run");
    KB_RETURN_IF_ERROR(
        runProfiled(device, options.profileRange, subjectsOf(p, out.variants)));
    describeVariants(checked, out.variants);
    return okStatus();
  }
  if (!engine)
    return failedPrecondition("runBenchmark: timing needs an Engine");
  KB_RETURN_IF_ERROR(timeAll(*engine, p, options, out.variants));
  announce(options, "correctness re-check after timing");
  KB_ASSIGN_OR_RETURN(
      checked, checkAfterTiming(device, *p.candidate, checked, correctness));
  describeVariants(checked, out.variants);
  if (checked.verdict == Verdict::Incorrect) {
    fail(out, BenchStatus::Incorrect, "after timing: " + checked.reason);
    return okStatus();
  }
  for (const Variant &v : out.variants)
    for (const Timing &t : v.timings)
      if (t.summary.count == 0) {
        fail(out, BenchStatus::Error,
             v.name + " " + toString(t.mode) + ": no accepted sample");
        return okStatus();
      }
  if (!options.counters)
    return okStatus();
  announce(options, "hardware counters");
  // The timings stand whatever happens to the counting.
  if (Status counted = countVariants(device, engine->flushBuffer(),
                                     subjectsOf(p, out.variants), out.variants);
      !counted.ok())
    for (Variant &v : out.variants)
      if (!v.counters && v.countersNote.empty())
        v.countersNote = "failed: " + counted.message();
  return okStatus();
}

Correctness describeCorrectness(const CorrectnessResult &result) {
  Correctness c;
  c.status = result.verdict;
  c.seeds = result.seedOffsets;
  for (const OutputMismatch &m : result.mismatches) {
    for (const module::Mismatch &x : m.first)
      c.firstMismatches.push_back(
          {m.output, x.index, number(x.reference), number(x.candidate)});
    c.mismatchMaps.push_back({m.output, m.inputs, m.map, m.mapNote});
  }
  c.note = result.reason;
  if (!result.hostReference.empty())
    c.note += (c.note.empty() ? "" : "; ") + std::string("reference: the ") +
              result.hostReference + ", run on the CPU";
  if (!result.fixedInputs.empty()) {
    c.note += (c.note.empty() ? "" : "; ") + result.fixedInputs;
    return c;
  }
  std::string inputs = "the seeds";
  if (result.zeroInputs)
    inputs += ", all zeros";
  for (const std::string &special : result.specialInputs)
    inputs += special == "large" ? ", large magnitudes"
              : special == "nan" ? ", NaN among them"
                                 : ", infinities among them";
  c.note += std::string(c.note.empty() ? "" : "; ") + "inputs: " + inputs;
  return c;
}

} // namespace kb::bench
