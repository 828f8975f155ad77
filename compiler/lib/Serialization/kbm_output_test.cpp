// End-to-end tests of codegen, benchmark generation and .kbm output through
// the KBDriver API (built like workbench/ code: exceptions on, no LLVM
// flags). Every module is checked with the FlatBuffers verifier, every
// generated binary with the real ptxas / spirv-val (skipped when missing)
// and with the shared ABI readers against the layout the module declares.
#include "kb/Driver/Driver.h"

#include "common/abi_check.h"
#include "common/file_util.h"
#include "common/kbm/kbm_generated.h"
#include "common/ptx_reader.h"
#include "common/spirv_reader.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
namespace kbm = kb::kbm;

namespace {

const std::string kProgram =
    std::string(KB_SOURCE_DIR) + "/examples/quickstart/program.mlir";
const std::string kInputs =
    std::string(KB_SOURCE_DIR) + "/compiler/test/Dialect/KB/Transforms/Inputs";

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

/// This process's own scratch directory, removed at exit: ctest runs the
/// tests in parallel processes, and fixed names under /tmp would collide.
const std::filesystem::path &scratchDir() {
  static kb::TempDir dir = [] {
    auto made = kb::TempDir::create(::testing::TempDir(), "kbm_output_test");
    if (!made.ok()) {
      std::fprintf(stderr, "%s\n", made.status().message().c_str());
      std::abort();
    }
    return std::move(*made);
  }();
  return dir.path();
}

/// A fresh directory in this process's scratch directory.
fs::path freshDir(const std::string &name) {
  fs::path dir = scratchDir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// The tool's path, or "" (CUDA_PATH/bin and /usr/local/cuda/bin first, as
/// the compiler searches).
std::string findTool(const std::string &name) {
  std::vector<std::string> dirs;
  if (const char *cuda = std::getenv("CUDA_PATH"))
    dirs.push_back(std::string(cuda) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  if (const char *path = std::getenv("PATH")) {
    std::stringstream s(path);
    for (std::string dir; std::getline(s, dir, ':');)
      dirs.push_back(dir);
  }
  for (const std::string &dir : dirs) {
    fs::path candidate = fs::path(dir) / name;
    if (fs::exists(candidate))
      return candidate.string();
  }
  return "";
}

/// Runs |command|; returns its exit status, output in |output|.
int run(const std::string &command, std::string &output) {
  std::string logPath = (scratchDir() / "cmd.log").string();
  int rc = std::system((command + " >" + logPath + " 2>&1").c_str());
  output = readFile(logPath);
  return rc;
}

/// The verified module in |bytes|, or nullptr (with a test failure).
const kbm::Module *verified(const std::string &bytes, const std::string &what) {
  if (bytes.size() < 8 || !flatbuffers::BufferHasIdentifier(
                              bytes.data(), kbm::ModuleIdentifier())) {
    ADD_FAILURE() << what << ": no KBM1 identifier";
    return nullptr;
  }
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  if (!kbm::VerifyModuleBuffer(verifier)) {
    ADD_FAILURE() << what << ": the FlatBuffers verifier rejects it";
    return nullptr;
  }
  const kbm::Module *module = kbm::GetModule(bytes.data());
  EXPECT_EQ(module->schema_version(),
            static_cast<uint32_t>(kbm::SchemaVersion::Current))
      << what;
  return module;
}

kb::KernelAbi toAbi(const kbm::Export *e) {
  kb::KernelAbi abi;
  abi.entry = e->entry()->str();
  if (e->bindings())
    for (const kbm::BindingLayout *b : *e->bindings())
      abi.bindings.push_back({b->name() ? b->name()->str() : "",
                              static_cast<kb::ElementType>(b->element_type()),
                              static_cast<kb::Access>(b->access())});
  if (e->constants())
    for (const kbm::ConstantLayout *c : *e->constants())
      abi.constants.push_back({c->name() ? c->name()->str() : "",
                               static_cast<kb::ScalarType>(c->type())});
  abi.workgroupSize = {e->workgroup_size()->x(), e->workgroup_size()->y(),
                       e->workgroup_size()->z()};
  abi.dynamicSharedMemoryBytes = e->dynamic_shared_memory_bytes();
  return abi;
}

kb::driver::CompileResult compileQuickstart(const fs::path &out,
                                            bool substitute = false) {
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::cuda(90), *kb::Target::vulkan(1, 2)};
  options.outputDir = out.string();
  if (substitute)
    options.objectSubstitutions = {{"saxpy", kInputs + "/saxpy.ptx", ""},
                                   {"saxpy", kInputs + "/saxpy.spv", ""}};
  return kb::driver::compile(options);
}

TEST(KbmOutputTest, QuickstartWritesAProgramAndOneBenchmarkPerDispatch) {
  fs::path out = freshDir("quickstart");
  kb::driver::CompileResult result = compileQuickstart(out);
  ASSERT_TRUE(result.ok) << result.diagnostics;

  const std::string programBytes = readFile(out / "program.kbm");
  const kbm::Module *program = verified(programBytes, "program.kbm");
  ASSERT_NE(program, nullptr);
  ASSERT_NE(program->entry_function(), nullptr);
  EXPECT_EQ(program->entry_function()->str(), "main");
  ASSERT_EQ(program->executables()->size(), 4u);
  bool havePtxas = !findTool("ptxas").empty();
  for (const kbm::Executable *exe : *program->executables()) {
    std::map<kbm::ExecutableFormat, int> formats;
    for (const kbm::ExecutableVariant *v : *exe->variants()) {
      ++formats[v->format()];
      EXPECT_EQ(v->role(), kbm::VariantRole::Reference) << exe->name()->str();
    }
    EXPECT_EQ(formats[kbm::ExecutableFormat::Ptx], 1) << exe->name()->str();
    EXPECT_EQ(formats[kbm::ExecutableFormat::Spirv], 1) << exe->name()->str();
    EXPECT_EQ(formats[kbm::ExecutableFormat::Cubin], havePtxas ? 1 : 0)
        << exe->name()->str();
  }
  // main: 9 allocs + 5 dispatches; outputs are the buffers no later
  // dispatch reads: the total, the softmax probabilities, the matmul C.
  ASSERT_EQ(program->functions()->size(), 1u);
  const kbm::Function *main = program->functions()->Get(0);
  EXPECT_EQ(main->buffers()->size(), 9u);
  EXPECT_EQ(main->ops()->size(), 14u);
  ASSERT_EQ(main->outputs()->size(), 3u);
  // Buffers are named after the binding of the last dispatch that writes
  // them (else the first that reads them), qualified by executable; the
  // second reduce_sum writes its total through `partials` again.
  std::vector<std::string> bufferNames;
  for (const kbm::Buffer *buffer : *main->buffers())
    bufferNames.push_back(buffer->name()->str());
  EXPECT_EQ(bufferNames,
            (std::vector<std::string>{
                "saxpy.x", "saxpy.y", "reduce_sum.partials",
                "reduce_sum.partials#3", "softmax.input", "softmax.output",
                "matmul.a", "matmul.b", "matmul.c"}));
  // Inputs are seeded draws, buffers first written by a dispatch zeros.
  const kbm::Buffer *x = main->buffers()->Get(0);
  ASSERT_NE(x->init(), nullptr);
  EXPECT_EQ(x->init()->distribution(), kbm::Distribution::Uniform);
  const kbm::Buffer *partials = main->buffers()->Get(2);
  EXPECT_TRUE(!partials->init() ||
              partials->init()->distribution() == kbm::Distribution::Zero);

  // One benchmark per (executable, export, workload): the two reduce_sum
  // dispatches have different workloads.
  std::vector<std::string> names;
  for (const auto &b : result.benchmarks)
    names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "saxpy_1048576x1x1", "reduce_sum_1048576x1x1",
                       "reduce_sum_256x1x1", "softmax_1024x1x1",
                       "matmul_tiled_512x512x1"}));
  EXPECT_TRUE(result.unbenchmarked.empty());
  size_t files = 0;
  for (const auto &entry : fs::directory_iterator(out / "bench"))
    files += entry.path().extension() == ".kbm";
  EXPECT_EQ(files, names.size());
  for (const auto &b : result.benchmarks) {
    ASSERT_EQ(b.file, "bench/" + b.name + ".kbm");
    std::string bytes = readFile(out / b.file);
    const kbm::Module *bench = verified(bytes, b.file);
    ASSERT_NE(bench, nullptr);
    EXPECT_EQ(bench->entry_function(), nullptr) << b.file;
    ASSERT_EQ(bench->executables()->size(), 1u);
    EXPECT_EQ(bench->executables()->Get(0)->name()->str(), b.executable);
    ASSERT_EQ(bench->benchmarks()->size(), 1u);
    const kbm::Benchmark *entry = bench->benchmarks()->Get(0);
    EXPECT_EQ(entry->name()->str(), b.name);
    const kbm::Function *fn = bench->functions()->Get(entry->function());
    ASSERT_LT(entry->dispatch_op(), fn->ops()->size());
    const kbm::Op *op = fn->ops()->Get(entry->dispatch_op());
    ASSERT_EQ(op->command_type(), kbm::Command::Dispatch);
    const kbm::Dispatch *dispatch = op->command_as_Dispatch();
    EXPECT_EQ(dispatch->workgroup_count()->x(), b.workgroupCount[0]);
    // Each buffer is named after the binding it is bound to.
    for (const kbm::BindingRef *ref : *dispatch->bindings())
      EXPECT_EQ(fn->buffers()
                    ->Get(ref->buffer())
                    ->name()
                    ->str()
                    .rfind(b.executable + ".", 0),
                0u)
          << b.file;
    EXPECT_EQ(dispatch->workgroup_count()->y(), b.workgroupCount[1]);
    EXPECT_GE(fn->outputs()->size(), 1u) << b.file;
  }
  // The matmul's workload [512, 512] over 16x16 workgroups.
  EXPECT_EQ(result.benchmarks[4].workgroupCount,
            (std::vector<long long>{32, 32, 1}));
  // Codegen ran once per executable and target.
  EXPECT_EQ(result.codegen.size(), 8u);
}

/// Checks every binary of |kbmPath| with the ABI readers against the layout
/// the module declares, and with ptxas (-arch = the PTX .target) and
/// spirv-val (--target-env = the variant's environment) when found.
/// Returns how many binaries the real tools checked.
int checkGeneratedBinaries(const fs::path &kbmPath, const fs::path &scratch) {
  const std::string bytes = readFile(kbmPath);
  const kbm::Module *module = verified(bytes, kbmPath.string());
  if (!module)
    return 0;
  std::string ptxas = findTool("ptxas");
  std::string spirvVal = findTool("spirv-val");
  int checked = 0;
  for (const kbm::Executable *exe : *module->executables()) {
    for (const kbm::ExecutableVariant *v : *exe->variants()) {
      std::string data(reinterpret_cast<const char *>(v->data()->data()),
                       v->data()->size());
      std::string target = v->target()->str();
      std::string where = exe->name()->str() + " " + target;
      std::string output;
      if (v->format() == kbm::ExecutableFormat::Ptx) {
        auto ptx = kb::readPtx(data);
        EXPECT_TRUE(ptx.ok()) << where << ": " << ptx.status().message();
        if (!ptx.ok())
          continue;
        for (const kbm::Export *e : *v->exports()) {
          auto mismatches = kb::checkPtxAbi(*ptx, toAbi(e));
          EXPECT_TRUE(mismatches.empty())
              << where << ": " << kb::formatMismatches(mismatches);
        }
        if (!ptxas.empty()) {
          fs::path file =
              scratch / (exe->name()->str() + "_" + target + ".ptx");
          writeFile(file, data);
          EXPECT_EQ(run(ptxas + " -arch=" + target + " " + file.string() +
                            " -o " + (scratch / "x.cubin").string(),
                        output),
                    0)
              << where << ":\n"
              << output;
          ++checked;
        }
      } else if (v->format() == kbm::ExecutableFormat::Spirv) {
        auto spirv = kb::readSpirvBytes(data);
        EXPECT_TRUE(spirv.ok()) << where << ": " << spirv.status().message();
        if (!spirv.ok())
          continue;
        for (const kbm::Export *e : *v->exports()) {
          auto mismatches = kb::checkSpirvAbi(*spirv, toAbi(e));
          EXPECT_TRUE(mismatches.empty())
              << where << ": " << kb::formatMismatches(mismatches);
        }
        if (!spirvVal.empty()) {
          fs::path file =
              scratch / (exe->name()->str() + "_" + target + ".spv");
          writeFile(file, data);
          EXPECT_EQ(
              run(spirvVal + " --target-env " + target + " " + file.string(),
                  output),
              0)
              << where << ":\n"
              << output;
          ++checked;
        }
      } else {
        // A cubin starts with the ELF magic.
        EXPECT_EQ(data.substr(0, 4), "\x7f"
                                     "ELF")
            << where;
      }
    }
  }
  return checked;
}

TEST(KbmOutputTest, GeneratedBinariesPassPtxasSpirvValAndTheAbiCheck) {
  fs::path out = freshDir("tools");
  kb::driver::CompileResult result = compileQuickstart(out);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  int checked = checkGeneratedBinaries(out / "program.kbm", out);
  if (findTool("ptxas").empty() || findTool("spirv-val").empty())
    GTEST_SKIP() << "ABI checked; ptxas or spirv-val not found, so only "
                 << checked << " binaries were checked with the real tools";
  EXPECT_EQ(checked, 8);
}

/// 16-bit and 8-bit buffers, 64-bit constants (IREE allows only i32), a 2-D
/// binding with a dynamic leading dimension, for an architecture LLVM 16
/// does not know (sm_100: sm_90 PTX, sm_100 cubin) and Vulkan 1.0.
const char *kMixedTypesProgram = R"mlir(
kb.executable @mixed {
  kb.export @mixed bindings(a: f16 readonly, b: f64 readwrite, c: i8 writeonly)
      constants(s: f64, n: i64, k: u32) workgroup_size = [64, 2, 1]
  builtin.module {
    func.func @mixed() {
      %a = kb.binding 0 : memref<?xf16>
      %b = kb.binding 1 : memref<?x4xf64>
      %c = kb.binding 2 : memref<?xi8>
      %s = kb.constant 0 : f64
      %n = kb.constant 1 : i64
      %k = kb.constant 2 : i32
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %ni = arith.index_cast %n : i64 to index
      %ok = arith.cmpi slt, %tid, %ni : index
      scf.if %ok {
        %v = memref.load %a[%tid] : memref<?xf16>
        %w = arith.extf %v : f16 to f64
        %x = arith.mulf %w, %s : f64
        %y = math.sqrt %x : f64
        memref.store %y, %b[%tid, %c0] : memref<?x4xf64>
        %t = arith.trunci %k : i32 to i8
        memref.store %t, %c[%tid] : memref<?xi8>
      }
      return
    }
  }
}
func.func @main() {
  %c64 = arith.constant 64 : index
  %s = arith.constant 0.5 : f64
  %n = arith.constant 64 : i64
  %k = arith.constant 7 : i32
  %a = kb.alloc : !kb.buffer<64xf16>
  %b = kb.alloc : !kb.buffer<64x4xf64>
  %c = kb.alloc : !kb.buffer<64xi8>
  kb.dispatch @mixed::@mixed[%c64](%a, %b, %c : !kb.buffer<64xf16>, !kb.buffer<64x4xf64>, !kb.buffer<64xi8>) constants(%s, %n, %k : f64, i64, i32)
  return
}
)mlir";

TEST(KbmOutputTest, MixedTypesAndNewerTargetsPassTheTools) {
  fs::path dir = freshDir("mixed");
  writeFile(dir / "program.mlir", kMixedTypesProgram);
  kb::driver::CompileOptions options;
  options.programPath = (dir / "program.mlir").string();
  // Vulkan 1.0 has no 16-bit or 8-bit storage (kb::Target's SPIR-V
  // environment), so the f16/i8 buffers of this program cannot be generated
  // for it: the compile fails at the export, naming the binding.
  options.targets = {*kb::Target::vulkan(1, 0)};
  options.outputDir = (dir / "out10").string();
  kb::driver::CompileResult refused = kb::driver::compile(options);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.diagnostics.find("vulkan:1.0"), std::string::npos)
      << refused.diagnostics;
  EXPECT_NE(refused.diagnostics.find("binding 0 (`a`)"), std::string::npos)
      << refused.diagnostics;

  options.targets = {*kb::Target::cuda(90), *kb::Target::cuda(100),
                     *kb::Target::vulkan(1, 2)};
  options.outputDir = (dir / "out").string();
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  const std::string bytes = readFile(dir / "out" / "program.kbm");
  const kbm::Module *program = verified(bytes, "program.kbm");
  ASSERT_NE(program, nullptr);
  std::vector<std::string> targets;
  for (const kbm::ExecutableVariant *v :
       *program->executables()->Get(0)->variants())
    targets.push_back(v->target()->str());
  bool havePtxas = !findTool("ptxas").empty();
  std::vector<std::string> expected =
      havePtxas ? std::vector<std::string>{"sm_90", "sm_90", "sm_90", "sm_100",
                                           "vulkan1.2"}
                : std::vector<std::string>{"sm_90", "sm_90", "vulkan1.2"};
  EXPECT_EQ(targets, expected);
  int checked = checkGeneratedBinaries(dir / "out" / "program.kbm", dir);
  if (!havePtxas || findTool("spirv-val").empty())
    GTEST_SKIP() << "ABI checked; ptxas or spirv-val not found (" << checked
                 << " binaries checked with the real tools)";
  EXPECT_EQ(checked, 3);
}

TEST(KbmOutputTest, SubstitutedBenchmarkCarriesCandidateAndReference) {
  fs::path out = freshDir("substituted");
  kb::driver::CompileResult result =
      compileQuickstart(out, /*substitute=*/true);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_FALSE(result.benchmarks.empty());
  const kb::driver::BenchmarkRecord &saxpy = result.benchmarks[0];
  EXPECT_EQ(saxpy.name, "saxpy_1048576x1x1");
  EXPECT_EQ(saxpy.candidates,
            (std::vector<std::string>{"cuda_sm_90", "vulkan_1_2"}));
  EXPECT_EQ(saxpy.references,
            (std::vector<std::string>{"cuda_sm_90_reference",
                                      "vulkan_1_2_reference"}));
  std::string bytes = readFile(out / saxpy.file);
  const kbm::Module *bench = verified(bytes, saxpy.file);
  ASSERT_NE(bench, nullptr);
  std::map<std::pair<kbm::ExecutableFormat, kbm::VariantRole>, int> seen;
  for (const kbm::ExecutableVariant *v :
       *bench->executables()->Get(0)->variants())
    ++seen[{v->format(), v->role()}];
  EXPECT_EQ((seen[{kbm::ExecutableFormat::Ptx, kbm::VariantRole::Candidate}]),
            1);
  EXPECT_EQ((seen[{kbm::ExecutableFormat::Ptx, kbm::VariantRole::Reference}]),
            1);
  EXPECT_EQ((seen[{kbm::ExecutableFormat::Spirv, kbm::VariantRole::Candidate}]),
            1);
  EXPECT_EQ((seen[{kbm::ExecutableFormat::Spirv, kbm::VariantRole::Reference}]),
            1);
}

// A handwritten kernel's dynamic shared memory (its
// kernel.toml's) is stored on its own variants; the generated reference
// keeps the export's (0 here), in the program and in its benchmarks.
TEST(KbmOutputTest, SubstitutedObjectCarriesItsOwnSharedMemory) {
  fs::path out = freshDir("shared_memory");
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::cuda(90), *kb::Target::vulkan(1, 2)};
  options.outputDir = out.string();
  options.objectSubstitutions = {{"saxpy", kInputs + "/saxpy.ptx", "", 4096},
                                 {"saxpy", kInputs + "/saxpy.spv", "", 64}};
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_FALSE(result.benchmarks.empty());
  for (const std::string &file :
       {std::string("program.kbm"), result.benchmarks[0].file}) {
    std::string bytes = readFile(out / file);
    const kbm::Module *module = verified(bytes, file);
    ASSERT_NE(module, nullptr);
    const kbm::Executable *saxpy = nullptr;
    for (const kbm::Executable *e : *module->executables())
      if (e->name()->str() == "saxpy")
        saxpy = e;
    ASSERT_NE(saxpy, nullptr) << file;
    int candidates = 0;
    for (const kbm::ExecutableVariant *v : *saxpy->variants()) {
      uint32_t bytes = v->exports()->Get(0)->dynamic_shared_memory_bytes();
      if (v->role() == kbm::VariantRole::Reference) {
        EXPECT_EQ(bytes, 0u) << file << " " << v->target()->str();
        continue;
      }
      ++candidates;
      EXPECT_EQ(bytes, v->format() == kbm::ExecutableFormat::Ptx ? 4096u : 64u)
          << file << " " << v->target()->str();
    }
    EXPECT_EQ(candidates, 2) << file;
  }
}

// A handwritten kernel with its own launch shape (a tuned tile):
// its variant carries its workgroup size and workload per workgroup, the
// reference the export's, and every dispatch its workload, so each variant
// runs its own workgroup count.
TEST(KbmOutputTest, SubstitutedObjectCarriesItsOwnLaunchShape) {
  fs::path out = freshDir("launch_shape");
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.targets = {*kb::Target::cuda(90)};
  options.outputDir = out.string();
  kb::driver::Substitution shaped{"saxpy", kInputs + "/saxpy.ptx", "", -1};
  shaped.workgroupSize = {128, 1, 1};
  shaped.workloadPerWorkgroup = {512};
  options.objectSubstitutions = {shaped};
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_FALSE(result.benchmarks.empty());
  for (const std::string &file :
       {std::string("program.kbm"), result.benchmarks[0].file}) {
    std::string bytes = readFile(out / file);
    const kbm::Module *module = verified(bytes, file);
    ASSERT_NE(module, nullptr);
    uint32_t saxpyIndex = 0;
    for (uint32_t i = 0; i < module->executables()->size(); ++i)
      if (module->executables()->Get(i)->name()->str() == "saxpy")
        saxpyIndex = i;
    const kbm::Executable *saxpy = module->executables()->Get(saxpyIndex);
    for (const kbm::ExecutableVariant *v : *saxpy->variants()) {
      const kbm::Export *e = v->exports()->Get(0);
      ASSERT_NE(e->workload_per_workgroup(), nullptr) << file;
      bool candidate = v->role() == kbm::VariantRole::Candidate;
      EXPECT_EQ(e->workgroup_size()->x(), candidate ? 128u : 256u) << file;
      EXPECT_EQ(e->workload_per_workgroup()->x(), candidate ? 512u : 256u)
          << file;
      EXPECT_EQ(e->workload_per_workgroup()->y(), 1u) << file;
    }
    bool sawDispatch = false;
    for (const kbm::Function *f : *module->functions())
      for (const kbm::Op *op : *f->ops())
        if (const kbm::Dispatch *d = op->command_as_Dispatch();
            d && d->executable() == saxpyIndex) {
          ASSERT_NE(d->workload(), nullptr) << file;
          // The reference's count, ceildiv(workload, 256), for old readers.
          EXPECT_EQ(d->workgroup_count()->x(), (d->workload()->x() + 255) / 256)
              << file;
          sawDispatch = true;
        }
    EXPECT_TRUE(sawDispatch) << file;
  }
}

/// A program with one dispatch that cannot be benchmarked.
const char *kDynamicProgram = R"mlir(
kb.executable @copy {
  kb.export @copy bindings(in: f32 readonly, out: f32 writeonly)
      constants(n: u32) workgroup_size = [64, 1, 1]
  builtin.module {
    func.func @copy() {
      %in = kb.binding 0 : memref<?xf32>
      %out = kb.binding 1 : memref<?xf32>
      %n_i32 = kb.constant 0 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg = kb.workgroup_id x
      %size = kb.workgroup_size x
      %tid = gpu.thread_id x
      %base = arith.muli %wg, %size : index
      %i = arith.addi %base, %tid : index
      %ok = arith.cmpi ult, %i, %n : index
      scf.if %ok {
        %v = memref.load %in[%i] : memref<?xf32>
        memref.store %v, %out[%i] : memref<?xf32>
      }
      return
    }
  }
}
func.func @main() {
  %c256 = arith.constant 256 : index
  %c4 = arith.constant 4 : index
  %n = arith.constant 1024 : i32
  %size = arith.muli %c256, %c4 : index
  %a = kb.alloc(%size) : !kb.buffer<?xf32>
  %b = kb.alloc(%size) : !kb.buffer<?xf32>
  kb.dispatch @copy::@copy[%size](%a, %b : !kb.buffer<?xf32>, !kb.buffer<?xf32>) constants(%n : i32)
  return
}
func.func @sized(%count: index) {
  %n = arith.constant 1024 : i32
  %a = kb.alloc : !kb.buffer<1024xf32>
  %b = kb.alloc : !kb.buffer<1024xf32>
  kb.dispatch @copy::@copy[%count](%a, %b : !kb.buffer<1024xf32>, !kb.buffer<1024xf32>) constants(%n : i32)
  return
}
)mlir";

TEST(KbmOutputTest, DynamicWorkloadsFromConstantsAreBenchmarkedOthersListed) {
  fs::path dir = freshDir("dynamic");
  writeFile(dir / "program.mlir", kDynamicProgram);
  kb::driver::CompileOptions options;
  options.programPath = (dir / "program.mlir").string();
  options.targets = {*kb::Target::vulkan(1, 2)};
  options.outputDir = (dir / "out").string();
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.benchmarks.size(), 1u);
  EXPECT_EQ(result.benchmarks[0].name, "copy_1024x1x1");
  ASSERT_EQ(result.unbenchmarked.size(), 1u);
  EXPECT_EQ(result.unbenchmarked[0].executable, "copy");
  EXPECT_NE(result.unbenchmarked[0].reason.find(
                "workload dimension 0 is argument 0 of @sized"),
            std::string::npos)
      << result.unbenchmarked[0].reason;
  // The remark and the warning about @sized are reported to the user.
  EXPECT_NE(result.diagnostics.find("not benchmarked"), std::string::npos)
      << result.diagnostics;
  EXPECT_NE(result.diagnostics.find("takes arguments"), std::string::npos)
      << result.diagnostics;
  const std::string bytes = readFile(dir / "out" / "program.kbm");
  const kbm::Module *program = verified(bytes, "program.kbm");
  ASSERT_NE(program, nullptr);
  ASSERT_EQ(program->functions()->size(), 1u);
  EXPECT_EQ(program->functions()->Get(0)->buffers()->Get(0)->element_count(),
            1024u);
}

TEST(KbmOutputTest, UnsupportedBodyOpNamesTheTargetAndWritesNothing) {
  fs::path dir = freshDir("unsupported");
  std::string text = kDynamicProgram;
  text.replace(
      text.find("memref.store %v, %out[%i]"),
      std::string("memref.store %v, %out[%i]").size(),
      "%p = math.powf %v, %v : f32\n        memref.store %p, %out[%i]");
  writeFile(dir / "program.mlir", text);
  kb::driver::CompileOptions options;
  options.programPath = (dir / "program.mlir").string();
  options.targets = {*kb::Target::cuda(90)};
  options.outputDir = (dir / "out").string();
  kb::driver::CompileResult result = kb::driver::compile(options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(
      result.diagnostics.find("'math.powf' op is not supported by the "
                              "cuda:sm_90 codegen of kb.executable @copy"),
      std::string::npos)
      << result.diagnostics;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(KbmOutputTest, CorruptedBytecodeIsAnError) {
  fs::path dir = freshDir("corrupted");
  fs::path good = dir / "good.mlirbc";
  kb::driver::CompileOptions options;
  options.programPath = kProgram;
  options.codegen = false;
  options.outputPath = good.string();
  options.emitBytecode = true;
  ASSERT_TRUE(kb::driver::compile(options).ok);
  std::string bytes = readFile(good);
  ASSERT_GT(bytes.size(), 64u);
  bytes.resize(bytes.size() / 2); // truncated
  writeFile(dir / "bad.mlirbc", bytes);
  options = {};
  options.programPath = (dir / "bad.mlirbc").string();
  options.outputDir = (dir / "out").string();
  kb::driver::CompileResult result = kb::driver::compile(options);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.diagnostics.find("bad.mlirbc"), std::string::npos)
      << result.diagnostics;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(KbmOutputTest, RebuildRemovesStaleBenchmarks) {
  fs::path out = freshDir("stale");
  fs::create_directories(out / "bench");
  writeFile(out / "bench" / "gone_gone_1x1x1.kbm", "stale");
  ASSERT_TRUE(compileQuickstart(out).ok);
  EXPECT_FALSE(fs::exists(out / "bench" / "gone_gone_1x1x1.kbm"));
  EXPECT_TRUE(fs::exists(out / "bench" / "saxpy_1048576x1x1.kbm"));
}

/// The copy executable of kDynamicProgram, alone: a reference body.
std::string copyExecutable() {
  std::string text = kDynamicProgram;
  return text.substr(0, text.find("func.func @main"));
}

kb::driver::StandaloneKernel copyKernel() {
  kb::driver::StandaloneKernel kernel;
  kernel.name = "my_copy";
  kernel.entry = "copy";
  kernel.bindings = {
      {"in", kb::ElementType::F32, kb::Access::ReadOnly, 4096},
      {"out", kb::ElementType::F32, kb::Access::WriteOnly, 4096}};
  kernel.constants = {{"n", kb::ScalarType::U32, "4096"}};
  kernel.workgroupSize = {64, 1, 1};
  kernel.workload = {4096};
  return kernel;
}

// A binding's [bench] init (here a range fill, e.g. index
// ids in bounds) reaches the program's and the benchmark's buffers, seeded;
// a bad one is refused naming the binding.
TEST(KbmOutputTest, StandaloneBindingInitReachesEveryModule) {
  fs::path dir = freshDir("standalone_init");
  writeFile(dir / "reference.mlir", copyExecutable());
  kb::driver::StandaloneKernel kernel = copyKernel();
  kernel.referenceExecutable = (dir / "reference.mlir").string();
  kernel.bindings[0].initDistribution = "range";
  kernel.bindings[0].initStart = 3;
  kernel.bindings[0].initStep = 0.5;
  std::string error;
  ASSERT_TRUE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "program.mlir").string(), error))
      << error;
  kb::driver::CompileOptions options;
  options.programPath = (dir / "program.mlir").string();
  options.targets = {*kb::Target::vulkan(1, 2)};
  options.outputDir = (dir / "out").string();
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.benchmarks.size(), 1u);
  for (const std::string &file :
       {std::string("program.kbm"), result.benchmarks[0].file}) {
    std::string bytes = readFile(dir / "out" / file);
    const kbm::Module *module = verified(bytes, file);
    ASSERT_NE(module, nullptr);
    const kbm::Function *function = module->functions()->Get(0);
    ASSERT_EQ(function->buffers()->size(), 2u) << file;
    const kbm::InitSpec *in = function->buffers()->Get(0)->init();
    ASSERT_NE(in, nullptr) << file;
    EXPECT_EQ(in->distribution(), kbm::Distribution::Range) << file;
    EXPECT_EQ(in->start(), 3.0) << file;
    EXPECT_EQ(in->step(), 0.5) << file;
    const kbm::InitSpec *out = function->buffers()->Get(1)->init();
    EXPECT_TRUE(!out || out->distribution() == kbm::Distribution::Zero) << file;
  }

  kernel.bindings[0].initDistribution = "uniform";
  kernel.bindings[0].initLow = 5;
  kernel.bindings[0].initHigh = 5;
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "bad.mlir").string(), error));
  EXPECT_NE(error.find("binding 0 (`in`): init distribution 'uniform'"),
            std::string::npos)
      << error;
}

TEST(KbmOutputTest, StandaloneKernelWithAReferenceGetsABenchmark) {
  fs::path dir = freshDir("standalone");
  writeFile(dir / "reference.mlir", copyExecutable());
  kb::driver::StandaloneKernel kernel = copyKernel();
  kernel.referenceExecutable = (dir / "reference.mlir").string();
  std::string error;
  ASSERT_TRUE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "program.mlir").string(), error))
      << error;
  kb::driver::CompileOptions options;
  options.programPath = (dir / "program.mlir").string();
  options.targets = {*kb::Target::cuda(90), *kb::Target::vulkan(1, 2)};
  options.outputDir = (dir / "out").string();
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.benchmarks.size(), 1u);
  // Named after the kernel (kernel.toml's name), not its export.
  EXPECT_EQ(result.benchmarks[0].name, "my_copy_4096x1x1");
  EXPECT_EQ(result.benchmarks[0].workgroupCount,
            (std::vector<long long>{64, 1, 1}));
  EXPECT_EQ(result.benchmarks[0].references,
            (std::vector<std::string>{"cuda_sm_90", "vulkan_1_2"}));
  const std::string bytes = readFile(dir / "out" / result.benchmarks[0].file);
  ASSERT_NE(verified(bytes, result.benchmarks[0].file), nullptr);
}

TEST(KbmOutputTest, StandaloneKernelWithoutAReferenceRunsItsObjects) {
  fs::path dir = freshDir("standalone_objects");
  kb::driver::StandaloneKernel kernel;
  kernel.name = "saxpy_only";
  kernel.entry = "saxpy";
  kernel.bindings = {{"x", kb::ElementType::F32, kb::Access::ReadOnly, 1024},
                     {"y", kb::ElementType::F32, kb::Access::ReadWrite, 1024}};
  kernel.constants = {{"a", kb::ScalarType::F32, "2.5"},
                      {"n", kb::ScalarType::U32, "1024"}};
  kernel.workgroupSize = {256, 1, 1};
  kernel.workload = {1024};
  kernel.objects = {
      {*kb::Target::vulkan(1, 2), kInputs + "/saxpy.spv", "main"}};
  std::string error;
  ASSERT_TRUE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "program.mlir").string(), error))
      << error;
  kb::driver::CompileOptions options;
  options.programPath = (dir / "program.mlir").string();
  options.targets = {*kb::Target::vulkan(1, 2)};
  options.outputDir = (dir / "out").string();
  kb::driver::CompileResult result = kb::driver::compile(options);
  ASSERT_TRUE(result.ok) << result.diagnostics;
  ASSERT_EQ(result.benchmarks.size(), 1u);
  EXPECT_EQ(result.benchmarks[0].candidates,
            (std::vector<std::string>{"vulkan_1_2"}));
  EXPECT_TRUE(result.benchmarks[0].references.empty());
  EXPECT_TRUE(result.codegen.empty());
  // The handwritten object is a candidate in every module, never passed off
  // as a (generated) reference.
  for (const std::string file :
       {std::string("program.kbm"), result.benchmarks[0].file}) {
    const std::string bytes = readFile(dir / "out" / file);
    const kbm::Module *module = verified(bytes, file);
    ASSERT_NE(module, nullptr);
    ASSERT_EQ(module->executables()->size(), 1u);
    const auto *variants = module->executables()->Get(0)->variants();
    ASSERT_EQ(variants->size(), 1u) << file;
    EXPECT_EQ(variants->Get(0)->role(), kbm::VariantRole::Candidate) << file;
  }
}

TEST(KbmOutputTest, StandaloneKernelErrorsNameTheProblem) {
  fs::path dir = freshDir("standalone_errors");
  writeFile(dir / "reference.mlir", copyExecutable());
  std::string error;
  kb::driver::StandaloneKernel kernel = copyKernel();
  kernel.referenceExecutable = (dir / "reference.mlir").string();
  kernel.bindings[1].access = kb::Access::ReadWrite;
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "a.mlir").string(), error));
  EXPECT_NE(error.find("must match"), std::string::npos) << error;
  kernel = copyKernel();
  kernel.referenceExecutable = (dir / "reference.mlir").string();
  kernel.constants[0].value = "-1";
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "b.mlir").string(), error));
  EXPECT_NE(error.find("constant 0 (`n`): value '-1' is not a u32"),
            std::string::npos)
      << error;
  // An object that does not fit the declared ABI (one constant too many).
  kernel = copyKernel();
  kernel.name = "saxpy_only";
  kernel.entry = "saxpy";
  kernel.bindings = {{"x", kb::ElementType::F32, kb::Access::ReadOnly, 1024},
                     {"y", kb::ElementType::F32, kb::Access::ReadWrite, 1024}};
  kernel.constants = {{"a", kb::ScalarType::F32, "1"},
                      {"n", kb::ScalarType::U32, "1024"},
                      {"m", kb::ScalarType::U32, "1"}};
  kernel.workgroupSize = {256, 1, 1};
  kernel.objects = {
      {*kb::Target::vulkan(1, 2), kInputs + "/saxpy.spv", "main"}};
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "d.mlir").string(), error));
  EXPECT_NE(error.find("does not match the declared ABI"), std::string::npos)
      << error;
  kernel = copyKernel();
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(
      kernel, (dir / "c.mlir").string(), error));
  EXPECT_NE(error.find("neither a reference executable nor objects"),
            std::string::npos)
      << error;
  EXPECT_FALSE(fs::exists(dir / "a.mlir") || fs::exists(dir / "b.mlir") ||
               fs::exists(dir / "c.mlir") || fs::exists(dir / "d.mlir"));
}

} // namespace
