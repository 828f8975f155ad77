#!/bin/sh
# Regenerates the checked-in kernels of runtime/bench (GPU hosts have neither
# compiler): clock_stamp.ptx, copy_vec4.ptx and fma_peak.ptx from their .cu
# (needs nvcc), copy_vec4.spv.inc and fma_peak.spv.inc from their .comp
# (needs glslangValidator; the .inc is the SPIR-V words as C initializer
# text). sm_75 is the oldest target CUDA 13
# accepts; the driver JIT-compiles it for newer GPUs. Vulkan 1.0 SPIR-V
# loads on every Vulkan device.
set -eu
cd "$(dirname "$0")"
nvcc=${NVCC:-nvcc}
glslang=${GLSLANG:-glslangValidator}
"$nvcc" -ptx -arch=sm_75 -o clock_stamp.ptx clock_stamp.cu
"$nvcc" -ptx -arch=sm_75 -o copy_vec4.ptx copy_vec4.cu
"$glslang" -V --target-env vulkan1.0 -e kb_copy_vec4 --source-entrypoint main \
  -x -o copy_vec4.spv.inc copy_vec4.comp >/dev/null
"$nvcc" -ptx -arch=sm_75 -o fma_peak.ptx fma_peak.cu
"$glslang" -V --target-env vulkan1.0 -e kb_fma_peak --source-entrypoint main \
  -x -o fma_peak.spv.inc fma_peak.comp >/dev/null
