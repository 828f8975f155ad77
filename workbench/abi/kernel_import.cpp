//===- workbench/abi/kernel_import.cpp - A kernel.toml from a binary ------===//
#include "workbench/abi/kernel_import.h"

#include "common/abi_check.h"
#include "common/cuda_signature.h"
#include "common/file_util.h"
#include "common/paths.h"
#include "common/ptx_reader.h"
#include "common/spirv_block_flattening.h"
#include "common/spirv_reader.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/toolchains.h"
#include "workbench/project/kernel_toml.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {

using toolchains::Language;

StatusOr<Language> sourceLanguage(const fs::path &source) {
  if (std::optional<Language> language = languageOf(source))
    return *language;
  std::string ext = source.extension().string();
  return invalidArgument(displayPath(source) +
                         ": expected a CUDA (.cu) or GLSL compute (.comp, "
                         ".glsl) source, found `" +
                         (ext.empty() ? source.filename().string() : ext) +
                         "`; import reads sources a kernel.toml can build");
}

Target targetFor(const ImportRequest &request, Language language) {
  for (const Target &t : request.targets)
    if (t.isCuda() == (language == Language::Cuda))
      return t;
  return *Target::parse(language == Language::Cuda ? "cuda:sm_90"
                                                   : "vulkan:1.2");
}

/// A kernel name from a file stem: what kernel.toml accepts.
std::string kernelName(const fs::path &source) {
  std::string name = source.stem().string();
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
      c = '_';
  if (name.empty() || name[0] == '-')
    name = "kernel" + name;
  return name;
}

/// Compiles |source| with the tools `build` uses, without the ABI check;
/// the PTX text or SPIR-V bytes.
StatusOr<std::string> compile(const ImportRequest &request,
                              const fs::path &source, Language language,
                              const Target &target,
                              const toolchains::Toolchains &tools) {
  toolchains::KernelSpec spec;
  spec.name = kernelName(source);
  spec.source = source;
  spec.language = language;
  spec.entry = language == Language::Glsl ? "main" : request.entry;
  spec.abi.entry = spec.entry;
  spec.defines = request.defines;
  spec.includeDirs = request.includeDirs;
  spec.checkAbi = false;
  KB_ASSIGN_OR_RETURN(TempDir out,
                      TempDir::create(fs::temp_directory_path(), "kb-import-"));
  toolchains::KernelBuilder builder(tools, nullptr, {});
  toolchains::BuildJobResult result = builder.build(spec, target, out.path());
  if (!result.status.ok()) {
    std::string log =
        result.failureLog.empty() ? std::string() : "\n" + result.failureLog;
    return Status(result.status.code(),
                  displayPath(source) + " does not build for " +
                      target.toString() + ": " + result.status.message() + log);
  }
  const char *kind = language == Language::Cuda ? "ptx" : "spv";
  for (const toolchains::OutputFile &file : result.outputs)
    if (file.kind == kind)
      return readFile(file.path);
  return internalError("the build of " + displayPath(source) +
                       " published no ." + kind);
}

std::string accessOf(const SpirvResource &r) {
  if (r.nonWritable)
    return "readonly";
  return r.nonReadable ? "writeonly" : "readwrite";
}

std::string bindingName(const SpirvResource &r) {
  // A storage buffer is known by its array (`float x[]`); anything else by
  // its block or variable.
  if (r.kind == SpirvResource::Kind::StorageBuffer && !r.lastMemberName.empty())
    return r.lastMemberName;
  return r.name.empty() ? r.blockName : r.name;
}

/// Refuses what the kernel ABI cannot bind at all: another descriptor set,
/// a resource that is not a storage buffer, a block that does not end in an
/// array of scalars or vectors.
Status checkImportable(const SpirvResource &r, const fs::path &source) {
  std::string what =
      displayPath(source) + ": binding " + std::to_string(r.binding) +
      (bindingName(r).empty() ? "" : " (`" + bindingName(r) + "`)");
  if (r.set != 0)
    return invalidArgument(what + " is in descriptor set " +
                           std::to_string(r.set) +
                           "; the kernel ABI uses set 0 only");
  if (r.kind != SpirvResource::Kind::StorageBuffer) {
    const char *kind = r.kind == SpirvResource::Kind::UniformBuffer
                           ? "a uniform buffer"
                       : r.kind == SpirvResource::Kind::Image   ? "an image"
                       : r.kind == SpirvResource::Kind::Sampler ? "a sampler"
                                                                : "no buffer";
    return invalidArgument(
        what + " is " + kind +
        ", not a storage buffer; the kernel ABI binds storage buffers, and "
        "takes its constants from one push-constant block or one uniform "
        "block of scalars in set 0 (docs/kernel-abi.md)");
  }
  if (!r.elementStructError.empty())
    return invalidArgument(what +
                           " holds an array of structs the kernel "
                           "ABI cannot lay out: " +
                           r.elementStructError);
  if (r.elementType.empty() && !r.elementStruct)
    return invalidArgument(
        what + " does not end in an array of scalars, vectors or structs (a "
               "block of scalars); the kernel ABI's bindings are arrays");
  return okStatus();
}

/// One binding from its declarations: the scalar one's element type (a
/// buffer also read as vectors is an array of its components), readonly
/// when every declaration is NonWritable.
ImportedSlot importedBinding(const std::vector<const SpirvResource *> &all) {
  const SpirvResource *scalar = all.front();
  for (const SpirvResource *r : all)
    if (r->elementVectorSize < scalar->elementVectorSize)
      scalar = r;
  ImportedSlot slot;
  slot.name = bindingName(*scalar);
  slot.type = scalar->elementType;
  if (scalar->elementStruct) {
    // Laid out by the SPIR-V at every build; the comment shows how.
    slot.type = "struct";
    slot.comment = describeStructLayout(*scalar->elementStruct) +
                   "; element counts are in structs (standalone only)";
  }
  bool writable = false, readable = false;
  for (const SpirvResource *r : all) {
    writable |= !r->nonWritable;
    readable |= !r->nonReadable;
  }
  slot.access = !writable ? "readonly" : readable ? "readwrite" : "writeonly";
  if (all.size() > 1) {
    std::string names;
    for (const SpirvResource *r : all)
      names += (names.empty() ? "" : ", ") + bindingName(*r) + " (" +
               (r->elementVectorSize > 1
                    ? std::to_string(r->elementVectorSize) + "-vector of "
                    : "") +
               r->elementType + ")";
    slot.comment =
        "declared " + std::to_string(all.size()) + " times: " + names;
  } else if (scalar->elementVectorSize > 1) {
    slot.comment = std::to_string(scalar->elementVectorSize) + "-vectors of " +
                   scalar->elementType + ": element counts are in scalars";
  }
  return slot;
}

/// The uniform block that holds the kernel's constants: the module's only
/// uniform buffer, one block, with no push-constant block beside it (the
/// ABI check refuses anything else, saying why).
const SpirvResource *constantsBlock(const SpirvModule &spirv) {
  if (spirv.pushConstants && !spirv.pushConstants->memberOffsets.empty())
    return nullptr;
  const SpirvResource *block = nullptr;
  for (const SpirvResource &r : spirv.resources) {
    if (r.kind != SpirvResource::Kind::UniformBuffer)
      continue;
    if (block)
      return nullptr;
    block = &r;
  }
  return block && block->set == 0 && block->uniformBlock ? block : nullptr;
}

Status spirvBindings(const SpirvModule &spirv, const fs::path &source,
                     ImportedKernel &out) {
  std::map<uint32_t, std::vector<const SpirvResource *>> byBinding;
  const SpirvResource *constants = constantsBlock(spirv);
  for (const SpirvResource &r : spirv.resources) {
    if (&r == constants)
      continue; // the constants, not a binding
    KB_RETURN_IF_ERROR(checkImportable(r, source));
    byBinding[r.binding].push_back(&r);
  }
  uint32_t next = 0;
  for (const auto &[binding, declared] : byBinding) {
    // A binding the shader leaves out is bound and unused (legal in
    // Vulkan): it keeps its number with a slot of its own.
    for (; next < binding; ++next)
      out.bindings.push_back({"unused" + std::to_string(next), "u32",
                              "readonly",
                              "the shader declares nothing at binding " +
                                  std::to_string(next) + ": bound and unused",
                              ""});
    out.bindings.push_back(importedBinding(declared));
    ++next;
  }
  return okStatus();
}

/// A push-constant block with array, vector or struct members, flattened
/// as a standalone kernel declares it: an array with its `count`
/// ("damping", count 3, whose entries the ABI names "damping[0]" ..), a
/// vector as the array of its components, struct members by dotted names
/// ("step.deltaT").
Status flattenedPushConstants(const SpirvBlockLayout &pc,
                              const fs::path &source, ImportedKernel &out) {
  std::string where = displayPath(source) + ": push constants: ";
  if (!pc.leavesError.empty())
    return invalidArgument(where + pc.leavesError);
  static const std::set<std::string> scalars = {"i32", "u32", "f32",
                                                "i64", "u64", "f64"};
  for (const StructMember &m : pc.leaves) {
    std::string type = toString(m.type);
    if (!scalars.count(type))
      return invalidArgument(where + "`" + m.name + "` is " +
                             structMemberTypeName(m) +
                             "; kernel ABI constants are scalars of i32, "
                             "u32, f32, i64, u64 or f64");
    if (m.components == 1) {
      out.constants.push_back({m.name, type, "",
                               m.count > 1
                                   ? "an array: [bench] gives `" + m.name +
                                         " = [...]`; standalone only"
                                   : "",
                               "", m.count});
      continue;
    }
    // A vector is an array of its components; an array of vectors one
    // such array per entry (`taps[1]`, count 2).
    for (uint32_t k = 0; k < m.count; ++k)
      out.constants.push_back(
          {m.count == 1 ? m.name : m.name + "[" + std::to_string(k) + "]", type,
           "",
           k == 0 ? "a " + structMemberTypeName(m) + ": [bench] gives `" +
                        m.name + " = [...]`; standalone only"
                  : "",
           "", m.components});
  }
  return okStatus();
}

/// The constants: the push-constant block's members, or those of the one
/// uniform block that holds them (as Vulkan samples pass parameters).
Status spirvConstants(const SpirvModule &spirv, const fs::path &source,
                      ImportedKernel &out) {
  const SpirvResource *uniform = constantsBlock(spirv);
  if (!spirv.pushConstants && !uniform)
    return okStatus();
  if (!uniform && flattensToScalars(*spirv.pushConstants))
    return flattenedPushConstants(*spirv.pushConstants, source, out);
  const SpirvBlockLayout &pc =
      uniform ? *uniform->uniformBlock : *spirv.pushConstants;
  std::string member = uniform ? "uniform-block member "
                               : "push-constant "
                                 "member ";
  static const std::set<std::string> scalars = {"i32", "u32", "f32",
                                                "i64", "u64", "f64"};
  for (size_t m = 0; m < pc.memberOffsets.size(); ++m) {
    std::string name = m < pc.memberNames.size() ? pc.memberNames[m] : "";
    if (!scalars.count(pc.memberTypes[m]))
      return invalidArgument(
          displayPath(source) + ": " + member + std::to_string(m) +
          (name.empty() ? "" : " (`" + name + "`)") + " is " +
          (pc.memberTypes[m].empty() ? pc.memberShapes[m]
                                     : "of type " + pc.memberTypes[m]) +
          "; kernel ABI constants are scalars of i32, u32, f32, i64, u64 or "
          "f64, one member each");
    out.constants.push_back({name, pc.memberTypes[m], "", "", ""});
  }
  return okStatus();
}

std::string specDefault(const SpirvSpecConstant &c) {
  if (c.type == "bool")
    return c.defaultBits ? "true" : "false";
  if (c.type == "f32") {
    float f;
    uint32_t bits = static_cast<uint32_t>(c.defaultBits);
    std::memcpy(&f, &bits, sizeof f);
    return std::to_string(f);
  }
  if (c.type == "f64") {
    double d;
    std::memcpy(&d, &c.defaultBits, sizeof d);
    return std::to_string(d);
  }
  if (c.type[0] == 'i') {
    int64_t v = c.type == "i32" ? static_cast<int32_t>(c.defaultBits)
                                : static_cast<int64_t>(c.defaultBits);
    return std::to_string(v);
  }
  return std::to_string(c.defaultBits);
}

void spirvLaunch(const SpirvModule &spirv, ImportedKernel &out) {
  const SpirvEntryPoint *ep = spirv.findEntryPoint("main");
  std::map<uint32_t, std::string> sizeKeys;
  if (ep) {
    out.workgroupSize = ep->workgroupSize;
    const char *dims[] = {"local_size_x", "local_size_y", "local_size_z"};
    std::string ids;
    for (int i = 0; i < 3; ++i)
      if (ep->specIds[i]) {
        sizeKeys[*ep->specIds[i]] = dims[i];
        ids += (ids.empty() ? "" : ", ") + std::string(dims[i]) +
               "_id = " + std::to_string(*ep->specIds[i]);
      }
    if (!ids.empty())
      out.workgroupComment =
          "the defaults of " + ids + ": change it with [specialization]";
  }
  // GLSL may give one SpecId two constants (`constant_id = 0` and
  // `local_size_x_id = 0`): one key each, the named one preferred.
  std::map<uint32_t, ImportedSpecConstant> byId;
  for (const SpirvSpecConstant &c : spirv.specConstants) {
    ImportedSpecConstant s;
    s.specId = c.specId;
    auto size = sizeKeys.find(c.specId);
    s.name = !c.name.empty()          ? c.name
             : size != sizeKeys.end() ? size->second
                                      : std::to_string(c.specId);
    s.type = c.type;
    s.defaultValue = specDefault(c);
    if (size != sizeKeys.end())
      s.comment = "sets " + size->second;
    auto [it, fresh] = byId.emplace(c.specId, s);
    if (!fresh && !c.name.empty())
      it->second = std::move(s);
  }
  for (auto &[id, s] : byId)
    out.specialization.push_back(std::move(s));
  static const std::map<uint32_t, const char *> subgroup = {
      {61, "basic"},     {62, "vote"},    {63, "arithmetic"},
      {64, "ballot"},    {65, "shuffle"}, {66, "shuffle_relative"},
      {67, "clustered"}, {68, "quad"}};
  std::string needs;
  for (uint32_t cap : spirv.capabilities)
    if (auto it = subgroup.find(cap); it != subgroup.end())
      needs += (needs.empty() ? "" : ", ") + std::string(it->second);
  if (!needs.empty())
    out.notes.push_back("needs subgroup operations (" + needs +
                        "); set [abi] subgroup_size if it assumes a width");
}

StatusOr<ImportedKernel> readSpirvInterface(const std::string &bytes,
                                            const fs::path &source) {
  KB_ASSIGN_OR_RETURN(SpirvModule spirv, readSpirvBytes(bytes));
  ImportedKernel out;
  KB_RETURN_IF_ERROR(spirvBindings(spirv, source, out));
  KB_RETURN_IF_ERROR(spirvConstants(spirv, source, out));
  spirvLaunch(spirv, out);
  return out;
}

StatusOr<const PtxEntry *> pickEntry(const PtxModule &ptx,
                                     const std::string &wanted,
                                     const fs::path &source) {
  if (wanted.empty()) {
    if (ptx.entries.size() == 1)
      return &ptx.entries.front();
    std::string names;
    for (const PtxEntry &e : ptx.entries)
      names += "\n  " + e.name + "  (" + readableEntryName(e.name) + ")";
    return invalidArgument(
        displayPath(source) + " has " + std::to_string(ptx.entries.size()) +
        " kernels; pass --entry NAME (a function name, or the mangled name "
        "of one template instance):" +
        names);
  }
  std::string error;
  const PtxEntry *entry = resolvePtxEntry(ptx, wanted, &error);
  if (!entry)
    return invalidArgument(displayPath(source) + ": " + error);
  return entry;
}

/// One PTX parameter of a C++ kernel, typed by its signature.
StatusOr<ImportedSlot> typedParameter(const CudaParameter &p,
                                      const std::string &name,
                                      const std::string &what) {
  static const std::set<std::string> constantTypes = {"i32", "u32", "f32",
                                                      "i64", "u64", "f64"};
  ImportedSlot slot;
  slot.name = name;
  slot.type = p.type;
  if (p.pointer) {
    if (p.type.empty())
      return invalidArgument(what + " (`" + p.spelled +
                             "`) points to a type the kernel ABI has no "
                             "element type for (bindings are arrays of one "
                             "scalar type)");
    slot.access = p.pointeeConst ? "readonly" : "readwrite";
    slot.comment = p.spelled;
    if (!p.pointeeConst)
      slot.comment += ": readwrite unverified (writeonly if it is never read)";
    if (p.vectorWidth > 1)
      slot.comment += "; " + std::to_string(p.vectorWidth) +
                      "-vectors: element counts are in scalars";
    return slot;
  }
  if (!constantTypes.count(p.type))
    return invalidArgument(what + " (`" + p.spelled +
                           "`) is no constant the kernel ABI passes: "
                           "constants are i32, u32, f32, i64, u64 or f64 "
                           "scalars");
  slot.comment = p.spelled;
  return slot;
}

/// One PTX parameter of an `extern "C"` kernel: only its size is known.
/// Leading 64-bit parameters are taken as pointers (what kernels pass
/// first), the rest as constants.
StatusOr<ImportedSlot> untypedParameter(const PtxParam &p,
                                        const std::string &name, bool leading,
                                        const std::string &what) {
  ImportedSlot slot;
  slot.name = name;
  slot.comment = "." + p.type + " in the PTX";
  if (p.isArray)
    return invalidArgument(what + " is passed by value as " +
                           std::to_string(p.size) +
                           " bytes (a struct); kernel ABI constants are "
                           "scalars");
  if (p.size == 8 && p.type != "f64" && leading) {
    slot.access = "readwrite";
    slot.todo = "the element type of the buffer `" + name +
                "` points to (f32, u32, f16, ...): an extern \"C\" kernel's "
                "PTX does not say. Make its access readonly if it is const";
    return slot;
  }
  if (p.type == "f32" || p.type == "f64") {
    slot.type = p.type;
    return slot;
  }
  if (p.size == 4) {
    slot.type = p.type == "s32" ? "i32" : "u32";
    slot.comment += ": i32 or u32, the PTX does not say which";
    return slot;
  }
  if (p.size == 8) {
    slot.todo = "i64, u64 or f64: the type of the 64-bit constant `" + name +
                "` (an extern \"C\" kernel's PTX does not say)";
    return slot;
  }
  return invalidArgument(what + " is a " + std::to_string(p.size) +
                         "-byte scalar; kernel ABI constants are 4 or 8 "
                         "bytes");
}

Status ptxParameters(const PtxEntry &entry, const std::string &sourceText,
                     const fs::path &source, ImportedKernel &out) {
  std::optional<CudaSignature> sig;
  if (isMangledName(entry.name)) {
    KB_ASSIGN_OR_RETURN(sig, demangleCudaKernel(entry.name));
    if (sig->parameters.size() != entry.params.size())
      return internalError("`" + sig->demangled + "` has " +
                           std::to_string(sig->parameters.size()) +
                           " parameters but its PTX entry has " +
                           std::to_string(entry.params.size()));
  }
  out.notes.push_back(source.filename().string() + ": `" +
                      (sig ? sig->demangled + "`, typed from its mangled name"
                           : entry.name + "`, extern \"C\": typed from "
                                          "parameter sizes"));
  std::string function = sig ? sig->function : entry.name;
  std::vector<std::string> names =
      cudaSourceParameterNames(sourceText, function, entry.params.size());
  bool inBindings = true;
  for (size_t i = 0; i < entry.params.size(); ++i) {
    std::string name = names.empty() ? "arg" + std::to_string(i) : names[i];
    std::string what = displayPath(source) + ": parameter " +
                       std::to_string(i) + " (`" + name + "`) of `" + function +
                       "`";
    StatusOr<ImportedSlot> slot =
        sig ? typedParameter(sig->parameters[i], name, what)
            : untypedParameter(entry.params[i], name, inBindings, what);
    if (!slot.ok())
      return slot.status();
    bool binding = !slot->access.empty();
    if (binding && !inBindings)
      return invalidArgument(
          what + " is a pointer after a constant; the kernel ABI passes the "
                 "bindings first, then the constants: reorder the "
                 "parameters");
    inBindings = binding;
    (binding ? out.bindings : out.constants).push_back(std::move(*slot));
  }
  return okStatus();
}

void ptxLaunch(const PtxEntry &entry, const std::string &ptxText,
               ImportedKernel &out) {
  if (entry.reqntid) {
    out.workgroupSize = entry.reqntid;
    out.workgroupComment = ".reqntid: the block size the kernel requires";
  } else if (entry.maxntid) {
    out.workgroupSize = entry.maxntid;
    out.workgroupComment = "__launch_bounds__ (.maxntid): the most the "
                           "kernel allows; set the block size you launch";
  }
  // `extern __shared__` arrays are sized by the launch, not the PTX.
  out.dynamicSharedMemory =
      ptxText.find(".extern .shared") != std::string::npos;
}

StatusOr<ImportedKernel> readPtxInterface(const std::string &ptxText,
                                          const ImportRequest &request,
                                          const fs::path &source) {
  KB_ASSIGN_OR_RETURN(PtxModule ptx, readPtx(ptxText));
  KB_ASSIGN_OR_RETURN(const PtxEntry *entry,
                      pickEntry(ptx, request.entry, source));
  KB_ASSIGN_OR_RETURN(std::string sourceText, readFile(source));
  ImportedKernel out;
  KB_RETURN_IF_ERROR(ptxParameters(*entry, sourceText, source, out));
  ptxLaunch(*entry, ptxText, out);
  // The plain name when it picks this entry alone; a template instance or
  // an overload keeps its mangled name.
  std::string plain = readableEntryName(entry->name);
  out.entry = resolvePtxEntry(ptx, plain) == entry ? plain : entry->name;
  return out;
}

std::string describeSlots(const std::vector<ImportedSlot> &slots) {
  std::string text;
  for (const ImportedSlot &s : slots)
    text += (text.empty() ? "" : ", ") +
            (s.type.empty() ? std::string("?") : s.type) +
            (s.access.empty() ? "" : " " + s.access);
  return "(" + text + ")";
}

/// |cuda| joins |glsl|: the same slots, the GLSL names (SPIR-V keeps them),
/// the type CUDA could not tell taken from SPIR-V.
Status mergeInterfaces(ImportedKernel &glsl, const ImportedKernel &cuda) {
  auto merge = [](std::vector<ImportedSlot> &into,
                  const std::vector<ImportedSlot> &from,
                  const char *what) -> Status {
    // A type CUDA could not tell matches any; the access stays GLSL's.
    bool same = into.size() == from.size();
    for (size_t i = 0; same && i < into.size(); ++i)
      same = from[i].type.empty() || from[i].type == into[i].type;
    if (!same)
      return invalidArgument(std::string("the CUDA and GLSL sources declare "
                                         "different ") +
                             what + ": " + describeSlots(from) + " and " +
                             describeSlots(into) +
                             "; import the sources of one kernel");
    return okStatus();
  };
  KB_RETURN_IF_ERROR(merge(glsl.bindings, cuda.bindings, "bindings"));
  KB_RETURN_IF_ERROR(merge(glsl.constants, cuda.constants, "constants"));
  glsl.entry = cuda.entry;
  glsl.dynamicSharedMemory = cuda.dynamicSharedMemory;
  glsl.notes.insert(glsl.notes.end(), cuda.notes.begin(), cuda.notes.end());
  return okStatus();
}

} // namespace

StatusOr<ImportedKernel> importKernel(const ImportRequest &request,
                                      const toolchains::Toolchains &tools) {
  if (request.sources.empty())
    return invalidArgument("no source to import");
  std::optional<ImportedKernel> cuda, glsl;
  for (const fs::path &source : request.sources) {
    KB_ASSIGN_OR_RETURN(Language language, sourceLanguage(source));
    std::optional<ImportedKernel> &slot =
        language == Language::Cuda ? cuda : glsl;
    if (slot)
      return invalidArgument("two " + std::string(toString(language)) +
                             " sources (" + displayPath(slot->sources.front()) +
                             ", " + displayPath(source) +
                             "); a kernel has at most one per language");
    Target target = targetFor(request, language);
    KB_ASSIGN_OR_RETURN(std::string binary,
                        compile(request, source, language, target, tools));
    if (language == Language::Cuda) {
      KB_ASSIGN_OR_RETURN(slot, readPtxInterface(binary, request, source));
    } else {
      KB_ASSIGN_OR_RETURN(slot, readSpirvInterface(binary, source));
      slot->notes.insert(slot->notes.begin(),
                         source.filename().string() + ": the SPIR-V interface");
    }
    slot->sources = {source};
    slot->targets = {target};
  }
  ImportedKernel out = glsl ? std::move(*glsl) : std::move(*cuda);
  if (glsl && cuda) {
    KB_RETURN_IF_ERROR(mergeInterfaces(out, *cuda));
    out.sources.push_back(cuda->sources.front());
    out.targets.push_back(cuda->targets.front());
  }
  out.name = kernelName(request.sources.front());
  out.defines = request.defines;
  out.includeDirs = request.includeDirs;
  return out;
}

} // namespace kb::workbench
