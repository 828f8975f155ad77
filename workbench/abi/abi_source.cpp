//===- workbench/abi/abi_source.cpp - A kernel ABI as CUDA and GLSL -------===//
#include "workbench/abi/abi_source.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <string_view>

namespace kb::workbench {

namespace {

bool isIdentifier(std::string_view text) {
  if (text.empty() ||
      !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_'))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// Words neither source may use as a parameter, buffer or member name: C++
/// and GLSL keywords, the scalar and vector type names, CUDA's built-in
/// variables and the names the generated GLSL itself declares.
const std::set<std::string, std::less<>> &reservedWords() {
  static const std::set<std::string, std::less<>> words = {
      // C++
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case",
      "catch", "char", "class", "const", "constexpr", "continue", "default",
      "delete", "do", "double", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "nullptr", "operator",
      "or", "private", "protected", "public", "register", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "template", "this",
      "throw", "true", "try", "typedef", "typeid", "typename", "union",
      "unsigned", "using", "virtual", "void", "volatile", "while", "xor",
      // CUDA
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
      // GLSL
      "attribute", "buffer", "centroid", "coherent", "discard", "flat", "highp",
      "in", "inout", "invariant", "layout", "lowp", "mediump", "noperspective",
      "out", "patch", "precise", "precision", "readonly", "restrict", "sample",
      "shared", "smooth", "subroutine", "uniform", "varying", "writeonly",
      "uint", "half", "fixed", "input", "output", "common", "partition",
      "active", "filter", "superp", "main", "sampler", "texture", "int8_t",
      "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t",
      "uint64_t", "float16_t", "float32_t", "float64_t",
      // What the generated GLSL declares.
      "pc", "Constants"};
  return words;
}

/// GLSL vector, matrix, sampler and image type names (vec3, dmat4x3,
/// usampler2D, imageBuffer, ...), which are keywords too.
bool isGlslTypeName(std::string_view name) {
  auto isDim = [](char c) { return c >= '2' && c <= '4'; };
  for (std::string_view prefix : {"i", "u", "d", "b", "f16", "i64", "u64", ""})
    for (std::string_view kind : {"vec", "mat"}) {
      if (name.substr(0, prefix.size()) != prefix ||
          name.substr(prefix.size(), kind.size()) != kind)
        continue;
      std::string_view rest = name.substr(prefix.size() + kind.size());
      if ((rest.size() == 1 && isDim(rest[0])) ||
          (rest.size() == 3 && isDim(rest[0]) && rest[1] == 'x' &&
           isDim(rest[2])))
        return true;
    }
  for (std::string_view prefix : {"i", "u", ""})
    for (std::string_view kind : {"sampler", "image", "texture", "subpass"}) {
      if (name.substr(0, prefix.size()) != prefix ||
          name.substr(prefix.size(), kind.size()) != kind)
        continue;
      std::string_view rest = name.substr(prefix.size() + kind.size());
      if (!rest.empty() && (std::isdigit(static_cast<unsigned char>(rest[0])) ||
                            std::isupper(static_cast<unsigned char>(rest[0]))))
        return true;
    }
  return false;
}

bool isFreeName(const std::string &name, const std::string &entry,
                const std::set<std::string> &used) {
  if (!isIdentifier(name) || reservedWords().count(name) ||
      isGlslTypeName(name) || name == entry || used.count(name))
    return false;
  // Reserved in GLSL (gl_*, any __) and C++ (_Upper, any __); Binding<i> is
  // the generated buffer blocks' name.
  if (name.rfind("gl_", 0) == 0 || name.find("__") != std::string::npos ||
      (name[0] == '_' && name.size() > 1 &&
       std::isupper(static_cast<unsigned char>(name[1]))) ||
      name.rfind("Binding", 0) == 0)
    return false;
  return true;
}

const char *cudaElementType(ElementType type) {
  switch (type) {
  case ElementType::I8:
    return "signed char";
  case ElementType::U8:
    return "unsigned char";
  case ElementType::I16:
    return "short";
  case ElementType::U16:
    return "unsigned short";
  case ElementType::I32:
    return "int";
  case ElementType::U32:
    return "unsigned";
  case ElementType::I64:
    return "long long";
  case ElementType::U64:
    return "unsigned long long";
  case ElementType::F16:
    return "__half";
  case ElementType::BF16:
    return "__nv_bfloat16";
  case ElementType::F32:
    return "float";
  case ElementType::F64:
    return "double";
  }
  return "float";
}

const char *cudaScalarType(ScalarType type) {
  switch (type) {
  case ScalarType::I32:
    return "int";
  case ScalarType::U32:
    return "unsigned";
  case ScalarType::F32:
    return "float";
  case ScalarType::I64:
    return "long long";
  case ScalarType::U64:
    return "unsigned long long";
  case ScalarType::F64:
    return "double";
  }
  return "int";
}

/// bf16 has no GLSL type: its bits are 16-bit integers, which the ABI check
/// accepts for bf16 (common/abi_check.cpp).
const char *glslElementType(ElementType type) {
  switch (type) {
  case ElementType::I8:
    return "int8_t";
  case ElementType::U8:
    return "uint8_t";
  case ElementType::I16:
    return "int16_t";
  case ElementType::U16:
  case ElementType::BF16:
    return "uint16_t";
  case ElementType::I32:
    return "int";
  case ElementType::U32:
    return "uint";
  case ElementType::I64:
    return "int64_t";
  case ElementType::U64:
    return "uint64_t";
  case ElementType::F16:
    return "float16_t";
  case ElementType::F32:
    return "float";
  case ElementType::F64:
    return "double";
  }
  return "float";
}

const char *glslScalarType(ScalarType type) {
  switch (type) {
  case ScalarType::I32:
    return "int";
  case ScalarType::U32:
    return "uint";
  case ScalarType::F32:
    return "float";
  case ScalarType::I64:
    return "int64_t";
  case ScalarType::U64:
    return "uint64_t";
  case ScalarType::F64:
    return "double";
  }
  return "int";
}

std::string padTo(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

uint32_t workgroupInvocations(const KernelAbi &abi) {
  return abi.workgroupSize[0] * abi.workgroupSize[1] * abi.workgroupSize[2];
}

} // namespace

SourceNames sourceNames(const KernelAbi &abi) {
  SourceNames names;
  std::set<std::string> used;
  auto pick = [&](const std::string &name, const std::string &fallback) {
    // A keyword gets a `_` (input -> input_), as the bundled kernels write
    // it; what still is not free gets the fallback.
    std::string chosen =
        isFreeName(name, abi.entry, used)                          ? name
        : !name.empty() && isFreeName(name + "_", abi.entry, used) ? name + "_"
                                                                   : fallback;
    // The fallback is free unless the ABI itself names something so.
    for (int n = 2; used.count(chosen); ++n)
      chosen = fallback + "_" + std::to_string(n);
    used.insert(chosen);
    return chosen;
  };
  for (size_t i = 0; i < abi.bindings.size(); ++i)
    names.bindings.push_back(
        pick(abi.bindings[i].name, "binding" + std::to_string(i)));
  for (size_t i = 0; i < abi.constants.size(); ++i)
    names.constants.push_back(
        pick(abi.constants[i].name, "constant" + std::to_string(i)));
  return names;
}

std::string describeBindingSlot(const KernelAbi &abi, size_t i) {
  const Binding &b = abi.bindings[i];
  std::string text = describeBinding(abi, i) + ": " + toString(b.elementType) +
                     " elements, " + toString(b.access);
  if (b.elementType == ElementType::BF16)
    text += " (GLSL: the bf16 bits as uint16_t)";
  return text;
}

std::string describeConstantSlot(const KernelAbi &abi, size_t i) {
  return describeConstant(abi, i) + ": " + toString(abi.constants[i].type);
}

bool isCudaEntryName(const std::string &entry) {
  return isIdentifier(entry) && !reservedWords().count(entry) &&
         entry.find("__") == std::string::npos;
}

std::string cudaDeclaration(const KernelAbi &abi, bool withComments) {
  SourceNames names = sourceNames(abi);
  std::vector<ParamSlot> slots = cudaParamLayout(abi);
  std::vector<std::string> params, comments;
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding &b = abi.bindings[i];
    std::string constness = b.access == Access::ReadOnly ? "const " : "";
    params.push_back(constness + cudaElementType(b.elementType) + " *" +
                     names.bindings[i]);
    comments.push_back(describeBindingSlot(abi, i));
  }
  for (size_t i = 0; i < abi.constants.size(); ++i) {
    params.push_back(std::string(cudaScalarType(abi.constants[i].type)) + " " +
                     names.constants[i]);
    comments.push_back(describeConstantSlot(abi, i));
  }
  std::string head = "extern \"C\" __global__ void __launch_bounds__(" +
                     std::to_string(workgroupInvocations(abi)) + ")\n" +
                     abi.entry + "(";
  if (!withComments) {
    std::string text = head;
    for (size_t i = 0; i < params.size(); ++i)
      text += (i ? ", " : "") + params[i];
    return text + ");\n";
  }
  if (params.empty())
    return head + ") {\n";
  // One parameter a line, the comments aligned after the longest.
  std::string text = head + "\n";
  size_t width = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    params[i] += i + 1 < params.size() ? "," : ") {";
    width = std::max(width, params[i].size());
  }
  for (size_t i = 0; i < params.size(); ++i)
    text += "    " + padTo(params[i], width) + " // " + comments[i] +
            " (param offset " + std::to_string(slots[i].offset) + ")\n";
  return text;
}

std::string cudaIncludes(const KernelAbi &abi) {
  bool f16 = false, bf16 = false;
  for (const Binding &b : abi.bindings) {
    f16 |= b.elementType == ElementType::F16;
    bf16 |= b.elementType == ElementType::BF16;
  }
  std::string text;
  if (f16)
    text += "#include <cuda_fp16.h>\n";
  if (bf16)
    text += "#include <cuda_bf16.h>\n";
  return text;
}

/// What storing |t| needs of GLSL: 8- or 16-bit storage, f16, int64.
static void addElementNeeds(ElementType t, bool &bits8, bool &bits16, bool &f16,
                            bool &int64) {
  bits8 |= t == ElementType::I8 || t == ElementType::U8;
  bits16 |=
      t == ElementType::I16 || t == ElementType::U16 || t == ElementType::BF16;
  f16 |= t == ElementType::F16;
  int64 |= t == ElementType::I64 || t == ElementType::U64;
}

std::string glslExtensions(const KernelAbi &abi) {
  bool bits8 = false, bits16 = false, f16 = false, int64 = false;
  for (const Binding &b : abi.bindings) {
    // A struct binding's bytes are the struct's members' types.
    std::vector<ElementType> types = {b.elementType};
    if (b.structLayout) {
      types.clear();
      for (const StructMember &m : b.structLayout->members)
        types.push_back(m.type);
    }
    for (ElementType t : types)
      addElementNeeds(t, bits8, bits16, f16, int64);
  }
  for (const Constant &c : abi.constants)
    int64 |= c.type == ScalarType::I64 || c.type == ScalarType::U64;
  std::string text;
  auto require = [&](const char *name) {
    text += std::string("#extension ") + name + " : require\n";
  };
  if (bits8) {
    require("GL_EXT_shader_8bit_storage");
    require("GL_EXT_shader_explicit_arithmetic_types_int8");
  }
  if (bits16 || f16)
    require("GL_EXT_shader_16bit_storage");
  if (bits16)
    require("GL_EXT_shader_explicit_arithmetic_types_int16");
  if (f16)
    require("GL_EXT_shader_explicit_arithmetic_types_float16");
  if (int64)
    require("GL_EXT_shader_explicit_arithmetic_types_int64");
  return text;
}

/// A struct of a binding's element as GLSL declares it, rebuilt from the
/// flattened members' names: "inner.mass" is member `mass` of a struct
/// member `inner`; "lights[1].pos" is `pos` of entry 1 of an array of
/// structs `lights`, whose type entry 0 already gave.
struct GlslStructNode {
  std::string name;                   // in the enclosing struct
  const StructMember *leaf = nullptr; // a scalar, vector or array of them
  uint32_t count = 1;                 // entries of an array of structs
  std::vector<GlslStructNode> members;
};

/// Adds |m| to |root| by its name; false when a part of the name is no
/// GLSL identifier (a module may name its members as it likes).
bool addFlattenedMember(GlslStructNode &root, const StructMember &m) {
  GlslStructNode *node = &root;
  std::string_view rest = m.name;
  bool firstEntry = true;
  while (true) {
    size_t dot = rest.find('.');
    std::string_view part = rest.substr(0, dot);
    if (dot == std::string_view::npos) {
      if (!isIdentifier(part))
        return false;
      if (firstEntry)
        node->members.push_back({std::string(part), &m, 1, {}});
      return true;
    }
    uint32_t index = 0;
    if (size_t open = part.find('['); open != std::string_view::npos) {
      auto [end, ec] = std::from_chars(part.data() + open + 1,
                                       part.data() + part.size() - 1, index);
      if (ec != std::errc() || part.back() != ']' ||
          end != part.data() + part.size() - 1)
        return false;
      part = part.substr(0, open);
    }
    if (!isIdentifier(part))
      return false;
    auto it = std::find_if(
        node->members.begin(), node->members.end(),
        [&](const GlslStructNode &n) { return !n.leaf && n.name == part; });
    if (it == node->members.end())
      it = node->members.insert(node->members.end(),
                                {std::string(part), nullptr, 1, {}});
    it->count = std::max(it->count, index + 1);
    firstEntry = firstEntry && index == 0;
    node = &*it;
    rest = rest.substr(dot + 1);
  }
}

/// `struct |type| { ... };` after the declarations of the structs it holds
/// (named `<type>_<member>`), each leaf with its offset in the element
/// (entry 0's, in a nested struct).
void emitGlslStruct(const GlslStructNode &node, const std::string &type,
                    const std::string &header, bool nested, std::string &out) {
  std::string body;
  for (const GlslStructNode &m : node.members) {
    std::string array =
        m.count > 1 ? "[" + std::to_string(m.count) + "]" : std::string();
    if (!m.leaf) {
      emitGlslStruct(m, type + "_" + m.name, "", true, out);
      body += "  " + type + "_" + m.name + " " + m.name + array + ";\n";
      continue;
    }
    StructMember entry = *m.leaf;
    entry.count = 1;
    if (m.leaf->count > 1)
      array = "[" + std::to_string(m.leaf->count) + "]";
    body += "  " + structMemberTypeName(entry) + " " + m.name + array +
            "; // offset " + std::to_string(m.leaf->offset) +
            (nested ? " in the element" : "") + "\n";
  }
  out += "struct " + type + " {" + header + "\n" + body + "};\n";
}

/// The GLSL declaration of a binding's struct element: `struct Particle {
/// vec2 pos; ... };` with each member's offset in the element, nested
/// structs declared before it; where a member's name cannot be rebuilt
/// into GLSL, the layout as a comment. |name| is the struct's name in the
/// declaration.
static std::string glslStruct(const StructLayout &layout,
                              const std::string &name) {
  GlslStructNode root;
  for (const StructMember &m : layout.members)
    if (!addFlattenedMember(root, m))
      return "// " + describeStructLayout(layout) + "\n";
  std::string text;
  emitGlslStruct(root, name,
                 " // " + std::to_string(layout.stride) +
                     " bytes, as the kernel's SPIR-V lays it out",
                 false, text);
  return text;
}

std::string glslInterface(const KernelAbi &abi, bool withComments) {
  SourceNames names = sourceNames(abi);
  const auto &wg = abi.workgroupSize;
  std::string text = "layout(local_size_x = " + std::to_string(wg[0]) +
                     ", local_size_y = " + std::to_string(wg[1]) +
                     ", local_size_z = " + std::to_string(wg[2]) + ") in;\n";
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding &b = abi.bindings[i];
    const char *qualifier = b.access == Access::ReadOnly    ? "readonly "
                            : b.access == Access::WriteOnly ? "writeonly "
                                                            : "";
    if (withComments)
      text += "// " + describeBindingSlot(abi, i) + "\n";
    std::string element = glslElementType(b.elementType);
    if (b.structLayout) {
      element = b.structLayout->name.empty() ? "Element" + std::to_string(i)
                                             : b.structLayout->name;
      text += glslStruct(*b.structLayout, element);
    }
    text += "layout(set = 0, binding = " + std::to_string(i) + ") " +
            qualifier + "buffer Binding" + std::to_string(i) + " { " + element +
            " " + names.bindings[i] + "[]; };\n";
  }
  if (abi.constants.empty())
    return text;
  std::vector<ParamSlot> layout = pushConstantLayout(abi);
  if (withComments)
    text += "// The constants: one push-constant block of " +
            std::to_string(pushConstantSize(abi)) +
            " bytes, each member at its\n// natural alignment "
            "(kb::pushConstantLayout). Or, as most Vulkan samples pass\n"
            "// parameters, one uniform block of the same scalars in this "
            "order after the\n// storage buffers: layout(set = 0, binding = " +
            std::to_string(abi.bindings.size()) +
            ") uniform Params { ... } pc;\n";
  text += "layout(push_constant) uniform Constants {\n";
  std::vector<std::string> members;
  size_t width = 0;
  for (size_t i = 0; i < abi.constants.size(); ++i) {
    members.push_back("  layout(offset = " + std::to_string(layout[i].offset) +
                      ") " + glslScalarType(abi.constants[i].type) + " " +
                      names.constants[i] + ";");
    width = std::max(width, members.back().size());
  }
  for (size_t i = 0; i < members.size(); ++i)
    text += withComments ? padTo(members[i], width) + " // " +
                               describeConstantSlot(abi, i) + "\n"
                         : members[i] + "\n";
  return text + "} pc;\n";
}

std::string glslConstantAccess(const KernelAbi &abi, size_t i) {
  return "pc." + sourceNames(abi).constants[i];
}

} // namespace kb::workbench
