#!/bin/bash
# The gate: merges the shards' reports and compares the result with the main
# branch's (docs/ci.md, "The gate").
#
#   gate.sh SHARDS_DIR OUT_DIR [BASE.json...]
#
# Installed as kb-gate in the CI images (examples/ci/Containerfile). Needs no
# GPU. SHARDS_DIR holds shard-0 .. shard-(N-1), each written by bench-shard.sh
# (bench.json and exit-code); the merged report goes to OUT_DIR (every report
# format). Each BASE.json that exists is a main-branch report to compare with;
# none (the first run) means nothing to compare, which is not a failure.
#
# Environment:
#   KB_SHARD_COUNT      N, the number of shards (required)
#   KB_GATE_THRESHOLD   compare --threshold (default 5%)
#   KB_GATE_FAIL_ON     compare --fail-on: slower (default), inconclusive or
#                       never (the main branch: report, store, never fail)
#   KB_GATE_NO_DEVICE   what a shard with no usable device (exit 77) does:
#                       neutral (default: left out of the merge, said loudly)
#                       or fail
#
# Exit codes:
#   0  no regression; or neutral: no shard had a device, or no baseline yet
#   1  a regression (compare 1), or a shard failed: exit 1 (an INCORRECT,
#      ERROR or SANITIZER kernel), 2, 4, 5, a signal, or no exit-code at all
#      (its job died or was cancelled); with KB_GATE_NO_DEVICE=fail also a
#      shard with exit 77
#   2  usage of this script
#   3  inconclusive rows (only with KB_GATE_FAIL_ON=inconclusive)
#   4  the reports do not belong together (merge), or the baseline cannot be
#      compared with them (another device model, an unreadable report)
#   5  nothing could be compared
# Inside GitHub Actions each outcome is also an annotation and a line of the
# job summary, and `complete=true|false` (every shard ran) goes to
# $GITHUB_OUTPUT: store a merged report as the baseline only when complete.
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: gate.sh SHARDS_DIR OUT_DIR [BASE.json...]" >&2
  exit 2
fi
shards=$1
out=$2
shift 2
count=${KB_SHARD_COUNT:-}
threshold=${KB_GATE_THRESHOLD:-5%}
fail_on=${KB_GATE_FAIL_ON:-slower}
no_device=${KB_GATE_NO_DEVICE:-neutral}
if ! [[ $count =~ ^[1-9][0-9]*$ ]]; then
  echo "gate.sh: KB_SHARD_COUNT must be the number of shards (got '$count')" >&2
  exit 2
fi
case $no_device in
  neutral|fail) ;;
  *) echo "gate.sh: KB_GATE_NO_DEVICE must be neutral or fail (got '$no_device')" >&2; exit 2 ;;
esac

# say LEVEL MESSAGE: to the log, and inside GitHub Actions as an annotation
# and a line of the job summary.
say() {
  echo "kb-gate: $1: $2" >&2
  if [ "${GITHUB_ACTIONS:-}" = true ]; then
    echo "::$1 title=kernel-bench gate::$2"
  fi
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    echo "- **$1**: $2" >> "$GITHUB_STEP_SUMMARY"
  fi
}

output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "$1" >> "$GITHUB_OUTPUT"
  fi
}

reports=()
failed=()
skipped=()
for ((i = 0; i < count; i++)); do
  dir=$shards/shard-$i
  if [ ! -f "$dir/exit-code" ]; then
    failed+=("shard $i: no outcome (its job did not finish)")
    continue
  fi
  code=$(< "$dir/exit-code")
  case $code in
    0) ;;
    77) skipped+=("$i") ;;
    *) failed+=("shard $i: kernel-bench bench exited $code") ;;
  esac
  # A shard that failed may still have a complete report (exit 1: an
  # INCORRECT kernel): merge it, so the table shows what went wrong.
  if [ "$code" != 77 ] && [ -f "$dir/bench.json" ]; then
    reports+=("$dir/bench.json")
  fi
done

complete=false
if [ ${#failed[@]} -eq 0 ] && [ ${#skipped[@]} -eq 0 ]; then
  complete=true
fi
output "complete=$complete"
for f in "${failed[@]}"; do
  say error "$f"
done
if [ ${#skipped[@]} -gt 0 ]; then
  level=warning
  [ "$no_device" = fail ] && level=error
  say "$level" "no usable device for shard(s) ${skipped[*]} of $count (exit 77): not benched"
fi

if [ ${#reports[@]} -eq 0 ]; then
  if [ ${#failed[@]} -gt 0 ]; then
    exit 1
  fi
  if [ "$no_device" = fail ]; then
    exit 1
  fi
  say notice "no shard had a usable device: nothing benched, nothing to gate (neutral)"
  exit 0
fi

merge_flags=()
if [ "$complete" != true ]; then
  merge_flags=(--allow-missing)
fi
mrc=0
kernel-bench merge "${reports[@]}" -o "$out" "${merge_flags[@]}" || mrc=$?
if [ "$mrc" -ne 0 ]; then
  say error "kernel-bench merge refused the shards' reports (exit $mrc)"
  exit "$mrc"
fi

bases=()
for base in "$@"; do
  [ -f "$base" ] && bases+=("$base")
done
crc=0
if [ ${#bases[@]} -eq 0 ]; then
  say notice "no main-branch report to compare with yet: merged only"
else
  kernel-bench compare "${bases[@]}" "$out/bench.json" \
    --threshold "$threshold" --fail-on "$fail_on" || crc=$?
  case $crc in
    0) ;;
    1) say error "regression: a benchmark is SLOWER, or a kernel became INCORRECT, ERROR or SANITIZER (compare exit 1)" ;;
    3) say error "inconclusive rows (compare exit 3): rerun with more samples" ;;
    4) say error "the baseline cannot be compared with this run (compare exit 4): another device model or an unreadable report" ;;
    5) say error "nothing could be compared (compare exit 5)" ;;
    *) say error "kernel-bench compare exited $crc" ;;
  esac
fi

if [ ${#failed[@]} -gt 0 ]; then
  exit 1
fi
if [ ${#skipped[@]} -gt 0 ] && [ "$no_device" = fail ]; then
  exit 1
fi
exit "$crc"
