#!/usr/bin/env bash
# Stages what run_gpu_checks.sh needs on the GPU host into one small folder
# (stripped runtime-only binaries, the conformance kernels, the sample
# modules with CUDA variants), to be carried there with the working tree.
#
#   tests/gpu/stage.sh BUILD_DIR [STAGE_DIR]      (default: .carry/gpu)
#
# With KB_TUNED=DIR, a quickstart build whose matmul carries variants tuned
# for the host's device models is staged too (tests/gpu/README.md).
#
# With KB_QUICKSTART=DIR (the output of `kernel-bench build examples/quickstart`
# from a build WITH the compiler: program.kbm carries cubin + PTX and SPIR-V
# variants), its modules are staged too and the host runs the bundled
# example end to end on both drivers.
#
# With KB_COMPILER=DIR (a build with LLVM and MLIR linked in statically,
# tests/gpu/README.md), the compiler travels too, xz-compressed, so the host
# can build and tune (the "tune" row: pipelined against serial on the H200).
#
# BUILD_DIR must be a runtime-only, statically linked build:
#   cmake -S . -B build-gpu -G Ninja -DKB_ENABLE_COMPILER=OFF -DKB_STATIC_RUNTIME=ON
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$1 stage=${2:-$root/.carry/gpu}
targets=(kernel-bench hal_cts_cuda hal_cts_vulkan cuda_driver_test
         cuda_call_order_test vulkan_driver_test vulkan_memory_test module_test
         kb-make-test-modules runtime_overhead tune_speed)
ninja -C "$build" "${targets[@]}"
rm -rf "$stage"; mkdir -p "$stage/bin"
for f in workbench/kernel-bench runtime/hal/cts/hal_cts_cuda \
         runtime/hal/cts/hal_cts_vulkan runtime/hal/drivers/cuda/cuda_driver_test \
         runtime/hal/drivers/cuda/cuda_call_order_test \
         runtime/hal/drivers/vulkan/vulkan_driver_test \
         runtime/hal/drivers/vulkan/vulkan_memory_test runtime/module/module_test \
         bench/runtime_overhead/runtime_overhead bench/tune_speed/tune_speed; do
  # Debug info would make the carried tree too large (64 MiB in all).
  objcopy --strip-debug "$build/$f" "$stage/bin/$(basename "$f")"
done
cp -r "$build/runtime/hal/cts/kernels" "$stage/kernels"
# The probe library of cuda_call_order_test's RTLD_NODELETE check (the test
# skips that check when it is missing).
cp "$build/runtime/hal/drivers/cuda/libkb_cuda_probe_library.so" "$stage/bin/" 2>/dev/null || true
# The CTS PTX must be a PTX ISA the host's driver takes (580 = CUDA 13.0 takes
# ISA 9.0 at most): nvcc 13.0 writes 9.0; a newer nvcc would fail there with
# CUDA_ERROR_UNSUPPORTED_PTX_VERSION.
isa=$(sed -n 's/^\.version \([0-9.]*\).*/\1/p' "$stage/kernels/cts_kernels.ptx" | head -1)
if [ -n "$isa" ] && awk -v v="$isa" 'BEGIN { exit !(v > 9.0) }'; then
  echo "stage.sh: cts_kernels.ptx is PTX ISA $isa; the H200 host's driver (CUDA 13.0) takes 9.0 at most" >&2
  exit 1
fi
"$build/runtime/testing/kb-make-test-modules" "$stage/modules" --cuda
if [ -n "${KB_QUICKSTART:-}" ]; then
  [ -f "$KB_QUICKSTART/program.kbm" ] || { echo "stage.sh: no program.kbm in $KB_QUICKSTART" >&2; exit 1; }
  mkdir -p "$stage/quickstart"
  cp "$KB_QUICKSTART/program.kbm" "$stage/quickstart/"
  cp -r "$KB_QUICKSTART/bench" "$stage/quickstart/" 2>/dev/null || true
fi
# With KB_TUNED=DIR: the quickstart built with a tuned.toml whose entries
# name the host's models (tests/gpu/README.md), to check that the runtime
# picks the variant tuned for the device it runs on.
if [ -n "${KB_TUNED:-}" ]; then
  [ -f "$KB_TUNED/program.kbm" ] || { echo "stage.sh: no program.kbm in $KB_TUNED" >&2; exit 1; }
  mkdir -p "$stage/tuned"
  cp "$KB_TUNED/program.kbm" "$stage/tuned/"
fi
# With KB_COMPILER=DIR: libKBCompiler.so with LLVM and MLIR inside, checked
# here (it must need none of them, nor libstdc++, and must compile the
# bundled example) and carried compressed: run_gpu_checks.sh unpacks it
# beside kernel-bench, where kernel-bench looks for it first.
if [ -n "${KB_COMPILER:-}" ]; then
  ninja -C "$KB_COMPILER" KBCompiler
  lib=$KB_COMPILER/workbench/libKBCompiler.so
  if ldd "$lib" | grep -qE 'libstdc\+\+|libLLVM|libMLIR'; then
    echo "stage.sh: $lib needs LLVM, MLIR or libstdc++ at run time; configure" \
         "$KB_COMPILER with CC=clang-16 CXX=clang++-16 -DKB_STATIC_COMPILER=ON" \
         "-DKB_STATIC_RUNTIME=ON (tests/gpu/README.md)" >&2
    exit 1
  fi
  mkdir -p "$stage/compiler"
  strip --strip-unneeded -o "$stage/compiler/libKBCompiler.so" "$lib"
  cp "$stage/bin/kernel-bench" "$stage/compiler/"
  smoke=$(mktemp -d /tmp/kb-stage-smoke.XXXXXX)
  trap 'rm -rf "$smoke"' EXIT
  if ! "$stage/compiler/kernel-bench" build "$root/examples/quickstart" \
         --target cuda:sm_90 --no-cache -o "$smoke/out" >"$smoke/log" 2>&1; then
    cat "$smoke/log" >&2
    rm -rf "$stage/compiler"
    echo "stage.sh: the staged compiler could not build examples/quickstart" >&2
    exit 1
  fi
  rm -f "$stage/compiler/kernel-bench"
  xz -T0 -6 "$stage/compiler/libKBCompiler.so"
fi
if ldd "$stage/bin/kernel-bench" | grep -qE 'libstdc\+\+|libLLVM|libMLIR|libcurl'; then
  echo "stage.sh: $build links libstdc++ or LLVM dynamically; configure it with" \
       "-DKB_ENABLE_COMPILER=OFF -DKB_STATIC_RUNTIME=ON (no libcurl: KB_ENABLE_REMOTE_CACHE=OFF)" >&2
  exit 1
fi
du -sh "$stage"
