//===- runtime/module/executor.cpp - Run a module function on a device ----===//
#include "runtime/module/executor.h"

#include "runtime/module/inputs.h"

#include <map>
#include <memory>
#include <set>

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
} // namespace

StatusOr<FunctionResult> runFunction(hal::Device &device, const Module &module,
                                     const Function &function,
                                     VariantChoice choice) {
  const hal::DeviceProperties &props = device.properties();
  KB_RETURN_IF_ERROR(checkModuleForDevice(module, props, choice));
  FunctionResult result;
  std::string where = module.sourceName + ": function `" + function.name + "`";

  // Executables this function dispatches, loaded once each.
  std::map<uint32_t, std::shared_ptr<hal::Executable>> executables;
  for (const Op &op : function.ops) {
    if (op.kind != Op::Kind::Dispatch || executables.count(op.executable))
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
    KB_ASSIGN_OR_RETURN(executables[op.executable],
                        device.createExecutable(spec));
    result.variantsUsed.push_back(
        "`" + exe.name + "`: " + toString(variant->role) + " " +
        hal::toString(variant->format) + " " + variant->target);
  }

  std::vector<std::shared_ptr<hal::Buffer>> buffers(function.buffers.size());
  KB_ASSIGN_OR_RETURN(auto commands, device.createCommandBuffer());
  Hazards hazards;
  for (size_t i = 0; i < function.ops.size(); ++i) {
    const Op &op = function.ops[i];
    std::string label = "`" + function.name + "` op " + std::to_string(i);
    std::set<uint32_t> reads, writes;
    switch (op.kind) {
    case Op::Kind::Alloc: {
      const BufferDecl &decl = function.buffers[op.buffer];
      KB_ASSIGN_OR_RETURN(
          buffers[op.buffer],
          device.allocateBuffer(decl.byteSize(), hal::MemoryType::DeviceLocal));
      std::vector<uint8_t> contents = generateContents(decl);
      KB_RETURN_IF_ERROR(buffers[op.buffer]
                             ->upload(0, contents.data(), contents.size())
                             .withContext(where + " op " + std::to_string(i)));
      continue;
    }
    case Op::Kind::Barrier:
      KB_RETURN_IF_ERROR(commands->barrier());
      hazards.clear();
      ++result.barrierCount;
      continue;
    case Op::Kind::Fill:
      writes.insert(op.buffer);
      break;
    case Op::Kind::Copy:
      reads.insert(op.buffer);
      writes.insert(op.target);
      break;
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
      break;
    }
    }
    if (hazards.needsBarrier(reads, writes)) {
      KB_RETURN_IF_ERROR(commands->barrier());
      hazards.clear();
      ++result.barrierCount;
    }
    hazards.record(reads, writes);

    Status status;
    if (op.kind == Op::Kind::Fill) {
      status = commands->fillBuffer(*buffers[op.buffer], op.offset, op.length,
                                    op.pattern);
    } else if (op.kind == Op::Kind::Copy) {
      status =
          commands->copyBuffer(*buffers[op.buffer], op.offset,
                               *buffers[op.target], op.targetOffset, op.length);
    } else {
      hal::DispatchParams params;
      params.executable = executables[op.executable].get();
      params.exportIndex = op.exportIndex;
      params.workgroupCount = op.workgroupCount;
      params.constants = op.constants;
      params.label = label + " (`" + module.executables[op.executable].name +
                     "` export " + std::to_string(op.exportIndex) + ")";
      for (const BindingRef &ref : op.bindings)
        params.bindings.push_back(
            {buffers[ref.buffer].get(), ref.offset, ref.length});
      status = commands->dispatch(params);
      ++result.dispatchCount;
    }
    if (!status.ok())
      return status.withContext(where + " op " + std::to_string(i) + " (" +
                                toString(op.kind) + ")");
  }
  KB_RETURN_IF_ERROR(commands->submitAndWait().withContext(where));

  for (const Output &out : function.outputs) {
    const BufferDecl &decl = function.buffers[out.buffer];
    OutputData data;
    data.buffer = out.buffer;
    data.name = decl.name;
    data.elementType = decl.elementType;
    data.bytes.resize(decl.byteSize());
    KB_RETURN_IF_ERROR(
        buffers[out.buffer]->download(0, data.bytes.data(), data.bytes.size()));
    result.outputs.push_back(std::move(data));
  }
  return result;
}

} // namespace kb::module
