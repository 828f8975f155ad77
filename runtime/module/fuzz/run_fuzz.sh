#!/usr/bin/env bash
# Builds the .kbm loader fuzzer with clang-16 and runs it for a fixed number
# of iterations from a seed corpus of valid modules.
#   run_fuzz.sh SOURCE_DIR KBM_INCLUDE_DIR WORK_DIR MAKE_MODULES [RUNS]
# Exit 77 (ctest: skipped) when clang-16/libFuzzer or glslc are missing.
set -euo pipefail
src=$1 kbm_include=$2 work=$3 make_modules=$4 runs=${5:-20000}
clangxx=$(command -v clang++-16 || true)
if [ -z "$clangxx" ]; then echo "skip: clang++-16 not found"; exit 77; fi
if ! ls /usr/lib/llvm-16/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "skip: libFuzzer runtime not installed (libclang-rt-16-dev)"; exit 77
fi
mkdir -p "$work"
cmake -S "$src/runtime/module/fuzz" -B "$work/build" -G Ninja \
  -DCMAKE_CXX_COMPILER="$clangxx" -DKB_KBM_INCLUDE_DIR="$kbm_include" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$work/build" -j2 >/dev/null
rm -rf "$work/seeds" "$work/corpus"
mkdir -p "$work/corpus"
set +e
"$make_modules" "$work/seeds" >/dev/null
rc=$?
set -e
if [ $rc -eq 77 ]; then echo "skip: glslc not found for the seed corpus"; exit 77; fi
[ $rc -eq 0 ] || exit $rc
cp "$work/seeds/ok/program.kbm" "$work/corpus/ok.kbm"
cp "$work/seeds/wrong/program.kbm" "$work/corpus/wrong.kbm"
# Inputs that once crashed the loader run first, every time.
cp "$src"/runtime/module/fuzz/regressions/*.kbm "$work/corpus/"
# Fixed seed: the same inputs every run, so a failure reproduces.
"$work/build/kbm_module_fuzzer" -runs="$runs" -seed=1 -max_len=65536 \
  -rss_limit_mb=2048 -artifact_prefix="$work/" "$work/corpus"
echo "fuzz: $runs runs, no crash"
