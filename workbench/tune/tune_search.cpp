//===- workbench/tune/tune_search.cpp - How `tune` chooses what to --------===//
#include "workbench/tune/tune_search.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

namespace kb::workbench {

namespace {

using Status_ = TuneMeasurement::Status;

/// Measures |indices| of |state| at |level| and records the outcomes.
Status measureInto(const std::vector<size_t> &indices, int level,
                   const TuneMeasureFn &measure, TuneSearchResult &state) {
  std::vector<TuneValues> configs;
  for (size_t i : indices)
    configs.push_back(state.results[i].values);
  KB_ASSIGN_OR_RETURN(std::vector<TuneMeasurement> out,
                      measure(configs, level));
  if (out.size() != indices.size())
    return internalError("tune: measured " + std::to_string(out.size()) +
                         " of " + std::to_string(indices.size()) +
                         " configurations");
  for (size_t k = 0; k < indices.size(); ++k) {
    state.totalCostNs += out[k].costNs;
    state.results[indices[k]].measurement = std::move(out[k]);
  }
  return okStatus();
}

/// The Ok ones of |indices|, fastest first.
std::vector<size_t> ranked(const std::vector<size_t> &indices,
                           const TuneSearchResult &state) {
  std::vector<size_t> ok;
  for (size_t i : indices)
    if (state.results[i].measurement.status == Status_::Ok)
      ok.push_back(i);
  std::stable_sort(ok.begin(), ok.end(), [&](size_t a, size_t b) {
    return state.results[a].measurement.medianNs <
           state.results[b].measurement.medianNs;
  });
  return ok;
}

/// Successive halving of |alive| (measured at level 0 already when
/// |levelZeroMeasured|).
Status successiveHalving(std::vector<size_t> alive,
                         const TuneMeasureFn &measure, TuneSearchResult &state,
                         bool levelZeroMeasured = false) {
  for (int level = 0; level <= kTopLevel && !alive.empty(); ++level) {
    if (level > 0 || !levelZeroMeasured)
      KB_RETURN_IF_ERROR(measureInto(alive, level, measure, state));
    std::vector<size_t> order = ranked(alive, state);
    if (level == kTopLevel) {
      alive = order;
      break;
    }
    size_t keep = std::max<size_t>(1, (order.size() + kEta - 1) / kEta);
    order.resize(std::min(keep, order.size()));
    alive = order;
  }
  std::vector<size_t> final = ranked(alive, state);
  if (!final.empty())
    state.best = final.front();
  return okStatus();
}

/// Keeps only the results |measured| (in configuration order, as the other
/// strategies leave them), |state.best| following its result: under a time
/// budget, a configuration never drawn is not a result.
void keepOnly(std::vector<size_t> measured, TuneSearchResult &state) {
  std::sort(measured.begin(), measured.end());
  std::vector<TuneResult> kept;
  std::optional<size_t> best;
  for (size_t i : measured) {
    if (state.best == i)
      best = kept.size();
    kept.push_back(std::move(state.results[i]));
  }
  state.results = std::move(kept);
  state.best = best;
}

/// The time budget's clock: |options.seconds|, or the steady clock.
std::function<double()> clockOf(const TuneSearchOptions &options) {
  if (options.seconds)
    return options.seconds;
  return [] {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
}

/// |options.seed|'s shuffle of |all|, measured at |level| batch by batch
/// (|options.batch| each) until |seconds| have passed since the first: a
/// batch started is finished, and with |oneAtLeast| the first one is
/// measured whatever the time. The ones measured, in the order drawn.
StatusOr<std::vector<size_t>>
drawWhileTimeLeft(std::vector<size_t> all, int level, double seconds,
                  bool oneAtLeast, const TuneSearchOptions &options,
                  const TuneMeasureFn &measure, TuneSearchResult &state) {
  std::function<double()> now = clockOf(options);
  const double start = now();
  std::mt19937_64 rng(options.seed);
  std::shuffle(all.begin(), all.end(), rng);
  size_t count = 0;
  while (count < all.size() &&
         ((oneAtLeast && count == 0) || now() - start < seconds)) {
    size_t end =
        std::min(all.size(), count + std::max<size_t>(1, options.batch));
    KB_RETURN_IF_ERROR(
        measureInto(std::vector<size_t>(all.begin() + count, all.begin() + end),
                    level, measure, state));
    count = end;
  }
  all.resize(count);
  return all;
}

/// Random sampling under a time budget: batches drawn at random and
/// measured fully until the budget is spent.
Status timedRandom(std::vector<size_t> all, const TuneSearchOptions &options,
                   const TuneMeasureFn &measure, TuneSearchResult &state) {
  KB_ASSIGN_OR_RETURN(
      std::vector<size_t> measured,
      drawWhileTimeLeft(std::move(all), kTopLevel, options.budgetSeconds,
                        /*oneAtLeast=*/false, options, measure, state));
  keepOnly(measured, state);
  std::vector<size_t> indices(state.results.size());
  for (size_t i = 0; i < indices.size(); ++i)
    indices[i] = i;
  std::vector<size_t> order = ranked(indices, state);
  if (!order.empty())
    state.best = order.front();
  return okStatus();
}

/// Successive halving under a time budget: the first round measures batches
/// of the shuffled candidates briefly until its share of the budget is
/// spent (at least one batch; a batch started is finished), and the later
/// rounds halve what it measured. Each round gets an equal share: a later
/// one measures 1/kEta as many configurations kEta times longer with
/// nothing left to compile, so it costs about as much, or less. The
/// candidates never drawn are not results.
Status timedHalving(std::vector<size_t> all, const TuneSearchOptions &options,
                    const TuneMeasureFn &measure, TuneSearchResult &state) {
  KB_ASSIGN_OR_RETURN(std::vector<size_t> first,
                      drawWhileTimeLeft(std::move(all), 0,
                                        options.budgetSeconds / (kTopLevel + 1),
                                        /*oneAtLeast=*/true, options, measure,
                                        state));
  KB_RETURN_IF_ERROR(
      successiveHalving(first, measure, state, /*levelZeroMeasured=*/true));
  keepOnly(first, state);
  return okStatus();
}

} // namespace

const char *toString(TuneStrategy strategy) {
  switch (strategy) {
  case TuneStrategy::Exhaustive:
    return "exhaustive";
  case TuneStrategy::Random:
    return "random";
  case TuneStrategy::Halving:
    return "halving";
  }
  return "?";
}

const char *toString(TuneMeasurement::Status status) {
  switch (status) {
  case Status_::Ok:
    return "ok";
  case Status_::CompileError:
    return "compile-error";
  case Status_::Incorrect:
    return "incorrect";
  case Status_::Error:
    return "error";
  }
  return "?";
}

size_t levelSamples(int level) {
  size_t samples = 2;
  for (int i = 0; i < level; ++i)
    samples *= kEta;
  return samples;
}

StatusOr<TuneSearchResult> runTuneSearch(std::vector<TuneValues> candidates,
                                         const TuneSearchOptions &options,
                                         const TuneMeasureFn &measure) {
  if (options.strategy != TuneStrategy::Exhaustive && options.budget &&
      options.budget < candidates.size()) {
    std::mt19937_64 rng(options.seed);
    std::shuffle(candidates.begin(), candidates.end(), rng);
    candidates.resize(options.budget);
    std::sort(candidates.begin(), candidates.end());
  }
  TuneSearchResult state;
  std::vector<size_t> all;
  for (TuneValues &values : candidates) {
    all.push_back(state.results.size());
    state.results.push_back({std::move(values), {}});
  }
  if (options.strategy == TuneStrategy::Random && options.budgetSeconds > 0) {
    KB_RETURN_IF_ERROR(timedRandom(all, options, measure, state));
    return state;
  }
  if (options.strategy == TuneStrategy::Halving && options.budgetSeconds > 0) {
    KB_RETURN_IF_ERROR(timedHalving(all, options, measure, state));
    return state;
  }
  if (options.strategy == TuneStrategy::Halving) {
    KB_RETURN_IF_ERROR(successiveHalving(all, measure, state));
    return state;
  }
  KB_RETURN_IF_ERROR(measureInto(all, kTopLevel, measure, state));
  std::vector<size_t> order = ranked(all, state);
  if (!order.empty())
    state.best = order.front();
  return state;
}

} // namespace kb::workbench
