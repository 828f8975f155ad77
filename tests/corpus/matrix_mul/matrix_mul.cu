// Tiled single-precision matrix product C = A * B, written the way the CUDA
// samples write theirs: the tile edge is a template parameter, the kernel
// is never instantiated here (a sample's host code would launch
// MatrixMulCUDA<16> or <32>), and there is no __launch_bounds__. The
// workbench instantiates the one kernel.toml's `entry` names.
//
// A is hA x wA, B is wA x wB, C is hA x wB, all row-major. Every dimension
// is a multiple of BLOCK_SIZE (no bounds checks, as in the sample); one
// BLOCK_SIZE x BLOCK_SIZE block of threads computes one tile of C.
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  const int col = threadIdx.x;
  const int row = threadIdx.y;
  // The first tile of A this block reads (its row of tiles) and of B (its
  // column of tiles); each step moves one tile right in A and down in B.
  const int aFirst = blockIdx.y * BLOCK_SIZE * wA;
  const int aPast = aFirst + wA;
  const int bFirst = blockIdx.x * BLOCK_SIZE;
  float sum = 0.0f;
  for (int a = aFirst, b = bFirst; a < aPast;
       a += BLOCK_SIZE, b += BLOCK_SIZE * wB) {
    __shared__ float tileA[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float tileB[BLOCK_SIZE][BLOCK_SIZE];
    tileA[row][col] = A[a + row * wA + col];
    tileB[row][col] = B[b + row * wB + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k)
      sum += tileA[row][k] * tileB[k][col];
    __syncthreads();
  }
  const int tile = blockIdx.y * BLOCK_SIZE * wB + blockIdx.x * BLOCK_SIZE;
  C[tile + row * wB + col] = sum;
}
