//===- runtime/bench/correctness.cpp - Correctness before and after timing ===//
#include "runtime/bench/correctness.h"

namespace kb::bench {

namespace {
using module::OutputData;
using module::PreparedFunction;

struct InputSet {
  std::string name;
  uint64_t seedOffset = 0;
  bool zeros = false;
};

std::vector<InputSet> inputSets(const CorrectnessSettings &settings) {
  std::vector<InputSet> sets;
  for (uint32_t i = 0; i < std::max(settings.seeds, 1u); ++i)
    sets.push_back({"seed +" + std::to_string(i), i, false});
  if (settings.zeroInputs)
    sets.push_back({"zeros", 0, true});
  return sets;
}

StatusOr<std::vector<OutputData>>
runWith(hal::Device &device, PreparedFunction &prepared, const InputSet &set) {
  KB_RETURN_IF_ERROR(prepared.initialize(
      set.seedOffset, set.zeros, prepared.writeOnlyBuffers(), kPoisonPattern));
  KB_RETURN_IF_ERROR(runOnce(device, prepared));
  return prepared.readOutputs();
}

/// Names of the read-only buffers whose contents differ from |set|'s.
StatusOr<std::vector<std::string>> changedInputs(PreparedFunction &prepared,
                                                 const InputSet &set) {
  std::vector<std::string> changed;
  for (uint32_t b : prepared.readOnlyBuffers()) {
    KB_ASSIGN_OR_RETURN(auto bytes, prepared.readBuffer(b));
    if (bytes != prepared.initialContents(b, set.seedOffset, set.zeros)) {
      const std::string &name = prepared.function().buffers[b].name;
      changed.push_back(name.empty() ? "buffer " + std::to_string(b) : name);
    }
  }
  return changed;
}

/// Compares every output; appends the failing ones to |result|.
void compareOutputs(const PreparedFunction &candidate,
                    const std::vector<OutputData> &reference,
                    const std::vector<OutputData> &actual,
                    const std::string &inputs,
                    const CorrectnessSettings &settings,
                    CorrectnessResult &result) {
  const module::Function &function = candidate.function();
  for (size_t i = 0; i < reference.size() && i < actual.size(); ++i) {
    const module::Output &out = function.outputs[i];
    module::ToleranceOverride fromModule = out.tolerance();
    auto declared = settings.outputTolerances.find(out.buffer);
    module::Tolerance tol = module::resolveTolerance(
        reference[i].elementType,
        {&fromModule, &settings.kernelTolerance,
         declared == settings.outputTolerances.end() ? nullptr
                                                     : &declared->second});
    module::Comparison cmp =
        module::compareElements(reference[i].elementType, reference[i].bytes,
                                actual[i].bytes, tol, settings.maxMismatches);
    if (cmp.ok())
      continue;
    OutputMismatch m;
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

std::string describeMismatch(const OutputMismatch &m) {
  std::string text = "output " + m.output + " differs from the reference in " +
                     std::to_string(m.mismatchCount) + " element(s) (inputs " +
                     m.inputs + ")";
  if (!m.first.empty()) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "; first at index %llu: expected %.9g, got %.9g",
                  static_cast<unsigned long long>(m.first.front().index),
                  m.first.front().reference, m.first.front().candidate);
    text += buf;
  }
  return text;
}
} // namespace

const char *toString(Verdict verdict) {
  switch (verdict) {
  case Verdict::Correct:
    return "correct";
  case Verdict::Incorrect:
    return "incorrect";
  case Verdict::NoReference:
    return "no-reference";
  case Verdict::NotChecked:
    return "not-checked";
  }
  return "?";
}

Status runOnce(hal::Device &device, const PreparedFunction &prepared) {
  KB_ASSIGN_OR_RETURN(auto commands, device.createCommandBuffer());
  KB_RETURN_IF_ERROR(prepared.record(*commands));
  return commands->submitAndWait();
}

StatusOr<CorrectnessResult>
checkBeforeTiming(hal::Device &device, PreparedFunction &candidate,
                  PreparedFunction *reference,
                  const CorrectnessSettings &settings) {
  CorrectnessResult result;
  result.zeroInputs = settings.zeroInputs;
  for (const InputSet &set : inputSets(settings)) {
    if (!set.zeros)
      result.seedOffsets.push_back(set.seedOffset);
    KB_ASSIGN_OR_RETURN(auto actual, runWith(device, candidate, set));
    KB_ASSIGN_OR_RETURN(result.inputsWritten, changedInputs(candidate, set));
    if (!result.inputsWritten.empty()) {
      result.verdict = Verdict::Incorrect;
      result.reason = "the kernel wrote its read-only input " +
                      result.inputsWritten.front() + " (inputs " + set.name +
                      ")";
      return result;
    }
    if (!reference)
      continue;
    KB_ASSIGN_OR_RETURN(auto expected, runWith(device, *reference, set));
    compareOutputs(candidate, expected, actual, set.name, settings, result);
    if (!result.mismatches.empty()) {
      result.verdict = Verdict::Incorrect;
      result.reason = describeMismatch(result.mismatches.front());
      return result;
    }
    if (set.seedOffset == 0 && !set.zeros)
      result.referenceOutputs = std::move(expected);
  }
  if (reference) {
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
  InputSet first{"after timing", 0, false};
  KB_ASSIGN_OR_RETURN(auto actual, runWith(device, candidate, first));
  compareOutputs(candidate, before.referenceOutputs, actual, first.name,
                 settings, result);
  if (!result.mismatches.empty()) {
    result.verdict = Verdict::Incorrect;
    result.reason = describeMismatch(result.mismatches.front());
  }
  return result;
}

} // namespace kb::bench
