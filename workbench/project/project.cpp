//===- workbench/project/project.cpp - The project model ------------------===//
#include "workbench/project/project.h"

namespace kb::workbench {

using toolchains::KernelSpec;
using toolchains::Language;

namespace {

bool covers(Language language, const Target &target) {
  return (language == Language::Cuda) == target.isCuda();
}

} // namespace

const KernelSpec *Kernel::specFor(const Target &target) const {
  for (const KernelSpec &spec : specs)
    if (covers(spec.language, target))
      return &spec;
  return nullptr;
}

bool Kernel::isReferenceSpec(const KernelSpec *spec) const {
  for (const KernelSpec &reference : referenceSpecs)
    if (&reference == spec)
      return true;
  return false;
}

} // namespace kb::workbench
