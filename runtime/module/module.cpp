//===- runtime/module/module.cpp - .kbm verification and parsing ----------===//
//
// Treats the file as hostile (it may be truncated, corrupted or written by a
// buggy compiler): the FlatBuffers verifier bounds every offset, then every
// cross-reference is checked here before anything uses it. The libFuzzer
// target in fuzz/ drives parseModule and checkModuleForDevice.
//
//===----------------------------------------------------------------------===//
#include "runtime/module/module.h"

#include "common/abi_check.h"
#include "common/kbm/kbm_generated.h"
#include "common/kbm/kbm_limits.h"
#include "common/ptx_reader.h"
#include "common/spirv_reader.h"
#include "common/target.h"

#include <cstring>
#include <set>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kb::module {

const char *toString(VariantRole role) {
  return role == VariantRole::Candidate ? "candidate" : "reference";
}
const char *toString(Distribution d) {
  switch (d) {
  case Distribution::Zero:
    return "zero";
  case Distribution::Uniform:
    return "uniform";
  case Distribution::Normal:
    return "normal";
  case Distribution::Range:
    return "range";
  }
  return "?";
}
std::array<uint32_t, 3> Op::workgroupCountFor(const Variant &variant) const {
  if (workload && exportIndex < variant.exports.size())
    if (auto count =
            kb::workgroupCountFor(variant.exports[exportIndex], *workload))
      return *count;
  return workgroupCount;
}

const char *toString(Op::Kind kind) {
  switch (kind) {
  case Op::Kind::Alloc:
    return "alloc";
  case Op::Kind::Fill:
    return "fill";
  case Op::Kind::Copy:
    return "copy";
  case Op::Kind::Dispatch:
    return "dispatch";
  case Op::Kind::Barrier:
    return "barrier";
  }
  return "?";
}
const char *toString(VariantChoice choice) {
  return choice == VariantChoice::PreferCandidate ? "with substitutions"
                                                  : "reference only";
}

const Function *Module::findFunction(std::string_view name) const {
  for (const Function &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

namespace {

// Caps that keep a hostile file from making us allocate without bound
// before any device is involved. Far above anything the compiler writes.
constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 40;
constexpr uint32_t kMaxWorkgroupCount = 1u << 31;

std::string str(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

/// The FlatBuffers verifier checks a vector's length word (4-byte aligned)
/// but not that its elements meet their struct's alignment, so a corrupted
/// offset can place an 8-byte-aligned struct vector at 4 mod 8. Reading it
/// would be undefined behaviour (found by runtime_module_fuzz).
template <typename T>
bool structVectorAligned(const flatbuffers::Vector<const T *> *v) {
  return !v || reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

/// The largest uniform block of constants a module may record: Vulkan
/// guarantees maxUniformBufferRange >= 16384, and a block of scalars for a
/// few dozen constants needs a few hundred bytes.
constexpr uint32_t kMaxUniformConstantBytes = 16384;
/// How far past the storage buffers the block's binding may be: drivers
/// size a descriptor set layout by its largest binding, so a hostile binding
/// number (2^32 - 1 wraps that size to 0) must never reach one.
constexpr uint32_t kMaxUniformBindingGap = 64;

template <typename E> bool enumInRange(E value, E last) {
  return static_cast<uint32_t>(value) <= static_cast<uint32_t>(last);
}

class Parser {
public:
  explicit Parser(std::string_view source) : source_(source) {}

  Status fail(const std::string &where, const std::string &what) const {
    return invalidArgument(source_ + ": " + where + ": " + what);
  }

  Status parseExport(const kbm::Export *e, const std::string &where,
                     KernelAbi &abi) {
    abi.entry = e->entry()->str();
    if (abi.entry.empty())
      return fail(where, "empty entry name");
    if (e->bindings())
      for (uint32_t i = 0; i < e->bindings()->size(); ++i) {
        const kbm::BindingLayout *b = e->bindings()->Get(i);
        if (!enumInRange(b->element_type(), kbm::ElementType::F64) ||
            !enumInRange(b->access(), kbm::Access::ReadWrite))
          return fail(where, "binding " + std::to_string(i) +
                                 " has an unknown element type or access");
        abi.bindings.push_back(
            {str(b->name()), static_cast<ElementType>(b->element_type()),
             static_cast<Access>(b->access()), std::nullopt});
        KB_RETURN_IF_ERROR(parseStructLayout(b->struct_layout(), where, i,
                                             abi.bindings.back()));
      }
    if (e->constants())
      for (uint32_t i = 0; i < e->constants()->size(); ++i) {
        const kbm::ConstantLayout *c = e->constants()->Get(i);
        if (!enumInRange(c->type(), kbm::ScalarType::F64))
          return fail(where, "constant " + std::to_string(i) +
                                 " has an unknown scalar type");
        abi.constants.push_back(
            {str(c->name()), static_cast<ScalarType>(c->type())});
      }
    const kbm::Dim3 *wg = e->workgroup_size();
    abi.workgroupSize = {wg->x(), wg->y(), wg->z()};
    if (!wg->x() || !wg->y() || !wg->z())
      return fail(where, "workgroup size has a zero dimension");
    abi.dynamicSharedMemoryBytes = e->dynamic_shared_memory_bytes();
    if (const kbm::Dim3 *per = e->workload_per_workgroup()) {
      abi.workloadPerWorkgroup = {per->x(), per->y(), per->z()};
      if (!per->x() || !per->y() || !per->z())
        return fail(where, "workload per workgroup has a zero dimension");
    }
    abi.subgroupSize = e->subgroup_size();
    abi.fullSubgroups = e->full_subgroups();
    if (abi.subgroupSize & (abi.subgroupSize - 1))
      return fail(where, "subgroup size " + std::to_string(abi.subgroupSize) +
                             " is not a power of two");
    if (e->specialization())
      for (uint32_t i = 0; i < e->specialization()->size(); ++i) {
        const kbm::SpecializationConstant *c = e->specialization()->Get(i);
        if (c->size() != 4 && c->size() != 8)
          return fail(where, "specialization constant " +
                                 std::to_string(c->id()) + " has size " +
                                 std::to_string(c->size()) +
                                 "; expected 4 or 8 bytes");
        for (const SpecializationValue &other : abi.specialization)
          if (other.id == c->id())
            return fail(where, "specialization constant " +
                                   std::to_string(c->id()) + " is set twice");
        abi.specialization.push_back(
            {c->id(), str(c->name()), c->size(), c->bits()});
      }
    KB_RETURN_IF_ERROR(parseUniformConstants(e, where, abi));
    return parseParameterOrder(e, where, abi);
  }

  /// A binding's struct layout, when it has one: bytes (u8) holding
  /// members that are each inside the stride, or the fill and the compare
  /// would read past an element.
  Status parseStructLayout(const kbm::StructLayout *l, const std::string &where,
                           uint32_t index, Binding &binding) {
    if (!l)
      return okStatus();
    std::string what = "binding " + std::to_string(index) + "'s struct layout";
    if (binding.elementType != ElementType::U8)
      return fail(where, what + " on " + toString(binding.elementType) +
                             " elements; a struct binding's buffer is bytes "
                             "(u8)");
    StructLayout layout{str(l->name()), l->stride(), {}};
    if (l->members())
      for (uint32_t m = 0; m < l->members()->size(); ++m) {
        const kbm::StructMember *member = l->members()->Get(m);
        if (!enumInRange(member->type(), kbm::ElementType::F64))
          return fail(where, what + ": member " + std::to_string(m) +
                                 " has an unknown element type");
        layout.members.push_back({str(member->name()),
                                  static_cast<ElementType>(member->type()),
                                  member->offset(), member->components(),
                                  member->count(), member->array_stride()});
      }
    std::string wrong = checkStructLayout(layout);
    if (!wrong.empty())
      return fail(where, what + ": " + wrong);
    binding.structLayout = std::move(layout);
    return okStatus();
  }

  /// Constants in a uniform buffer: one offset per constant, each inside
  /// the block, at a binding past the storage buffers (binding i is storage
  /// buffer i), or the packing would write past the block or the
  /// descriptor set would bind two buffers at one binding.
  Status parseUniformConstants(const kbm::Export *e, const std::string &where,
                               KernelAbi &abi) {
    const kbm::UniformConstants *u = e->uniform_constants();
    if (!u)
      return okStatus();
    std::string what = "uniform constants";
    UniformConstants block{u->binding(), {}, u->size()};
    if (u->offsets())
      block.offsets.assign(u->offsets()->begin(), u->offsets()->end());
    if (block.binding < abi.bindings.size())
      return fail(where, what + " at binding " + std::to_string(block.binding) +
                             ", which is " +
                             describeBinding(abi, block.binding) +
                             "'s; the block must follow the storage buffers");
    if (block.binding - abi.bindings.size() > kMaxUniformBindingGap)
      return fail(where, what + " at binding " + std::to_string(block.binding) +
                             ": at most " +
                             std::to_string(kMaxUniformBindingGap) +
                             " bindings past the last storage buffer (" +
                             std::to_string(abi.bindings.size()) + ")");
    if (block.offsets.size() != abi.constants.size())
      return fail(where,
                  what + " give " + std::to_string(block.offsets.size()) +
                      " offsets for " + std::to_string(abi.constants.size()) +
                      " constants");
    if (block.size > kMaxUniformConstantBytes)
      return fail(where, what + " of " + std::to_string(block.size) +
                             " bytes; at most " +
                             std::to_string(kMaxUniformConstantBytes));
    for (size_t i = 0; i < block.offsets.size(); ++i)
      if (uint64_t{block.offsets[i]} + byteSize(abi.constants[i].type) >
          block.size)
        return fail(where, what + ": " + describeConstant(abi, i) +
                               " at offset " +
                               std::to_string(block.offsets[i]) +
                               " ends past the block's " +
                               std::to_string(block.size) + " bytes");
    abi.uniformConstants = std::move(block);
    return okStatus();
  }

  /// The kernel's own parameter order, after the bindings and constants it
  /// permutes: a permutation of them, or the launch would read past them.
  Status parseParameterOrder(const kbm::Export *e, const std::string &where,
                             KernelAbi &abi) {
    if (!e->parameter_order())
      return okStatus();
    abi.parameterOrder.assign(e->parameter_order()->begin(),
                              e->parameter_order()->end());
    std::string wrong = checkParameterOrder(abi);
    if (!wrong.empty())
      return fail(where, "parameter order: " + wrong);
    return okStatus();
  }

  Status parseExecutable(const kbm::Executable *e, size_t index,
                         Executable &exe) {
    exe.name = e->name()->str();
    std::string where =
        "executable " + std::to_string(index) + " (`" + exe.name + "`)";
    if (exe.name.empty())
      return fail(where, "empty name");
    if (e->variants()->size() == 0)
      return fail(where, "no variants");
    for (uint32_t v = 0; v < e->variants()->size(); ++v) {
      const kbm::ExecutableVariant *var = e->variants()->Get(v);
      std::string vwhere = where + " variant " + std::to_string(v);
      Variant out;
      if (!enumInRange(var->format(), kbm::ExecutableFormat::Spirv))
        return fail(vwhere, "unknown format " + std::to_string(static_cast<int>(
                                                    var->format())));
      if (!enumInRange(var->role(), kbm::VariantRole::Candidate))
        return fail(vwhere, "unknown role");
      out.format = static_cast<hal::ExecutableFormat>(var->format());
      out.role = static_cast<VariantRole>(var->role());
      out.target = var->target()->str();
      if (var->device())
        out.device = var->device()->str();
      if (!out.device.empty() && out.role != VariantRole::Candidate)
        return fail(vwhere, "a reference variant tuned for a device (`" +
                                out.device +
                                "`): only candidates are tuned; rebuild the "
                                "module");
      vwhere += " (" + std::string(hal::toString(out.format)) + ", " +
                out.target + ")";
      out.data.assign(reinterpret_cast<const char *>(var->data()->data()),
                      var->data()->size());
      if (out.data.empty())
        return fail(vwhere, "empty object data");
      if (var->exports()->size() == 0)
        return fail(vwhere, "no exports");
      for (uint32_t x = 0; x < var->exports()->size(); ++x) {
        KernelAbi abi;
        std::string xwhere = vwhere + " export " + std::to_string(x);
        KB_RETURN_IF_ERROR(parseExport(var->exports()->Get(x), xwhere, abi));
        if (abi.uniformConstants && out.format != hal::ExecutableFormat::Spirv)
          return fail(xwhere, "uniform constants are a Vulkan (SPIR-V) "
                              "layout; a CUDA kernel takes its constants as "
                              "parameters");
        for (const Binding &b : abi.bindings)
          if (b.structLayout && out.format != hal::ExecutableFormat::Spirv)
            return fail(xwhere, "a struct binding is a Vulkan (SPIR-V) "
                                "layout, read from the kernel's SPIR-V");
        out.exports.push_back(std::move(abi));
      }
      // Dispatches index exports without knowing the variant, so every
      // variant must agree on the interface (entries may differ).
      if (!exe.variants.empty()) {
        const Variant &first = exe.variants.front();
        if (first.exports.size() != out.exports.size())
          return fail(vwhere, "has " + std::to_string(out.exports.size()) +
                                  " exports but variant 0 has " +
                                  std::to_string(first.exports.size()));
        for (size_t x = 0; x < out.exports.size(); ++x) {
          const KernelAbi &a = first.exports[x], &b = out.exports[x];
          bool same = a.bindings.size() == b.bindings.size() &&
                      a.constants.size() == b.constants.size();
          for (size_t i = 0; same && i < a.bindings.size(); ++i)
            same = a.bindings[i].elementType == b.bindings[i].elementType &&
                   a.bindings[i].access == b.bindings[i].access &&
                   elementByteSize(a.bindings[i]) ==
                       elementByteSize(b.bindings[i]);
          for (size_t i = 0; same && i < a.constants.size(); ++i)
            same = a.constants[i].type == b.constants[i].type;
          if (!same)
            return fail(vwhere + " export " + std::to_string(x),
                        "layout (bindings/constants) differs from variant 0's; "
                        "every variant of an executable must share the "
                        "export interface");
        }
      }
      exe.variants.push_back(std::move(out));
    }
    return okStatus();
  }

  Status parseInit(const kbm::InitSpec *init, InitSpec &out,
                   const std::string &where) {
    if (!init)
      return okStatus();
    if (!enumInRange(init->distribution(), kbm::Distribution::Range))
      return fail(where, "unknown init distribution");
    out.distribution = static_cast<Distribution>(init->distribution());
    out.seed = init->seed();
    out.low = init->low();
    out.high = init->high();
    out.mean = init->mean();
    out.stddev = init->stddev();
    out.start = init->start();
    out.step = init->step();
    auto finite = [](double d) { return d == d && d - d == 0; };
    if (!finite(out.low) || !finite(out.high) || !finite(out.mean) ||
        !finite(out.stddev) || !finite(out.start) || !finite(out.step))
      return fail(where, "init parameters must be finite numbers");
    if (out.distribution == Distribution::Uniform && !(out.low < out.high))
      return fail(where, "uniform init needs low < high (got " +
                             std::to_string(out.low) + ", " +
                             std::to_string(out.high) + ")");
    if (out.distribution == Distribution::Normal && out.stddev < 0)
      return fail(where, "normal init needs stddev >= 0");
    return okStatus();
  }

  Status checkRange(const Function &fn, uint32_t buffer, uint64_t offset,
                    uint64_t length, const std::string &where,
                    const char *what) {
    if (buffer >= fn.buffers.size())
      return fail(where, std::string(what) + " buffer index " +
                             std::to_string(buffer) + " is out of range (" +
                             std::to_string(fn.buffers.size()) + " buffers)");
    uint64_t size = fn.buffers[buffer].byteSize();
    if (offset > size || length > size - offset)
      return fail(where, std::string(what) + " range [" +
                             std::to_string(offset) + ", " +
                             std::to_string(offset + length) +
                             ") exceeds buffer " + std::to_string(buffer) +
                             " of " + std::to_string(size) + " bytes");
    return okStatus();
  }

  Status parseOp(const kbm::Op *op, const Function &fn,
                 const std::vector<Executable> &executables,
                 std::vector<bool> &allocated, const std::string &where,
                 Op &out) {
    auto needAlloc = [&](uint32_t b) -> Status {
      if (!allocated[b])
        return fail(where, "uses buffer " + std::to_string(b) +
                               " before its alloc op");
      return okStatus();
    };
    switch (op->command_type()) {
    case kbm::Command::Alloc: {
      out.kind = Op::Kind::Alloc;
      out.buffer = op->command_as_Alloc()->buffer();
      if (out.buffer >= fn.buffers.size())
        return fail(where, "alloc of buffer " + std::to_string(out.buffer) +
                               ", but the function has " +
                               std::to_string(fn.buffers.size()) + " buffers");
      if (allocated[out.buffer])
        return fail(where, "buffer " + std::to_string(out.buffer) +
                               " is allocated twice");
      allocated[out.buffer] = true;
      return okStatus();
    }
    case kbm::Command::Fill: {
      const kbm::Fill *f = op->command_as_Fill();
      out.kind = Op::Kind::Fill;
      out.buffer = f->buffer();
      out.offset = f->offset();
      out.length = f->length();
      out.pattern = f->pattern();
      if (out.offset % 4 || out.length % 4)
        return fail(where, "fill offset and length must be multiples of 4");
      KB_RETURN_IF_ERROR(
          checkRange(fn, out.buffer, out.offset, out.length, where, "fill"));
      return needAlloc(out.buffer);
    }
    case kbm::Command::Copy: {
      const kbm::Copy *c = op->command_as_Copy();
      out.kind = Op::Kind::Copy;
      out.buffer = c->source();
      out.offset = c->source_offset();
      out.target = c->target();
      out.targetOffset = c->target_offset();
      out.length = c->length();
      if (out.offset % 4 || out.targetOffset % 4 || out.length % 4 ||
          out.length == 0)
        return fail(where, "copy offsets and length must be multiples of 4 "
                           "and the length non-zero");
      KB_RETURN_IF_ERROR(checkRange(fn, out.buffer, out.offset, out.length,
                                    where, "copy source"));
      KB_RETURN_IF_ERROR(checkRange(fn, out.target, out.targetOffset,
                                    out.length, where, "copy target"));
      KB_RETURN_IF_ERROR(needAlloc(out.buffer));
      return needAlloc(out.target);
    }
    case kbm::Command::Barrier:
      out.kind = Op::Kind::Barrier;
      return okStatus();
    case kbm::Command::Dispatch:
      return parseDispatch(op->command_as_Dispatch(), fn, executables,
                           allocated, where, out);
    default:
      return fail(where,
                  "unknown command type " +
                      std::to_string(static_cast<int>(op->command_type())));
    }
  }

  Status parseDispatch(const kbm::Dispatch *d, const Function &fn,
                       const std::vector<Executable> &executables,
                       const std::vector<bool> &allocated,
                       const std::string &where, Op &out) {
    out.kind = Op::Kind::Dispatch;
    out.executable = d->executable();
    out.exportIndex = d->export_index();
    if (out.executable >= executables.size())
      return fail(where, "executable index " + std::to_string(out.executable) +
                             " is out of range (" +
                             std::to_string(executables.size()) +
                             " executables)");
    const Executable &exe = executables[out.executable];
    const std::vector<KernelAbi> &exports = exe.variants.front().exports;
    if (out.exportIndex >= exports.size())
      return fail(where, "export index " + std::to_string(out.exportIndex) +
                             " but `" + exe.name + "` has " +
                             std::to_string(exports.size()) + " exports");
    const KernelAbi &abi = exports[out.exportIndex];
    std::string what = where + " (`" + exe.name + "` export " +
                       std::to_string(out.exportIndex) + ")";
    if (!structVectorAligned(d->bindings()) ||
        !structVectorAligned(d->constants()))
      return fail(what, "misaligned binding or constant vector (the module "
                        "is corrupt; rebuild it)");
    KB_RETURN_IF_ERROR(parseBindings(d, fn, abi, allocated, what, out));
    KB_RETURN_IF_ERROR(parseConstants(d, abi, what, out));
    return parseLaunch(d, exe, what, out);
  }

  Status parseBindings(const kbm::Dispatch *d, const Function &fn,
                       const KernelAbi &abi, const std::vector<bool> &allocated,
                       const std::string &what, Op &out) {
    size_t nb = d->bindings() ? d->bindings()->size() : 0;
    if (nb != abi.bindings.size())
      return fail(what, "binds " + std::to_string(nb) +
                            " buffers but the export has " +
                            std::to_string(abi.bindings.size()) + " bindings");
    for (size_t i = 0; i < nb; ++i) {
      const kbm::BindingRef *b = d->bindings()->Get(static_cast<uint32_t>(i));
      BindingRef ref{b->buffer(), b->offset(), b->length()};
      std::string bwhere = what + " " + describeBinding(abi, i);
      if (ref.buffer >= fn.buffers.size())
        return fail(bwhere, "buffer index " + std::to_string(ref.buffer) +
                                " is out of range (" +
                                std::to_string(fn.buffers.size()) +
                                " buffers)");
      const BufferDecl &buf = fn.buffers[ref.buffer];
      uint64_t size = buf.byteSize();
      uint64_t length = ref.length
                            ? ref.length
                            : (ref.offset <= size ? size - ref.offset : 0);
      if (ref.offset > size || length > size - ref.offset || length == 0)
        return fail(bwhere, "range [" + std::to_string(ref.offset) + ", " +
                                std::to_string(ref.offset + length) +
                                ") is empty or exceeds buffer " +
                                std::to_string(ref.buffer) + " of " +
                                std::to_string(size) + " bytes");
      if (buf.elementType != abi.bindings[i].elementType)
        return fail(bwhere, std::string("expects ") +
                                toString(abi.bindings[i].elementType) +
                                " elements but buffer " +
                                std::to_string(ref.buffer) + " holds " +
                                toString(buf.elementType));
      // Whole elements: a struct binding's range holds whole structs.
      uint32_t elem = elementByteSize(abi.bindings[i]);
      if (ref.offset % elem || length % elem)
        return fail(bwhere, "offset and length must be multiples of the "
                            "element size " +
                                std::to_string(elem));
      if (!allocated[ref.buffer])
        return fail(bwhere, "uses buffer " + std::to_string(ref.buffer) +
                                " before its alloc op");
      out.bindings.push_back(ref);
    }
    return okStatus();
  }

  /// Constants: typed values or the raw block, never both.
  Status parseConstants(const kbm::Dispatch *d, const KernelAbi &abi,
                        const std::string &what, Op &out) {
    uint32_t blockSize = pushConstantSize(abi);
    std::vector<ParamSlot> slots = pushConstantLayout(abi);
    bool typed = d->constants() && d->constants()->size() > 0;
    bool raw = d->constant_data() && d->constant_data()->size() > 0;
    if (typed && raw)
      return fail(what, "constants are given both typed and raw; give one");
    out.constants.assign(blockSize, 0);
    if (typed) {
      if (d->constants()->size() != abi.constants.size())
        return fail(what, "gives " + std::to_string(d->constants()->size()) +
                              " constants but the export has " +
                              std::to_string(abi.constants.size()));
      for (uint32_t i = 0; i < d->constants()->size(); ++i) {
        const kbm::ConstantValue *c = d->constants()->Get(i);
        ScalarType expected = abi.constants[i].type;
        if (static_cast<uint32_t>(c->type()) != static_cast<uint32_t>(expected))
          return fail(what + " " + describeConstant(abi, i),
                      std::string("expected a ") + toString(expected) +
                          " value, found type " +
                          std::to_string(static_cast<int>(c->type())));
        uint64_t bits = c->bits();
        // Little-endian: the scalar is the low |size| bytes.
        std::memcpy(out.constants.data() + slots[i].offset, &bits,
                    slots[i].size);
      }
    } else if (raw) {
      if (d->constant_data()->size() != blockSize)
        return fail(what, "raw constant data has " +
                              std::to_string(d->constant_data()->size()) +
                              " bytes; the export's constant block has " +
                              std::to_string(blockSize));
      std::memcpy(out.constants.data(), d->constant_data()->data(), blockSize);
    } else if (!abi.constants.empty()) {
      return fail(what, "no constants given; the export has " +
                            std::to_string(abi.constants.size()));
    }
    return okStatus();
  }

  Status parseLaunch(const kbm::Dispatch *d, const Executable &exe,
                     const std::string &what, Op &out) {
    const kbm::Dim3 *wc = d->workgroup_count();
    out.workgroupCount = {wc->x(), wc->y(), wc->z()};
    if (const kbm::Dim3 *w = d->workload()) {
      if (!w->x() || !w->y() || !w->z())
        return fail(what, "workload has a zero dimension");
      out.workload = std::array<uint64_t, 3>{w->x(), w->y(), w->z()};
      for (const Variant &variant : exe.variants) {
        std::array<uint32_t, 3> count = out.workgroupCountFor(variant);
        for (uint32_t c : count)
          if (c > kMaxWorkgroupCount)
            return fail(
                what,
                "variant " + variant.target + " (" + toString(variant.role) +
                    ")'s workgroup count " + std::to_string(count[0]) + "x" +
                    std::to_string(count[1]) + "x" + std::to_string(count[2]) +
                    " has an absurd dimension");
      }
    }
    for (uint32_t c : out.workgroupCount)
      if (c == 0 || c > kMaxWorkgroupCount)
        return fail(what, "workgroup count " + std::to_string(wc->x()) + "x" +
                              std::to_string(wc->y()) + "x" +
                              std::to_string(wc->z()) +
                              " has a zero or absurd dimension");
    return okStatus();
  }

  /// Gives each buffer a dispatch binds to a struct binding that binding's
  /// layout (the first such dispatch's, every variant agreeing on the
  /// stride), so that it is filled member by member. A buffer of bytes
  /// bound elsewhere as bytes stays bytes there: the layout only shapes
  /// its contents.
  static void assignStructLayouts(const std::vector<Executable> &executables,
                                  Function &fn) {
    for (const Op &op : fn.ops) {
      if (op.kind != Op::Kind::Dispatch)
        continue;
      const Variant &variant = executables[op.executable].variants.front();
      const KernelAbi &abi = variant.exports[op.exportIndex];
      for (size_t b = 0; b < op.bindings.size() && b < abi.bindings.size();
           ++b) {
        BufferDecl &buffer = fn.buffers[op.bindings[b].buffer];
        if (abi.bindings[b].structLayout && !buffer.structLayout)
          buffer.structLayout = abi.bindings[b].structLayout;
      }
    }
  }

  Status parseFunction(const kbm::Function *f, size_t index,
                       const std::vector<Executable> &executables,
                       Function &fn) {
    fn.name = f->name()->str();
    std::string where =
        "function " + std::to_string(index) + " (`" + fn.name + "`)";
    if (f->buffers())
      for (uint32_t i = 0; i < f->buffers()->size(); ++i) {
        const kbm::Buffer *b = f->buffers()->Get(i);
        std::string bwhere = where + " buffer " + std::to_string(i);
        BufferDecl decl;
        decl.name = str(b->name());
        if (!enumInRange(b->element_type(), kbm::ElementType::F64))
          return fail(bwhere, "unknown element type");
        decl.elementType = static_cast<ElementType>(b->element_type());
        decl.elementCount = b->element_count();
        if (decl.elementCount == 0 ||
            decl.elementCount >
                kMaxBufferBytes / kb::byteSize(decl.elementType))
          return fail(bwhere, "element count " +
                                  std::to_string(decl.elementCount) +
                                  " is zero or over the 1 TiB cap");
        KB_RETURN_IF_ERROR(parseInit(b->init(), decl.init, bwhere));
        fn.buffers.push_back(std::move(decl));
      }
    std::vector<bool> allocated(fn.buffers.size(), false);
    if (f->ops())
      for (uint32_t i = 0; i < f->ops()->size(); ++i) {
        Op op;
        KB_RETURN_IF_ERROR(parseOp(f->ops()->Get(i), fn, executables, allocated,
                                   where + " op " + std::to_string(i), op));
        fn.ops.push_back(std::move(op));
      }
    assignStructLayouts(executables, fn);
    if (f->outputs())
      for (uint32_t i = 0; i < f->outputs()->size(); ++i) {
        const kbm::Output *o = f->outputs()->Get(i);
        std::string owhere = where + " output " + std::to_string(i);
        Output out;
        out.buffer = o->buffer();
        if (out.buffer >= fn.buffers.size() || !allocated[out.buffer])
          return fail(owhere,
                      "buffer " + std::to_string(out.buffer) +
                          " is not an allocated buffer of the function");
        if (o->abs_tolerance())
          out.absTolerance = *o->abs_tolerance();
        if (o->rel_tolerance())
          out.relTolerance = *o->rel_tolerance();
        for (const std::optional<double> &t :
             {out.absTolerance, out.relTolerance})
          if (t && !(*t >= 0 && *t - *t == 0))
            return fail(owhere, "tolerances must be finite and >= 0");
        fn.outputs.push_back(out);
      }
    return okStatus();
  }

private:
  std::string source_;
};

} // namespace

StatusOr<Module> parseModule(std::string_view bytes,
                             std::string_view sourceName) {
  std::string source(sourceName);
  if (bytes.size() < 8 ||
      !flatbuffers::BufferHasIdentifier(bytes.data(), kbm::ModuleIdentifier()))
    return dataLoss(source + ": not a .kbm module (the file identifier is not "
                             "\"KBM1\"); expected a file written by kb-compile "
                             "or kernel-bench build");
  // FlatBuffers alignment is relative to the buffer start; give the reader
  // an 8-byte-aligned base so struct alignment checks are absolute.
  std::string alignedCopy;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 8 != 0) {
    alignedCopy.assign(bytes);
    bytes = alignedCopy;
  }
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(),
      kbm::kMaxModuleDepth, kbm::kMaxModuleTables);
  if (!kbm::VerifyModuleBuffer(verifier))
    return dataLoss(source + ": the .kbm module is corrupted or truncated (the "
                             "FlatBuffers verifier rejected it); rebuild it");
  const kbm::Module *m = kbm::GetModule(bytes.data());
  Module out;
  out.sourceName = source;
  out.schemaVersion = m->schema_version();
  if (out.schemaVersion != kSchemaVersion)
    return invalidArgument(
        source + ": schema version " + std::to_string(out.schemaVersion) +
        ", but this kernel-bench reads version " +
        std::to_string(kSchemaVersion) +
        (out.schemaVersion > kSchemaVersion
             ? "; update kernel-bench"
             : "; rebuild the module with this version's compiler"));
  out.name = str(m->name());
  out.entryFunction = str(m->entry_function());
  Parser parser(source);
  if (m->executables())
    for (uint32_t i = 0; i < m->executables()->size(); ++i) {
      Executable exe;
      KB_RETURN_IF_ERROR(
          parser.parseExecutable(m->executables()->Get(i), i, exe));
      for (const Executable &other : out.executables)
        if (other.name == exe.name)
          return parser.fail("executable " + std::to_string(i),
                             "duplicate name `" + exe.name + "`");
      out.executables.push_back(std::move(exe));
    }
  if (m->functions())
    for (uint32_t i = 0; i < m->functions()->size(); ++i) {
      Function fn;
      KB_RETURN_IF_ERROR(
          parser.parseFunction(m->functions()->Get(i), i, out.executables, fn));
      out.functions.push_back(std::move(fn));
    }
  if (!out.entryFunction.empty() && !out.findFunction(out.entryFunction))
    return parser.fail("entry_function", "names `" + out.entryFunction +
                                             "`, which is not a function of "
                                             "the module");
  if (m->benchmarks())
    for (uint32_t i = 0; i < m->benchmarks()->size(); ++i) {
      const kbm::Benchmark *b = m->benchmarks()->Get(i);
      Benchmark bench{b->name()->str(), b->function(), b->dispatch_op()};
      std::string where =
          "benchmark " + std::to_string(i) + " (`" + bench.name + "`)";
      if (bench.function >= out.functions.size())
        return parser.fail(where, "function index " +
                                      std::to_string(bench.function) +
                                      " is out of range");
      const Function &fn = out.functions[bench.function];
      if (bench.dispatchOp >= fn.ops.size() ||
          fn.ops[bench.dispatchOp].kind != Op::Kind::Dispatch)
        return parser.fail(where, "op " + std::to_string(bench.dispatchOp) +
                                      " of `" + fn.name +
                                      "` is not a dispatch");
      out.benchmarks.push_back(std::move(bench));
    }
  return out;
}

StatusOr<Module> loadModuleFile(const std::string &path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer forever. The type is checked on the open descriptor, so the file
  // cannot be swapped between the check and the read.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return notFound(path + ": cannot open the module file (" +
                    std::strerror(errno) + ")");
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return invalidArgument(
        path + ": not a regular file (a FIFO, device or directory); pass a "
               ".kbm module file or the build directory holding program.kbm");
  }
  std::string bytes;
  bytes.reserve(size_t(info.st_size));
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      return dataLoss(path + ": cannot read the module file (" +
                      std::strerror(error) + ")");
    }
    if (n == 0)
      break;
    bytes.append(buffer, size_t(n));
  }
  ::close(fd);
  return parseModule(bytes, path);
}

//===----------------------------------------------------------------------===//
// Device checks
//===----------------------------------------------------------------------===//

namespace {
/// Whether |device| can load |v|, and how well (lower is better).
std::optional<int> variantRank(const Variant &v,
                               const hal::DeviceProperties &device) {
  if (device.driver == "cuda") {
    int cc = device.ccMajor * 10 + device.ccMinor;
    // Lexical only: PTX for an architecture older than any build target
    // still JIT-compiles forward.
    std::optional<SmArch> sm = parseSmArch(v.target);
    if (!sm)
      return std::nullopt;
    if (v.format == hal::ExecutableFormat::Cubin && sm->number == cc)
      return 0; // exact-architecture cubin: no JIT
    if (v.format == hal::ExecutableFormat::Ptx && sm->number <= cc)
      return 1; // PTX JIT-compiles forward
    return std::nullopt;
  }
  if (device.driver == "vulkan" && v.format == hal::ExecutableFormat::Spirv)
    return 0;
  return std::nullopt;
}
} // namespace

StatusOr<const Variant *> selectVariant(const Executable &exe,
                                        const hal::DeviceProperties &device,
                                        VariantChoice choice) {
  const Variant *best = nullptr;
  int bestRank = 1 << 30;
  for (const Variant &v : exe.variants) {
    std::optional<int> rank = variantRank(v, device);
    // A candidate tuned for another model is not for this device.
    if (!rank || (!v.device.empty() && v.device != device.name))
      continue;
    // Candidates win over references when substitutions are wanted, and
    // one tuned for this model over one for any device of its format.
    int r = 2 * *rank +
            (choice == VariantChoice::PreferCandidate &&
                     v.role == VariantRole::Reference
                 ? 200
                 : 0) -
            (v.device.empty() ? 0 : 1);
    if (choice == VariantChoice::ReferenceOnly &&
        v.role != VariantRole::Reference)
      continue;
    if (r < bestRank) {
      bestRank = r;
      best = &v;
    }
  }
  if (best)
    return best;
  std::string have;
  for (const Variant &v : exe.variants)
    have += std::string(have.empty() ? "" : ", ") + hal::toString(v.format) +
            " " + v.target + " (" + toString(v.role) + ")";
  std::string needs = device.driver == "cuda"
                          ? "a cubin for sm_" + std::to_string(device.ccMajor) +
                                std::to_string(device.ccMinor) +
                                " or PTX for sm_" +
                                std::to_string(device.ccMajor) +
                                std::to_string(device.ccMinor) + " or older"
                          : "SPIR-V";
  return notFound("executable `" + exe.name + "` has no " +
                  (choice == VariantChoice::ReferenceOnly ? "reference " : "") +
                  "variant for " + device.driver + ":" +
                  std::to_string(device.index) + " (" + device.name +
                  "), which needs " + needs + "; the module has: " + have);
}

/// A model name as one printable line: a module's names come from a user's
/// tuned.toml and may hold anything.
static std::string printable(const std::string &name) {
  std::string out;
  for (unsigned char c : name)
    out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  return out;
}

std::string tuningNote(const Executable &exe, const Variant &chosen,
                       const hal::DeviceProperties &device) {
  if (!chosen.device.empty())
    return "tuned for " + printable(chosen.device);
  // The generated kernel is what it is, whatever was tuned.
  if (chosen.role != VariantRole::Candidate)
    return "";
  std::set<std::string> tuned;
  for (const Variant &v : exe.variants)
    if (!v.device.empty() && v.format == chosen.format)
      tuned.insert(printable(v.device));
  if (tuned.empty())
    return "";
  std::string models;
  for (const std::string &model : tuned)
    models += (models.empty() ? "" : ", ") + model;
  return "default parameters: none tuned for " + device.name +
         " (tuned for: " + models + ")";
}

std::string whyDeviceCannotRun(const Module &module, const Function &function,
                               const hal::DeviceProperties &device) {
  for (const Op &op : function.ops) {
    if (op.kind != Op::Kind::Dispatch)
      continue;
    const Executable &exe = module.executables[op.executable];
    auto variant = selectVariant(exe, device, VariantChoice::PreferCandidate);
    if (!variant.ok())
      return variant.status().message();
    // A subgroup size the device cannot give: the same refusal the driver
    // makes before creating the pipeline, known here without opening it.
    for (size_t i = 0; i < (*variant)->exports.size(); ++i) {
      Status subgroup =
          hal::checkSubgroupSize(exe.name, i, (*variant)->exports[i], device);
      if (subgroup.isUnavailable())
        return subgroup.message();
    }
  }
  return "";
}

namespace {

// The variant's exports against the device's limits and against the ABI its
// binary declares (PTX or SPIR-V read here; other formats are not read).
void checkVariantForDevice(const Executable &exe, const Variant &v,
                           const hal::DeviceProperties &device,
                           std::vector<std::string> &problems) {
  std::string where = "executable `" + exe.name + "` (" +
                      hal::toString(v.format) + ", " + v.target + ", " +
                      toString(v.role) + ")";
  std::optional<PtxModule> ptx;
  std::optional<SpirvModule> spirv;
  if (v.format == hal::ExecutableFormat::Ptx) {
    auto read = readPtx(v.data);
    if (!read.ok()) {
      problems.push_back(where + ": " + read.status().message());
      return;
    }
    ptx = std::move(*read);
  } else if (v.format == hal::ExecutableFormat::Spirv) {
    auto read = readSpirvBytes(v.data);
    if (!read.ok()) {
      problems.push_back(where + ": " + read.status().message());
      return;
    }
    spirv = std::move(*read);
  }
  for (size_t i = 0; i < v.exports.size(); ++i) {
    const KernelAbi &abi = v.exports[i];
    Status fits = hal::checkExportFitsDevice(exe.name, i, abi, device.limits);
    if (!fits.ok())
      problems.push_back(fits.message());
    std::vector<AbiMismatch> mismatches;
    if (ptx)
      mismatches = checkPtxAbi(*ptx, abi);
    else if (spirv)
      mismatches = checkSpirvAbi(*spirv, abi);
    if (!mismatches.empty())
      problems.push_back(where + " export " + std::to_string(i) + " (`" +
                         abi.entry + "`) does not match its declared ABI:\n" +
                         formatMismatches(mismatches));
  }
}

// Memory: every buffer must fit one allocation and each function's
// buffers the device together, or a hostile element_count would reach the
// driver (and the host-side input generation) unchecked.
void checkFunctionMemory(const Function &fn,
                         const hal::DeviceProperties &device,
                         std::vector<std::string> &problems) {
  uint64_t total = 0;
  for (const Op &op : fn.ops) {
    if (op.kind != Op::Kind::Alloc)
      continue;
    const BufferDecl &decl = fn.buffers[op.buffer];
    uint64_t bytes = decl.byteSize();
    total += bytes; // <= 2^40 each (parse cap), so no overflow
    uint64_t limit = device.limits.maxAllocationBytes;
    if (limit && bytes > limit)
      problems.push_back(
          "function `" + fn.name + "` buffer " + std::to_string(op.buffer) +
          (decl.name.empty() ? "" : " (`" + decl.name + "`)") + ": " +
          std::to_string(decl.elementCount) + " x " +
          toString(decl.elementType) + " = " + std::to_string(bytes) +
          " bytes exceeds the largest allocation the device "
          "allows (" +
          std::to_string(limit) + " bytes)");
  }
  if (device.memoryBytes && total > device.memoryBytes)
    problems.push_back("function `" + fn.name + "` allocates " +
                       std::to_string(total) +
                       " bytes of buffers; the device has " +
                       std::to_string(device.memoryBytes) + " bytes of memory");
}

} // namespace

Status checkModuleForDevice(const Module &module,
                            const hal::DeviceProperties &device,
                            VariantChoice choice) {
  std::vector<std::string> problems;
  for (const Executable &exe : module.executables) {
    auto variant = selectVariant(exe, device, choice);
    if (!variant.ok())
      problems.push_back(variant.status().message());
    else
      checkVariantForDevice(exe, **variant, device, problems);
  }
  for (const Function &fn : module.functions)
    checkFunctionMemory(fn, device, problems);
  if (problems.empty())
    return okStatus();
  std::string message = module.sourceName + ": " +
                        std::to_string(problems.size()) + " problem(s) for " +
                        device.driver + ":" + std::to_string(device.index) +
                        " (" + device.name + "), found before any driver call:";
  for (const std::string &p : problems)
    message += "\n  " + p;
  return invalidArgument(message);
}

} // namespace kb::module
