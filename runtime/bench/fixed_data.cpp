//===- runtime/bench/fixed_data.cpp - Fixed inputs, expected outputs ------===//
#include "runtime/bench/fixed_data.h"

#include "common/file_util.h"
#include "common/npy.h"
#include "common/sha256.h"

#include <algorithm>

namespace kb::bench {

namespace {

/// The elements of |array|'s file, checked against the build's sha256 and
/// against the buffer the dispatch binds it to.
StatusOr<std::vector<uint8_t>> loadArray(const FixedArray &array,
                                         const module::Function &function,
                                         const module::Op &dispatch,
                                         uint32_t &buffer) {
  const std::string where = array.file.string();
  if (array.binding >= dispatch.bindings.size())
    return invalidArgument(where + ": binding " +
                           std::to_string(array.binding) + " `" + array.name +
                           "` is not one of the dispatch's " +
                           std::to_string(dispatch.bindings.size()) +
                           "; the build does not match this module: build "
                           "again");
  buffer = dispatch.bindings[array.binding].buffer;
  const module::BufferDecl &decl = function.buffers[buffer];
  KB_ASSIGN_OR_RETURN(std::string bytes, kb::readFile(array.file));
  if (std::string sha = sha256Hex(bytes); sha != array.sha256)
    return invalidArgument(
        where + ": sha256 " + sha + ", but build.json records " + array.sha256 +
        " for `" + array.source +
        "`; the file changed after `kernel-bench build`: build again");
  KB_ASSIGN_OR_RETURN(npy::Array parsed,
                      npy::parseFor(bytes, where, decl.elementType,
                                    decl.elementCount,
                                    "binding `" + array.name + "`"));
  return std::vector<uint8_t>(parsed.data.begin(), parsed.data.end());
}

std::string sources(const std::vector<FixedArray> &arrays) {
  std::string list;
  for (const FixedArray &a : arrays)
    list += (list.empty() ? "" : ", ") + a.source;
  return list;
}

} // namespace

std::string describeFixed(const KernelDeclared &declared) {
  if (declared.fixedInputs.empty() && declared.expectedOutputs.empty())
    return "";
  std::string text =
      declared.expectedOutputs.empty()
          ? "checked against the reference"
          : "checked against " + sources(declared.expectedOutputs);
  text += declared.fixedInputs.empty()
              ? " (the module's own inputs)"
              : " (fixed inputs " + sources(declared.fixedInputs) + ")";
  return text + "; seeded, all-zero, large-magnitude and special-value "
                "checks not applicable to fixed inputs";
}

StatusOr<FixedData> loadFixedData(const KernelDeclared &declared,
                                  const module::Function &function,
                                  const module::Op &dispatch) {
  FixedData out;
  out.description = describeFixed(declared);
  for (const FixedArray &a : declared.fixedInputs) {
    uint32_t buffer = 0;
    KB_ASSIGN_OR_RETURN(auto bytes, loadArray(a, function, dispatch, buffer));
    out.inputs[buffer] =
        std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  }
  for (const module::Output &o : function.outputs) {
    auto a =
        std::find_if(declared.expectedOutputs.begin(),
                     declared.expectedOutputs.end(), [&](const FixedArray &e) {
                       return e.binding < dispatch.bindings.size() &&
                              dispatch.bindings[e.binding].buffer == o.buffer;
                     });
    if (a == declared.expectedOutputs.end())
      continue;
    module::OutputData expected;
    KB_ASSIGN_OR_RETURN(expected.bytes,
                        loadArray(*a, function, dispatch, expected.buffer));
    expected.name = function.buffers[o.buffer].name;
    expected.elementType = function.buffers[o.buffer].elementType;
    out.expected.push_back(std::move(expected));
  }
  if (out.expected.size() != declared.expectedOutputs.size())
    return invalidArgument(
        "the expected outputs " + sources(declared.expectedOutputs) +
        " name bindings of which only " + std::to_string(out.expected.size()) +
        " are outputs of function `" + function.name +
        "`; the build does not match this module: build again");
  return out;
}

} // namespace kb::bench
