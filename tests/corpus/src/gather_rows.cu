// Embedding lookup as C++ libraries write it: a template over the index and
// element types, explicitly instantiated (no extern "C": the entry is the
// mangled name, which kernel.toml names by its plain name `gather_rows`),
// mixed pointer and integer parameters. out[r * cols + c] =
// table[idx[r] * cols + c]; an index outside [0, rows) (padding) reads 0.
#include "corpus_common.cuh"

template <typename IndexT, typename T>
__global__ void __launch_bounds__(128)
    gather_rows(const IndexT *__restrict__ idx, const T *__restrict__ table,
                T *__restrict__ out, int rows, int cols, int count) {
  const corpus::GridStride g = corpus::gridStride();
  const unsigned total = static_cast<unsigned>(count) * cols;
  for (unsigned i = g.start; i < total; i += g.stride) {
    const unsigned r = i / cols, c = i % cols;
    const IndexT row = idx[r];
    out[i] = (row >= 0 && row < rows)
                 ? table[static_cast<size_t>(row) * cols + c]
                 : T(0);
    if (corpus::lastStep(i, g.stride, total))
      break;
  }
}

template __global__ void gather_rows<int, float>(const int *, const float *,
                                                 float *, int, int, int);
