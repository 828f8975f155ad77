#version 450
// relu(x * w1 + b1) for `main_dispatch_0` of examples/mlp/model.mlir through
// 16x16 shared-memory tiles (see matmul_bias_relu.cu for the contract). M, N
// and K come from kernel.toml `defines`; the dispatch has no constants.
#if !defined(M) || !defined(N) || !defined(K)
#error "M, N and K come from kernel.toml `defines`"
#endif

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;
layout(set = 0, binding = 0) readonly buffer Binding0 { float x[]; };
layout(set = 0, binding = 1) readonly buffer Binding1 { float w1[]; };
layout(set = 0, binding = 2) readonly buffer Binding2 { float b1[]; };
layout(set = 0, binding = 3) writeonly buffer Binding3 { float result[]; };

const uint kTile = 16u;
const uint kM = M, kN = N, kK = K;
shared float xTile[kTile][kTile];
shared float wTile[kTile][kTile];

void main() {
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
  uint col = gl_WorkGroupID.x * kTile + tx;
  uint row = gl_WorkGroupID.y * kTile + ty;
  float sum = 0.0;
  for (uint t = 0u; t < kK; t += kTile) {
    uint xCol = t + tx, wRow = t + ty;
    xTile[ty][tx] = row < kM && xCol < kK ? x[row * kK + xCol] : 0.0;
    wTile[ty][tx] = wRow < kK && col < kN ? w1[wRow * kN + col] : 0.0;
    barrier();
    for (uint k = 0u; k < kTile; ++k)
      sum += xTile[ty][k] * wTile[k][tx];
    barrier();
  }
  if (row < kM && col < kN)
    result[row * kN + col] = max(sum + b1[col], 0.0);
}
