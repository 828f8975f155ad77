// Host reference for reduce_sum.cu's reduce<256, true> and its GLSL port
// reduce_sum.comp, written the way a project keeps a plain C++ "gold"
// implementation beside its CUDA kernel. In the import corpus as a C/C++
// host-function reference: one function whose parameters are the kernel's,
// in the kernel's order (bindings as pointers, then constants by value),
// then the workload, called on host copies of the buffers.
//
// Assumption (the launch the corpus uses): 256 threads per block, n a
// multiple of 512 and exactly n / 512 blocks, so block b sums the contiguous
// chunk g_idata[512*b .. 512*b + 512) and writes g_odata[b]. Nothing else of
// g_odata is written. The chunk is summed in double and rounded once, so it
// differs from the kernel's float tree only by rounding: compare with a
// reduction tolerance over 512 elements, not bit for bit.
#include <cstddef>
#include <cstdint>

namespace {
constexpr unsigned int kBlockSize = 256;
constexpr unsigned int kPerBlock = 2 * kBlockSize; // elements per block
} // namespace

extern "C" void reduce_sum_reference(const float *g_idata, float *g_odata,
                                     unsigned int n,
                                     const std::uint64_t workload[3]) {
  (void)workload; // n elements; the blocks follow from it
  const unsigned int blocks = n / kPerBlock;
  for (unsigned int b = 0; b < blocks; ++b) {
    const float *chunk = g_idata + static_cast<std::size_t>(b) * kPerBlock;
    double sum = 0.0;
    for (unsigned int k = 0; k < kPerBlock; ++k)
      sum += chunk[k];
    g_odata[b] = static_cast<float>(sum);
  }
}
