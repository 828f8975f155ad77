//===- runtime/hal/drivers/cuda/cuda_probe_library.cpp - Not a libcuda ----===//
//
// A shared library with the first entry of the CUDA symbol table only: the
// loader opens it, fails on the second entry and drops its handle, and the
// test checks that the code stays mapped (RTLD_NODELETE).
//
//===----------------------------------------------------------------------===//
extern "C" __attribute__((visibility("default"))) int cuInit(unsigned) {
  return 0;
}
