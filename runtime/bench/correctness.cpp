//===- runtime/bench/correctness.cpp - Correctness before and after -------===//
#include "runtime/bench/correctness.h"

#include "runtime/module/element_io.h"
#include "runtime/module/inputs.h"

#include <algorithm>
#include <cmath>

namespace kb::bench {

namespace {
using module::OutputData;
using module::PreparedFunction;

using module::SpecialValues;

struct InputSet {
  std::string name;
  uint64_t seedOffset = 0;
  bool zeros = false;
  SpecialValues special = SpecialValues::None;
};

std::vector<InputSet> inputSets(const CorrectnessSettings &settings) {
  std::vector<InputSet> sets;
  if (settings.fixed)
    return {{"fixed", 0, false}};
  for (uint32_t i = 0; i < std::max(settings.seeds, 1u); ++i)
    sets.push_back({"seed +" + std::to_string(i), i, false});
  if (settings.zeroInputs)
    sets.push_back({"zeros", 0, true});
  if (settings.largeInputs)
    sets.push_back({"large", 0, false, SpecialValues::Large});
  if (settings.nanInputs)
    sets.push_back({"nan", 0, false, SpecialValues::Nan});
  if (settings.infInputs)
    sets.push_back({"inf", 0, false, SpecialValues::Inf});
  return sets;
}

/// Runs |prepared| (the reference when |reference|) from |set|'s inputs and
/// reads its outputs.
StatusOr<std::vector<OutputData>>
runWith(hal::Device &device, PreparedFunction &prepared, const InputSet &set,
        const CorrectnessSettings &settings, bool reference = false) {
  KB_RETURN_IF_ERROR(prepared.initialize(set.seedOffset, set.zeros,
                                         prepared.writeOnlyBuffers(),
                                         kPoisonPattern, set.special));
  Status ran = runOnce(device, prepared);
  // Told even when the run failed: what the layer saw may say why.
  module::GuardCheck guards;
  if (ran.ok()) {
    KB_ASSIGN_OR_RETURN(guards, prepared.checkGuards());
  }
  if (settings.afterRun)
    settings.afterRun(reference ? std::string("reference")
                                : settings.candidateName,
                      set.name, guards);
  KB_RETURN_IF_ERROR(ran);
  return prepared.readOutputs();
}

/// Names of the read-only buffers whose contents differ from |set|'s.
StatusOr<std::vector<std::string>> changedInputs(PreparedFunction &prepared,
                                                 const InputSet &set) {
  std::vector<std::string> changed;
  for (uint32_t b : prepared.readOnlyBuffers()) {
    KB_ASSIGN_OR_RETURN(auto bytes, prepared.readBuffer(b));
    if (bytes !=
        *prepared.initialContents(b, set.seedOffset, set.zeros, set.special)) {
      const std::string &name = prepared.function().buffers[b].name;
      changed.push_back(name.empty() ? "buffer " + std::to_string(b) : name);
    }
  }
  return changed;
}

/// The largest finite magnitude among |output|'s elements (0 for none).
double largestMagnitude(const OutputData &output) {
  uint32_t size = byteSize(output.elementType);
  double largest = 0;
  for (size_t at = 0; at + size <= output.bytes.size(); at += size) {
    double v = std::fabs(
        module::readElement(output.elementType, output.bytes.data() + at));
    if (std::isfinite(v))
      largest = std::max(largest, v);
  }
  return largest;
}

/// How much larger than from the module's own inputs the outputs are when
/// computed from |set|: the abs tolerance (the floor that absorbs
/// cancellation near zero) grows with them, per output; 1 for other sets.
double absScale(const InputSet &set, const OutputData &reference,
                const std::vector<OutputData> &unitScale, size_t i) {
  if (set.special != SpecialValues::Large ||
      !module::isFloat(reference.elementType))
    return 1;
  double unit = i < unitScale.size() ? largestMagnitude(unitScale[i]) : 0;
  double large = largestMagnitude(reference);
  if (unit == 0)
    return module::largeInputFactor(reference.elementType);
  return std::max(1.0, large / unit);
}

/// The index among |function|'s outputs of |buffer|, or outputs.size().
size_t outputIndex(const module::Function &function, uint32_t buffer) {
  size_t j = 0;
  while (j < function.outputs.size() && function.outputs[j].buffer != buffer)
    ++j;
  return j;
}

/// Compares every output of |reference| (all of the function's, or the
/// expected arrays of some) with |actual|'s of the same buffer; appends the
/// failing ones to |result|.
void compareOutputs(const PreparedFunction &candidate,
                    const std::vector<OutputData> &reference,
                    const std::vector<OutputData> &actual, const InputSet &set,
                    const CorrectnessSettings &settings,
                    CorrectnessResult &result) {
  const module::Function &function = candidate.function();
  const std::string &inputs = set.name;
  for (size_t i = 0; i < reference.size(); ++i) {
    size_t j = outputIndex(function, reference[i].buffer);
    if (j >= actual.size())
      continue;
    const module::Output &out = function.outputs[j];
    module::ToleranceOverride fromModule = out.tolerance();
    auto declared = settings.outputTolerances.find(out.buffer);
    std::initializer_list<const module::ToleranceOverride *> layers = {
        &fromModule, &settings.kernelTolerance,
        declared == settings.outputTolerances.end() ? nullptr
                                                    : &declared->second};
    module::Tolerance tol =
        module::resolveTolerance(reference[i].elementType, layers);
    tol.abs *= absScale(set, reference[i], result.referenceOutputs, i);
    const std::optional<StructLayout> &layout = reference[i].structLayout;
    OutputMismatch m;
    auto shape = settings.outputShapes.find(out.buffer);
    m.map = module::MismatchMap::create(
        std::min(reference[i].bytes.size(), actual[j].bytes.size()) /
            (layout ? layout->stride : byteSize(reference[i].elementType)),
        shape == settings.outputShapes.end() ? std::vector<uint64_t>()
                                             : shape->second,
        &m.mapNote);
    // A struct output: each member with its own type's tolerance.
    module::Comparison cmp =
        layout ? module::compareStructs(*layout, reference[i].bytes,
                                        actual[j].bytes, layers,
                                        settings.maxMismatches, &m.map)
               : module::compareElements(reference[i].elementType,
                                         reference[i].bytes, actual[j].bytes,
                                         tol, settings.maxMismatches, &m.map);
    if (cmp.ok())
      continue;
    m.inputs = inputs;
    m.output = reference[i].name.empty()
                   ? "buffer " + std::to_string(reference[i].buffer)
                   : reference[i].name;
    m.elementType = reference[i].elementType;
    m.tolerance = tol;
    m.mismatchCount = cmp.mismatchCount;
    m.first = cmp.firstMismatches;
    result.mismatches.push_back(std::move(m));
  }
}

std::string describeMismatch(const OutputMismatch &m, bool expectedArrays) {
  std::string text = "output " + m.output + " differs from " +
                     (expectedArrays ? "its expected array" : "the reference") +
                     " in " + std::to_string(m.mismatchCount) +
                     " element(s) (inputs " + m.inputs + ")";
  if (!m.first.empty()) {
    char buf[160];
    const module::Mismatch &first = m.first.front();
    std::snprintf(buf, sizeof buf,
                  "; first at index %llu%s: expected %.9g, "
                  "got %.9g",
                  static_cast<unsigned long long>(first.index),
                  first.member.empty() ? ""
                                       : (" (" + first.member + ")").c_str(),
                  first.reference, first.candidate);
    text += buf;
  }
  return text;
}
} // namespace

Status runOnce(hal::Device &device, const PreparedFunction &prepared) {
  KB_ASSIGN_OR_RETURN(auto commands, device.createCommandBuffer());
  KB_RETURN_IF_ERROR(prepared.record(*commands));
  return commands->submitAndWait();
}

/// Gives the candidate and the reference the fixed inputs of |settings|.
Status applyFixed(PreparedFunction &candidate, PreparedFunction *reference,
                  const CorrectnessSettings &settings,
                  CorrectnessResult &result) {
  if (!settings.fixed)
    return okStatus();
  result.fixedInputs = settings.fixed->description;
  KB_RETURN_IF_ERROR(candidate.setFixedContents(settings.fixed->inputs));
  return reference ? reference->setFixedContents(settings.fixed->inputs)
                   : okStatus();
}

bool hasExpectedArrays(const CorrectnessSettings &settings) {
  return settings.fixed && !settings.fixed->expected.empty();
}

/// What the candidate's outputs from |set| must be: the expected arrays,
/// else the reference variant's outputs, else the host reference's.
StatusOr<std::vector<OutputData>>
expectedOutputs(hal::Device &device, const PreparedFunction &candidate,
                PreparedFunction *reference,
                const CorrectnessSettings &settings, const InputSet &set) {
  if (hasExpectedArrays(settings))
    return settings.fixed->expected;
  if (reference)
    return runWith(device, *reference, set, settings, /*reference=*/true);
  return settings.hostReference->run(
      candidate.function(),
      startingContents(candidate, set.seedOffset, set.zeros, set.special,
                       candidate.writeOnlyBuffers(), kPoisonPattern));
}

StatusOr<CorrectnessResult>
checkBeforeTiming(hal::Device &device, PreparedFunction &candidate,
                  PreparedFunction *reference,
                  const CorrectnessSettings &settings) {
  CorrectnessResult result;
  KB_RETURN_IF_ERROR(applyFixed(candidate, reference, settings, result));
  const bool expectedArrays = hasExpectedArrays(settings);
  for (const InputSet &set : inputSets(settings)) {
    result.zeroInputs |= set.zeros;
    if (set.special != SpecialValues::None)
      result.specialInputs.push_back(set.name);
    else if (!set.zeros && !settings.fixed)
      result.seedOffsets.push_back(set.seedOffset);
    KB_ASSIGN_OR_RETURN(auto actual, runWith(device, candidate, set, settings));
    KB_ASSIGN_OR_RETURN(result.inputsWritten, changedInputs(candidate, set));
    if (!result.inputsWritten.empty()) {
      result.verdict = Verdict::Incorrect;
      result.reason = "the kernel wrote its read-only input " +
                      result.inputsWritten.front() + " (inputs " + set.name +
                      ")";
      return result;
    }
    if (!reference && !expectedArrays && !settings.hostReference)
      continue;
    KB_ASSIGN_OR_RETURN(
        std::vector<OutputData> expected,
        expectedOutputs(device, candidate, reference, settings, set));
    compareOutputs(candidate, expected, actual, set, settings, result);
    if (!result.mismatches.empty()) {
      result.verdict = Verdict::Incorrect;
      result.reason =
          describeMismatch(result.mismatches.front(), expectedArrays);
      return result;
    }
    if (set.seedOffset == 0 && !set.zeros && set.special == SpecialValues::None)
      result.referenceOutputs = std::move(expected);
  }
  if (settings.hostReference && !reference && !expectedArrays)
    result.hostReference = settings.hostReference->describe();
  if (reference || expectedArrays || settings.hostReference) {
    result.verdict = Verdict::Correct;
  } else {
    result.verdict = Verdict::NoReference;
    result.reason = "no reference variant: the kernel ran from every input "
                    "set without a fault, and its outputs were not compared";
  }
  // What follows is timed on the module's own inputs (seed +0), not on the
  // set checked last: all-zero inputs would send every gather to one row
  // and change the power and clock behaviour.
  KB_RETURN_IF_ERROR(candidate.initialize());
  if (reference)
    KB_RETURN_IF_ERROR(reference->initialize());
  return result;
}

StatusOr<CorrectnessResult>
checkAfterTiming(hal::Device &device, PreparedFunction &candidate,
                 const CorrectnessResult &before,
                 const CorrectnessSettings &settings) {
  CorrectnessResult result = before;
  if (before.verdict != Verdict::Correct)
    return result;
  // The candidate still holds its fixed inputs (checkBeforeTiming).
  InputSet first{"after timing", 0, false};
  KB_ASSIGN_OR_RETURN(auto actual, runWith(device, candidate, first, settings));
  compareOutputs(candidate, before.referenceOutputs, actual, first, settings,
                 result);
  if (!result.mismatches.empty()) {
    result.verdict = Verdict::Incorrect;
    result.reason = describeMismatch(result.mismatches.front(),
                                     hasExpectedArrays(settings));
  }
  return result;
}

} // namespace kb::bench
