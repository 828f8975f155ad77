//===- Substitutions.cpp - File names and records of substitutions --------===//
#include "kb/Dialect/KB/Transforms/Substitutions.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::kb;

std::string mlir::kb::getSourceDumpFileName(StringRef executable) {
  return (executable + ".mlir").str();
}

std::string mlir::kb::getBinaryDumpFileName(StringRef executable,
                                            StringRef variant,
                                            StringRef format) {
  return (executable + "_" + variant + "." + format).str();
}

std::vector<SubstitutionRecord>
mlir::kb::readSubstitutionRecords(ModuleOp module) {
  std::vector<SubstitutionRecord> records;
  auto array = module->getAttrOfType<ArrayAttr>(kSubstitutionsAttrName);
  if (!array)
    return records;
  auto get = [](DictionaryAttr dict, StringRef key) {
    auto value = dict.getAs<StringAttr>(key);
    return value ? value.getValue().str() : std::string();
  };
  for (Attribute attr : array) {
    auto dict = attr.dyn_cast<DictionaryAttr>();
    if (!dict)
      continue;
    records.push_back({get(dict, "executable"), get(dict, "variant"),
                       get(dict, "kind"), get(dict, "file"),
                       get(dict, "reference"), get(dict, "device")});
  }
  return records;
}

std::string mlir::kb::formatSubstitutionNote(const SubstitutionRecord &record) {
  if (record.kind == "source")
    return "NOTE: kb.executable @" + record.executable +
           " substituted with MLIR source '" + record.file + "'";
  std::string note = "NOTE: kb.executable @" + record.executable +
                     " variant @" + record.variant +
                     " substituted with object file '" + record.file + "'";
  if (!record.device.empty())
    note += " (tuned for " + record.device + ")";
  if (!record.reference.empty())
    note += "; generated variant kept as @" + record.reference;
  return note;
}
