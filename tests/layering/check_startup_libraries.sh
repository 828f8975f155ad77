#!/usr/bin/env bash
# kernel-bench links only what every start-up needs: no LLVM/MLIR (it opens
# libKBCompiler.so when a build compiles a program) and no libcurl (opened
# when a remote cache is; linked, it and its ~30 dependencies cost each
# start-up about 13 M instructions, twice Ninja's whole no-op build). Prints
# the offending dependencies and exits 1 when `ldd` shows one.
set -u
binary=${1:?usage: check_startup_libraries.sh KERNEL_BENCH}
deps=$(ldd "$binary") || { echo "ldd $binary failed"; exit 1; }
bad=$(grep -E 'lib(LLVM|MLIR|clang|curl)' <<<"$deps")
if [ -n "$bad" ]; then
  echo "$binary links libraries it should open on demand:"
  echo "$bad"
  exit 1
fi
echo "kernel-bench links no LLVM/MLIR and no libcurl: ok"
