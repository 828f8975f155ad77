//===- workbench/bench/cuda_printf.cpp - printf in `run` on CUDA ----------===//
#include "workbench/bench/cuda_printf.h"

#include "workbench/support/kernel_output.h"

#include <cctype>
#include <cstdio>
#include <string_view>

namespace kb::workbench {

namespace {
/// Whether |ptx| calls vprintf, nvcc's lowering of printf whatever the
/// source said: `call.uni (retval0), vprintf, (...)`, the name (a whole
/// word) after the call's return value and a comma, often on a line of its
/// own; a declaration (`.extern .func ... vprintf`) is not a call.
bool ptxCallsVprintf(const std::string &ptx) {
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '$' || c == '.';
  };
  constexpr std::string_view kName = "vprintf";
  for (size_t at = ptx.find(kName); at != std::string::npos;
       at = ptx.find(kName, at + 1)) {
    size_t end = at + kName.size();
    if ((at > 0 && word(ptx[at - 1])) || (end < ptx.size() && word(ptx[end])))
      continue;
    size_t before = ptx.find_last_not_of(" \t\r\n", at - 1);
    if (before == std::string::npos || ptx[before] != ',')
      continue;
    size_t from = before > 64 ? before - 64 : 0;
    if (ptx.find("call", from) < before)
      return true;
  }
  return false;
}
} // namespace

bool callsCudaPrintf(const module::Module &module) {
  for (const module::Executable &exe : module.executables)
    for (const module::Variant &v : exe.variants)
      if (v.format == hal::ExecutableFormat::Ptx && ptxCallsVprintf(v.data))
        return true;
  return false;
}

void CudaPrintf::addTo(module::RunHooks &hooks, const std::string &run,
                       const module::Module &module,
                       const module::Function &function, bool substituted) {
  auto loaded = hooks.afterLoad;
  hooks.afterLoad = [loaded, run] {
    if (loaded)
      loaded();
    if (Status started = KernelOutput::start(); !started.ok())
      std::fprintf(stderr,
                   "kernel-bench run: warning: %s: what kernels "
                   "print is not attributed: %s\n",
                   run.c_str(), started.message().c_str());
  };
  auto dispatched = hooks.afterDispatch;
  hooks.afterDispatch = [dispatched, run, &module, &function,
                         substituted](size_t op) {
    if (dispatched)
      dispatched(op);
    KernelOutput::collect(
        describeRunDispatch(run, module, function, substituted, op));
  };
}

void CudaPrintf::stop(const std::string &run) {
  for (const KernelOutput::Printed &p :
       KernelOutput::finish(run + ", after its dispatches"))
    for (std::string &line : printedLines(p.text, /*maxLines=*/1000))
      printed_.push_back({p.when, "", std::move(line)});
}

} // namespace kb::workbench
