//===- workbench/bench/run_declared.cpp - Declarations for `run` ----------===//
#include "workbench/bench/run_declared.h"

#include "common/sha256.h"
#include "workbench/build/declared_figures.h"

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

/// The first dispatch of |function| whose executable has a candidate
/// variant |device| loads, and that variant.
const module::Op *candidateDispatch(const module::Module &module,
                                    const module::Function &function,
                                    const hal::DeviceProperties &device,
                                    const module::Variant *&variant) {
  for (const module::Op &op : function.ops) {
    if (op.kind != module::Op::Kind::Dispatch)
      continue;
    auto chosen =
        module::selectVariant(module.executables[op.executable], device,
                              module::VariantChoice::PreferCandidate);
    if (chosen.ok() && (*chosen)->role == module::VariantRole::Candidate) {
      variant = *chosen;
      return &op;
    }
  }
  return nullptr;
}

} // namespace

fs::path buildJsonAbove(const fs::path &modulePath) {
  fs::path dir = fs::absolute(modulePath).parent_path();
  for (int up = 0; up <= 3 && !dir.empty(); ++up, dir = dir.parent_path()) {
    std::error_code ec;
    if (fs::is_regular_file(dir / "build.json", ec))
      return dir / "build.json";
    if (dir == dir.root_path())
      break;
  }
  return {};
}

StatusOr<std::optional<RunDeclared>>
declaredForRun(const fs::path &modulePath, const module::Module &module,
               const module::Function &function,
               const hal::DeviceProperties &device) {
  fs::path buildJson = buildJsonAbove(modulePath);
  size_t dispatches = 0;
  for (const module::Op &op : function.ops)
    dispatches += op.kind == module::Op::Kind::Dispatch;
  // A program of several kernels has no one kernel's declarations for all
  // of its outputs.
  if (dispatches != 1)
    return std::optional<RunDeclared>();
  const module::Variant *variant = nullptr;
  const module::Op *dispatch =
      candidateDispatch(module, function, device, variant);
  if (buildJson.empty() || !dispatch)
    return std::optional<RunDeclared>();
  KB_ASSIGN_OR_RETURN(DeclaredByObject byObject,
                      readDeclaredFigures(buildJson));
  std::string ambiguity;
  const bench::KernelDeclared *found =
      findDeclared(byObject, sha256Hex(variant->data),
                   module.executables[dispatch->executable].name, ambiguity);
  if (!found)
    return std::optional<RunDeclared>();
  RunDeclared out;
  out.tolerance = found->tolerance;
  for (const bench::OutputTolerance &o : found->outputTolerances)
    if (o.binding < dispatch->bindings.size())
      out.outputTolerances[dispatch->bindings[o.binding].buffer] = o.tolerance;
  for (const bench::OutputShape &o : found->outputShapes)
    if (o.binding < dispatch->bindings.size())
      out.outputShapes[dispatch->bindings[o.binding].buffer] = o.dims;
  KB_ASSIGN_OR_RETURN(out.fixed,
                      bench::loadFixedData(*found, function, *dispatch));
  if (found->hostReference) {
    KB_ASSIGN_OR_RETURN(out.hostReference,
                        bench::HostReference::load(*found->hostReference));
  }
  return std::optional<RunDeclared>(std::move(out));
}

} // namespace kb::workbench
