#!/bin/sh
# Regenerates the checked-in PTX and SPIR-V fixtures from their sources with
# the real tools (CUDA 13 nvcc, shaderc glslc). Run from anywhere.
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" -ptx -arch=sm_90 saxpy.cu -o saxpy.ptx
glslc -fshader-stage=compute --target-env=vulkan1.0 saxpy.comp -o saxpy_vk10.spv
glslc -fshader-stage=compute --target-env=vulkan1.1 saxpy.comp -o saxpy_vk11.spv
for v in 1.1 1.2 1.3; do
  glslc -fshader-stage=compute --target-env=vulkan$v wg_spec.comp \
    -o "wg_spec_vk$(echo $v | tr -d .).spv"
done
glslc -fshader-stage=compute --target-env=vulkan1.2 push_constants.comp -o push_constants_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 push_aggregates.comp -o push_aggregates_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.1 element_types.comp -o element_types_vk11.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 aliased_gap.comp -o aliased_gap_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 uniform_params.comp -o uniform_params_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 uniform_aggregates.comp -o uniform_aggregates_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 uniform_two_blocks.comp -o uniform_two_blocks_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 -DWITH_PUSH uniform_two_blocks.comp -o uniform_and_push_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 struct_elements.comp -o struct_elements_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 -DOTHER_LAYOUT struct_elements.comp -o struct_elements_other_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 push_huge_array.comp -o push_huge_array_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 push_vectors.comp -o push_vectors_vk12.spv
glslc -fshader-stage=compute --target-env=vulkan1.2 -DNO_PAD push_vectors.comp -o push_vectors_nopad_vk12.spv
spirv-as --target-env vulkan1.2 hostile_empty_structs.spvasm -o hostile_empty_structs.spv
