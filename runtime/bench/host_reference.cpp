//===- runtime/bench/host_reference.cpp - A C/C++ reference on the host ---===//
#include "runtime/bench/host_reference.h"

#include "common/dynamic_library.h"
#include "common/file_util.h"
#include "common/host_reference_entry.h"
#include "common/sha256.h"
#include "runtime/module/inputs.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace kb::bench {

namespace {

/// A memfd holding |bytes|, or -1 with |why| set.
int memfdWith(const std::string &bytes, std::string &why) {
  int fd = memfd_create("kb-host-reference", MFD_CLOEXEC);
  if (fd < 0) {
    why = std::string("memfd_create: ") + std::strerror(errno);
    return -1;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      why = std::string("writing the memfd: ") + std::strerror(errno);
      close(fd);
      return -1;
    }
    done += static_cast<size_t>(n);
  }
  return fd;
}

/// |op|'s workload, or its workgroup count where the module records none.
std::array<uint64_t, 3> workloadOf(const module::Op &op) {
  if (op.workload)
    return *op.workload;
  return {op.workgroupCount[0], op.workgroupCount[1], op.workgroupCount[2]};
}

/// A fill or a copy of a one-dispatch function, done on the host copies
/// (allocations and barriers do nothing there).
Status applyOp(const module::Op &op,
               std::vector<std::vector<uint8_t>> &buffers) {
  auto range = [&](uint32_t b, uint64_t offset, uint64_t length) {
    return b < buffers.size() && offset <= buffers[b].size() &&
           length <= buffers[b].size() - offset;
  };
  if (op.kind == module::Op::Kind::Fill) {
    if (!range(op.buffer, op.offset, op.length))
      return invalidArgument("a fill outside its buffer");
    for (uint64_t i = 0; i < op.length; ++i)
      buffers[op.buffer][op.offset + i] =
          uint8_t(op.pattern >> (8 * ((op.offset + i) % 4)));
  } else if (op.kind == module::Op::Kind::Copy) {
    if (!range(op.buffer, op.offset, op.length) ||
        !range(op.target, op.targetOffset, op.length))
      return invalidArgument("a copy outside its buffers");
    std::memmove(buffers[op.target].data() + op.targetOffset,
                 buffers[op.buffer].data() + op.offset, op.length);
  }
  return okStatus();
}

} // namespace

StatusOr<std::shared_ptr<const HostReference>>
HostReference::load(const HostReferenceDecl &decl) {
  const std::string where = decl.file.string();
  if (decl.sha256.empty())
    return invalidArgument(
        where +
        ": build.json records no shared object for the host "
        "reference `" +
        decl.source +
        "` (its build failed, or the build predates it): build again");
  KB_ASSIGN_OR_RETURN(std::string bytes, kb::readFile(decl.file));
  if (std::string sha = sha256Hex(bytes); sha != decl.sha256)
    return invalidArgument(where + ": sha256 " + sha +
                           ", but build.json records " + decl.sha256 +
                           " for the host reference `" + decl.source +
                           "`; the file changed after `kernel-bench build`: "
                           "build again");
  std::string why;
  int fd = memfdWith(bytes, why);
  if (fd < 0)
    return internalError(where + ": " + why);
  // A name with a slash is a file: this memfd, whose bytes were checked.
  StatusOr<DynamicLibrary> library =
      DynamicLibrary::open("/proc/self/fd/" + std::to_string(fd));
  close(fd); // the mapping stays
  if (!library.ok())
    return invalidArgument(where +
                           ": does not load: " + library.status().message());
  auto entry = library->function<Entry>(kHostReferenceEntry);
  if (!entry)
    return invalidArgument(where + ": has no `" +
                           std::string(kHostReferenceEntry) +
                           "` (not built by this kernel-bench): build again");
  return std::shared_ptr<const HostReference>(
      new HostReference(decl, std::move(*library), entry));
}

std::string HostReference::describe() const {
  return "host function " + decl_.function + " (" + decl_.source + ")";
}

StatusOr<std::vector<module::OutputData>>
HostReference::run(const module::Function &function,
                   std::vector<std::vector<uint8_t>> buffers) const {
  const std::string where = describe() + ", function `" + function.name + "`";
  size_t dispatches = std::count_if(
      function.ops.begin(), function.ops.end(), [](const module::Op &op) {
        return op.kind == module::Op::Kind::Dispatch;
      });
  if (dispatches != 1 || buffers.size() != function.buffers.size())
    return invalidArgument(where +
                           ": a host reference stands for one "
                           "kernel, and this function dispatches " +
                           std::to_string(dispatches));
  for (const module::Op &op : function.ops) {
    if (op.kind != module::Op::Kind::Dispatch) {
      KB_RETURN_IF_ERROR(applyOp(op, buffers).withContext(where));
      continue;
    }
    std::vector<void *> pointers;
    for (const module::BindingRef &b : op.bindings) {
      if (b.buffer >= buffers.size() || b.offset > buffers[b.buffer].size())
        return invalidArgument(where + ": a binding outside its buffer");
      pointers.push_back(buffers[b.buffer].data() + b.offset);
    }
    std::array<uint64_t, 3> workload = workloadOf(op);
    if (entry_(pointers.data(), static_cast<uint32_t>(pointers.size()),
               op.constants.data(), op.constants.size(), workload.data()) != 0)
      return invalidArgument(
          where +
          ": the shared object was built for other bindings or "
          "constants than this module's dispatch (" +
          std::to_string(pointers.size()) + " bindings, " +
          std::to_string(op.constants.size()) +
          " bytes of constants): build again");
  }
  std::vector<module::OutputData> outputs;
  for (const module::Output &out : function.outputs) {
    const module::BufferDecl &decl = function.buffers[out.buffer];
    outputs.push_back(
        {out.buffer, decl.name, decl.elementType, buffers[out.buffer]});
  }
  return outputs;
}

std::vector<std::vector<uint8_t>>
startingContents(const module::PreparedFunction &prepared, uint64_t seedOffset,
                 bool zeroInputs, module::SpecialValues special,
                 const std::vector<uint32_t> &poisoned, uint32_t pattern) {
  const module::Function &function = prepared.function();
  std::vector<std::vector<uint8_t>> buffers(function.buffers.size());
  for (uint32_t b = 0; b < buffers.size(); ++b) {
    if (std::find(poisoned.begin(), poisoned.end(), b) == poisoned.end()) {
      buffers[b] =
          *prepared.initialContents(b, seedOffset, zeroInputs, special);
      continue;
    }
    buffers[b].resize(function.buffers[b].byteSize());
    for (size_t i = 0; i < buffers[b].size(); ++i)
      buffers[b][i] = uint8_t(pattern >> (8 * (i % 4)));
  }
  return buffers;
}

std::vector<std::vector<uint8_t>>
initialContents(const module::Function &function,
                const module::FixedContents &fixed) {
  std::vector<std::vector<uint8_t>> buffers(function.buffers.size());
  for (uint32_t b = 0; b < buffers.size(); ++b) {
    auto it = fixed.find(b);
    buffers[b] = it != fixed.end()
                     ? *it->second
                     : module::generateContents(function.buffers[b]);
  }
  return buffers;
}

} // namespace kb::bench
