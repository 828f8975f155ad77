#!/bin/bash
# Benches one shard of a bundle and records its outcome (docs/ci.md).
#
#   bench-shard.sh BUNDLE.tar OUT_DIR [kernel-bench bench flags...]
#
# Installed as kb-bench-shard in the CI images (examples/ci/Containerfile).
# The shard comes from the engine's environment (KB_SHARD_INDEX and
# KB_SHARD_COUNT, JOB_COMPLETION_INDEX and KB_SHARD_COUNT, SLURM_ARRAY_*) or
# from a --shard flag passed through. When KB_SHARD_BALANCE names a file that
# exists (the main branch's last merged bench.json), the shards are balanced
# by its timings; every shard must see the same file.
#
# Writes OUT_DIR/bench.json (unless there was no device) and OUT_DIR/exit-code,
# kernel-bench's exit code, which gate.sh reads to tell a shard that had no
# device from one that failed or never ran. Prints one line saying what the
# code means (a GitHub annotation when GITHUB_ACTIONS is true) and exits with
# kernel-bench's code unchanged; each engine's example decides what 77 does:
#
#   0    every benchmark ok
#   1    a kernel INCORRECT, ERROR or SANITIZER (the report is complete), or a bad bundle
#   2    usage: a bad flag or shard environment (fix the pipeline)
#   4    the --shard-balance report cannot be read
#   5    nothing timed: every benchmark of this shard SKIPPED
#   77   no usable device on this runner: nothing written but exit-code
#   128+N  interrupted by signal N
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: bench-shard.sh BUNDLE.tar OUT_DIR [kernel-bench bench flags...]" >&2
  exit 2
fi
bundle=$1
out=$2
shift 2

flags=("$@")
if [ -n "${KB_SHARD_BALANCE:-}" ] && [ -f "$KB_SHARD_BALANCE" ]; then
  flags+=(--shard-balance "$KB_SHARD_BALANCE")
fi

rc=0
kernel-bench bench "$bundle" -o "$out" "${flags[@]}" || rc=$?
mkdir -p "$out" && echo "$rc" > "$out/exit-code"

# say LEVEL MESSAGE: one line, as a GitHub annotation inside GitHub Actions.
say() {
  if [ "${GITHUB_ACTIONS:-}" = true ]; then
    echo "::$1 title=kernel-bench shard::$2"
  else
    echo "kb-bench-shard: $1: $2" >&2
  fi
}

case $rc in
  0) ;;
  1) say error "a kernel is INCORRECT, ERROR or SANITIZER, or the bundle was refused (exit 1); the report in $out says which" ;;
  2) say error "usage error (exit 2): a bad flag or shard environment" ;;
  4) say error "the --shard-balance report cannot be read (exit 4)" ;;
  5) say error "nothing timed (exit 5): every benchmark of this shard was SKIPPED" ;;
  77) say notice "no usable device on ${HOSTNAME:-this runner} (exit 77): shard skipped, not failed" ;;
  *)
    if [ "$rc" -gt 128 ]; then
      say error "interrupted by signal $((rc - 128)) (exit $rc)"
    else
      say error "kernel-bench bench exited $rc"
    fi ;;
esac
exit "$rc"
