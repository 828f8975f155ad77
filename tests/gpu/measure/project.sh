#!/usr/bin/env bash
# Writes the GPU script's measurement project into DIR: three standalone
# kernels whose references are the MLIR files beside this script.
#
#   tests/gpu/measure/project.sh COPY_BYTES DIR
#
#   copy_big  kernels/copy over COPY_BYTES per buffer (2 GiB on the GPU host:
#             the bandwidth row), one float4 per invocation
#   copy_4k   kernels/copy over 4 KiB (latency-bound: one workgroup)
#   empty     a kernel that does nothing (launch latency alone)
#
# Sizes are compiled into the modules, so the dry run builds it small.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bytes=${1:?usage: project.sh COPY_BYTES DIR} dir=${2:?usage: project.sh COPY_BYTES DIR}
if ! [[ $bytes =~ ^[0-9]+$ ]] || [ $((bytes % 16)) -ne 0 ] || [ "$bytes" -lt 16 ] ||
   [ "$bytes" -gt $((4 * (1 << 30) - 16)) ]; then
  echo "project.sh: COPY_BYTES must be a multiple of 16 from 16 to 4 GiB - 16 (n is a u32 of floats); found '$bytes'" >&2
  exit 2
fi
mkdir -p "$dir"
cat >"$dir/workbench.toml" <<TOML
[project]
name = "gpu-measure"
kernels = ["copy_big", "copy_4k", "empty"]
targets = ["cuda:sm_90", "vulkan:1.2"]
TOML
copy_kernel() { # name floats
  local name=$1 n=$2
  mkdir -p "$dir/$name"
  cat >"$dir/$name/kernel.toml" <<TOML
[kernel]
name = "$name"
sources = ["$root/kernels/copy/copy.cu", "$root/kernels/copy/copy.comp"]
entry = "copy"

[abi]
workgroup_size = [256, 1, 1]
dynamic_shared_memory = 0
bindings = [
  { name = "src", type = "f32", access = "readonly" },
  { name = "dst", type = "f32", access = "writeonly" },
]
constants = [{ name = "n", type = "u32" }]

# One float4 per invocation: n / 4 invocations.
[bench]
workload = [$((n / 4))]
constants = { n = $n }
elements = { src = "n", dst = "n" }
reference = "$here/copy_reference.mlir"
TOML
}
copy_kernel copy_big $((bytes / 4))
copy_kernel copy_4k 1024
mkdir -p "$dir/empty"
cat >"$dir/empty/kernel.toml" <<TOML
[kernel]
name = "empty"
sources = ["$here/empty/empty.cu", "$here/empty/empty.comp"]
entry = "empty"

[abi]
workgroup_size = [32, 1, 1]
dynamic_shared_memory = 0
bindings = [{ name = "buf", type = "f32", access = "readwrite" }]
constants = [{ name = "n", type = "u32" }]

[bench]
workload = [32]
constants = { n = 32 }
elements = { buf = "n" }
reference = "$here/empty/empty_reference.mlir"
TOML
