#!/bin/sh
# Regenerates clock_stamp.ptx from clock_stamp.cu (needs nvcc). sm_75 is the
# oldest target CUDA 13 accepts; the driver JIT-compiles it for newer GPUs.
set -eu
cd "$(dirname "$0")"
nvcc=${NVCC:-nvcc}
"$nvcc" -ptx -arch=sm_75 -o clock_stamp.ptx clock_stamp.cu
