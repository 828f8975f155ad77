#!/usr/bin/env bash
# The KB_STATIC_COMPILER configuration (cmake/KBStaticCompiler.cmake) still
# configures and plans its link without building it (a build takes minutes):
# with GCC it is refused with the reason; with Clang 16 it configures, every
# library the link of libKBCompiler.so names exists (`ninja -n`), and that
# link names no shared LLVM or MLIR. Exit 77 (skipped) without clang++-16.
set -u
src=${1:?usage: check_static_compiler.sh SOURCE_DIR}
work=$(mktemp -d /tmp/kb-static-compiler.XXXXXX)
trap 'rm -rf "$work"' EXIT
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DKB_STATIC_COMPILER=ON
        -DKB_BUILD_TESTS=OFF -DKB_BUILD_BENCHMARKS=OFF -DKB_ENABLE_REMOTE_CACHE=OFF)

if CC=gcc CXX=g++ cmake -S "$src" -B "$work/gcc" "${common[@]}" >"$work/gcc.log" 2>&1; then
  echo "FAIL: KB_STATIC_COMPILER configured with GCC"; exit 1
fi
grep -q "KB_STATIC_COMPILER needs Clang 16" "$work/gcc.log" ||
  { cat "$work/gcc.log"; echo "FAIL: GCC refused without the reason"; exit 1; }
echo "GCC refused with the reason: ok"

command -v clang++-16 >/dev/null || { echo "clang++-16 not installed: skipped"; exit 77; }
CC=clang-16 CXX=clang++-16 cmake -S "$src" -B "$work/clang" "${common[@]}" \
  >"$work/clang.log" 2>&1 || { cat "$work/clang.log"; echo "FAIL: configure with Clang 16"; exit 1; }
ninja -C "$work/clang" -n KBCompiler >"$work/plan.log" 2>&1 ||
  { tail -20 "$work/plan.log"; echo "FAIL: the link of libKBCompiler.so cannot be planned"; exit 1; }
link=$(ninja -C "$work/clang" -t commands KBCompiler | tail -1)
if grep -qE 'libLLVM-16\.so|libLLVM\.so|libMLIR\.so' <<<"$link"; then
  echo "FAIL: the static link of libKBCompiler.so names a shared LLVM/MLIR:"
  tr ' ' '\n' <<<"$link" | grep -E 'libLLVM|libMLIR\.so'
  exit 1
fi
grep -q 'libMLIRIR\.a' <<<"$link" || { echo "FAIL: no static MLIR in the link: $link"; exit 1; }
echo "Clang 16: configures, and libKBCompiler.so links MLIR and LLVM statically: ok"
