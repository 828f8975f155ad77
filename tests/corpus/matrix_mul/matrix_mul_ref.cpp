// Host reference for matrix_mul.cu's MatrixMulCUDA<BLOCK_SIZE>: the plain
// triple loop, summed in double and rounded once. The kernel's float sums
// over wA products differ from it by rounding only ([tolerance]).
// Parameters are the kernel's, in its order, then the workload (wB x hA).
#include <cstddef>
#include <cstdint>

extern "C" void matrix_mul_reference(float *C, const float *A, const float *B,
                                     int wA, int wB,
                                     const std::uint64_t workload[3]) {
  const int hA = static_cast<int>(workload[1]);
  for (int i = 0; i < hA; ++i)
    for (int j = 0; j < wB; ++j) {
      double sum = 0.0;
      for (int k = 0; k < wA; ++k)
        sum += static_cast<double>(A[static_cast<std::size_t>(i) * wA + k]) *
               B[static_cast<std::size_t>(k) * wB + j];
      C[static_cast<std::size_t>(i) * wB + j] = static_cast<float>(sum);
    }
}
