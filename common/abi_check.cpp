//===- common/abi_check.cpp - Check a PTX / SPIR-V object against an ABI -===//
#include "common/abi_check.h"

#include "common/cuda_signature.h"
#include "common/specialization.h"
#include "common/spirv_block_flattening.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace kb {
namespace {

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + ("`" + items[i] + "`");
  return out;
}

/// |items| separated by commas, as they are.
std::string list(const std::vector<std::string> &items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i];
  return out;
}

std::string dims(const std::array<uint32_t, 3> &d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

uint64_t product(const std::array<uint32_t, 3> &d) {
  return uint64_t{d[0]} * d[1] * d[2];
}

/// "binding 1 `y`" / "constant 0 `n`" (without the parentheses of
/// describeBinding, so that it can sit inside "parameter 3 (...)").
std::string bindingLabel(const KernelAbi &abi, size_t i) {
  std::string s = "binding " + std::to_string(i);
  if (i < abi.bindings.size() && !abi.bindings[i].name.empty())
    s += " `" + abi.bindings[i].name + "`";
  return s;
}
std::string constantLabel(const KernelAbi &abi, size_t i) {
  std::string s = "constant " + std::to_string(i);
  if (i < abi.constants.size() && !abi.constants[i].name.empty())
    s += " `" + abi.constants[i].name + "`";
  return s;
}

bool isFloat(ScalarType t) {
  return t == ScalarType::F32 || t == ScalarType::F64;
}

/// 'f', 'i' or 'u' and the width in bits of a binding's element type.
std::pair<char, uint32_t> kindOf(ElementType t) {
  std::string name = toString(t); // "f32", "i8", "u16", "bf16"
  if (t == ElementType::BF16)
    return {'b', 16};
  return {name[0], byteSize(t) * 8};
}

std::string kindName(char kind) {
  return kind == 'f'   ? "floating-point"
         : kind == 'i' ? "signed integer"
                       : "unsigned integer";
}

/// Whether two struct layouts lay out the same bytes (names aside: a
/// module renamed but otherwise the same still fits).
bool sameBytes(const StructLayout &a, const StructLayout &b) {
  if (a.stride != b.stride || a.members.size() != b.members.size())
    return false;
  for (size_t m = 0; m < a.members.size(); ++m) {
    StructMember x = a.members[m], y = b.members[m];
    x.name = y.name;
    if (x != y)
      return false;
  }
  return true;
}

/// A struct binding (type = "struct") against storage buffer |res|: an
/// array of structs laid out as the ABI records it.
void checkStructElement(const SpirvResource &res, const KernelAbi &abi,
                        size_t i, std::vector<AbiMismatch> &out) {
  const StructLayout &want = *abi.bindings[i].structLayout;
  std::string label = describeBinding(abi, i);
  if (!res.elementStructError.empty()) {
    out.push_back({label +
                   ": holds a struct whose layout cannot be filled "
                   "and compared: " +
                   res.elementStructError});
    return;
  }
  if (!res.elementStruct) {
    std::string found =
        res.elementType.empty()
            ? std::string("a block that does not end in an array")
            : "an array of " +
                  (res.elementVectorSize > 1
                       ? std::to_string(res.elementVectorSize) + "-vectors of "
                       : std::string()) +
                  res.elementType;
    out.push_back({label + ": declared type = \"struct\", found " + found +
                   " (declare the buffer's last member an array of structs, "
                   "`Particle particles[]`, or the binding's scalar type)"});
    return;
  }
  // A layout still empty was declared but never read from this module.
  if (want.stride != 0 && !sameBytes(want, *res.elementStruct))
    out.push_back({label + ": expected struct elements laid out as " +
                   describeStructLayout(want) + ", found " +
                   describeStructLayout(*res.elementStruct)});
}

/// Compares the element of storage buffer |res| with binding |i|; adds an
/// error to |out| or a note to |notes|.
void checkElementType(const SpirvResource &res, const KernelAbi &abi, size_t i,
                      std::vector<AbiMismatch> &out,
                      std::vector<AbiMismatch> *notes) {
  if (abi.bindings[i].structLayout)
    return checkStructElement(res, abi, i, out);
  if (res.elementStruct && notes)
    // The bytes under the kernel's own struct (ggml's quantized blocks
    // over a u8 buffer): legal, but a count in scalars is easy to get
    // wrong, and only a struct binding is filled member by member.
    notes->push_back({describeBinding(abi, i) + ": holds structs (" +
                      describeStructLayout(*res.elementStruct) + ") read as " +
                      toString(abi.bindings[i].elementType) +
                      " elements; its element count counts " +
                      toString(abi.bindings[i].elementType) +
                      " values (a standalone kernel may declare it "
                      "`type = \"struct\"` to count structs and have them "
                      "filled member by member)"});
  if (res.elementType.size() < 2)
    return; // arrays of structs, blocks of scalars: nothing to compare
  ElementType want = abi.bindings[i].elementType;
  auto [wantKind, wantBits] = kindOf(want);
  char foundKind = res.elementType[0];
  uint32_t foundBits = static_cast<uint32_t>(
      std::strtoul(res.elementType.c_str() + 1, nullptr, 10));
  std::string found = res.elementType;
  if (res.elementVectorSize > 1)
    found = std::to_string(res.elementVectorSize) + "-vector of " + found;
  std::string label = describeBinding(abi, i);
  bool intFound = foundKind == 'i' || foundKind == 'u';
  if (wantKind == 'b') {
    // GLSL has no bf16: 16-bit integer storage (or packed 32-bit words)
    // holds the bits.
    if (!intFound || (foundBits != 16 && foundBits != 32))
      out.push_back({label +
                     ": expected bf16 elements, which GLSL stores as "
                     "16-bit integers (uint16_t/int16_t) or packed "
                     "32-bit words, found " +
                     found});
    return;
  }
  if (foundBits != wantBits) {
    // 32-bit words packing narrower elements (uint[] for u8/f16) are a
    // common GLSL idiom: fine. So is a vector as wide as one element (an
    // f32 buffer read as f16vec2): the same bytes under another type, which
    // the kernel chose. Anything else reads the wrong bytes.
    uint32_t vectorBits = foundBits * std::max(res.elementVectorSize, 1u);
    if (intFound && foundBits == 32 && wantBits < 32)
      return;
    if (res.elementVectorSize > 1 && vectorBits == wantBits) {
      if (notes)
        notes->push_back({label + ": reads its " + toString(want) +
                          " elements as " + found + " (the same " +
                          std::to_string(wantBits) + " bits)"});
      return;
    }
    if (res.elementVectorSize > 1)
      found += " (" + std::to_string(vectorBits) + "-bit vectors of " +
               std::to_string(foundBits) + "-bit components)";
    out.push_back({label + ": expected " + toString(want) + " elements (" +
                   std::to_string(wantBits) + "-bit), found " + found +
                   " (declare the buffer's array with a " +
                   std::to_string(wantBits) + "-bit type)"});
    return;
  }
  bool wantInt = wantKind == 'i' || wantKind == 'u';
  if (wantInt != intFound) {
    out.push_back({label + ": scalar-kind mismatch: expected " +
                   toString(want) + " (" + kindName(wantKind) +
                   ") elements, found " + found + " (" + kindName(foundKind) +
                   ")"});
    return;
  }
  if (wantKind != foundKind && notes)
    notes->push_back({label + ": signedness differs: expected " +
                      toString(want) + " elements, found " + found +
                      " (same bits; values past the signed range read "
                      "differently)"});
}

/// Binding |i| against what the shader declares at set 0 binding |i|:
/// nothing (a gap, as ggml's shaders leave an optional buffer out: legal in
/// Vulkan, the descriptor is bound and unused, so a note), or one or more
/// storage buffers (aliases of one buffer under several element types, as
/// an f16 buffer also read as f16vec2), each checked. Access holds for the
/// buffer: readonly when every alias is NonWritable, writable when one is.
void checkBinding(const std::vector<const SpirvResource *> &declared,
                  const KernelAbi &abi, size_t i, std::vector<AbiMismatch> &out,
                  std::vector<AbiMismatch> *notes) {
  std::string label = describeBinding(abi, i);
  std::string where = "set 0 binding " + std::to_string(i);
  bool readOnly = abi.bindings[i].access == Access::ReadOnly;
  if (declared.empty()) {
    if (notes)
      notes->push_back({label + ": the shader declares nothing at " + where +
                        "; the buffer is bound and unused" +
                        (readOnly ? "" : ", so nothing writes this output")});
    return;
  }
  bool writable = false;
  for (const SpirvResource *res : declared) {
    if (res->kind != SpirvResource::Kind::StorageBuffer) {
      const char *kind = "a resource that is not a buffer";
      if (res->kind == SpirvResource::Kind::UniformBuffer)
        kind = "a uniform buffer (declare it `buffer`, not `uniform`)";
      else if (res->kind == SpirvResource::Kind::Image)
        kind = "an image";
      else if (res->kind == SpirvResource::Kind::Sampler)
        kind = "a sampler";
      out.push_back({label + ": expected a storage buffer at " + where +
                     ", found " + kind});
      return;
    }
    checkElementType(*res, abi, i, out, notes);
    writable |= !res->nonWritable;
  }
  std::string aliases =
      declared.size() > 1
          ? " (" + std::to_string(declared.size()) + " declarations)"
          : "";
  if (readOnly && writable)
    out.push_back({label +
                   ": expected readonly (NonWritable), found a "
                   "writable buffer" +
                   aliases + "; declare it `readonly buffer`"});
  else if (!readOnly && !writable)
    out.push_back({label + ": expected " +
                   std::string(toString(abi.bindings[i].access)) +
                   ", found a NonWritable (readonly) buffer" + aliases});
}

/// The source name of a mangled C++ function at global or namespace scope
/// (`_Z5saxpyfPKfPfi` -> "saxpy", `_ZN2ns4tileEv` -> "tile",
/// `_Z2tkIfEvPT_` -> "tk"); empty for anything else.
std::string demangledBaseName(const std::string &mangled) {
  if (mangled.size() < 3 || mangled.compare(0, 2, "_Z") != 0)
    return "";
  size_t pos = 2;
  bool nested = pos < mangled.size() && mangled[pos] == 'N';
  if (nested)
    ++pos;
  std::string last;
  for (;;) {
    size_t length = 0;
    size_t digits = 0;
    while (pos < mangled.size() && mangled[pos] >= '0' && mangled[pos] <= '9' &&
           digits < 6) {
      length = length * 10 + static_cast<size_t>(mangled[pos] - '0');
      ++pos;
      ++digits;
    }
    if (digits == 0 || length == 0 || length > mangled.size() - pos)
      return "";
    last = mangled.substr(pos, length);
    pos += length;
    if (!nested)
      return last;
    // Skip template arguments of a nested component; only the last name is
    // the function's.
    if (pos < mangled.size() && mangled[pos] == 'E')
      return last;
    if (pos >= mangled.size() || mangled[pos] < '0' || mangled[pos] > '9')
      return "";
  }
}

/// PTX spelling of what the ABI expects at a parameter slot.
struct ExpectedParam {
  std::string spelling; // ".u64 pointer", ".f32"
  uint32_t size;
  uint32_t align;
  enum class Class { Integer, Float } cls;
};

ExpectedParam expectedBinding() {
  return {".u64 pointer", 8, 8, ExpectedParam::Class::Integer};
}
ExpectedParam expectedConstant(ScalarType type) {
  uint32_t size = byteSize(type);
  if (isFloat(type))
    return {size == 8 ? ".f64" : ".f32", size, size,
            ExpectedParam::Class::Float};
  // nvcc spells both signed and unsigned integers .u32/.u64.
  return {size == 8 ? ".u64" : ".u32", size, size,
          ExpectedParam::Class::Integer};
}

std::string describeFound(const PtxParam &p) {
  std::string s = "." + p.type + (p.isArray ? " array" : "");
  s += " (" + std::to_string(p.size) + " bytes";
  if (p.isArray || p.align != p.size)
    s += ", .align " + std::to_string(p.align);
  return s + ")";
}

/// Whether a PTX parameter can carry what the ABI passes there. The driver
/// copies bytes, so size and alignment decide; a typed scalar of the other
/// class (an .f32 where an integer is passed) is a real bug in the kernel's
/// signature, so it is reported too. Untyped .bN and .bN arrays fit anything
/// of the right size.
bool fits(const PtxParam &p, const ExpectedParam &e) {
  if (p.size != e.size || p.align != e.align)
    return false;
  if (p.isArray || p.type.empty() || p.type[0] == 'b')
    return true;
  if (p.type[0] == 'f')
    return e.cls == ExpectedParam::Class::Float;
  return e.cls == ExpectedParam::Class::Integer; // u, s
}

/// The demangled instance of a mangled entry (`MatrixMulCUDA<32>`), empty
/// for an extern "C" one.
std::string instanceName(const std::string &entry) {
  if (!isMangledName(entry))
    return "";
  StatusOr<CudaSignature> signature = demangleCudaKernel(entry);
  return signature.ok() ? signature->instance : "";
}

} // namespace

std::string readableEntryName(std::string_view entry) {
  std::string plain = demangledBaseName(std::string(entry));
  return plain.empty() ? std::string(entry) : plain;
}

const PtxEntry *resolvePtxEntry(const PtxModule &ptx, std::string_view name,
                                std::string *error) {
  if (const PtxEntry *entry = ptx.findEntry(name))
    return entry;
  // `MatrixMulCUDA<32>` names one instance of a template by its arguments;
  // `MatrixMulCUDA` names the template's one instance, or a function.
  bool instance = name.find('<') != std::string_view::npos;
  std::vector<std::string> present, matches;
  const PtxEntry *match = nullptr;
  for (const PtxEntry &e : ptx.entries) {
    std::string spelled = instanceName(e.name);
    // A template instance is shown with its arguments, so that a wrong one
    // is seen at once.
    present.push_back(spelled.find('<') == std::string::npos
                          ? "`" + e.name + "`"
                          : "`" + e.name + "` (" + spelled + ")");
    if (instance ? !spelled.empty() && sameTemplateInstance(name, spelled)
                 : demangledBaseName(e.name) == name) {
      matches.push_back(e.name);
      match = &e;
    }
  }
  if (matches.size() == 1)
    return match;
  if (!error)
    return nullptr;
  const std::string quoted = "entry `" + std::string(name) + "`";
  if (matches.size() > 1)
    *error = quoted + " is ambiguous in the PTX: it matches " + join(matches) +
             "; set the entry to one mangled name, or declare the kernel "
             "extern \"C\"";
  else
    *error = quoted + " not found in the PTX; " +
             (present.empty() ? std::string("the module has no .entry")
                              : "entries present: " + list(present)) +
             " (declare the kernel extern \"C\" or fix `entry`)";
  return nullptr;
}

std::vector<AbiMismatch>
checkParameterNames(const KernelAbi &abi,
                    const std::vector<std::string> &declared) {
  std::vector<uint32_t> order = parameterSlots(abi);
  if (declared.size() != order.size())
    return {};
  std::vector<std::string> passed;
  for (uint32_t slot : order) {
    const std::string &name =
        slot < abi.bindings.size()
            ? abi.bindings[slot].name
            : abi.constants[slot - abi.bindings.size()].name;
    if (name.empty())
      return {};
    passed.push_back(name);
  }
  if (passed == declared)
    return {};
  std::vector<std::string> a = passed, b = declared;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b || std::adjacent_find(a.begin(), a.end()) != a.end())
    return {};
  auto list = [](const std::vector<std::string> &names, const char *quote) {
    std::string text;
    for (const std::string &n : names)
      text += (text.empty() ? "" : ", ") + std::string(quote) + n + quote;
    return text;
  };
  return {{"`" + abi.entry + "` declares its parameters as (" +
           list(declared, "") + "), but [abi] passes (" + list(passed, "") +
           "): pointers fit pointers and same-size scalars each other, so "
           "only the names tell that the kernel would read the wrong "
           "buffers; declare its order in [abi]: parameters = [" +
           list(declared, "\"") + "]"}};
}

std::vector<AbiMismatch> checkPtxAbi(const PtxModule &ptx,
                                     const KernelAbi &abi) {
  std::vector<AbiMismatch> out;
  std::string missing;
  const PtxEntry *entry = resolvePtxEntry(ptx, abi.entry, &missing);
  if (!entry) {
    out.push_back({std::move(missing)});
    return out;
  }
  const std::string where =
      "`.entry " + entry->name + "` (line " + std::to_string(entry->line) + ")";
  size_t expectedCount = abi.bindings.size() + abi.constants.size();
  if (entry->params.size() != expectedCount)
    out.push_back({where + ": expected " + std::to_string(expectedCount) +
                   " parameters (" + std::to_string(abi.bindings.size()) +
                   " bindings, then " + std::to_string(abi.constants.size()) +
                   " constants), found " +
                   std::to_string(entry->params.size())});
  // The kernel's parameters in its own order (kernel.toml `parameters`), each
  // checked against the binding or constant it holds.
  std::vector<uint32_t> order = parameterSlots(abi);
  size_t common = std::min(order.size(), entry->params.size());
  for (size_t i = 0; i < common; ++i) {
    const PtxParam &param = entry->params[i];
    size_t slot = order[i];
    bool isBinding = slot < abi.bindings.size();
    if (!isBinding && slot - abi.bindings.size() >= abi.constants.size())
      continue; // out of range: checkParameterOrder says so where it is read
    ExpectedParam expected =
        isBinding
            ? expectedBinding()
            : expectedConstant(abi.constants[slot - abi.bindings.size()].type);
    if (fits(param, expected))
      continue;
    std::string label = isBinding
                            ? bindingLabel(abi, slot)
                            : constantLabel(abi, slot - abi.bindings.size());
    out.push_back({"parameter " + std::to_string(i) + " (" + label +
                   "): expected " + expected.spelling + " (" +
                   std::to_string(expected.size) + " bytes), found " +
                   describeFound(param)});
  }
  if (entry->reqntid && *entry->reqntid != abi.workgroupSize)
    out.push_back({where + ": " + std::string(kWorkgroupSizeMismatch) +
                   dims(abi.workgroupSize) + ", found .reqntid " +
                   dims(*entry->reqntid)});
  if (entry->maxntid && product(abi.workgroupSize) > product(*entry->maxntid))
    out.push_back({where + ": workgroup size " + dims(abi.workgroupSize) +
                   " (" + std::to_string(product(abi.workgroupSize)) +
                   " threads) exceeds .maxntid " + dims(*entry->maxntid) +
                   " (" + std::to_string(product(*entry->maxntid)) +
                   " threads; from __launch_bounds__)"});
  return out;
}

namespace {

constexpr uint32_t kGLCompute = 5;

// GLSL entry points are always "main": a kernel.toml entry names the CUDA
// function, so a module with a single GLCompute entry point named "main"
// stands for any entry name. Returns null (with the reason in `out`) when no
// entry point stands for the ABI's.
const SpirvEntryPoint *resolveSpirvEntry(const SpirvModule &spirv,
                                         const KernelAbi &abi,
                                         std::vector<AbiMismatch> &out) {
  std::vector<const SpirvEntryPoint *> compute;
  std::vector<std::string> present;
  for (const SpirvEntryPoint &ep : spirv.entryPoints) {
    present.push_back(ep.name);
    if (ep.executionModel == kGLCompute)
      compute.push_back(&ep);
  }
  const SpirvEntryPoint *named = spirv.findEntryPoint(abi.entry);
  if (named && named->executionModel != kGLCompute) {
    out.push_back({"entry point `" + abi.entry + "` has execution model " +
                   std::to_string(named->executionModel) +
                   "; expected GLCompute (5): compile it as a compute "
                   "shader"});
    return nullptr;
  }
  const SpirvEntryPoint *entry = named;
  if (!entry && compute.size() == 1 &&
      (compute[0]->name == "main" || abi.entry.empty()))
    entry = compute[0];
  if (!entry)
    out.push_back(
        {"entry point `" + abi.entry + "` not found in the SPIR-V; " +
         (present.empty() ? std::string("the module has no OpEntryPoint")
                          : "entry points present: " + join(present))});
  return entry;
}

// Bindings: set 0, binding i, storage buffer; nothing else bound but the
// uniform block of constants.
void checkSpirvBindings(const SpirvModule &spirv, const KernelAbi &abi,
                        std::vector<AbiMismatch> &out,
                        std::vector<AbiMismatch> *notes) {
  // Uniform buffers hold constants: checkSpirvUniformBlocks judges them.
  auto isUniform = [](const SpirvResource &r) {
    return r.kind == SpirvResource::Kind::UniformBuffer;
  };
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    std::vector<const SpirvResource *> declared;
    for (const SpirvResource &r : spirv.resources)
      if (r.set == 0 && r.binding == i && !isUniform(r))
        declared.push_back(&r);
    checkBinding(declared, abi, i, out, notes);
  }
  for (const SpirvResource &r : spirv.resources) {
    if ((r.set == 0 && r.binding < abi.bindings.size()) || isUniform(r))
      continue;
    out.push_back(
        {"unexpected resource at set " + std::to_string(r.set) + " binding " +
         std::to_string(r.binding) +
         (r.name.empty() ? "" : " (`" + r.name + "`)") + ": the ABI declares " +
         std::to_string(abi.bindings.size()) +
         " bindings, at set 0 bindings 0.." +
         (abi.bindings.empty() ? std::string("(none)")
                               : std::to_string(abi.bindings.size() - 1))});
  }
}

// One push-constant member against constant `i` of the ABI: offset, size and
// scalar kind must match; a signedness difference alone is only a note, since
// the bits read the same.
void checkPushConstantMember(const SpirvBlockLayout &pc, const KernelAbi &abi,
                             const std::vector<ParamSlot> &layout, size_t i,
                             std::vector<AbiMismatch> &out,
                             std::vector<AbiMismatch> *notes) {
  ScalarType type = abi.constants[i].type;
  std::string found = "offset " + std::to_string(pc.memberOffsets[i]) + ", " +
                      std::to_string(pc.memberSizes[i]) + " bytes";
  std::string foundType =
      i < pc.memberTypes.size() ? pc.memberTypes[i] : std::string();
  if (!foundType.empty())
    found += " " + foundType;
  bool typeOk = true;
  if (!foundType.empty())
    typeOk = (foundType[0] == 'f') == isFloat(type);
  if (typeOk && notes && !foundType.empty() && !isFloat(type) &&
      foundType[0] != toString(type)[0])
    notes->push_back({describeConstant(abi, i) + " (push-constant member " +
                      std::to_string(i) + "): signedness differs: expected " +
                      toString(type) + ", found " + foundType});
  if (pc.memberOffsets[i] != layout[i].offset ||
      pc.memberSizes[i] != layout[i].size || !typeOk)
    out.push_back({describeConstant(abi, i) + " (push-constant member " +
                   std::to_string(i) +
                   "): " + (typeOk ? "" : "scalar-kind mismatch: ") +
                   "expected offset " + std::to_string(layout[i].offset) +
                   ", " + std::to_string(layout[i].size) + " bytes " +
                   toString(type) + ", found " + found});
}

/// One scalar of a push-constant block whose arrays, vectors and structs are
/// flattened: "coeffs[2]" at offset 8, "inner.id" at 16.
struct PushScalar {
  std::string name;
  uint32_t offset = 0;
  ElementType type = ElementType::F32;
};

/// The scalars of |pc|'s leaves, every array entry and every vector
/// component on its own: `coeffs[2]`, `dir[1]`, `taps[1][0]` (a vector is
/// an array of its components, as `[bench]` gives it: `dir = [1.0, 0.5]`).
std::vector<PushScalar> pushScalars(const SpirvBlockLayout &pc) {
  std::vector<PushScalar> out;
  for (const StructMember &m : pc.leaves)
    for (uint32_t k = 0; k < m.count; ++k) {
      std::string entry =
          m.count == 1 ? m.name : m.name + "[" + std::to_string(k) + "]";
      uint32_t offset = m.offset + k * m.arrayStride;
      for (uint32_t c = 0; c < m.components; ++c)
        out.push_back(
            {m.components == 1 ? entry : entry + "[" + std::to_string(c) + "]",
             offset + c * byteSize(m.type), m.type});
    }
  return out;
}

/// The mismatch of scalar |found| with constant |i| (laid out at |slot|):
/// its name (an array entry or struct member is matched by name, which is
/// what keeps a program dispatch's scalars out), offset or kind; empty
/// when it fits.
std::string pushScalarMismatch(const PushScalar &found, const KernelAbi &abi,
                               size_t i, const ParamSlot &slot) {
  ScalarType type = abi.constants[i].type;
  std::string label =
      describeConstant(abi, i) + " (push constant `" + found.name + "`): ";
  if (abi.constants[i].name != found.name)
    return label +
           "the block's arrays, vectors and structs are matched to the "
           "constants by name, and this constant is not named `" +
           found.name +
           "`; a program dispatch's constants are its export's scalars, "
           "which an array, vector or struct member cannot take, so such a "
           "block is for a standalone kernel ([bench]) that declares its "
           "flattened constants (`{ name = \"coeffs\", type = \"f32\", "
           "count = 4 }` for `float coeffs[4]` or `vec4 coeffs`, "
           "`inner.id`)";
  // A vec2 is 8-byte aligned, a vec3 or vec4 16: the block then has a gap
  // that the constants, laid one after another, do not.
  std::string gap =
      found.offset > slot.offset
          ? "; the block has " + std::to_string(found.offset - slot.offset) +
                " bytes of padding before it (a vector or struct starts at "
                "a multiple of its alignment): fill them with a member "
                "(`float pad;`) declared as a constant too"
          : "";
  bool floatFound = found.type == ElementType::F16 ||
                    found.type == ElementType::F32 ||
                    found.type == ElementType::F64;
  if (floatFound != isFloat(type) || byteSize(found.type) != slot.size ||
      found.offset != slot.offset)
    return label + "expected offset " + std::to_string(slot.offset) + ", " +
           std::to_string(slot.size) + " bytes " + toString(type) +
           " (natural alignment), found offset " +
           std::to_string(found.offset) + ", " +
           std::to_string(byteSize(found.type)) + " bytes " +
           toString(found.type) + gap;
  return "";
}

/// A push-constant block with array, vector or struct members (`float
/// coeffs[4]; vec2 dir; Params inner;`) against the ABI's constants, one
/// flattened scalar each.
void checkAggregatePushConstants(const SpirvBlockLayout &pc,
                                 const KernelAbi &abi,
                                 const std::vector<ParamSlot> &layout,
                                 std::vector<AbiMismatch> &out) {
  if (!pc.leavesError.empty()) {
    out.push_back({"push constants: the block cannot be laid out as "
                   "scalars: " +
                   pc.leavesError});
    return;
  }
  std::vector<PushScalar> scalars = pushScalars(pc);
  std::string names;
  for (const PushScalar &p : scalars)
    names += (names.empty() ? "" : ", ") + p.name;
  if (scalars.size() != layout.size()) {
    out.push_back({"push constants: expected " + std::to_string(layout.size()) +
                   " scalars, found " + std::to_string(scalars.size()) +
                   " once the block's arrays, vectors and structs are "
                   "flattened (" +
                   names + ")"});
    return;
  }
  for (size_t i = 0; i < scalars.size(); ++i) {
    std::string wrong = pushScalarMismatch(scalars[i], abi, i, layout[i]);
    if (!wrong.empty()) {
      out.push_back({wrong});
      return; // the rest would only repeat it
    }
  }
}

// The ABI's constants against a push-constant block the module declares.
void checkPushConstantBlock(const SpirvBlockLayout &pc, const KernelAbi &abi,
                            const std::vector<ParamSlot> &layout,
                            std::vector<AbiMismatch> &out,
                            std::vector<AbiMismatch> *notes) {
  if (flattensToScalars(pc))
    return checkAggregatePushConstants(pc, abi, layout, out);
  if (pc.memberOffsets.size() != layout.size())
    out.push_back({"push constants: expected " + std::to_string(layout.size()) +
                   " members, found " +
                   std::to_string(pc.memberOffsets.size())});
  size_t common = std::min(layout.size(), pc.memberOffsets.size());
  size_t before = out.size();
  for (size_t i = 0; i < common; ++i)
    checkPushConstantMember(pc, abi, layout, i, out, notes);
  // The block size follows from the members; report it on its own only.
  if (out.size() == before && pc.memberOffsets.size() == layout.size() &&
      pc.size != pushConstantSize(abi))
    out.push_back({"push constants: expected a block of " +
                   std::to_string(pushConstantSize(abi)) + " bytes, found " +
                   std::to_string(pc.size)});
}

// Constants: one push-constant block, natural alignment.
void checkSpirvPushConstants(const SpirvModule &spirv, const KernelAbi &abi,
                             std::vector<AbiMismatch> &out,
                             std::vector<AbiMismatch> *notes) {
  std::vector<ParamSlot> layout = pushConstantLayout(abi);
  if (layout.empty() && spirv.pushConstants &&
      !spirv.pushConstants->memberOffsets.empty()) {
    out.push_back({"push constants: the ABI declares no constants, found a "
                   "push-constant block of " +
                   std::to_string(spirv.pushConstants->size) + " bytes"});
  } else if (!layout.empty() && !spirv.pushConstants) {
    out.push_back({"push constants: expected a push-constant block of " +
                   std::to_string(pushConstantSize(abi)) + " bytes for " +
                   std::to_string(layout.size()) +
                   " constants, found none (declare `layout(push_constant) "
                   "uniform ...`)"});
  } else if (!layout.empty()) {
    checkPushConstantBlock(*spirv.pushConstants, abi, layout, out, notes);
  }
}

// The uniform buffers |spirv| declares, in module order.
std::vector<const SpirvResource *> uniformBlocks(const SpirvModule &spirv) {
  std::vector<const SpirvResource *> blocks;
  for (const SpirvResource &r : spirv.resources)
    if (r.kind == SpirvResource::Kind::UniformBuffer)
      blocks.push_back(&r);
  return blocks;
}

// "uniform block `Params` at set 0 binding 2".
std::string describeUniformBlock(const SpirvResource &r) {
  std::string name = !r.blockName.empty() ? r.blockName : r.name;
  return "uniform block" + (name.empty() ? "" : " `" + name + "`") +
         " at set " + std::to_string(r.set) + " binding " +
         std::to_string(r.binding);
}

// "`float alpha; uint n;`": the members a uniform block of |abi|'s
// constants declares, for the fix in a message.
std::string glslMembers(const KernelAbi &abi) {
  std::string text;
  for (size_t i = 0; i < abi.constants.size(); ++i) {
    static const char *kGlsl[] = {"int",     "uint",     "float",
                                  "int64_t", "uint64_t", "double"};
    const Constant &c = abi.constants[i];
    text += std::string(i ? " " : "") + kGlsl[static_cast<int>(c.type)] + " " +
            (c.name.empty() ? "c" + std::to_string(i) : c.name) + ";";
  }
  return "`" + text + "`";
}

// Where the block may sit: set 0, not an array, a binding after the
// storage buffers (binding i is always storage buffer i: the runtime binds
// one there even where the shader leaves a gap). False when it may not.
bool checkUniformBlockPlace(const SpirvResource &ubo, const KernelAbi &abi,
                            std::vector<AbiMismatch> &out) {
  std::string where = describeUniformBlock(ubo);
  std::string after = std::to_string(abi.bindings.size());
  if (ubo.set != 0)
    out.push_back({where +
                   ": expected set 0, the ABI's only descriptor set, "
                   "found set " +
                   std::to_string(ubo.set) +
                   "; declare it `layout(set = 0, binding = " + after + ")`"});
  else if (ubo.binding < abi.bindings.size())
    out.push_back(
        {where + ": expected a binding after the storage buffers (" + after +
         " or higher), found " + describeBinding(abi, ubo.binding) +
         "'s binding; declare the block `layout(set = 0, binding = " + after +
         ")` (or, if it holds that binding's data, declare "
         "it `buffer`, not `uniform`)"});
  else if (!ubo.uniformBlock)
    out.push_back({where + ": expected one block of constants, found an "
                           "array of blocks; declare a single block"});
  else
    return true;
  return false;
}

// Member |i| of uniform block |ubo| against constant |i|: a scalar of the
// constant's size and kind (signedness alone is a note), at the offset the
// module's layout records when it records one.
void checkUniformMember(const SpirvResource &ubo, const KernelAbi &abi,
                        size_t i, std::vector<AbiMismatch> &out,
                        std::vector<AbiMismatch> *notes) {
  const SpirvBlockLayout &block = *ubo.uniformBlock;
  std::string member =
      describeUniformBlock(ubo) + ", member " + std::to_string(i) +
      (block.memberNames[i].empty() ? "" : " (`" + block.memberNames[i] + "`)");
  ScalarType want = abi.constants[i].type;
  std::string constant = describeConstant(abi, i);
  if (!block.memberShapes[i].empty()) {
    out.push_back({member + ": expected a scalar for " + constant + ", found " +
                   block.memberShapes[i] +
                   "; the ABI fills one scalar member per constant: declare "
                   "the block as " +
                   glslMembers(abi)});
    return;
  }
  const std::string &found = block.memberTypes[i];
  if (block.memberSizes[i] != byteSize(want) ||
      (found[0] == 'f') != isFloat(want)) {
    out.push_back({member + ": expected " + toString(want) + " (" +
                   std::to_string(byteSize(want)) + " bytes) for " + constant +
                   ", found " + found});
    return;
  }
  if (notes && !isFloat(want) && found[0] != toString(want)[0])
    notes->push_back({member + ": signedness differs: expected " +
                      toString(want) + " for " + constant + ", found " +
                      found});
  const UniformConstants *layout =
      abi.uniformConstants ? &*abi.uniformConstants : nullptr;
  if (layout && i < layout->offsets.size() &&
      layout->offsets[i] != block.memberOffsets[i])
    out.push_back({member + ": the module's layout packs " + constant +
                   " at offset " + std::to_string(layout->offsets[i]) +
                   ", but the block has it at offset " +
                   std::to_string(block.memberOffsets[i])});
}

// The one uniform block against the constants: one scalar member per
// constant, in order; the layout the module records (binding, size) agrees.
void checkUniformBlock(const SpirvResource &ubo, const KernelAbi &abi,
                       std::vector<AbiMismatch> &out,
                       std::vector<AbiMismatch> *notes) {
  if (!checkUniformBlockPlace(ubo, abi, out))
    return;
  const SpirvBlockLayout &block = *ubo.uniformBlock;
  std::string where = describeUniformBlock(ubo);
  size_t members = block.memberOffsets.size();
  if (members != abi.constants.size())
    out.push_back({where + ": expected " +
                   std::to_string(abi.constants.size()) +
                   " members, one per constant (" + glslMembers(abi) +
                   "), found " + std::to_string(members)});
  for (size_t i = 0; i < std::min(members, abi.constants.size()); ++i)
    checkUniformMember(ubo, abi, i, out, notes);
  const UniformConstants *layout =
      abi.uniformConstants ? &*abi.uniformConstants : nullptr;
  if (!layout)
    out.push_back({where + ": the module's layout passes the constants as "
                           "push constants, but the kernel declares them in "
                           "this uniform block; rebuild the module with this "
                           "kernel-bench, which records the block"});
  else if (layout->binding != ubo.binding || layout->size != block.size)
    out.push_back({where + " (" + std::to_string(block.size) +
                   " bytes): the module's layout expects the block at "
                   "binding " +
                   std::to_string(layout->binding) + " (" +
                   std::to_string(layout->size) + " bytes)"});
}

// Constants in a uniform block: exactly one block of scalars, and no
// push-constant block beside it.
void checkSpirvUniformBlocks(const SpirvModule &spirv, const KernelAbi &abi,
                             std::vector<AbiMismatch> &out,
                             std::vector<AbiMismatch> *notes) {
  std::vector<const SpirvResource *> blocks = uniformBlocks(spirv);
  if (blocks.empty()) {
    out.push_back({"constants: the module's layout expects a " +
                   describeUniformConstants(abi) + ", found no uniform block"});
    return;
  }
  if (blocks.size() > 1) {
    std::string found;
    for (const SpirvResource *r : blocks)
      found += (found.empty() ? "" : ", ") + describeUniformBlock(*r);
    out.push_back({"constants: expected at most one uniform block, which "
                   "holds the constants, found " +
                   std::to_string(blocks.size()) + " (" + found +
                   "); declare every constant in one block, and data that "
                   "is not a constant as a `buffer` binding"});
    return;
  }
  if (spirv.pushConstants && !spirv.pushConstants->memberOffsets.empty()) {
    out.push_back({describeUniformBlock(*blocks[0]) +
                   ": expected the constants in one block, found this "
                   "uniform block and a push-constant block of " +
                   std::to_string(spirv.pushConstants->size) +
                   " bytes; declare every constant in one of them"});
    return;
  }
  checkUniformBlock(*blocks[0], abi, out, notes);
}

// Names the workgroup-size dimensions that come from specialization
// constants, so a mismatch says where to set them.
std::string specializedDimensionsNote(const SpirvEntryPoint &entry,
                                      const KernelAbi &abi) {
  std::string note;
  for (int i = 0; i < 3; ++i) {
    if (!entry.specIds[i])
      continue;
    bool set = false;
    for (const SpecializationValue &v : abi.specialization)
      set |= v.id == *entry.specIds[i];
    note += std::string(note.empty() ? "; " : ", ") + "xyz"[i] +
            " is specialization constant " + std::to_string(*entry.specIds[i]) +
            (set ? " (set by [specialization])"
                 : " (default shown; set it in [specialization] as "
                   "local_size_" +
                       std::string(1, "xyz"[i]) + ")");
  }
  return note;
}

// Workgroup size, with the ABI's specialization constants applied.
void checkSpirvWorkgroupSize(const SpirvEntryPoint &entry, const KernelAbi &abi,
                             std::vector<AbiMismatch> &out) {
  std::optional<std::array<uint32_t, 3>> size =
      specializedWorkgroupSize(entry, abi.specialization);
  if (!size) {
    out.push_back({std::string(kWorkgroupSizeMismatch) +
                   dims(abi.workgroupSize) +
                   ", found none (declare layout(local_size_x = ...) in)"});
  } else if (*size != abi.workgroupSize) {
    out.push_back({std::string(kWorkgroupSizeMismatch) +
                   dims(abi.workgroupSize) + ", found " + dims(*size) +
                   " (from " + entry.workgroupSizeSource +
                   specializedDimensionsNote(entry, abi) + ")"});
  }
}

} // namespace

std::vector<AbiMismatch> checkSpirvAbi(const SpirvModule &spirv,
                                       const KernelAbi &abi,
                                       std::vector<AbiMismatch> *notes) {
  std::vector<AbiMismatch> out;
  const SpirvEntryPoint *entry = resolveSpirvEntry(spirv, abi, out);
  if (!entry)
    return out;
  checkSpirvBindings(spirv, abi, out, notes);
  if (uniformBlocks(spirv).empty() && !abi.uniformConstants)
    checkSpirvPushConstants(spirv, abi, out, notes);
  else
    checkSpirvUniformBlocks(spirv, abi, out, notes);
  checkSpirvWorkgroupSize(*entry, abi, out);
  return out;
}

std::optional<UniformConstants> uniformConstantsOf(const SpirvModule &spirv) {
  std::vector<const SpirvResource *> blocks = uniformBlocks(spirv);
  if (blocks.size() != 1 || !blocks[0]->uniformBlock)
    return std::nullopt;
  const SpirvBlockLayout &block = *blocks[0]->uniformBlock;
  return UniformConstants{blocks[0]->binding, block.memberOffsets, block.size};
}

void setStructLayouts(const SpirvModule &spirv, KernelAbi &abi) {
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    if (!abi.bindings[i].structLayout)
      continue;
    for (const SpirvResource &r : spirv.resources)
      if (r.set == 0 && r.binding == i && r.elementStruct &&
          r.kind == SpirvResource::Kind::StorageBuffer) {
        abi.bindings[i].structLayout = *r.elementStruct;
        break;
      }
  }
}

std::string formatMismatches(const std::vector<AbiMismatch> &mismatches) {
  std::string out;
  for (size_t i = 0; i < mismatches.size(); ++i)
    out += (i ? "\n" : "") + mismatches[i].message;
  return out;
}

} // namespace kb
