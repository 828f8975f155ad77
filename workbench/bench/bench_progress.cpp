//===- workbench/bench/bench_progress.cpp - Sampling progress, throttled --===//
#include "workbench/bench/bench_progress.h"

#include <cmath>
#include <cstdio>

namespace kb::workbench {

SampleProgress::SampleProgress(std::vector<std::string> subjectNames,
                               bench::TimingMode mode, Clock::duration interval,
                               Sink sink)
    : names_(std::move(subjectNames)), mode_(mode), interval_(interval),
      sink_(std::move(sink)) {}

void SampleProgress::operator()(size_t subject,
                                const bench::StoppingRule &rule) {
  Clock::time_point now = Clock::now();
  if (now < next_ || subject >= names_.size())
    return;
  next_ = now + interval_;
  ++sent_;
  sink_(format(names_[subject], mode_, rule.count(), rule.noise()));
}

std::string SampleProgress::format(const std::string &subject,
                                   bench::TimingMode mode, size_t samples,
                                   double noise) {
  char text[64];
  std::snprintf(text, sizeof text, " %zu %.6g", samples,
                std::isfinite(noise) ? noise : -1.0);
  return "progress " + subject + " " + bench::toString(mode) + text;
}

} // namespace kb::workbench
