#!/usr/bin/env bash
# Checks the dependency rule between the top-level directories (README.md,
# "Layout") and between workbench/'s folders: runtime/ and toolchains/ never see LLVM/MLIR, compiler/ never
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

check() { # DIR REGEX WHY [EXEMPT-PATH-REGEX]
  local dir=$1 regex=$2 why=$3 exempt=${4:-^$}
  while IFS= read -r hit; do
    [ -n "$hit" ] && violation "$hit" "$why"
  done < <(grep -rnE --include='*.h' --include='*.cpp' --include='*.inc' "$regex" "$dir" 2>/dev/null \
             | grep -v '/testdata/' | grep -vE "$exempt" | cut -d: -f1,2)
}

check runtime    '#\s*include\s*[<"](mlir|llvm)/'              "runtime/ must not include LLVM/MLIR"
check toolchains '#\s*include\s*[<"](mlir|llvm)/'              "toolchains/ must not include LLVM/MLIR"
check common     '#\s*include\s*[<"](mlir|llvm)/'              "common/ must not include LLVM/MLIR"
# compiler/lib/Testing (test-only, linked by no tool) is where generated code
# meets the runtime's devices: the differential test of references.
check compiler   '#\s*include\s*"(runtime|toolchains|workbench)/' "compiler/ must not include runtime/, toolchains/ or workbench/" '^compiler/lib/Testing/' 
check common     '#\s*include\s*"(runtime|toolchains|workbench|compiler)/' "common/ must not include other layers"
check toolchains '#\s*include\s*"(runtime|workbench|compiler)/' "toolchains/ must not include runtime/, workbench/ or compiler/"
check runtime    '#\s*include\s*"(toolchains|workbench|compiler)/' "runtime/ must not include toolchains/, workbench/ or compiler/"
check workbench  '#\s*include\s*[<"](mlir|llvm)/'              "workbench/ reaches the compiler only through the C interface kb-c/Compiler.h (dlopen)"
check workbench  '#\s*include\s*"kb/(Driver/Driver|Dialect|Codegen|Serialization)' "workbench/ sees only the driver's record types (kb/Driver/Records.h) and kb-c/Compiler.h"
# Inside workbench/: each folder is one library (workbench/README.md) and
# includes only the folders below it, so dependencies run one way:
#   cli -> tune -> {bench, build} -> project -> support;
#   bench -> build (its record, build.json) and report; abi -> project;
#   inspect -> bench (the modules a build's benchmarks are in).
declare -A wb_allowed=(
  [support]="support"
  [project]="project support"
  [report]="report support"
  [build]="build project support"
  [abi]="abi project support"
  [bench]="bench build report project support"
  [tune]="tune bench build report project support"
  [inspect]="inspect bench build report project support"
  [cli]="cli tune inspect bench build abi report project support"
)
for folder in workbench/*/; do
  folder=$(basename "$folder")
  if [ -z "${wb_allowed[$folder]+set}" ]; then
    violation "workbench/$folder" "a workbench folder the layering rule does not know; add it to check_layering.sh"
    continue
  fi
  allowed="${wb_allowed[$folder]// /|}"
  while IFS= read -r hit; do
    [ -n "$hit" ] && violation "$hit" "workbench/$folder/ may include only workbench/{${wb_allowed[$folder]// /,}}/"
  done < <(grep -rnE --include='*.h' --include='*.cpp' '#\s*include\s*"workbench/' "workbench/$folder" 2>/dev/null \
             | grep -vE "#\s*include\s*\"workbench/($allowed)/" | cut -d: -f1,2)
done
# workbench/'s top level holds only main.cpp: every other file is in the
# folder of its subsystem.
while IFS= read -r stray; do
  [ -n "$stray" ] && violation "$stray" "only main.cpp lives at workbench/'s top level; move it into its subsystem's folder"
done < <(find workbench -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.h' \) ! -name main.cpp)
while IFS= read -r hit; do
  [ -n "$hit" ] && violation "$hit" "main.cpp registers the commands (workbench/cli/) and nothing else"
done < <(grep -nE '#\s*include\s*"workbench/' workbench/main.cpp | grep -vE '"workbench/(cli|support)/' | cut -d: -f1,2)
# The same rule between libraries: runtime/ (its tests and runtime/testing/
# included) links neither the toolchains nor the compiler.
while IFS= read -r hit; do
  [ -n "$hit" ] && violation "$hit" "runtime/ must not link toolchains/ or compiler/ libraries"
done < <(grep -rnE --include='CMakeLists.txt' '\b(kb_toolchains|kb_remote_cache|KBCompiler|MLIR|LLVM)' runtime 2>/dev/null \
           | grep -v '^\S*:[0-9]*:\s*#' | cut -d: -f1,2)
# One dlopen: every library opened at run time goes through
# common/dynamic_library.h (tests that build fake libraries aside).
while IFS= read -r hit; do
  [ -n "$hit" ] && violation "$hit" "open libraries with kb::DynamicLibrary (common/dynamic_library.h), not dlopen"
done < <(grep -rnE --include='*.h' --include='*.cpp' '^[^/]*\bdl(open|sym|close)\s*\(' \
           common runtime toolchains workbench compiler/lib 2>/dev/null \
           | grep -v '^common/dynamic_library.cpp:' | grep -v '_test.cpp:' | cut -d: -f1,2)
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

# Nor at the team's issue numbers: a reader has no tracker; the code and
# docs say what they mean. (Spelled so that this file does not match.)
while IFS= read -r hit; do
  [ -n "$hit" ] && violation "$hit" "names an issue number; say what it is about instead"
done < <(printf '%s\n' "$files" | grep -v '^tests/layering/check_layering.sh$' \
           | xargs -d '\n' grep -nIiE "\bissues?[ ]#?[0-9]+" 2>/dev/null | cut -d: -f1,2)

if [ "$fail" -eq 0 ]; then
  echo "layering: ok"
fi
exit "$fail"
