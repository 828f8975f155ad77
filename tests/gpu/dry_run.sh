#!/usr/bin/env bash
# The GPU script's dry run (ctest gpu_script_dry_run): stages from the main
# build (no second build; the measurement project small, the quickstart for
# Vulkan only) and runs run_gpu_checks.sh as the GPU host would. Without a
# GPU the Vulkan rows run on lavapipe and must pass; the CUDA and Python rows
# must say SKIP with a reason; the tables must come out, and $OUT must hold
# at most eight flat files (what the device tool brings back).
#
#   tests/gpu/dry_run.sh BUILD_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: dry_run.sh BUILD_DIR}" && pwd)
kb=$build/workbench/kernel-bench
work=$(mktemp -d /tmp/kb-gpu-dry-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
export KB_CACHE_DIR=$work/cache
fail() { echo "dry run: $*" >&2; exit 1; }

bytes=1048576
"$root/tests/gpu/measure/project.sh" $bytes "$work/mp" || fail "project.sh failed"
"$kb" build "$work/mp" -o "$work/measure" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "the measurement project did not build"; }
"$kb" build "$root/examples/quickstart" --target vulkan:1.2 -o "$work/quickstart" \
  >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the quickstart did not build"; }
KB_STAGE_LOCAL=1 KB_MEASURE="$work/measure" KB_MEASURE_BYTES=$bytes \
  KB_QUICKSTART="$work/quickstart" "$root/tests/gpu/stage.sh" "$build" "$work/stage" \
  >"$work/stage.log" 2>&1 || { cat "$work/stage.log"; fail "stage.sh failed"; }
size=$(du -sm "$work/stage" | cut -f1)
[ "$size" -lt 64 ] || fail "the stage is ${size} MiB; the device tool carries 64 MiB at most"

# The examples' bench rows measure two benchmarks, not every one: on
# lavapipe the full quickstart bench was most of the dry run's time.
mkdir -p "$work/tmp"
OUT=$work/out TMPDIR=$work/tmp KB_GPU_EXAMPLE_FILTER='^(saxpy|reduce_sum_256x)' \
  "$root/tests/gpu/run_gpu_checks.sh" "$work/stage" >"$work/run.log" 2>&1
rc=$?
cat "$work/run.log"
[ $rc -eq 0 ] || fail "run_gpu_checks.sh exited $rc"
[ -z "$(ls -A "$work/tmp")" ] || fail "run_gpu_checks.sh left $(ls "$work/tmp") in \$TMPDIR"
summary=$work/out/summary.txt
[ -f "$summary" ] || fail "no \$OUT/summary.txt"
expect_row() { # regex
  grep -qE "$1" "$summary" || fail "summary has no row matching '$1'"
}
have_cuda=0
"$kb" devices 2>/dev/null | grep -q '^cuda' && have_cuda=1
for r in "HAL CTS \(vulkan\)" "measure: bench \(vulkan\)" "run ok \(vulkan\)" \
         "run wrong \(vulkan\)" "quickstart run \(vulkan\)" "quickstart bench \(vulkan\)" \
         "quickstart profile \(vulkan\)"; do
  expect_row "^$r +[0-9]+ +[0-9.]+  PASS"
done
if [ $have_cuda = 0 ]; then
  for r in "HAL CTS \(cuda\)" "measure: bench \(cuda\)" "run ok \(cuda\)"; do
    expect_row "^$r +[0-9]+ +[0-9.]+  SKIP"
  done
fi
python3 -c 'import cupy, torch, triton' 2>/dev/null ||
  expect_row "^measure: anchors \(do_bench\) +[0-9]+ +[0-9.]+  SKIP"
expect_row "^total +[0-9]+ +[0-9]+"
grep -qE "^copy [0-9]+ [KMG]iB vulkan cold" "$summary" || fail "the side-by-side table is not in the summary"
files=$(find "$work/out" -type f | wc -l)
[ "$files" -le 8 ] || fail "\$OUT holds $files files; the device tool brings back 8"
[ -z "$(find "$work/out" -mindepth 1 -type d)" ] || fail "\$OUT has folders; keep it flat"
# The filter reached the quickstart's bench row: two benchmarks, no matmul.
sed -n '/^===== quickstart bench (vulkan)/,/^=====/p' "$work/out/checks.log" >"$work/qbench.log"
grep -qE '^2 benchmark\(s\): 2 ok' "$work/qbench.log" ||
  fail "the quickstart bench row did not measure exactly the 2 filtered benchmarks"
! grep -q matmul "$work/qbench.log" || fail "the quickstart bench row measured a matmul"
for f in checks.log bench-vulkan.json.gz measure.txt overhead.log; do
  [ -s "$work/out/$f" ] || fail "\$OUT/$f is missing or empty"
done
echo "dry run: ok (stage ${size} MiB, $files files in \$OUT)"
