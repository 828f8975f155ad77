//===- workbench/bench/dispatch_figures.cpp - [roofline] per dispatch -----===//
#include "workbench/bench/dispatch_figures.h"

#include "runtime/module/element_io.h"
#include "workbench/project/declared_expression.h"

#include <cmath>

namespace kb::workbench {

namespace {
/// The export's ABI as the candidate declares it (its names are the
/// kernel.toml's), else the first variant's.
const KernelAbi *exportAbi(const module::Module &module,
                           const module::Op &dispatch) {
  const module::Executable &exe = module.executables[dispatch.executable];
  const KernelAbi *abi = nullptr;
  for (const module::Variant &v : exe.variants) {
    if (dispatch.exportIndex >= v.exports.size())
      continue;
    if (!abi || v.role == module::VariantRole::Candidate)
      abi = &v.exports[dispatch.exportIndex];
  }
  return abi;
}

/// A constant's value as its scalar type reads (ScalarType's order).
double readScalar(ScalarType type, const uint8_t *p) {
  constexpr ElementType kAsElement[] = {ElementType::I32, ElementType::U32,
                                        ElementType::F32, ElementType::I64,
                                        ElementType::U64, ElementType::F64};
  return module::readElement(kAsElement[static_cast<int>(type)], p);
}
} // namespace

std::map<std::string, double> dispatchNames(const module::Module &module,
                                            const module::Op &dispatch) {
  std::map<std::string, double> names;
  if (const KernelAbi *abi = exportAbi(module, dispatch)) {
    std::vector<ParamSlot> layout = pushConstantLayout(*abi);
    for (size_t i = 0; i < abi->constants.size() && i < layout.size(); ++i) {
      const ParamSlot &slot = layout[i];
      if (abi->constants[i].name.empty() ||
          slot.offset + slot.size > dispatch.constants.size())
        continue;
      names[abi->constants[i].name] = readScalar(
          abi->constants[i].type, dispatch.constants.data() + slot.offset);
    }
  }
  const char *axes[] = {"workload_x", "workload_y", "workload_z"};
  for (size_t i = 0; i < 3 && dispatch.workload; ++i)
    names[axes[i]] = double((*dispatch.workload)[i]);
  return names;
}

bench::KernelDeclared withDispatchFigures(bench::KernelDeclared declared,
                                          const module::Module &module,
                                          const module::Op &dispatch,
                                          std::vector<std::string> &warnings) {
  if (declared.flopsExpression.empty() && declared.bytesMovedExpression.empty())
    return declared;
  std::map<std::string, double> names = dispatchNames(module, dispatch);
  const std::string &exe = module.executables[dispatch.executable].name;
  auto evaluate = [&](const std::string &text, const char *key,
                      std::optional<double> &figure) {
    if (text.empty())
      return;
    auto value = evaluateExpression(text, names);
    if (value.ok() && std::isfinite(*value) && *value >= 0) {
      figure = *value;
      return;
    }
    warnings.push_back(
        "`" + exe + "`: [roofline] " + key + " = \"" + text +
        "\" has no value for this dispatch: " +
        (value.ok() ? std::string("negative") : value.status().message()));
  };
  evaluate(declared.flopsExpression, "flops", declared.flops);
  evaluate(declared.bytesMovedExpression, "bytes_moved", declared.bytesMoved);
  return declared;
}

} // namespace kb::workbench
