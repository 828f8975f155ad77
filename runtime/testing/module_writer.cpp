//===- runtime/testing/module_writer.cpp - Build .kbm files for tests -----===//
#include "runtime/testing/module_writer.h"

#include "common/kbm/kbm_generated.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace kb::testing {

namespace fb = flatbuffers;
using namespace kb::module;

namespace {
fb::Offset<kbm::Export> writeExport(fb::FlatBufferBuilder &b,
                                    const KernelAbi &abi) {
  std::vector<fb::Offset<kbm::BindingLayout>> bindings;
  for (const Binding &x : abi.bindings) {
    auto name = x.name.empty() ? 0 : b.CreateString(x.name);
    fb::Offset<kbm::StructLayout> layout = 0;
    if (x.structLayout) {
      std::vector<fb::Offset<kbm::StructMember>> members;
      for (const StructMember &m : x.structLayout->members) {
        auto memberName = b.CreateString(m.name);
        members.push_back(kbm::CreateStructMember(
            b, memberName, static_cast<kbm::ElementType>(m.type), m.offset,
            m.components, m.count, m.arrayStride));
      }
      auto layoutName = b.CreateString(x.structLayout->name);
      auto memberVector = b.CreateVector(members);
      layout = kbm::CreateStructLayout(b, layoutName, x.structLayout->stride,
                                       memberVector);
    }
    bindings.push_back(kbm::CreateBindingLayout(
        b, name, static_cast<kbm::ElementType>(x.elementType),
        static_cast<kbm::Access>(x.access), layout));
  }
  std::vector<fb::Offset<kbm::ConstantLayout>> constants;
  for (const Constant &x : abi.constants)
    constants.push_back(kbm::CreateConstantLayout(
        b, x.name.empty() ? 0 : b.CreateString(x.name),
        static_cast<kbm::ScalarType>(x.type)));
  kbm::Dim3 wg(abi.workgroupSize[0], abi.workgroupSize[1],
               abi.workgroupSize[2]);
  std::vector<fb::Offset<kbm::SpecializationConstant>> specialization;
  for (const SpecializationValue &v : abi.specialization)
    specialization.push_back(kbm::CreateSpecializationConstant(
        b, v.id, v.name.empty() ? 0 : b.CreateString(v.name), v.size, v.bits));
  const auto &per = abi.workloadPerWorkgroup;
  kbm::Dim3 perWorkgroup(per[0], per[1], per[2]);
  fb::Offset<kbm::UniformConstants> uniform = 0;
  if (const auto &u = abi.uniformConstants)
    uniform = kbm::CreateUniformConstants(b, u->binding,
                                          b.CreateVector(u->offsets), u->size);
  return kbm::CreateExport(
      b, b.CreateString(abi.entry), b.CreateVector(bindings),
      b.CreateVector(constants), &wg, abi.dynamicSharedMemoryBytes,
      abi.subgroupSize, abi.fullSubgroups,
      specialization.empty() ? 0 : b.CreateVector(specialization),
      per[0] ? &perWorkgroup : nullptr,
      abi.parameterOrder.empty() ? 0 : b.CreateVector(abi.parameterOrder),
      uniform);
}

fb::Offset<kbm::Op> writeOp(fb::FlatBufferBuilder &b, const Op &op,
                            const Module &module, const WriteOptions &options) {
  switch (op.kind) {
  case Op::Kind::Alloc:
    return kbm::CreateOp(b, kbm::Command::Alloc,
                         kbm::CreateAlloc(b, op.buffer).Union());
  case Op::Kind::Fill:
    return kbm::CreateOp(
        b, kbm::Command::Fill,
        kbm::CreateFill(b, op.buffer, op.offset, op.length, op.pattern)
            .Union());
  case Op::Kind::Copy:
    return kbm::CreateOp(b, kbm::Command::Copy,
                         kbm::CreateCopy(b, op.buffer, op.offset, op.target,
                                         op.targetOffset, op.length)
                             .Union());
  case Op::Kind::Barrier:
    return kbm::CreateOp(b, kbm::Command::Barrier,
                         kbm::CreateBarrier(b).Union());
  case Op::Kind::Dispatch: {
    std::vector<kbm::BindingRef> refs;
    for (const BindingRef &r : op.bindings)
      refs.emplace_back(r.buffer, r.offset, r.length);
    fb::Offset<fb::Vector<const kbm::ConstantValue *>> typed = 0;
    fb::Offset<fb::Vector<uint8_t>> raw = 0;
    // Typed values need the layout; fall back to raw when the indices are
    // (deliberately) invalid.
    const KernelAbi *abi = nullptr;
    if (op.executable < module.executables.size() &&
        !module.executables[op.executable].variants.empty() &&
        op.exportIndex <
            module.executables[op.executable].variants.front().exports.size())
      abi = &module.executables[op.executable]
                 .variants.front()
                 .exports[op.exportIndex];
    if (options.typedConstants && abi &&
        op.constants.size() == pushConstantSize(*abi)) {
      std::vector<kbm::ConstantValue> values;
      std::vector<ParamSlot> slots = pushConstantLayout(*abi);
      for (size_t i = 0; i < slots.size(); ++i) {
        uint64_t bits = 0;
        std::memcpy(&bits, op.constants.data() + slots[i].offset,
                    slots[i].size);
        values.emplace_back(
            static_cast<kbm::ScalarType>(abi->constants[i].type), bits);
      }
      if (!values.empty())
        typed = b.CreateVectorOfStructs(values);
    } else if (!op.constants.empty()) {
      raw = b.CreateVector(op.constants);
    }
    kbm::Dim3 count(op.workgroupCount[0], op.workgroupCount[1],
                    op.workgroupCount[2]);
    std::optional<kbm::Dim3> workload;
    if (op.workload)
      workload.emplace(static_cast<uint32_t>((*op.workload)[0]),
                       static_cast<uint32_t>((*op.workload)[1]),
                       static_cast<uint32_t>((*op.workload)[2]));
    return kbm::CreateOp(b, kbm::Command::Dispatch,
                         kbm::CreateDispatch(b, op.executable, op.exportIndex,
                                             b.CreateVectorOfStructs(refs),
                                             typed, raw, &count,
                                             workload ? &*workload : nullptr)
                             .Union());
  }
  }
  return 0;
}
} // namespace

std::string writeModule(const Module &module, const WriteOptions &options) {
  fb::FlatBufferBuilder b;
  std::vector<fb::Offset<kbm::Executable>> executables;
  for (const Executable &exe : module.executables) {
    std::vector<fb::Offset<kbm::ExecutableVariant>> variants;
    for (const Variant &v : exe.variants) {
      std::vector<fb::Offset<kbm::Export>> exports;
      for (const KernelAbi &abi : v.exports)
        exports.push_back(writeExport(b, abi));
      variants.push_back(kbm::CreateExecutableVariant(
          b, static_cast<kbm::ExecutableFormat>(v.format),
          b.CreateString(v.target), static_cast<kbm::VariantRole>(v.role),
          b.CreateVector(reinterpret_cast<const uint8_t *>(v.data.data()),
                         v.data.size()),
          b.CreateVector(exports)));
    }
    executables.push_back(kbm::CreateExecutable(b, b.CreateString(exe.name),
                                                b.CreateVector(variants)));
  }
  std::vector<fb::Offset<kbm::Function>> functions;
  for (const Function &fn : module.functions) {
    std::vector<fb::Offset<kbm::Buffer>> buffers;
    for (const BufferDecl &d : fn.buffers) {
      const InitSpec &i = d.init;
      auto init = kbm::CreateInitSpec(
          b, static_cast<kbm::Distribution>(i.distribution), i.seed, i.low,
          i.high, i.mean, i.stddev, i.start, i.step);
      buffers.push_back(kbm::CreateBuffer(
          b, d.name.empty() ? 0 : b.CreateString(d.name),
          static_cast<kbm::ElementType>(d.elementType), d.elementCount, init));
    }
    std::vector<fb::Offset<kbm::Op>> ops;
    for (const Op &op : fn.ops)
      ops.push_back(writeOp(b, op, module, options));
    std::vector<fb::Offset<kbm::Output>> outputs;
    for (const Output &o : fn.outputs)
      outputs.push_back(
          kbm::CreateOutput(b, o.buffer, o.absTolerance, o.relTolerance));
    functions.push_back(
        kbm::CreateFunction(b, b.CreateString(fn.name), b.CreateVector(buffers),
                            b.CreateVector(ops), b.CreateVector(outputs)));
  }
  std::vector<fb::Offset<kbm::Benchmark>> benchmarks;
  for (const Benchmark &bench : module.benchmarks)
    benchmarks.push_back(kbm::CreateBenchmark(
        b, b.CreateString(bench.name), bench.function, bench.dispatchOp));
  auto root = kbm::CreateModule(
      b, options.schemaVersion ? options.schemaVersion : module.schemaVersion,
      b.CreateString(module.name), b.CreateVector(executables),
      b.CreateVector(functions),
      module.entryFunction.empty() ? 0 : b.CreateString(module.entryFunction),
      b.CreateVector(benchmarks));
  kbm::FinishModuleBuffer(b, root);
  return std::string(reinterpret_cast<const char *>(b.GetBufferPointer()),
                     b.GetSize());
}

Status writeFile(const std::string &path, const std::string &bytes) {
  std::error_code ec;
  std::filesystem::path p(path);
  if (p.has_parent_path())
    std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    return internalError(path + ": cannot write");
  return okStatus();
}

} // namespace kb::testing
