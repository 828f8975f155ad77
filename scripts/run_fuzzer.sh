#!/usr/bin/env bash
# Builds one libFuzzer target of a small fuzz CMake project with clang-16 and
# runs it for a fixed number of iterations from its kept corpus (copied, so
# the kept corpus only changes when someone commits new inputs).
#   run_fuzzer.sh PROJECT_DIR TARGET KEPT_CORPUS WORK_DIR RUNS [CMAKE_ARGS...]
# Exit 77 (ctest: skipped) when clang-16 or libFuzzer is missing.
# KB_FUZZ_BUILD_DIR, when set, is the build directory: the targets of one
# fuzz project then share their compiled sources (compiling them with clang
# costs far more than the runs), and their tests hold one RESOURCE_LOCK.
set -euo pipefail
project=$1 target=$2 kept=$3 work=$4 runs=$5
shift 5
clangxx=$(command -v clang++-16 || true)
if [ -z "$clangxx" ]; then echo "skip: clang++-16 not found"; exit 77; fi
if ! ls /usr/lib/llvm-16/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "skip: libFuzzer runtime not installed (libclang-rt-16-dev)"; exit 77
fi
mkdir -p "$work"
build=${KB_FUZZ_BUILD_DIR:-$work/build}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# Quiet when they work; the whole log when they do not, or the test's
# output would end without saying why.
log=$work/build.log
cmake -S "$project" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$clangxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo ${launcher[@]+"${launcher[@]}"} "$@" >"$log" 2>&1 ||
  { cat "$log"; echo "fuzz: configuring $project failed" >&2; exit 1; }
ninja -C "$build" -j2 "$target" >"$log" 2>&1 ||
  { cat "$log"; echo "fuzz: building $target failed" >&2; exit 1; }
rm -rf "$work/corpus"
mkdir -p "$work/corpus"
cp "$kept"/* "$work/corpus/"
# Fixed seed: the same inputs every run, so a failure reproduces. A crash
# leaves its input as $work/crash-*; add it to the kept corpus once fixed.
"$build/$target" -runs="$runs" -seed=1 -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$work/" "$work/corpus"
echo "fuzz: $target, $runs runs, no crash"
