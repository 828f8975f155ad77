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
# With KB_MEASURE=DIR (the measurement project of tests/gpu/measure/project.sh,
# built), it is staged whole (the script's bench rows time it), with the PTX
# of its kernels as measure/ptx/<kernel>.ptx for the anchors (cupy loads
# exactly what kernel-bench timed); KB_MEASURE_BYTES (default 2 GiB) is the
# copy size it was built with. With KB_MLP=DIR, examples/mlp built.
#
# BUILD_DIR must be a runtime-only, statically linked build:
#   cmake -S . -B build-gpu -G Ninja -DKB_ENABLE_COMPILER=OFF -DKB_STATIC_RUNTIME=ON
# except with KB_STAGE_LOCAL=1: a stage for this machine only (the dry run
# from the main build), where dynamic libstdc++ is fine.
#
# Every staged PTX (files and the PTX inside .kbm modules) must be an ISA
# the host's driver takes, and every staged binary must run there (ldd).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$1 stage=${2:-$root/.carry/gpu}
targets=(kernel-bench hal_cts_cuda hal_cts_vulkan cuda_driver_test
         cuda_call_order_test vulkan_driver_test vulkan_memory_test module_test
         kb-make-test-modules runtime_overhead tune_speed bench_cuda_protocol_test
         copy_bandwidth_test)
# The dry run stages a build that ctest is running from: nothing to build.
[ "${KB_STAGE_LOCAL:-0}" = 1 ] || ninja -C "$build" "${targets[@]}"
rm -rf "$stage"; mkdir -p "$stage/bin"
for f in workbench/kernel-bench runtime/hal/cts/hal_cts_cuda \
         runtime/hal/cts/hal_cts_vulkan runtime/hal/drivers/cuda/cuda_driver_test \
         runtime/hal/drivers/cuda/cuda_call_order_test \
         runtime/hal/drivers/vulkan/vulkan_driver_test \
         runtime/hal/drivers/vulkan/vulkan_memory_test runtime/module/module_test \
         bench/runtime_overhead/runtime_overhead bench/tune_speed/tune_speed \
         runtime/bench/bench_cuda_protocol_test runtime/bench/copy_bandwidth_test; do
  # Debug info would make the carried tree too large (64 MiB in all).
  objcopy --strip-debug "$build/$f" "$stage/bin/$(basename "$f")"
done
cp -r "$build/runtime/hal/cts/kernels" "$stage/kernels"
# The probe library of cuda_call_order_test's RTLD_NODELETE check (the test
# skips that check when it is missing).
cp "$build/runtime/hal/drivers/cuda/libkb_cuda_probe_library.so" "$stage/bin/" 2>/dev/null || true
"$build/runtime/testing/kb-make-test-modules" "$stage/modules" --cuda
# A built project, staged for `run` and `bench` there: the modules and the
# build record (bench reads resources from build.json), not the sources.
stage_project() { # name dir
  local name=$1 dir=$2
  [ -f "$dir/build.json" ] || { echo "stage.sh: no build.json in $dir (not a kernel-bench build)" >&2; exit 1; }
  mkdir -p "$stage/$name"
  cp "$dir/build.json" "$stage/$name/"
  [ -f "$dir/program.kbm" ] && cp "$dir/program.kbm" "$stage/$name/"
  [ -d "$dir/bench" ] && cp -r "$dir/bench" "$stage/$name/"
  if [ -d "$dir/standalone" ]; then
    (cd "$dir" && find standalone -name '*.kbm' -exec cp --parents {} "$stage/$name/" \;)
  fi
  return 0
}
[ -n "${KB_QUICKSTART:-}" ] && stage_project quickstart "$KB_QUICKSTART"
[ -n "${KB_MLP:-}" ] && stage_project mlp "$KB_MLP"
if [ -n "${KB_MEASURE:-}" ]; then
  stage_project measure "$KB_MEASURE"
  echo "${KB_MEASURE_BYTES:-2147483648}" >"$stage/measure/copy_bytes"
  mkdir -p "$stage/measure/ptx"
  for k in copy_big copy_4k empty; do
    ptx=$(find "$KB_MEASURE/kernels/$k" -name '*.ptx' | head -1)
    if [ -z "$ptx" ] && [ "${KB_STAGE_LOCAL:-0}" = 1 ]; then
      continue # a dry run where nvcc is missing: the anchors row skips anyway
    fi
    [ -n "$ptx" ] || { echo "stage.sh: no PTX for $k under $KB_MEASURE/kernels/$k" \
                            "(was it built for cuda:sm_90?)" >&2; exit 1; }
    cp "$ptx" "$stage/measure/ptx/$k.ptx"
  done
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
# Every staged PTX, alone or inside a module: the host's driver (580 = CUDA
# 13.0) takes PTX ISA 9.0 at most; a newer nvcc's would fail there with
# CUDA_ERROR_UNSUPPORTED_PTX_VERSION.
while IFS= read -r -d '' f; do
  isa=$(grep -aoE '^\.version [0-9]+\.[0-9]+' "$f" | awk '{print $2}' | sort -V | tail -1 || true)
  if [ -n "$isa" ] && awk -v v="$isa" 'BEGIN { split(v, p, "."); exit !(p[1] > 9 || (p[1] == 9 && p[2] > 0)) }'; then
    echo "stage.sh: ${f#"$stage"/} holds PTX ISA $isa; the H200 host's driver (CUDA 13.0) takes 9.0 at most" >&2
    exit 1
  fi
done < <(find "$stage" -type f \( -name '*.ptx' -o -name '*.kbm' \) -print0)
# Every staged binary must run on the host: no shared libstdc++, LLVM, MLIR
# or libcurl (the host has none of ours), nothing unresolved.
if [ "${KB_STAGE_LOCAL:-0}" != 1 ]; then
  for f in "$stage"/bin/*; do
    deps=$(ldd "$f" 2>&1) || continue # not a dynamic executable
    if grep -qE 'libstdc\+\+|libLLVM|libMLIR|libcurl|not found' <<<"$deps"; then
      echo "stage.sh: $f needs libraries the host lacks:" >&2
      grep -E 'libstdc\+\+|libLLVM|libMLIR|libcurl|not found' <<<"$deps" >&2
      echo "configure $build with -DKB_ENABLE_COMPILER=OFF -DKB_STATIC_RUNTIME=ON" \
           "-DKB_ENABLE_REMOTE_CACHE=OFF" >&2
      exit 1
    fi
  done
fi
du -sh "$stage"
