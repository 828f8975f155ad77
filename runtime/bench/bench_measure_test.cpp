//===- runtime/bench/bench_measure_test.cpp - Engine on a real device -----===//
//
// The sampling loop and the correctness checks on the first Vulkan device
// (lavapipe here, a GPU elsewhere), with the sample program of
// runtime/testing (GLSL through glslc). Skips when the machine lacks glslc
// or a Vulkan device; fails on any other error.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/correctness.h"
#include "runtime/bench/measure.h"

#include "common/tool_search.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/testing/device_environment.h"
#include "runtime/testing/sample_modules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace kb::bench {
namespace {

struct Fixture {
  hal::SelectedDevice selected;
  module::Module module;
};

/// The sample program and the first Vulkan device, or null with |skip|
/// set when the environment lacks glslc or a Vulkan device (asked of the
/// tool search and the device listing). Any other error is a test failure
/// (null, |skip| empty): a sample that stopped building must not read as
/// "skipped".
std::unique_ptr<Fixture> setUp(bool wrongCandidate, std::string &skip,
                               bool squashNan = false) {
  if (!searchTool("glslc").ok()) {
    skip = "glslc is not installed; the sample program needs it";
    return nullptr;
  }
  if (!testing::vulkanDeviceListed()) {
    skip = testing::noVulkanReason();
    return nullptr;
  }
  auto fixture = std::make_unique<Fixture>();
  testing::SampleOptions options;
  options.wrongCandidate = wrongCandidate;
  options.nanSquashingCandidate = squashNan;
  auto module = testing::makeSampleProgram(options);
  if (!module.ok()) {
    ADD_FAILURE() << "the sample program: " << module.status().message();
    return nullptr;
  }
  fixture->module = std::move(*module);
  auto selected = hal::selectDevice(hal::builtinDrivers(), "vulkan");
  if (!selected.ok()) {
    ADD_FAILURE() << "a Vulkan device is listed, yet: "
                  << selected.status().message();
    return nullptr;
  }
  fixture->selected = std::move(*selected);
  return fixture;
}

/// The candidate and the reference of |module|'s main function on |device|.
struct Prepared {
  std::unique_ptr<module::PreparedFunction> candidate, reference;
};
StatusOr<Prepared> prepareBoth(hal::Device &device,
                               const module::Module &module) {
  Prepared p;
  KB_ASSIGN_OR_RETURN(p.candidate, module::PreparedFunction::create(
                                       device, module, module.functions[0],
                                       module::VariantChoice::PreferCandidate));
  KB_ASSIGN_OR_RETURN(p.reference, module::PreparedFunction::create(
                                       device, module, module.functions[0],
                                       module::VariantChoice::ReferenceOnly));
  return p;
}

#define SET_UP(wrong)                                                          \
  std::string skip;                                                            \
  auto f = setUp(wrong, skip);                                                 \
  if (!f && skip.empty())                                                      \
    return;                                                                    \
  if (!f)                                                                      \
  GTEST_SKIP() << skip

TEST(BenchMeasureTest, CorrectCandidatePassesEveryInputSet) {
  SET_UP(false);
  hal::Device &device = *f->selected.device;
  const module::Function &main = f->module.functions[0];
  auto cand = module::PreparedFunction::create(
      device, f->module, main, module::VariantChoice::PreferCandidate);
  auto ref = module::PreparedFunction::create(
      device, f->module, main, module::VariantChoice::ReferenceOnly);
  ASSERT_TRUE(cand.ok()) << cand.status().message();
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  auto result = checkBeforeTiming(device, **cand, ref->get(), {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->verdict, Verdict::Correct) << result->reason;
  EXPECT_EQ(result->seedOffsets.size(), 3u);
  auto after = checkAfterTiming(device, **cand, *result, {});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->verdict, Verdict::Correct);

  auto alone = checkBeforeTiming(device, **cand, nullptr, {});
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->verdict, Verdict::NoReference);
}

TEST(BenchMeasureTest, WrongCandidateIsIncorrectAtItsFirstBadIndex) {
  SET_UP(true);
  hal::Device &device = *f->selected.device;
  const module::Function &main = f->module.functions[0];
  auto cand = module::PreparedFunction::create(
      device, f->module, main, module::VariantChoice::PreferCandidate);
  auto ref = module::PreparedFunction::create(
      device, f->module, main, module::VariantChoice::ReferenceOnly);
  ASSERT_TRUE(cand.ok() && ref.ok());
  auto result = checkBeforeTiming(device, **cand, ref->get(), {});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->verdict, Verdict::Incorrect);
  ASSERT_FALSE(result->mismatches.empty());
  EXPECT_EQ(result->mismatches[0].first.at(0).index, testing::kWrongIndex);
  EXPECT_NE(result->reason.find("index 37"), std::string::npos)
      << result->reason;
}

// Special values: large magnitudes always; NaN and
// infinities only when the kernel declares it propagates them. A candidate
// that turns NaN into 0 passes without the NaN set and is INCORRECT with
// it, at the first index where the reference has NaN.
TEST(BenchMeasureTest, SpecialValuesNanOnlyWhereDeclared) {
  std::string skip;
  auto f = setUp(false, skip, /*squashNan=*/true);
  if (!f && skip.empty())
    return;
  if (!f)
    GTEST_SKIP() << skip;
  hal::Device &device = *f->selected.device;
  auto squash = prepareBoth(device, f->module);
  ASSERT_TRUE(squash.ok()) << squash.status().message();
  module::PreparedFunction &cand = *squash->candidate;
  module::PreparedFunction *ref = squash->reference.get();
  CorrectnessSettings settings;
  auto plain = checkBeforeTiming(device, cand, ref, settings);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->verdict, Verdict::Correct) << plain->reason;
  EXPECT_EQ(plain->specialInputs, std::vector<std::string>{"large"});

  settings.infInputs = true; // inf propagates through a*x+y untouched
  auto inf = checkBeforeTiming(device, cand, ref, settings);
  ASSERT_TRUE(inf.ok());
  EXPECT_EQ(inf->verdict, Verdict::Correct) << inf->reason;

  settings.nanInputs = true;
  auto nan = checkBeforeTiming(device, cand, ref, settings);
  ASSERT_TRUE(nan.ok()) << nan.status().message();
  EXPECT_EQ(nan->verdict, Verdict::Incorrect);
  ASSERT_FALSE(nan->mismatches.empty());
  EXPECT_EQ(nan->mismatches[0].inputs, "nan");
  EXPECT_EQ(nan->mismatches[0].first.at(0).index, 3u);
  EXPECT_TRUE(std::isnan(nan->mismatches[0].first.at(0).reference));
  EXPECT_EQ(nan->mismatches[0].first.at(0).candidate, 0);

  // The handwritten saxpy that propagates NaN passes every set.
  auto g = setUp(false, skip);
  ASSERT_TRUE(g);
  auto good = prepareBoth(device, g->module);
  ASSERT_TRUE(good.ok()) << good.status().message();
  auto all = checkBeforeTiming(device, *good->candidate, good->reference.get(),
                               settings);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->verdict, Verdict::Correct) << all->reason;
  EXPECT_EQ(all->specialInputs,
            (std::vector<std::string>{"large", "nan", "inf"}));
}

TEST(BenchMeasureTest, ColdAndHotSamplesInterleaved) {
  SET_UP(false);
  hal::Device &device = *f->selected.device;
  const module::Function &main = f->module.functions[0];
  auto cand = module::PreparedFunction::create(
      device, f->module, main, module::VariantChoice::PreferCandidate);
  auto ref = module::PreparedFunction::create(
      device, f->module, main, module::VariantChoice::ReferenceOnly);
  ASSERT_TRUE(cand.ok() && ref.ok());
  MeasureSettings settings;
  settings.stopping = quickStoppingSettings();
  settings.l2 = {1 << 20, "flag"};
  settings.hotMinSampleNs = 2e5;
  auto engine = Engine::create(device, settings);
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  std::vector<Subject> subjects = {
      {"candidate", [&](hal::CommandBuffer &c) { return (*cand)->record(c); }},
      {"reference", [&](hal::CommandBuffer &c) { return (*ref)->record(c); }}};
  size_t progressCalls = 0;
  for (TimingMode mode : {TimingMode::Cold, TimingMode::Hot}) {
    auto results = (*engine)->measureInterleaved(
        subjects, mode, [&](size_t, const StoppingRule &) { ++progressCalls; });
    ASSERT_TRUE(results.ok()) << results.status().message();
    ASSERT_EQ(results->size(), 2u);
    for (const Timing &r : *results) {
      EXPECT_EQ(r.mode, mode);
      EXPECT_GE(r.summary.count, 10u);
      EXPECT_GT(r.summary.median, 0);
      double hostNs = 0;
      for (const Sample &sample : r.samples)
        hostNs += sample.hostNs / r.samples.size();
      EXPECT_GE(hostNs, r.summary.median * 0.5);
      EXPECT_NE(r.stopReason, StopReason::NotStopped);
      if (mode == TimingMode::Cold)
        EXPECT_EQ(r.dispatchesPerSample, 1u);
    }
  }
  EXPECT_GE(progressCalls, 40u);

  auto interrupted = (*engine)->measureInterleaved(subjects, TimingMode::Cold,
                                                   {}, [] { return true; });
  ASSERT_TRUE(interrupted.ok());
  EXPECT_EQ((*interrupted)[0].stopReason, StopReason::Interrupted);
}

// --budget stopped only benchmarks that had not started: one that started
// with a second of budget left sampled for its whole time limit, and its row
// did not say why it had fewer samples than the others.
TEST(BenchMeasureTest, ASpentBudgetStopsSamplingAndSaysSo) {
  SET_UP(false);
  hal::Device &device = *f->selected.device;
  auto cand = module::PreparedFunction::create(
      device, f->module, f->module.functions[0],
      module::VariantChoice::PreferCandidate);
  ASSERT_TRUE(cand.ok()) << cand.status().message();
  MeasureSettings settings;
  settings.stopping = quickStoppingSettings();
  settings.l2 = {1 << 20, "flag"};
  settings.budgetDeadline = std::chrono::steady_clock::now();
  auto engine = Engine::create(device, settings);
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  std::vector<Subject> subjects = {
      {"candidate", [&](hal::CommandBuffer &c) { return (*cand)->record(c); }}};
  auto results = (*engine)->measureInterleaved(subjects, TimingMode::Cold);
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_EQ((*results)[0].samples.size(), 1u); // the round it was in
  EXPECT_EQ((*results)[0].stopReason, StopReason::Budget);
}

// Paired A/B: in lockstep every subject samples every round until all have
// stopped, so a fast subject that needs more samples to reach --min-time
// keeps the slow one sampling, and sample i of each pairs up.
TEST(BenchMeasureTest, LockstepGivesEverySubjectTheSameRounds) {
  SET_UP(false);
  hal::Device &device = *f->selected.device;
  const module::Function &main = f->module.functions[0];
  auto cand = module::PreparedFunction::create(
      device, f->module, main, module::VariantChoice::PreferCandidate);
  ASSERT_TRUE(cand.ok()) << cand.status().message();
  auto times = [&](int n) {
    return [&, n](hal::CommandBuffer &c) {
      for (int i = 0; i < n; ++i) {
        KB_RETURN_IF_ERROR((*cand)->record(c));
        KB_RETURN_IF_ERROR(c.barrier());
      }
      return okStatus();
    };
  };
  std::vector<Subject> subjects = {{"fast", times(1)}, {"slow", times(8)}};
  MeasureSettings settings;
  settings.stopping.minSamples = 5;
  settings.stopping.noiseRequired = false;
  settings.stopping.timeoutS = 20;
  settings.l2 = {1 << 16, "flag"};
  // Sampling time the slow subject reaches in about 5 samples; the fast one
  // needs more.
  auto probe = Engine::create(device, settings);
  ASSERT_TRUE(probe.ok());
  auto once = (*probe)->measureInterleaved({subjects[1]}, TimingMode::Cold);
  ASSERT_TRUE(once.ok()) << once.status().message();
  double onceHostNs = 0;
  for (const Sample &sample : (*once)[0].samples)
    onceHostNs += sample.hostNs / (*once)[0].samples.size();
  settings.stopping.minTimeS = 5 * onceHostNs * 1e-9;

  // The rule, computed from a run's own samples: the first round where a
  // subject has >= min-samples and more than min-time. Timings on lavapipe
  // are CPU time, so every expectation is checked against the samples the
  // run itself took, never against another run (CI saw the fast subject
  // need 22 samples in one run and 5 in the next, under load).
  auto roundsToStop = [&](const Timing &r) {
    double total = 0;
    for (size_t k = 0; k < r.samples.size(); ++k) {
      total += r.samples[k].hostNs * r.dispatchesPerSample;
      if (k + 1 >= settings.stopping.minSamples &&
          total > settings.stopping.minTimeS * 1e9)
        return k + 1;
    }
    return r.samples.size();
  };

  auto engine = Engine::create(device, settings);
  ASSERT_TRUE(engine.ok());
  auto alone = (*engine)->measureInterleaved(subjects, TimingMode::Cold);
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  // On its own, each subject stops at its own rule.
  for (size_t i = 0; i < alone->size(); ++i)
    if ((*alone)[i].stopReason != StopReason::Timeout)
      EXPECT_EQ((*alone)[i].samples.size(), roundsToStop((*alone)[i]))
          << subjects[i].name;

  settings.lockstep = true;
  auto paired = Engine::create(device, settings);
  ASSERT_TRUE(paired.ok());
  auto locked = (*paired)->measureInterleaved(subjects, TimingMode::Cold);
  ASSERT_TRUE(locked.ok()) << locked.status().message();
  EXPECT_EQ((*locked)[0].samples.size(), (*locked)[1].samples.size());
  EXPECT_EQ((*locked)[0].discarded, (*locked)[1].discarded);
  for (const Timing &r : *locked)
    EXPECT_NE(r.stopReason, StopReason::NotStopped);
  // In lockstep the rounds end where the later of the two first meets it.
  if ((*locked)[0].stopReason != StopReason::Timeout)
    EXPECT_EQ((*locked)[1].samples.size(),
              std::max(roundsToStop((*locked)[0]), roundsToStop((*locked)[1])));
}

} // namespace
} // namespace kb::bench
