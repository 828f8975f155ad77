#!/usr/bin/env bash
# End-to-end `kernel-bench run` on the sample program modules (built here
# with glslc, so this runs on lavapipe without a GPU):
#   run_e2e_test.sh KERNEL_BENCH MAKE_MODULES WORK_DIR [DEVICE]
# Exit 77 (ctest: skipped) when glslc or every Vulkan/CUDA device is missing.
# Whether a device is missing is asked once of `kernel-bench devices`, never
# read from a command's exit 77: `run` also exits 77 for "no variant for
# vulkan:0", which with a device present is a failure.
set -uo pipefail
kb=$1 make_modules=$2 work=$3 device=${4:-auto}
have_device=0
"$kb" devices 2>/dev/null | grep -qE '^  (vulkan|cuda):[0-9]' && have_device=1
unavailable() { # name output
  if [ $have_device = 0 ]; then
    echo "skip: no Vulkan device listed (nor a CUDA one): $1"; echo "$2"; exit 77
  fi
  echo "FAIL: $1: exit 77 (unavailable) although \`kernel-bench devices\` lists a device"
  echo "$2"; exit 1
}
rm -rf "$work"; mkdir -p "$work"
"$make_modules" "$work" >/dev/null; rc=$?
[ $rc -eq 77 ] && { echo "skip: glslc not found"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: kb-make-test-modules exited $rc"; exit 1; }
fail=0
check() { # name expected_rc pattern -- command...
  local name=$1 want=$2 pattern=$3; shift 4
  local out; out=$("$@" 2>&1); local got=$?
  if [ $got -eq 77 ] && [ "$want" != 77 ]; then unavailable "$name" "$out"; fi
  if [ $got -ne "$want" ] || ! grep -qE "$pattern" <<<"$out"; then
    echo "FAIL: $name: exit $got (want $want), pattern /$pattern/"; echo "$out"; fail=1
  else
    echo "ok: $name"
  fi
}
check "agreeing candidate" 0 'result: outputs agree' -- "$kb" run "$work/ok" --device "$device"
check "device choice is said" 0 'device: .*(cuda|vulkan):[0-9]' -- "$kb" run "$work/ok" --device "$device"
check "wrong candidate" 1 'index 37: generated .*, substituted' -- "$kb" run "$work/wrong" --device "$device"
check "wrong candidate verdict" 1 'OUTPUTS DIFFER' -- "$kb" run "$work/wrong/program.kbm" --device "$device"
check "missing build" 1 'does not exist; run `kernel-bench build` first' -- "$kb" run "$work/nope"
head -c 300 "$work/ok/program.kbm" > "$work/truncated.kbm"
check "truncated module" 1 'corrupted or truncated' -- "$kb" run "$work/truncated.kbm"
check "bad device" 2 'expected auto, cuda, cuda:N, vulkan or vulkan:N' -- "$kb" run "$work/ok" --device gpu7
check "no such function" 1 'no function `nope`; it has: main' -- "$kb" run "$work/ok" --function nope --device "$device"

# Streams (workbench/README.md): the report on stdout, diagnostics on stderr.
streams() { # name -- command...   ($out, $err: what each stream got)
  local name=$1; shift 2
  "$@" >"$work/stdout" 2>"$work/stderr"; rc=$?
  [ $rc -eq 77 ] && unavailable "$name" "$(cat "$work/stdout" "$work/stderr")"
  out=$(cat "$work/stdout") err=$(cat "$work/stderr")
}
expect() { # name condition-text -- test...
  local name=$1 what=$2; shift 3
  if "$@"; then echo "ok: $name"; else
    echo "FAIL: $name: $what"; echo "stdout: $out"; echo "stderr: $err"; fail=1; fi
}
streams "report on stdout" -- "$kb" run "$work/ok" --device "$device"
expect "report on stdout" "device, verdicts and result on stdout; stderr empty" -- \
  bash -c '[[ $0 == *"device: "* && $0 == *"result: outputs agree"* && -z $1 ]]' "$out" "$err"
streams "errors on stderr" -- "$kb" run "$work/nope"
expect "errors on stderr" "the error on stderr, nothing on stdout" -- \
  bash -c '[[ $1 == *"error: "*"does not exist"* && -z $0 ]]' "$out" "$err"

# A module whose buffers do not fit the device is refused before anything is
# allocated (the huge/ module asks for 1 TiB).
check "buffers over device memory" 1 'exceeds the largest allocation the device allows|bytes of memory' -- "$kb" run "$work/huge" --device "$device"
exit $fail
