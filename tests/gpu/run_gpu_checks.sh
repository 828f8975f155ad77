#!/usr/bin/env bash
# Runs the runtime's GPU checks on a GPU host (tests/gpu/README.md) from a staged
# runtime-only build (tests/gpu/stage.sh), and prints a summary table last.
#
#   tests/gpu/run_gpu_checks.sh [STAGE_DIR]      (default: .carry/gpu)
#
# Logs: one file per check in a work folder; when $OUT is set (the device
# tool), $OUT gets at most three files, flat: summary.txt, checks.log (every
# check's log, one after the other; both rewritten after every check) and
# overhead.log.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(cd "${1:-$root/.carry/gpu}" && pwd) || { echo "no stage folder; run tests/gpu/stage.sh first" >&2; exit 2; }
logs=$(mktemp -d /tmp/kb-gpu-logs.XXXXXX)

# The host lacks the Vulkan loader and glvnd: unpack the Debian packages
# carried in .gl/ (tests/gpu/README.md), then point the loader at NVIDIA's ICD.
# A machine that has the loader and glvnd (a dry run on the build machine) is
# left as it is.
ldcache=$({ command -v ldconfig >/dev/null && ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null)
has_lib() { grep -q "$1 " <<<"$ldcache"; }
if ls "$root"/.gl/*.deb >/dev/null 2>&1 &&
   ! { has_lib 'libvulkan\.so\.1' && has_lib 'libGLdispatch\.so\.0'; }; then
  for f in "$root"/.gl/*.deb; do dpkg -x "$f" / 2>>"$logs/setup.log"; done
  ldconfig 2>>"$logs/setup.log" || true
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ]; then
  export VK_DRIVER_FILES=$icd
fi
export KB_CTS_KERNEL_DIR=$stage/kernels

names=() results=() logfiles=()
summary() {
  grep -h -E 'ratio|module load|pipeline creation' "$logs/overhead.log" 2>/dev/null
  grep -h -E 'repeated from the tune cache|compiling while measuring' "$logs/tune.log" 2>/dev/null
  printf '%-28s %s\n' "check" "result"
  printf '%-28s %s\n' "-----" "------"
  for i in "${!names[@]}"; do
    printf '%-28s %s\n' "${names[$i]}" "${results[$i]}"
  done
}
# $OUT is written after every check, so a run cut short (the device tool's
# time limit) still brings back what was done.
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && : >"$OUT/checks.log"
record() { # index
  [ -n "${OUT:-}" ] || return 0
  printf '\n===== %s (%s): %s =====\n' "${names[$1]}" "${logfiles[$1]}" "${results[$1]}" >>"$OUT/checks.log"
  cat "$logs/${logfiles[$1]}" >>"$OUT/checks.log"
  summary >"$OUT/summary.txt"
}
step() { # name logfile -- command...
  local name=$1 log=$2; shift 3
  "$@" >"$logs/$log" 2>&1
  local rc=$?
  local verdict=PASS
  local skipped; skipped=$(grep -c '^\[  SKIPPED \] .*(' "$logs/$log")
  local passed; passed=$(grep -c '^\[       OK \]' "$logs/$log")
  if [ $rc -eq 77 ]; then verdict=SKIP
  elif [ $rc -ne 0 ]; then verdict="FAIL (exit $rc)"
  elif [ "$skipped" -gt 0 ] && [ "$passed" -eq 0 ]; then verdict="SKIP (all $skipped skipped)"
  elif [ "$skipped" -gt 0 ]; then verdict="PASS ($passed, $skipped skipped)"
  fi
  names+=("$name"); results+=("$verdict"); logfiles+=("$log")
  record $((${#names[@]} - 1))
}
skip() { # name logfile reason
  echo "$3" >"$logs/$2"
  names+=("$1"); results+=("SKIP ($3)"); logfiles+=("$2")
  record $((${#names[@]} - 1))
}
gtest() { "$@" --gtest_color=no; }
expect_rc() { # want -- command...  (exit 0 when the command exits with |want|)
  local want=$1; shift 2
  "$@"; local rc=$?
  [ $rc -eq 77 ] && return 77
  [ $rc -eq "$want" ]
}
expect_output() { # rc pattern -- command...
  local want=$1 pattern=$2; shift 3
  local out; out=$("$@" 2>&1); local rc=$?
  echo "$out"
  [ $rc -eq 77 ] && return 77
  [ $rc -eq "$want" ] && grep -qE "$pattern" <<<"$out"
}

bin=$stage/bin mods=$stage/modules
step "devices"                 devices.log      -- "$bin/kernel-bench" devices
step "HAL CTS (cuda)"          cts_cuda.log     -- gtest "$bin/hal_cts_cuda"
step "CUDA driver tests"       cuda_driver.log  -- gtest "$bin/cuda_driver_test"
step "CUDA call order (fake)"  cuda_order.log   -- gtest "$bin/cuda_call_order_test"
step "HAL CTS (vulkan)"        cts_vulkan.log   -- gtest "$bin/hal_cts_vulkan"
step "Vulkan driver tests"     vk_driver.log    -- gtest "$bin/vulkan_driver_test"
step "Vulkan memory choice"    vk_memory.log    -- gtest "$bin/vulkan_memory_test"
step "module tests"            module.log       -- gtest "$bin/module_test"
step "run ok (cuda)"           run_cuda_ok.log  -- expect_rc 0 -- "$bin/kernel-bench" run "$mods/ok" --device cuda
step "run wrong (cuda)"        run_cuda_bad.log -- expect_output 1 'index 37: generated' -- "$bin/kernel-bench" run "$mods/wrong" --device cuda
step "run huge refused (cuda)" run_cuda_big.log -- expect_output 1 'before any driver call' -- "$bin/kernel-bench" run "$mods/huge" --device cuda
step "run ok (vulkan)"         run_vk_ok.log    -- expect_rc 0 -- "$bin/kernel-bench" run "$mods/ok" --device vulkan
step "run wrong (vulkan)"      run_vk_bad.log   -- expect_output 1 'index 37: generated' -- "$bin/kernel-bench" run "$mods/wrong" --device vulkan
if [ -f "$stage/quickstart/program.kbm" ]; then
  step "quickstart run (cuda)"   qs_cuda.log      -- expect_output 0 'outputs agree' -- "$bin/kernel-bench" run "$stage/quickstart" --device cuda
  step "quickstart run (vulkan)" qs_vulkan.log    -- expect_output 0 'outputs agree' -- "$bin/kernel-bench" run "$stage/quickstart" --device vulkan
fi
if [ -f "$stage/tuned/program.kbm" ]; then
  # The matmul carries a variant tuned for "NVIDIA H200" on each backend: the
  # runtime must pick it on an H200 (the line names the model it saw) and
  # fall back to the default parameters, saying so, on any other device.
  tuned_choice() { # command...
    local out; out=$("$@" 2>&1); local rc=$?
    echo "$out"
    [ $rc -eq 77 ] && return 77
    [ $rc -eq 0 ] || return 1
    grep -q 'none tuned for NVIDIA H200' <<<"$out" && return 1
    grep -qE '\(tuned for NVIDIA H200\)|none tuned for .*\(tuned for: NVIDIA H200\)' <<<"$out"
  }
  step "tuned variant (cuda)"    tuned_cuda.log   -- tuned_choice "$bin/kernel-bench" run "$stage/tuned" --device cuda
  step "tuned variant (vulkan)"  tuned_vk.log     -- tuned_choice "$bin/kernel-bench" run "$stage/tuned" --device vulkan
fi
step "runtime_overhead bench"  overhead.log     -- "$bin/runtime_overhead" "$KB_CTS_KERNEL_DIR"
# With the compiler staged (KB_COMPILER): `kernel-bench tune` of the tiled
# matmul on CUDA (the host has nvcc, not glslc), serial and pipelined, from
# empty caches (bench/tune_speed); bounded so it cannot eat the session.
# The library is unpacked beside a copy of kernel-bench (where it looks
# first) outside the stage, which stays as it was carried.
# nvcc needs a host C++ compiler (gcc, as -ccbin); the tune row says SKIP,
# with the reason, where either is missing.
nvcc=$(command -v nvcc || ls "${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" /usr/local/cuda/bin/nvcc 2>/dev/null | head -1)
if [ -f "$stage/compiler/libKBCompiler.so.xz" ]; then
  if [ "${KB_TUNE_DEVICE:-cuda}" = cuda ] && [ -z "$nvcc" ]; then
    skip "tune pipelined vs serial" tune.log "no nvcc on PATH, \$CUDA_PATH/bin or /usr/local/cuda/bin"
  elif [ "${KB_TUNE_DEVICE:-cuda}" = cuda ] && ! command -v gcc >/dev/null; then
    skip "tune pipelined vs serial" tune.log "no gcc for nvcc's host code"
  else
    cbin=$(mktemp -d /tmp/kb-gpu-compiler.XXXXXX)
    cp "$bin/kernel-bench" "$cbin/"
    xz -dc "$stage/compiler/libKBCompiler.so.xz" >"$cbin/libKBCompiler.so" 2>>"$logs/setup.log" ||
      python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
        "$stage/compiler/libKBCompiler.so.xz" "$cbin/libKBCompiler.so" 2>>"$logs/setup.log"
    step "tune pipelined vs serial" tune.log      -- timeout "${KB_TUNE_TIMEOUT:-240}" "$bin/tune_speed" \
      "$root/bench/tune_speed/matmul_tiled_lavapipe.tune.json" --seeds 5 \
      --kernel-bench "$cbin/kernel-bench" --kernel "$root/kernels/matmul_tiled" \
      --device "${KB_TUNE_DEVICE:-cuda}"
    rm -rf "$cbin"
  fi
fi

status=0
for r in "${results[@]}"; do case "$r" in FAIL*) status=1 ;; esac; done
if [ -n "${OUT:-}" ]; then
  [ -f "$logs/setup.log" ] && { echo "===== setup ====="; cat "$logs/setup.log"; } >>"$OUT/checks.log"
  cp "$logs/overhead.log" "$OUT/overhead.log" 2>/dev/null
  summary >"$OUT/summary.txt"
fi
echo "logs: $logs${OUT:+ (and \$OUT/checks.log)}"
summary
exit $status
