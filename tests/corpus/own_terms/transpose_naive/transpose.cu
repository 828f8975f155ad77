// A naive transpose the way cuda-samples writes it: its own name, C++
// linkage, the output first and the sizes as int.
#define BLOCK_DIM 16

__global__ void __launch_bounds__(BLOCK_DIM * BLOCK_DIM)
    transposeNaive(float *odata, const float *idata, int width, int height) {
  int x = blockIdx.x * BLOCK_DIM + threadIdx.x;
  int y = blockIdx.y * BLOCK_DIM + threadIdx.y;
  if (x < width && y < height)
    odata[x * height + y] = idata[y * width + x];
}
