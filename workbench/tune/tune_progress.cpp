//===- workbench/tune/tune_progress.cpp - What a running tune is doing ----===//

#include "workbench/tune/tune_progress.h"

#include "workbench/report/report_rows.h"

namespace kb::workbench {
namespace {

/// "42 s", "3 min 5 s": whole seconds, for elapsed and remaining times.
std::string wholeSeconds(double seconds) {
  long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  if (s < 60)
    return std::to_string(s) + " s";
  return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
}

} // namespace

void CountingBuildObserver::jobsPlanned(size_t count) {
  planned_ = count;
  finished_ = 0;
  inner_.jobsPlanned(count);
  // The status from the start, not after the first compile (an nvcc job
  // takes seconds): on a terminal, a tune must never look hung.
  if (sink_ && count)
    sink_->compiling(0, count);
}

void CountingBuildObserver::jobFinished(const JobRecord &job, bool stopped) {
  inner_.jobFinished(job, stopped);
  size_t done = ++finished_;
  if (sink_)
    sink_->compiling(done, planned_);
}

void CountingBenchObserver::planned(size_t count,
                                    const std::string &shardLine) {
  planned_ = count;
  finished_ = 0;
  inner_.planned(count, shardLine);
}

void CountingBenchObserver::finished(const std::string &benchmark,
                                     const report::Benchmark *failed) {
  inner_.finished(benchmark, failed);
  if (sink_)
    sink_->measuring(++finished_, planned_);
}

TuneProgressPrinter::TuneProgressPrinter(std::FILE *out,
                                         ProgressOptions terminal,
                                         size_t planned)
    : out_(out), terminal_(terminal), planned_(planned) {}

std::string TuneProgressPrinter::statusLine(const std::string &phase) const {
  std::string line = "tune: " + phase + "; measured " +
                     std::to_string(measured_) +
                     (planned_ ? " of " + std::to_string(planned_) : "");
  if (failed_)
    line += " (" + std::to_string(failed_) + " failed)";
  if (!best_.empty())
    line += "; best " + report::formatDuration(bestNs_) + " (" + best_ + ")";
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  line += "; " + wholeSeconds(elapsed);
  // The time per configuration so far, times those left: compiles and
  // measurements alike, so the estimate holds for either phase.
  if (planned_ && measured_ && measured_ < planned_)
    line += ", about " +
            wholeSeconds(elapsed / measured_ * (planned_ - measured_)) +
            " left";
  return line;
}

void TuneProgressPrinter::show(const std::string &phase, bool plainLine) {
  if (terminal_.smartTerminal) {
    std::fprintf(out_, "\r%s\x1b[K",
                 elideMiddle(statusLine(phase), terminal_.width).c_str());
    lineShown_ = true;
  } else if (plainLine) {
    std::fprintf(out_, "%s\n", statusLine(phase).c_str());
  }
  std::fflush(out_);
}

void TuneProgressPrinter::compiling(size_t done, size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A plain log gets the end of each build, not every job.
  show("compiling " + std::to_string(done) + "/" + std::to_string(total) +
           " jobs",
       done == total);
}

void TuneProgressPrinter::measuring(size_t done, size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  show("measuring " + std::to_string(done) + "/" + std::to_string(total),
       false);
}

void TuneProgressPrinter::measured(const std::string &configuration,
                                   const TuneMeasurement &measurement) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++measured_;
  if (measurement.status != TuneMeasurement::Status::Ok)
    ++failed_;
  else if (best_.empty() || measurement.medianNs < bestNs_) {
    best_ = configuration;
    bestNs_ = measurement.medianNs;
  }
  show("measured " + configuration + ": " +
           (measurement.status == TuneMeasurement::Status::Ok
                ? report::formatDuration(measurement.medianNs)
                : std::string(toString(measurement.status))),
       true);
}

void TuneProgressPrinter::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (lineShown_)
    std::fprintf(out_, "\r\x1b[K");
  lineShown_ = false;
  std::fflush(out_);
}

} // namespace kb::workbench
