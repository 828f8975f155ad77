//===- runtime/module/first_difference.cpp - The first wrong dispatch -----===//
#include "runtime/module/first_difference.h"

namespace kb::module {

namespace {

/// Whether the variant |prepared| loaded for executable |exe| is a
/// substituted kernel.
bool substituted(const PreparedFunction &prepared, uint32_t exe) {
  for (const LoadedVariant &v : prepared.variants())
    if (v.executable == exe)
      return v.variant->role == VariantRole::Candidate;
  return false;
}

/// Dispatch |opIndex| run by both: the candidate from a copy of the buffers
/// the generated run is about to give it. Leaves |reference| one op further.
StatusOr<std::optional<DispatchDifference>>
compareDispatch(hal::Device &device, PreparedFunction &reference,
                PreparedFunction &candidate, size_t opIndex,
                size_t maxReported) {
  const Function &function = reference.function();
  const Op &op = function.ops[opIndex];
  for (const BindingRef &ref : op.bindings) {
    KB_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                        reference.readBuffer(ref.buffer));
    KB_RETURN_IF_ERROR(candidate.writeBuffer(ref.buffer, bytes));
  }
  KB_RETURN_IF_ERROR(submitOps(device, candidate, opIndex, opIndex + 1));
  KB_RETURN_IF_ERROR(submitOps(device, reference, opIndex, opIndex + 1));
  const KernelAbi &abi = reference.module()
                             .executables[op.executable]
                             .variants.front()
                             .exports[op.exportIndex];
  for (uint32_t b = 0; b < op.bindings.size(); ++b) {
    if (abi.bindings[b].access == Access::ReadOnly)
      continue;
    uint32_t buffer = op.bindings[b].buffer;
    KB_ASSIGN_OR_RETURN(auto expected, reference.readBuffer(buffer));
    KB_ASSIGN_OR_RETURN(auto actual, candidate.readBuffer(buffer));
    ElementType type = function.buffers[buffer].elementType;
    const std::optional<StructLayout> &layout =
        function.buffers[buffer].structLayout;
    Comparison cmp =
        layout ? compareStructs(*layout, expected, actual, {}, maxReported)
               : compareElements(type, expected, actual,
                                 resolveTolerance(type, {}), maxReported);
    if (!cmp.ok())
      return std::optional<DispatchDifference>(DispatchDifference{
          opIndex, op.executable, op.exportIndex, b, buffer, type, cmp});
  }
  return std::optional<DispatchDifference>();
}

} // namespace

StatusOr<DispatchReplay> findFirstDifferingDispatch(hal::Device &device,
                                                    const Module &module,
                                                    const Function &function,
                                                    const FixedContents &fixed,
                                                    size_t maxReported) {
  KB_ASSIGN_OR_RETURN(auto reference,
                      PreparedFunction::create(device, module, function,
                                               VariantChoice::ReferenceOnly));
  KB_ASSIGN_OR_RETURN(auto candidate,
                      PreparedFunction::create(device, module, function,
                                               VariantChoice::PreferCandidate));
  if (!fixed.empty()) {
    KB_RETURN_IF_ERROR(reference->setFixedContents(fixed));
    KB_RETURN_IF_ERROR(reference->initialize());
  }
  DispatchReplay replay;
  for (size_t i = 0; i < function.ops.size(); ++i) {
    const Op &op = function.ops[i];
    // Each op runs on its own, so barriers between them are implied.
    if (op.kind == Op::Kind::Alloc || op.kind == Op::Kind::Barrier)
      continue;
    if (op.kind != Op::Kind::Dispatch ||
        !substituted(*candidate, op.executable)) {
      KB_RETURN_IF_ERROR(submitOps(device, *reference, i, i + 1));
      continue;
    }
    ++replay.compared;
    KB_ASSIGN_OR_RETURN(
        replay.first,
        compareDispatch(device, *reference, *candidate, i, maxReported));
    if (replay.first)
      break;
  }
  return replay;
}

} // namespace kb::module
