#!/usr/bin/env bash
# Runs the runtime's GPU checks on the H200 host (GPU.md) from a carried
# runtime-only build, and prints a short summary table last.
#
#   tests/gpu/run_gpu_checks.sh [BUILD_DIR]      (default: build-gpu)
#
# Prepare BUILD_DIR on the build machine (see tests/gpu/README.md):
#   cmake -S . -B build-gpu -G Ninja -DKB_ENABLE_COMPILER=OFF -DKB_STATIC_RUNTIME=ON
#   ninja -C build-gpu kernel-bench hal_cts_cuda hal_cts_vulkan cuda_driver_test \
#         module_test kb-make-test-modules runtime_overhead
#   build-gpu/runtime/testing/kb-make-test-modules build-gpu/gpu-modules --cuda
# Full logs go to $OUT (when set) or BUILD_DIR/gpu-logs.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-gpu}
logs=${OUT:-$build/gpu-logs}
mkdir -p "$logs"

# The host lacks the Vulkan loader and glvnd: unpack the Debian packages
# carried in .gl/ (GPU.md), then point the loader at NVIDIA's ICD.
if ls "$root"/.gl/*.deb >/dev/null 2>&1; then
  for f in "$root"/.gl/*.deb; do dpkg -x "$f" / 2>>"$logs/setup.log"; done
  ldconfig 2>>"$logs/setup.log" || true
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ]; then
  export VK_DRIVER_FILES=$icd
fi
export KB_CTS_KERNEL_DIR=$build/runtime/hal/cts/kernels

names=() results=()
step() { # name logfile -- command...
  local name=$1 log=$2; shift 3
  "$@" >"$logs/$log" 2>&1
  local rc=$?
  local verdict=PASS
  if [ $rc -eq 77 ]; then verdict=SKIP
  elif [ $rc -ne 0 ]; then verdict="FAIL (exit $rc)"
  elif grep -q '\[  SKIPPED \]' "$logs/$log"; then
    verdict="PASS ($(grep -c '^\[  SKIPPED \] .*(' "$logs/$log") skipped)"
  fi
  names+=("$name"); results+=("$verdict")
}
gtest() { "$@" --gtest_color=no; }
expect_rc() { # want -- command...  (exit 0 when the command exits with |want|)
  local want=$1; shift 2
  "$@"; local rc=$?
  [ $rc -eq 77 ] && return 77
  [ $rc -eq "$want" ]
}
# The wrong candidate must be caught at its index, not just fail somehow.
expect_mismatch_at_37() {
  local out; out=$("$@" 2>&1); local rc=$?
  echo "$out"
  [ $rc -eq 77 ] && return 77
  [ $rc -eq 1 ] && grep -q 'index 37: generated' <<<"$out"
}

kb=$build/workbench/kernel-bench
mods=$build/gpu-modules
step "devices"                 devices.log      -- "$kb" devices
step "HAL CTS (cuda)"          cts_cuda.log     -- gtest "$build/runtime/hal/cts/hal_cts_cuda"
step "CUDA driver tests"       cuda_driver.log  -- gtest "$build/runtime/hal/drivers/cuda/cuda_driver_test"
step "HAL CTS (vulkan)"        cts_vulkan.log   -- gtest "$build/runtime/hal/cts/hal_cts_vulkan"
step "module tests"            module.log       -- gtest "$build/runtime/module/module_test"
step "run ok (cuda)"           run_cuda_ok.log  -- expect_rc 0 -- "$kb" run "$mods/ok" --device cuda
step "run wrong (cuda)"        run_cuda_bad.log -- expect_mismatch_at_37 "$kb" run "$mods/wrong" --device cuda
step "run ok (vulkan)"         run_vk_ok.log    -- expect_rc 0 -- "$kb" run "$mods/ok" --device vulkan
step "run wrong (vulkan)"      run_vk_bad.log   -- expect_mismatch_at_37 "$kb" run "$mods/wrong" --device vulkan
step "runtime_overhead bench"  overhead.log     -- "$build/bench/runtime_overhead/runtime_overhead" "$KB_CTS_KERNEL_DIR"


echo "logs: $logs"
grep -h -E 'ratio|module load|pipeline creation' "$logs/overhead.log" 2>/dev/null
printf '%-28s %s\n' "check" "result"
printf '%-28s %s\n' "-----" "------"
status=0
for i in "${!names[@]}"; do
  printf '%-28s %s\n' "${names[$i]}" "${results[$i]}"
  case "${results[$i]}" in FAIL*) status=1 ;; esac
done
exit $status
