//===- runtime/bench/results.cpp - What a benchmark measured --------------===//
#include "runtime/bench/results.h"

namespace kb::bench {

const char *toString(TimingMode mode) {
  return mode == TimingMode::Hot ? "hot" : "cold";
}

const char *toString(StopReason reason) {
  switch (reason) {
  case StopReason::NotStopped:
    return "not-stopped";
  case StopReason::NoiseTarget:
    return "noise-target";
  case StopReason::NoisePlateau:
  case StopReason::NoiseNotFinite: // the noise stopped improving too
    return "plateau";
  case StopReason::MinimumSamples:
    return "quick";
  case StopReason::Timeout:
    return "timeout";
  case StopReason::Budget:
    return "budget";
  case StopReason::Interrupted:
    return "interrupted";
  case StopReason::Error:
    return "error";
  }
  return "error";
}

const char *toString(BenchStatus status) {
  switch (status) {
  case BenchStatus::Ok:
    return "ok";
  case BenchStatus::Incorrect:
    return "incorrect";
  case BenchStatus::Error:
    return "error";
  case BenchStatus::Skipped:
    return "skipped";
  case BenchStatus::Sanitizer:
    return "sanitizer";
  }
  return "error";
}

const char *toString(VariantRole role) {
  return role == VariantRole::Reference ? "reference" : "candidate";
}

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
  return "not-checked";
}

} // namespace kb::bench
