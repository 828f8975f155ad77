#!/usr/bin/env bash
# Every test, then the skipped ones by reason:
#
#   scripts/run_tests.sh BUILD_DIR [JOBS]
#
# ctest writes a JUnit file (whole outputs kept: skip reasons follow long
# logs); scripts/skip_report.py prints the skips by reason last and fails
# the run when this machine lists a Vulkan device (vulkaninfo, or
# kernel-bench's own listing) and a test skipped for lack of one. Used by
# `scripts/setup.sh test` (so .ci/run) and the `check` target.
set -uo pipefail
build=${1:?usage: scripts/run_tests.sh BUILD_DIR [JOBS]}
jobs=${2:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
junit="$build/Testing/junit.xml"
rm -f "$junit"
rc=0
ctest --test-dir "$build" --output-on-failure -j "$jobs" \
  --output-junit "$junit" --test-output-size-passed 1048576 || rc=$?
vulkan=()
if vulkaninfo --summary 2>/dev/null | grep -q 'deviceName' ||
   "$build/workbench/kernel-bench" devices 2>/dev/null |
     grep -qE '^  vulkan:[0-9]'; then
  vulkan=(--vulkan-listed)
fi
python3 "$root/scripts/skip_report.py" "$junit" "${vulkan[@]}" ||
  { [ $rc -ne 0 ] || rc=1; }
exit $rc
