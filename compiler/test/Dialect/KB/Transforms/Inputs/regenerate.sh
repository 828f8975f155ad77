#!/usr/bin/env bash
# Regenerates the binary fixtures of these lit tests with the real tools
# (CUDA 13 nvcc, glslc). The outputs are checked in so that the tests run
# where the tools are missing.
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
"$nvcc" -ptx -arch=sm_90 saxpy.cu -o saxpy.ptx
"$nvcc" -ptx -arch=sm_90 saxpy_wrong_abi.cu -o saxpy_wrong_abi.ptx
"$nvcc" -ptx -arch=sm_90 scale_add.cu -o scale_add.ptx
"$nvcc" -cubin -arch=sm_90 saxpy.cu -o saxpy.cubin
glslc -fshader-stage=compute --target-env=vulkan1.2 saxpy.comp -o saxpy.spv
