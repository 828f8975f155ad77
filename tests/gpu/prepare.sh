#!/usr/bin/env bash
# Everything the GPU host needs, prepared on the build machine in one go
# (the steps of tests/gpu/README.md): the runtime-only build (build-gpu), the
# measurement project (2 GiB copies), the quickstart built twice (plain, and
# with the matmul tuned for the H200), examples/mlp, the Vulkan loader
# packages in .gl/, and the stage in .carry/gpu. With KB_GPU_TUNE=1, also the
# compiler with LLVM and MLIR linked in (build-portable, Clang 16) for the
# opt-in tune row.
#
#   tests/gpu/prepare.sh [BUILD_DIR]     (default: build, a build with the compiler)
#
# Then carry .carry/gpu and .gl to the host and run
# `tests/gpu/run_gpu_checks.sh .carry/gpu` there.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=$(cd "${1:-build}" && pwd)
kb=$build/workbench/kernel-bench
if [ ! -f "$build/workbench/libKBCompiler.so" ]; then
  echo "prepare.sh: $build has no compiler (libKBCompiler.so); build it first:" \
       "cmake --preset default && cmake --build build" >&2
  exit 2
fi
work=$(mktemp -d /tmp/kb-gpu-prepare.XXXXXX)
trap 'rm -rf "$work"' EXIT

cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKB_ENABLE_COMPILER=OFF -DKB_ENABLE_REMOTE_CACHE=OFF -DKB_STATIC_RUNTIME=ON >/dev/null
ninja -C build-gpu
compiler=()
if [ "${KB_GPU_TUNE:-0}" = 1 ]; then
  cmake --preset portable-compiler >/dev/null
  cmake --build --preset portable-compiler
  compiler=(KB_COMPILER=build-portable)
fi

bytes=${KB_MEASURE_BYTES:-2147483648}
tests/gpu/measure/project.sh "$bytes" "$work/measure-project"
"$kb" build "$work/measure-project" -o "$work/measure"
"$kb" build examples/quickstart -o "$work/quickstart"
"$kb" build examples/mlp -o "$work/mlp"
# The matmul tuned for "NVIDIA H200" on both backends: the runtime must pick
# that variant there ("tuned variant" rows). The project names the kernel by
# a relative path, as projects do.
cp -r kernels/matmul_tiled "$work/mt"
values='values = { TILE = 32, WPT = 4, TILE_K = 32, UNROLL = 8, PAD = 1 }'
printf '%s\n' '[[best]]' 'device = "NVIDIA H200"' 'backend = "cuda"' "$values" '' \
  '[[best]]' 'device = "NVIDIA H200"' 'backend = "vulkan"' "$values" >"$work/mt/tuned.toml"
mkdir -p "$work/tp"
printf '%s\n' '[project]' 'name = "tuned"' "program = \"$root/examples/quickstart/program.mlir\"" \
  'kernels = ["../mt"]' 'targets = ["cuda:sm_90", "vulkan:1.2"]' >"$work/tp/workbench.toml"
"$kb" build "$work/tp" -o "$work/tuned"

env "${compiler[@]}" KB_QUICKSTART="$work/quickstart" KB_TUNED="$work/tuned" \
  KB_MLP="$work/mlp" KB_MEASURE="$work/measure" KB_MEASURE_BYTES="$bytes" \
  tests/gpu/stage.sh build-gpu

# The host's NVIDIA Vulkan driver needs the loader, glvnd and X11 client
# libraries (Debian 12 amd64); each package is downloaded unless .gl/ has it, and a download goes
# to .gl/ only when it succeeded.
missing=()
# NVIDIA's ICD (libGLX_nvidia.so.0) also needs libX11 and libXext at load time.
for p in libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 \
         libx11-6 libx11-data libxext6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0; do
  ls .gl/"${p}"_*.deb >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  mkdir -p .gl "$work/apt/partial" "$work/debs"
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$work/apt")
  if ! { apt-get "${o[@]}" update -q && (cd "$work/debs" && apt-get "${o[@]}" download \
        "${missing[@]}"); } >"$work/apt.log" 2>&1; then
    cat "$work/apt.log" >&2
    echo "prepare.sh: could not download ${missing[*]} into .gl/;" \
         "the host's Vulkan checks will fail without them" >&2
    exit 1
  fi
  mv "$work"/debs/*.deb .gl/
fi
echo "carry: .carry/gpu .gl ($(du -sch .carry/gpu .gl | tail -1 | cut -f1)); on the host:" \
     "tests/gpu/run_gpu_checks.sh .carry/gpu"
