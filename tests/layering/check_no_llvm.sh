#!/usr/bin/env bash
# kernel-bench links no LLVM/MLIR (it opens libKBCompiler.so on demand):
# prints the offending dependencies and exits 1 when `ldd` shows one.
set -u
binary=${1:?usage: check_no_llvm.sh KERNEL_BENCH}
deps=$(ldd "$binary") || { echo "ldd $binary failed"; exit 1; }
bad=$(grep -E 'lib(LLVM|MLIR|clang)' <<<"$deps")
if [ -n "$bad" ]; then
  echo "$binary links LLVM/MLIR:"
  echo "$bad"
  exit 1
fi
echo "kernel-bench links no LLVM/MLIR: ok"
