#!/usr/bin/env bash
# Checks that every tracked C++ file is formatted with the repository's
# .clang-format (LLVM style). Prints the files that differ and how to fix
# them; exits 77 (ctest: skipped) when clang-format or git is missing.
set -u
root=${1:?usage: check_format.sh REPO_ROOT}
cd "$root" || exit 2
command -v clang-format >/dev/null || { echo "skip: clang-format not installed (Debian package clang-format)"; exit 77; }
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 \
  || { echo "skip: not a git checkout"; exit 77; }
bad=$(git ls-files '*.cpp' '*.h' ':!:*/testdata/*' \
      | xargs clang-format --dry-run 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: warning' \
      | cut -d: -f1 | sort -u)
if [ -n "$bad" ]; then
  echo "not formatted ($(clang-format --version | head -1)):"
  echo "$bad" | sed 's/^/  /'
  echo "fix: clang-format -i <files>"
  exit 1
fi
echo "format: ok"
