//===- runtime/hal/drivers/cuda/cuda_buffer.cpp - Device memory -----------===//
#include "runtime/hal/drivers/cuda/cuda_driver.h"

namespace kb::hal::cuda {

CudaBuffer::~CudaBuffer() {
  (void)device_.makeCurrent();
  (void)device_.syms().cuMemFree(pointer_);
}

Status CudaBuffer::upload(uint64_t offset, const void *data, uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "upload"));
  if (length == 0)
    return okStatus();
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  // On the device's own stream, then waited for: the copy is ordered after
  // everything submitted before (kernels still reading the old contents)
  // and has landed before this returns, so the next submission sees it. A
  // synchronous cuMemcpyHtoD would go to the legacy stream, which the
  // device's non-blocking stream does not wait for, and from pageable
  // memory may return before the DMA is done.
  const CudaSymbols &s = device_.syms();
  KB_RETURN_IF_ERROR(device_.check(
      s.cuMemcpyHtoDAsync(pointer_ + offset, data, length, device_.stream()),
      "cuMemcpyHtoDAsync"));
  return device_.check(s.cuStreamSynchronize(device_.stream()),
                       "cuStreamSynchronize after cuMemcpyHtoDAsync");
}

Status CudaBuffer::download(uint64_t offset, void *data, uint64_t length) {
  KB_RETURN_IF_ERROR(checkRange(offset, length, "download"));
  if (length == 0)
    return okStatus();
  KB_RETURN_IF_ERROR(device_.makeCurrent());
  // Same stream, same reason as upload(): ordered after the kernels that
  // wrote the buffer, complete when this returns.
  const CudaSymbols &s = device_.syms();
  KB_RETURN_IF_ERROR(device_.check(
      s.cuMemcpyDtoHAsync(data, pointer_ + offset, length, device_.stream()),
      "cuMemcpyDtoHAsync"));
  return device_.check(s.cuStreamSynchronize(device_.stream()),
                       "cuStreamSynchronize after cuMemcpyDtoHAsync");
}

} // namespace kb::hal::cuda
