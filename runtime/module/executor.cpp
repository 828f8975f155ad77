//===- runtime/module/executor.cpp - Run a module function on a device ----===//
#include "runtime/module/executor.h"

#include "common/spirv_reader.h"
#include "runtime/module/inputs.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <tuple>

namespace kb::module {

namespace {
/// Tracks reads and writes since the last barrier to place the barriers a
/// dependent op needs (RAW, WAR, WAW), and no others.
class Hazards {
public:
  bool needsBarrier(const std::set<uint32_t> &reads,
                    const std::set<uint32_t> &writes) const {
    for (uint32_t b : reads)
      if (written_.count(b))
        return true;
    for (uint32_t b : writes)
      if (written_.count(b) || read_.count(b))
        return true;
    return false;
  }
  void record(const std::set<uint32_t> &reads,
              const std::set<uint32_t> &writes) {
    read_.insert(reads.begin(), reads.end());
    written_.insert(writes.begin(), writes.end());
  }
  void clear() {
    read_.clear();
    written_.clear();
  }

private:
  std::set<uint32_t> read_, written_;
};

/// The buffers op |op| reads and writes.
void accessesOf(const Module &module, const Op &op, std::set<uint32_t> &reads,
                std::set<uint32_t> &writes) {
  switch (op.kind) {
  case Op::Kind::Alloc:
  case Op::Kind::Barrier:
    return;
  case Op::Kind::Fill:
    writes.insert(op.buffer);
    return;
  case Op::Kind::Copy:
    reads.insert(op.buffer);
    writes.insert(op.target);
    return;
  case Op::Kind::Dispatch: {
    const KernelAbi &abi = module.executables[op.executable]
                               .variants.front()
                               .exports[op.exportIndex];
    for (size_t b = 0; b < op.bindings.size(); ++b) {
      Access access = abi.bindings[b].access;
      if (access != Access::WriteOnly)
        reads.insert(op.bindings[b].buffer);
      if (access != Access::ReadOnly)
        writes.insert(op.bindings[b].buffer);
    }
    return;
  }
  }
}
} // namespace

StatusOr<std::unique_ptr<PreparedFunction>>
PreparedFunction::create(hal::Device &device, const Module &module,
                         const Function &function, VariantChoice choice,
                         uint64_t guardBytes) {
  const hal::DeviceProperties &props = device.properties();
  KB_RETURN_IF_ERROR(checkModuleForDevice(module, props, choice));
  std::unique_ptr<PreparedFunction> prepared(
      new PreparedFunction(device, module, function));
  std::string where = module.sourceName + ": function `" + function.name + "`";

  // Executables this function dispatches, loaded once each.
  for (const Op &op : function.ops) {
    if (op.kind != Op::Kind::Dispatch ||
        prepared->executables_.count(op.executable))
      continue;
    const Executable &exe = module.executables[op.executable];
    KB_ASSIGN_OR_RETURN(const Variant *variant,
                        selectVariant(exe, props, choice));
    hal::ExecutableSpec spec;
    spec.name = exe.name;
    spec.format = variant->format;
    spec.target = variant->target;
    spec.data = variant->data;
    spec.exports = variant->exports;
    auto start = std::chrono::steady_clock::now();
    KB_ASSIGN_OR_RETURN(auto loaded, device.createExecutable(spec));
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    prepared->executables_[op.executable] = loaded;
    prepared->variantOf_[op.executable] = variant;
    prepared->variants_.push_back({op.executable, variant, loaded, ms});
  }

  if (guardBytes)
    prepared->guardNote_ = prepared->lengthReader();
  KB_RETURN_IF_ERROR(prepared->allocateBuffers(
      prepared->guardNote_.empty() ? guardBytes : 0, where));
  KB_RETURN_IF_ERROR(prepared->initialize());
  return prepared;
}

std::string PreparedFunction::lengthReader() const {
  for (const LoadedVariant &v : variants_) {
    if (v.variant->format != hal::ExecutableFormat::Spirv)
      continue;
    auto spirv = readSpirvBytes(v.variant->data);
    if (spirv.ok() && spirv->usesArrayLength)
      return "no guard bands: `" + module_.executables[v.executable].name +
             "` reads a buffer's length (`.length()`), which a guard band "
             "inside the bound range would change";
  }
  return "";
}

Status PreparedFunction::allocateBuffers(uint64_t guardBytes,
                                         const std::string &where) {
  const hal::DeviceLimits &limits = device_.properties().limits;
  buffers_.resize(function_.buffers.size());
  guardOf_.assign(function_.buffers.size(), 0);
  for (size_t i = 0; i < function_.ops.size(); ++i) {
    const Op &op = function_.ops[i];
    if (op.kind != Op::Kind::Alloc || buffers_[op.buffer])
      continue;
    const BufferDecl &decl = function_.buffers[op.buffer];
    uint64_t size = decl.byteSize();
    // A buffer that could not take its band still runs, unguarded.
    uint64_t guard = guardBytes;
    if (limits.maxAllocationBytes &&
        guardStart(op.buffer) + guard > limits.maxAllocationBytes)
      guard = 0;
    auto buffer =
        device_.allocateBuffer(guard ? guardStart(op.buffer) + guard : size,
                               hal::MemoryType::DeviceLocal);
    if (!buffer.ok())
      return buffer.status().withContext(where + " op " + std::to_string(i));
    buffers_[op.buffer] = std::move(*buffer);
    guardOf_[op.buffer] = guard;
  }
  return okStatus();
}

namespace {
/// Everything generateContents() and applySpecialValues() read.
using ContentsKey =
    std::tuple<ElementType, uint64_t, Distribution, uint64_t, double, double,
               double, double, double, double, SpecialValues>;

/// The last contents generated, most recent first: enough for every buffer
/// of one input set (the candidate, the check and the reference ask for the
/// same ones), bounded in bytes so that GiB-sized inputs are not hoarded.
std::vector<std::pair<ContentsKey, std::shared_ptr<const std::vector<uint8_t>>>>
    recentContents;
std::mutex recentContentsMutex;
constexpr size_t kRecentContents = 16;
constexpr uint64_t kRecentContentsBytes = uint64_t(4) << 30;

std::shared_ptr<const std::vector<uint8_t>>
memoizedContents(const BufferDecl &decl, SpecialValues special) {
  const InitSpec &i = decl.init;
  ContentsKey key{decl.elementType,
                  decl.elementCount,
                  i.distribution,
                  i.seed,
                  i.low,
                  i.high,
                  i.mean,
                  i.stddev,
                  i.start,
                  i.step,
                  special};
  std::lock_guard<std::mutex> lock(recentContentsMutex);
  for (auto &entry : recentContents)
    if (entry.first == key)
      return entry.second;
  auto contents =
      std::make_shared<std::vector<uint8_t>>(generateContents(decl));
  // A buffer without a draw (an output, scratch) stays zero.
  if (i.distribution != Distribution::Zero)
    applySpecialValues(decl.elementType, special, *contents);
  recentContents.insert(recentContents.begin(), {key, contents});
  uint64_t bytes = 0;
  size_t kept = 0;
  while (kept < recentContents.size() && kept < kRecentContents &&
         (kept == 0 ||
          bytes + recentContents[kept].second->size() <= kRecentContentsBytes))
    bytes += recentContents[kept++].second->size();
  recentContents.resize(kept);
  return contents;
}
} // namespace

Status PreparedFunction::setFixedContents(FixedContents fixed) {
  for (const auto &[index, contents] : fixed) {
    if (index >= function_.buffers.size() || !contents)
      return invalidArgument(module_.sourceName + ": function `" +
                             function_.name + "` has no buffer " +
                             std::to_string(index) + " to fix");
    uint64_t size = function_.buffers[index].byteSize();
    if (contents->size() != size)
      return invalidArgument(
          module_.sourceName + ": function `" + function_.name + "` buffer " +
          std::to_string(index) + " holds " + std::to_string(size) +
          " bytes, its fixed "
          "contents " +
          std::to_string(contents->size()));
  }
  fixed_ = std::move(fixed);
  return okStatus();
}

std::shared_ptr<const std::vector<uint8_t>>
PreparedFunction::initialContents(uint32_t index, uint64_t seedOffset,
                                  bool zeroInputs,
                                  SpecialValues special) const {
  if (auto it = fixed_.find(index); it != fixed_.end())
    return it->second;
  BufferDecl decl = function_.buffers[index];
  if (zeroInputs)
    decl.init.distribution = Distribution::Zero;
  decl.init.seed += seedOffset;
  return memoizedContents(decl, special);
}

Status PreparedFunction::initialize(uint64_t seedOffset, bool zeroInputs,
                                    const std::vector<uint32_t> &poison,
                                    uint32_t poisonPattern,
                                    SpecialValues special) {
  for (uint32_t i = 0; i < buffers_.size(); ++i) {
    if (!buffers_[i])
      continue;
    std::shared_ptr<const std::vector<uint8_t>> contents;
    if (std::find(poison.begin(), poison.end(), i) != poison.end()) {
      // Word by word (the pattern repeats every 4 bytes): a byte loop
      // costs seconds on GiB-sized outputs.
      auto poisoned = std::make_shared<std::vector<uint8_t>>(
          function_.buffers[i].byteSize());
      size_t words = poisoned->size() / 4;
      for (size_t w = 0; w < words; ++w)
        std::memcpy(poisoned->data() + 4 * w, &poisonPattern, 4);
      for (size_t b = 4 * words; b < poisoned->size(); ++b)
        (*poisoned)[b] = uint8_t(poisonPattern >> (8 * (b % 4)));
      contents = std::move(poisoned);
    } else {
      contents = initialContents(i, seedOffset, zeroInputs, special);
    }
    KB_RETURN_IF_ERROR(buffers_[i]
                           ->upload(0, contents->data(), contents->size())
                           .withContext(module_.sourceName + ": function `" +
                                        function_.name + "` buffer " +
                                        std::to_string(i)));
    KB_RETURN_IF_ERROR(armGuard(i));
  }
  return okStatus();
}

uint64_t PreparedFunction::guardStart(uint32_t index) const {
  // After the word the last element is in: a whole-word fill or a packed
  // 16-bit store of the last element is no write past it.
  return (function_.buffers[index].byteSize() + 3) & ~uint64_t(3);
}

Status PreparedFunction::armGuard(uint32_t index) {
  if (!guardOf_[index])
    return okStatus();
  std::vector<uint8_t> canary(guardOf_[index], canaryByte(index));
  return buffers_[index]->upload(guardStart(index), canary.data(),
                                 canary.size());
}

StatusOr<GuardCheck> PreparedFunction::checkGuards() {
  GuardCheck check{{}, guardNote_};
  std::vector<GuardDamage> &damage = check.damage;
  for (uint32_t i = 0; i < buffers_.size(); ++i) {
    if (!buffers_[i] || !guardOf_[i])
      continue;
    const BufferDecl &decl = function_.buffers[i];
    std::vector<uint8_t> guard(guardOf_[i]);
    KB_RETURN_IF_ERROR(
        buffers_[i]->download(guardStart(i), guard.data(), guard.size()));
    GuardDamage d{i, decl.name, decl.elementCount, decl.elementType,
                  0, 0,         guardOf_[i]};
    for (uint64_t b = 0; b < guard.size(); ++b)
      if (guard[b] != canaryByte(i) && d.changedBytes++ == 0)
        d.firstByte = guardStart(i) - decl.byteSize() + b;
    if (!d.changedBytes)
      continue;
    damage.push_back(std::move(d));
    KB_RETURN_IF_ERROR(armGuard(i));
  }
  return check;
}

std::string GuardDamage::describe() const {
  uint64_t size = byteSize(elementType);
  return "wrote past the end of buffer " + std::to_string(buffer) +
         (name.empty() ? "" : " `" + name + "`") + " (" +
         std::to_string(elements) + " x " + toString(elementType) +
         "): " + std::to_string(changedBytes) + " of its " +
         std::to_string(guardBytes) +
         " guard bytes changed, the first at element " +
         std::to_string(elements + firstByte / size);
}

hal::BindingRef PreparedFunction::boundRange(const BindingRef &ref,
                                             Access access) const {
  hal::BindingRef bound{buffers_[ref.buffer].get(), ref.offset, ref.length};
  // Only a written range that ends at the buffer's end takes its guard band
  // in: a read past an input's end stays outside its range, where the
  // checking layer reports it.
  uint64_t size = function_.buffers[ref.buffer].byteSize();
  uint64_t length = ref.length ? ref.length : size - ref.offset;
  if (!guardOf_[ref.buffer] || access == Access::ReadOnly ||
      ref.offset + length != size)
    return bound;
  uint64_t end = guardStart(ref.buffer) + guardOf_[ref.buffer];
  uint64_t maxRange = device_.properties().limits.maxBindingRange;
  bound.length =
      maxRange ? std::min(end - ref.offset, maxRange) : end - ref.offset;
  return bound;
}

Status PreparedFunction::record(hal::CommandBuffer &commands,
                                FunctionResult *result) const {
  return recordOps(commands, 0, function_.ops.size(), result);
}

Status PreparedFunction::recordOps(hal::CommandBuffer &commands, size_t first,
                                   size_t end, FunctionResult *result) const {
  std::string where =
      module_.sourceName + ": function `" + function_.name + "`";
  Hazards hazards;
  for (size_t i = first; i < std::min(end, function_.ops.size()); ++i) {
    const Op &op = function_.ops[i];
    if (op.kind == Op::Kind::Alloc)
      continue;
    if (op.kind == Op::Kind::Barrier) {
      KB_RETURN_IF_ERROR(commands.barrier());
      hazards.clear();
      if (result)
        ++result->barrierCount;
      continue;
    }
    std::set<uint32_t> reads, writes;
    accessesOf(module_, op, reads, writes);
    for (uint32_t b : reads)
      if (!buffers_[b])
        return failedPrecondition(where + " op " + std::to_string(i) +
                                  " uses buffer " + std::to_string(b) +
                                  " before any alloc op");
    if (hazards.needsBarrier(reads, writes)) {
      KB_RETURN_IF_ERROR(commands.barrier());
      hazards.clear();
      if (result)
        ++result->barrierCount;
    }
    hazards.record(reads, writes);

    Status status;
    if (op.kind == Op::Kind::Fill) {
      // "To the end" is the declared end, not the guard band's.
      uint64_t length = op.length || !guardOf_[op.buffer]
                            ? op.length
                            : guardStart(op.buffer) - op.offset;
      status = commands.fillBuffer(*buffers_[op.buffer], op.offset, length,
                                   op.pattern);
    } else if (op.kind == Op::Kind::Copy) {
      status =
          commands.copyBuffer(*buffers_[op.buffer], op.offset,
                              *buffers_[op.target], op.targetOffset, op.length);
    } else {
      hal::DispatchParams params;
      params.executable = executables_.at(op.executable).get();
      params.exportIndex = op.exportIndex;
      params.workgroupCount =
          op.workgroupCountFor(*variantOf_.at(op.executable));
      params.constants = op.constants;
      params.label = "`" + function_.name + "` op " + std::to_string(i) +
                     " (`" + module_.executables[op.executable].name +
                     "` export " + std::to_string(op.exportIndex) + ")";
      const KernelAbi &abi =
          variantOf_.at(op.executable)->exports[op.exportIndex];
      for (size_t b = 0; b < op.bindings.size(); ++b)
        params.bindings.push_back(boundRange(
            op.bindings[b], b < abi.bindings.size() ? abi.bindings[b].access
                                                    : Access::ReadWrite));
      status = commands.dispatch(params);
      if (result)
        ++result->dispatchCount;
    }
    if (!status.ok())
      return status.withContext(where + " op " + std::to_string(i) + " (" +
                                toString(op.kind) + ")");
  }
  return okStatus();
}

StatusOr<std::vector<uint8_t>>
PreparedFunction::readBuffer(uint32_t index) const {
  if (index >= buffers_.size() || !buffers_[index])
    return failedPrecondition(module_.sourceName + ": function `" +
                              function_.name + "` never allocates buffer " +
                              std::to_string(index));
  std::vector<uint8_t> bytes(function_.buffers[index].byteSize());
  KB_RETURN_IF_ERROR(buffers_[index]->download(0, bytes.data(), bytes.size()));
  return bytes;
}

Status PreparedFunction::writeBuffer(uint32_t index,
                                     const std::vector<uint8_t> &bytes) {
  if (index >= buffers_.size() || !buffers_[index] ||
      bytes.size() != function_.buffers[index].byteSize())
    return invalidArgument(module_.sourceName + ": function `" +
                           function_.name + "` has no buffer " +
                           std::to_string(index) + " of " +
                           std::to_string(bytes.size()) + " bytes to write");
  return buffers_[index]->upload(0, bytes.data(), bytes.size());
}

StatusOr<std::vector<OutputData>> PreparedFunction::readOutputs() const {
  std::vector<OutputData> outputs;
  for (const Output &out : function_.outputs) {
    const BufferDecl &decl = function_.buffers[out.buffer];
    OutputData data;
    data.buffer = out.buffer;
    data.name = decl.name;
    data.elementType = decl.elementType;
    data.structLayout = decl.structLayout;
    KB_ASSIGN_OR_RETURN(data.bytes, readBuffer(out.buffer));
    outputs.push_back(std::move(data));
  }
  return outputs;
}

namespace {
/// The buffers some op of |function| reads but none writes (|onlyReads|) or
/// writes but none reads, ascending.
std::vector<uint32_t> buffersAccessedOneWay(const Module &module,
                                            const Function &function,
                                            bool onlyReads) {
  std::set<uint32_t> reads, writes;
  for (const Op &op : function.ops)
    accessesOf(module, op, reads, writes);
  const std::set<uint32_t> &kept = onlyReads ? reads : writes;
  const std::set<uint32_t> &excluded = onlyReads ? writes : reads;
  std::vector<uint32_t> result;
  for (uint32_t b : kept)
    if (!excluded.count(b))
      result.push_back(b);
  return result;
}
} // namespace

std::vector<uint32_t> PreparedFunction::readOnlyBuffers() const {
  return buffersAccessedOneWay(module_, function_, /*onlyReads=*/true);
}

std::vector<uint32_t> PreparedFunction::writeOnlyBuffers() const {
  return buffersAccessedOneWay(module_, function_, /*onlyReads=*/false);
}

uint64_t PreparedFunction::bytesMoved() const {
  uint64_t total = 0;
  for (const Op &op : function_.ops) {
    if (op.kind == Op::Kind::Copy) {
      total += 2 * op.length;
      continue;
    }
    if (op.kind != Op::Kind::Dispatch)
      continue;
    const KernelAbi &abi = module_.executables[op.executable]
                               .variants.front()
                               .exports[op.exportIndex];
    for (size_t b = 0; b < op.bindings.size(); ++b) {
      const BindingRef &ref = op.bindings[b];
      uint64_t size = function_.buffers[ref.buffer].byteSize();
      uint64_t length = ref.length ? ref.length : size - ref.offset;
      Access access = abi.bindings[b].access;
      if (access != Access::WriteOnly)
        total += length;
      if (access != Access::ReadOnly)
        total += length;
    }
  }
  return total;
}

std::vector<std::string> PreparedFunction::describeVariants() const {
  std::vector<std::string> lines;
  for (const LoadedVariant &v : variants_) {
    const Executable &exe = module_.executables[v.executable];
    std::string line = "`" + exe.name + "`: " + toString(v.variant->role) +
                       " " + hal::toString(v.variant->format) + " " +
                       v.variant->target;
    if (std::string note = tuningNote(exe, *v.variant, device_.properties());
        !note.empty())
      line += " (" + note + ")";
    lines.push_back(std::move(line));
  }
  return lines;
}

Status submitOps(hal::Device &device, const PreparedFunction &prepared,
                 size_t first, size_t end, FunctionResult *result) {
  KB_ASSIGN_OR_RETURN(auto commands, device.createCommandBuffer());
  KB_RETURN_IF_ERROR(prepared.recordOps(*commands, first, end, result));
  return commands->submitAndWait().withContext(
      prepared.module().sourceName + ": function `" + prepared.function().name +
      "`" +
      (end - first == 1 ? " op " + std::to_string(first) : std::string()));
}

StatusOr<FunctionResult> runFunction(hal::Device &device, const Module &module,
                                     const Function &function,
                                     VariantChoice choice,
                                     const FixedContents &fixed,
                                     const RunHooks &hooks) {
  KB_ASSIGN_OR_RETURN(
      auto prepared,
      PreparedFunction::create(device, module, function, choice,
                               hooks.afterDispatch ? hooks.guardBytes : 0));
  if (!fixed.empty()) {
    KB_RETURN_IF_ERROR(prepared->setFixedContents(fixed));
    KB_RETURN_IF_ERROR(prepared->initialize());
  }
  if (hooks.afterLoad)
    hooks.afterLoad();
  if (hooks.unguarded && !prepared->guardNote().empty())
    hooks.unguarded(prepared->guardNote());
  FunctionResult result;
  result.variantsUsed = prepared->describeVariants();
  if (!hooks.afterDispatch) {
    KB_RETURN_IF_ERROR(
        submitOps(device, *prepared, 0, function.ops.size(), &result));
  } else {
    for (size_t i = 0; i < function.ops.size(); ++i) {
      Op::Kind kind = function.ops[i].kind;
      if (kind == Op::Kind::Alloc || kind == Op::Kind::Barrier)
        continue; // one op per submission: ordered without barriers
      KB_RETURN_IF_ERROR(submitOps(device, *prepared, i, i + 1, &result));
      if (kind != Op::Kind::Dispatch)
        continue;
      hooks.afterDispatch(i);
      KB_ASSIGN_OR_RETURN(GuardCheck guards, prepared->checkGuards());
      for (const GuardDamage &d : guards.damage)
        if (hooks.guardDamaged)
          hooks.guardDamaged(i, d);
    }
  }
  KB_ASSIGN_OR_RETURN(result.outputs, prepared->readOutputs());
  return result;
}

} // namespace kb::module
