#!/usr/bin/env bash
# Checks the dependency rule between the top-level directories (README.md,
# "Layout"): runtime/ and toolchains/ never see LLVM/MLIR, compiler/ never
# includes runtime/ or toolchains/, common/ includes only itself and the
# standard library, and no backend header is included outside its driver.
# runtime/testing/ (test-only support) follows the runtime's rule: it finds
# and runs the tools through common/. Prints every violation as file:line
# and exits 1 when there is one.
set -u
root=${1:?usage: check_layering.sh REPO_ROOT}
cd "$root" || exit 2

fail=0
violation() { echo "$1: $2"; fail=1; }

check() { # DIR REGEX WHY
  local dir=$1 regex=$2 why=$3
  while IFS= read -r hit; do
    [ -n "$hit" ] && violation "$hit" "$why"
  done < <(grep -rnE --include='*.h' --include='*.cpp' --include='*.inc' "$regex" "$dir" 2>/dev/null \
             | grep -v '/testdata/' | cut -d: -f1,2)
}

check runtime    '#\s*include\s*[<"](mlir|llvm)/'              "runtime/ must not include LLVM/MLIR"
check toolchains '#\s*include\s*[<"](mlir|llvm)/'              "toolchains/ must not include LLVM/MLIR"
check common     '#\s*include\s*[<"](mlir|llvm)/'              "common/ must not include LLVM/MLIR"
check compiler   '#\s*include\s*"(runtime|toolchains|workbench)/' "compiler/ must not include runtime/, toolchains/ or workbench/"
check common     '#\s*include\s*"(runtime|toolchains|workbench|compiler)/' "common/ must not include other layers"
check toolchains '#\s*include\s*"(runtime|workbench|compiler)/' "toolchains/ must not include runtime/, workbench/ or compiler/"
check runtime    '#\s*include\s*"(toolchains|workbench|compiler)/' "runtime/ must not include toolchains/, workbench/ or compiler/"
check workbench  '#\s*include\s*[<"](mlir|llvm)/'              "workbench/ reaches the compiler only through the C interface kb-c/Compiler.h (dlopen)"
check workbench  '#\s*include\s*"kb/(Driver/Driver|Dialect|Codegen|Serialization)' "workbench/ sees only the driver's record types (kb/Driver/Records.h) and kb-c/Compiler.h"
# The same rule between libraries: runtime/ (its tests and runtime/testing/
# included) links neither the toolchains nor the compiler.
while IFS= read -r hit; do
  [ -n "$hit" ] && violation "$hit" "runtime/ must not link toolchains/ or compiler/ libraries"
done < <(grep -rnE --include='CMakeLists.txt' '\b(kb_toolchains|kb_remote_cache|KBCompiler|MLIR|LLVM)' runtime 2>/dev/null \
           | grep -v '^\S*:[0-9]*:\s*#' | cut -d: -f1,2)
# Vendor headers: the CUDA driver API is self-declared, never cuda.h.
check runtime    '#\s*include\s*[<"]cuda(_runtime)?\.h[">]'    "runtime/ declares its CUDA subset itself (no cuda.h)"

# The repository stands alone: users and contributors have only what is in
# it, so nothing in it may point at the team's planning documents (the same
# facts live in docs/). The names are spelled in pieces so this file does
# not match itself.
team_docs="(DESIGN|GPU|BUILD-NOTES|STYLE)[.]md|research/[a-z]+[.]md|[.][.]/shared/"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git -C "$root" ls-files)
else
  files=$(find . -type f -not -path './build*' -not -path './.git/*' | sed 's|^\./||')
fi
while IFS= read -r hit; do
  [ -n "$hit" ] && violation "$hit" "refers to a document outside the repository; point into docs/ instead"
done < <(printf '%s\n' "$files" | grep -v '^tests/layering/check_layering.sh$' \
           | xargs -d '\n' grep -nIE "$team_docs" 2>/dev/null | cut -d: -f1,2)

if [ "$fail" -eq 0 ]; then
  echo "layering: ok"
fi
exit "$fail"
