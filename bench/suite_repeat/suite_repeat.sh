#!/bin/bash
# The whole ctest suite run N times in a row with J jobs on one build: how
# often a green suite is not green again. Stops at the first failing pass and
# prints its failing tests; prints each pass's time and skip count. Run it at
# low priority beside other work to see what load does to the suite:
#   nice -n 19 bench/suite_repeat/suite_repeat.sh BUILD [PASSES] [JOBS]
set -u
build=${1:?usage: suite_repeat.sh BUILD [PASSES] [JOBS]}
passes=${2:-20}
jobs=${3:-4}
[ -f "$build/CTestTestfile.cmake" ] || { echo "suite_repeat: $build has no CTestTestfile.cmake (not a configured build)" >&2; exit 2; }
logdir=$(mktemp -d "${TMPDIR:-/tmp}/suite_repeat.XXXXXX")
echo "suite_repeat: $passes passes of ctest -j$jobs on $build; logs in $logdir"
for i in $(seq 1 "$passes"); do
  start=$(date +%s)
  ctest --test-dir "$build" -j"$jobs" --output-on-failure > "$logdir/pass$i.log" 2>&1
  rc=$?
  seconds=$(( $(date +%s) - start ))
  summary=$(grep -E "tests passed|tests failed" "$logdir/pass$i.log" | tail -1)
  skipped=$(grep -c -E "\*\*\*Skipped|Not Run" "$logdir/pass$i.log")
  echo "pass $i: rc $rc, ${seconds} s, $summary, $skipped skipped"
  if [ "$rc" -ne 0 ]; then
    echo "suite_repeat: pass $i failed; its failing tests:"
    sed -n '/The following tests FAILED/,$p' "$logdir/pass$i.log"
    echo "suite_repeat: $((i - 1)) passes in a row before the failure"
    exit 1
  fi
done
echo "suite_repeat: $passes of $passes passes in a row"
