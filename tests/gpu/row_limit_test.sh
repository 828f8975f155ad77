#!/usr/bin/env bash
# A hanging row is cut at its limit and the rows after it still run and
# report (ctest gpu_script_row_limit): run_gpu_checks.sh with a row that
# sleeps forever under a 2 s limit, then `devices`.
#
#   tests/gpu/row_limit_test.sh BUILD_DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: row_limit_test.sh BUILD_DIR}" && pwd)
work=$(mktemp -d /tmp/kb-gpu-row-limit.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "row limit: $*" >&2; exit 1; }
mkdir -p "$work/stage/bin"
cp "$build/workbench/kernel-bench" "$work/stage/bin/"
start=$(date +%s)
mkdir -p "$work/tmp"
OUT=$work/out TMPDIR=$work/tmp KB_GPU_HANG_ROW=2 KB_GPU_ROWS='^(hang|devices)' \
  "$root/tests/gpu/run_gpu_checks.sh" "$work/stage" >"$work/run.log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
cat "$work/run.log"
[ $rc -eq 1 ] || fail "expected exit 1 (a row failed), found $rc"
[ $took -lt 30 ] || fail "took ${took}s: the hanging row was not cut at 2 s"
grep -qE '^hang \(limit test\) .*FAIL \(cut at its 2s limit\)' "$work/out/summary.txt" ||
  fail "the hanging row is not reported as cut"
grep -qE '^devices .*(PASS|SKIP|FAIL)' "$work/out/summary.txt" ||
  fail "the row after the hanging one did not report"
grep -q '===== devices' "$work/out/checks.log" || fail "devices' log is not in \$OUT/checks.log"
pgrep -f 'sleep 100000' >/dev/null && fail "the hanging row's process outlived the script"
[ -z "$(ls -A "$work/tmp")" ] || fail "run_gpu_checks.sh left $(ls "$work/tmp") in \$TMPDIR"
echo "row limit: ok (${took}s)"
