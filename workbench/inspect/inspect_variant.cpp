//===- workbench/inspect/inspect_variant.cpp - One variant's code, read ---===//
#include "workbench/inspect/inspect_variant.h"

#include "common/cuda_occupancy.h"
#include "toolchains/ptxas_report.h"

#include <cstdlib>

namespace kb::workbench {
namespace {

constexpr const char *kCudaToolkitHint =
    "it comes with the CUDA toolkit: set CUDA_PATH or put its bin/ on PATH";

/// 90 for "sm_90" and "sm_90a"; 0 when |target| is no sm_XX.
int smNumber(const std::string &target) {
  if (target.rfind("sm_", 0) != 0)
    return 0;
  return std::atoi(target.c_str() + 3);
}

void addOccupancy(const module::Variant &variant, const KernelAbi &abi,
                  VariantInspection &v) {
  OccupancyInput in;
  in.sm = smNumber(variant.target);
  in.threadsPerBlock =
      abi.workgroupSize[0] * abi.workgroupSize[1] * abi.workgroupSize[2];
  in.registersPerThread = v.resources->registers;
  in.sharedBytesPerBlock =
      v.resources->sharedMemoryBytes + abi.dynamicSharedMemoryBytes;
  v.occupancy = theoreticalOccupancy(in);
}

void addSass(const std::string &cubin, const InspectTools &tools,
             VariantInspection &v) {
  if (!tools.nvdisasm && !tools.cuobjdump) {
    v.notes.push_back("SASS: neither nvdisasm nor cuobjdump is installed (" +
                      std::string(kCudaToolkitHint) + ")");
    return;
  }
  std::vector<std::string> argv =
      tools.nvdisasm
          ? std::vector<std::string>{tools.nvdisasm->string(), "kernel.cubin"}
          : std::vector<std::string>{tools.cuobjdump->string(), "-sass",
                                     "kernel.cubin"};
  StatusOr<ToolOutput> sass = runInspectTool(argv, {{"kernel.cubin", cubin}});
  if (!sass.ok()) {
    v.notes.push_back("SASS: " + sass.status().message());
    return;
  }
  v.sass = countSassInstructions(sass->stdoutText);
  v.listings.push_back({"sass", sass->stdoutText});
}

/// ptxas's figures for the PTX, and the cubin it compiled for the SASS.
void addPtxasFigures(const module::Variant &variant, const KernelAbi &abi,
                     const InspectTools &tools, VariantInspection &v) {
  if (!tools.ptxas) {
    v.notes.push_back("registers, spills, shared memory and occupancy: "
                      "ptxas not found (" +
                      std::string(kCudaToolkitHint) + ")");
    return;
  }
  StatusOr<ToolOutput> compiled =
      runInspectTool({tools.ptxas->string(), "-arch=" + variant.target, "-v",
                      "kernel.ptx", "-o", "kernel.cubin"},
                     {{"kernel.ptx", variant.data}}, {0}, "kernel.cubin");
  if (!compiled.ok()) {
    v.notes.push_back("registers and occupancy: " +
                      compiled.status().message());
    return;
  }
  v.resources =
      toolchains::parsePtxasResourceUsage(compiled->stderrText, abi.entry);
  if (v.resources)
    addOccupancy(variant, abi, v);
  addSass(compiled->file, tools, v);
}

void inspectCuda(const module::Variant &variant, const KernelAbi &abi,
                 const InspectTools &tools, VariantInspection &v) {
  if (variant.format == hal::ExecutableFormat::Cubin) {
    v.notes.push_back("a cubin object: no PTX to count, and no ptxas report "
                      "for its registers");
    addSass(variant.data, tools, v);
    return;
  }
  v.ptx = countPtxInstructions(variant.data);
  v.listings.push_back({"ptx", variant.data});
  addPtxasFigures(variant, abi, tools, v);
}

void inspectVulkan(const module::Variant &variant, const InspectTools &tools,
                   VariantInspection &v) {
  StatusOr<SpirvInstructionMix> mix = countSpirvInstructions(variant.data);
  if (!mix.ok()) {
    v.notes.push_back("SPIR-V: " + mix.status().message());
    return;
  }
  v.spirv = *mix;
  if (!tools.spirvDis) {
    v.notes.push_back("SPIR-V listing: spirv-dis not found (Debian: "
                      "apt-get install spirv-tools)");
    return;
  }
  StatusOr<ToolOutput> listing = runInspectTool(
      {tools.spirvDis->string(), "kernel.spv"}, {{"kernel.spv", variant.data}});
  if (!listing.ok())
    v.notes.push_back("SPIR-V listing: " + listing.status().message());
  else
    v.listings.push_back({"spvasm", listing->stdoutText});
}

} // namespace

VariantInspection inspectVariant(const module::Variant &variant,
                                 uint32_t exportIndex,
                                 const InspectTools &tools) {
  VariantInspection v;
  bool reference = variant.role == module::VariantRole::Reference;
  v.role = reference ? "reference" : "candidate";
  v.device = variant.device;
  v.label = reference                ? "reference"
            : variant.device.empty() ? "candidate"
                                     : "tuned:" + variant.device;
  // The compiler keeps a cubin beside its PTX; the label tells them apart.
  if (variant.format == hal::ExecutableFormat::Cubin)
    v.label += "-cubin";
  v.format = hal::toString(variant.format);
  const KernelAbi &abi = variant.exports[exportIndex];
  v.entry = abi.entry;
  v.workgroupSize = abi.workgroupSize;
  if (variant.format == hal::ExecutableFormat::Spirv)
    inspectVulkan(variant, tools, v);
  else
    inspectCuda(variant, abi, tools, v);
  return v;
}

} // namespace kb::workbench
