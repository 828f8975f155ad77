//===- runtime/hal/drivers/cuda/nvtx_range.cpp - NVTX ranges --------------===//
#include "runtime/hal/drivers/cuda/nvtx_range.h"

#if KB_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace kb::hal::cuda {

const char *nvtxMissing() {
#if KB_HAVE_NVTX
  return "";
#else
  return "this kernel-bench was built without the CUDA toolkit's NVTX "
         "headers (nvtx3/nvToolsExt.h), which CUDA labels need";
#endif
}

NvtxRanges::NvtxRanges(const std::vector<std::string> &names) {
#if KB_HAVE_NVTX
  for (const std::string &name : names) {
    nvtxRangePushA(name.c_str());
    ++pushed_;
  }
#else
  (void)names;
#endif
}

NvtxRanges::~NvtxRanges() {
#if KB_HAVE_NVTX
  for (; pushed_ > 0; --pushed_)
    nvtxRangePop();
#endif
}

} // namespace kb::hal::cuda
