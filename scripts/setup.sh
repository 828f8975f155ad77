#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root):
#
#   scripts/setup.sh main   install what is missing, build, run the main job:
#                           kernel-bench build of examples/quickstart (kernels
#                           + program.kbm + benchmarks), then kernel-bench run
#                           (substituted vs generated kernels; lavapipe when
#                           there is no GPU)
#   scripts/setup.sh test   install what is missing, build, run every test;
#                           ends with the skipped tests by reason and fails
#                           when a Vulkan device is listed but a test
#                           skipped for lack of one
#
# Environment: KB_BUILD_DIR (default build), KB_JOBS (default nproc),
# KB_SKIP_INSTALL=1 to skip the package step (no root needed then).
set -euo pipefail

mode=${1:-}
case "$mode" in
  main|test) ;;
  *) echo "usage: scripts/setup.sh main|test" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${KB_BUILD_DIR:-$root/build}
jobs=${KB_JOBS:-$(nproc)}

# Every Debian package the build and the tests use.
packages=(
  build-essential cmake ninja-build ccache pkg-config python3
  llvm-16-dev libmlir-16-dev mlir-16-tools llvm-16-tools
  glslc libshaderc-dev glslang-dev glslang-tools spirv-tools spirv-headers
  libvulkan-dev libvulkan1 mesa-vulkan-drivers vulkan-tools
  # run --sanitize: the Khronos validation layer (GPU-assisted validation).
  vulkan-validationlayers
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  # The build cache's remote tier (HTTP client); its tests start a real
  # nginx with WebDAV (docs/remote-cache.md).
  libcurl4-openssl-dev nginx
  libflatbuffers-dev flatbuffers-compiler
  libgtest-dev libgmock-dev libbenchmark-dev libbenchmark-tools
  clang-16 libclang-rt-16-dev libfuzzer-16-dev clang-format
  # The report formats' consumers in the tests: Google Benchmark's
  # compare.py (libbenchmark-tools) needs scipy and numpy but does not pull
  # them in; junit.xml is read by junitparser; report.html is rendered by
  # headless chromium.
  python3-scipy python3-numpy python3-junitparser chromium
  valgrind
  # examples/ci/check_examples.py loads the CI examples' YAML and lints
  # them the way CI engines read them.
  python3-yaml shellcheck yamllint
  # The generated shell completions are tested in the real shells.
  zsh fish
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
      || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run this script as root, or install them with apt-get and set KB_SKIP_INSTALL=1" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
}

[ "${KB_SKIP_INSTALL:-0}" = 1 ] || install_missing

if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "setup: note: no CUDA toolkit (nvcc) found; CUDA targets and their tests are skipped." >&2
fi

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-16/build/utils/lit/lit.py
cmake --build "$build" -j "$jobs"

case "$mode" in
  main)
    "$build/workbench/kernel-bench" build "$root/examples/quickstart" \
      -o "$build/quickstart"
    # The program with the handwritten kernels substituted, once with them and
    # once with only the compiler's kernels; exit 0 only when outputs agree.
    rc=0
    "$build/workbench/kernel-bench" run "$build/quickstart" || rc=$?
    if [ $rc -eq 77 ]; then
      echo "setup: no device to run on (no CUDA driver, no Vulkan device;" \
           "lavapipe comes with mesa-vulkan-drivers)" >&2
      exit $rc
    fi
    [ $rc -eq 0 ] || exit $rc
    # Every benchmark checked and timed on the best device present (quick
    # settings on a CPU device such as lavapipe); ends with the table and
    # writes build/quickstart/results/bench.json.
    exec "$build/workbench/kernel-bench" bench "$build/quickstart" ;;
  test)
    # Every test, then the skipped ones by reason; fails when a Vulkan
    # device is listed but a test skipped for lack of one.
    exec "$root/scripts/run_tests.sh" "$build" "$jobs" ;;
esac
