//===- toolchains/host_reference_test.cpp - C/C++ references with gcc -----===//
//
// The generated entry point over real gcc: a C++ and a C reference built
// into shared objects, loaded and called through the fixed signature; the
// kernel's own parameter order; a function with the wrong parameters
// refused at build time with the signature it must have; the cache hit on
// an unchanged build and the miss after an included header changed.
//
//===----------------------------------------------------------------------===//
#include "toolchains/host_reference.h"

#include "common/file_util.h"
#include "common/test_util.h"
#include "toolchains/build_cache.h"
#include "toolchains/toolchains.h"

#include <cstring>
#include <dlfcn.h>
#include <gtest/gtest.h>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

/// saxpy: y = a*x + y over n, with (x readonly, y readwrite; a f32, n u32).
HostReferenceSpec saxpySpec(const fs::path &source) {
  HostReferenceSpec spec;
  spec.kernel = "saxpy";
  spec.source = source;
  spec.function = "saxpy_ref";
  spec.abi.bindings = {{"x", ElementType::F32, Access::ReadOnly},
                       {"y", ElementType::F32, Access::ReadWrite}};
  spec.abi.constants = {{"a", ScalarType::F32}, {"n", ScalarType::U32}};
  return spec;
}

void write(const fs::path &path, const std::string &text) {
  ASSERT_TRUE(writeFileAtomic(path, text).ok()) << path;
}

/// Loads |so| and runs saxpy over 4 elements with a = 2; returns y.
std::vector<float> callSaxpy(const fs::path &so) {
  void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(handle, nullptr) << dlerror();
  if (!handle)
    return {};
  auto entry = reinterpret_cast<HostReferenceEntryFn>(
      dlsym(handle, kHostReferenceEntry));
  EXPECT_NE(entry, nullptr);
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  unsigned char constants[8];
  float a = 2;
  uint32_t n = 4;
  std::memcpy(constants, &a, 4);
  std::memcpy(constants + 4, &n, 4);
  void *bindings[] = {x.data(), y.data()};
  uint64_t workload[3] = {4, 1, 1};
  if (entry) {
    // Counts other than the built ones: refused, the function not called.
    EXPECT_EQ(entry(bindings, 1, constants, 8, workload), 1);
    EXPECT_EQ(entry(bindings, 2, constants, 4, workload), 1);
    EXPECT_EQ(entry(bindings, 2, constants, 8, workload), 0);
  }
  dlclose(handle);
  return y;
}

class HostReferenceTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!kb::testing::findTool("gcc"))
      GTEST_SKIP() << "no gcc on PATH";
  }
  HostReferenceResult build(const HostReferenceSpec &spec,
                            BuildCache *cache = nullptr) {
    return buildHostReference(toolchains_, cache, BuildOptions(), spec,
                              dir_.path() / "out" / "ref.so");
  }
  kb::TempDir dir_ = kb::testing::makeTempDir();
  Toolchains toolchains_;
};

TEST_F(HostReferenceTest, SignatureFollowsTheKernelsParameterOrder) {
  HostReferenceSpec spec = saxpySpec("/p/ref.cpp");
  EXPECT_EQ(hostReferenceSignature(spec),
            "void saxpy_ref(const float *x, float *y, float a, uint32_t n, "
            "const uint64_t workload[3])");
  spec.abi.parameterOrder = {3, 1, 2, 0};
  EXPECT_EQ(hostReferenceSignature(spec),
            "void saxpy_ref(uint32_t n, float *y, float a, const float *x, "
            "const uint64_t workload[3])");
  std::string shim = hostReferenceShim(spec);
  EXPECT_NE(shim.find("#include \"ref.cpp\""), std::string::npos) << shim;
  EXPECT_NE(shim.find("saxpy_ref(c1, (float *)bindings[1], c0, "
                      "(float *)bindings[0], workload);"),
            std::string::npos)
      << shim;
}

TEST_F(HostReferenceTest, CxxReferenceBuildsAndRuns) {
  write(dir_.path() / "scale.h", "static inline float scale(float a, float "
                                 "x) { return a * x; }\n");
  write(dir_.path() / "ref.cpp",
        "#include \"scale.h\"\n#include <cstdint>\n#include <vector>\n"
        "extern \"C\" void saxpy_ref(const float *x, float *y, float a,\n"
        "    unsigned n, const uint64_t *w) {\n"
        "  std::vector<float> tmp(x, x + n);\n"
        "  for (unsigned i = 0; i < w[0]; ++i) y[i] += scale(a, tmp[i]);\n}\n");
  HostReferenceResult r = build(saxpySpec(dir_.path() / "ref.cpp"));
  ASSERT_TRUE(r.status.ok()) << r.status.message() << "\n" << r.failureLog;
  EXPECT_EQ(r.output.kind, "so");
  EXPECT_EQ(r.output.path, dir_.path() / "out" / "ref.so");
  EXPECT_EQ(callSaxpy(r.output.path), (std::vector<float>{12, 24, 36, 48}));
}

TEST_F(HostReferenceTest, CReferenceBuildsAndRuns) {
  write(dir_.path() / "ref.c",
        "#include <stdint.h>\n"
        "void saxpy_ref(const float *x, float *y, float a, uint32_t n,\n"
        "               const uint64_t workload[3]) {\n"
        "  (void)workload;\n"
        "  for (uint32_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];\n}\n");
  HostReferenceResult r = build(saxpySpec(dir_.path() / "ref.c"));
  ASSERT_TRUE(r.status.ok()) << r.status.message() << "\n" << r.failureLog;
  EXPECT_EQ(callSaxpy(r.output.path), (std::vector<float>{12, 24, 36, 48}));
}

TEST_F(HostReferenceTest, WrongParametersAreRefusedWithTheSignature) {
  // No workload parameter, and a double pointer for an f32 binding (C).
  write(dir_.path() / "ref.cpp",
        "extern \"C\" void saxpy_ref(const float *x, float *y, float a,\n"
        "                            unsigned n) {}\n");
  HostReferenceResult r = build(saxpySpec(dir_.path() / "ref.cpp"));
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("must be callable as `void saxpy_ref("
                                    "const float *x, float *y, float a, "
                                    "uint32_t n, const uint64_t workload[3])"),
            std::string::npos)
      << r.status.message();
  EXPECT_NE(r.status.message().find("ref.cpp"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_.path() / "out" / "ref.so"));

  write(dir_.path() / "ref.c",
        "#include <stdint.h>\nvoid saxpy_ref(const double *x, float *y, "
        "float a, uint32_t n, const uint64_t *w) {}\n");
  r = build(saxpySpec(dir_.path() / "ref.c"));
  EXPECT_FALSE(r.status.ok());
  write(dir_.path() / "none.cpp", "int unrelated;\n");
  r = build(saxpySpec(dir_.path() / "none.cpp"));
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("saxpy_ref"), std::string::npos);
}

TEST_F(HostReferenceTest, BadSpecsAreRefusedBeforeTheCompiler) {
  HostReferenceSpec spec = saxpySpec(dir_.path() / "missing.cpp");
  HostReferenceResult r = build(spec);
  EXPECT_EQ(r.status.code(), StatusCode::NotFound) << r.status.message();
  EXPECT_TRUE(r.commands.empty());
  write(dir_.path() / "ref.cpp", "\n");
  spec = saxpySpec(dir_.path() / "ref.cpp");
  spec.function = "not-an-identifier";
  r = build(spec);
  EXPECT_EQ(r.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(r.status.message().find("entry = \"NAME\""), std::string::npos);
  EXPECT_TRUE(r.commands.empty());
}

TEST_F(HostReferenceTest, CachedUntilAnIncludedHeaderChanges) {
  StatusOr<std::unique_ptr<BuildCache>> cache =
      BuildCache::open(dir_.path() / "cache");
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  write(dir_.path() / "factor.h", "#define FACTOR 1.0f\n");
  write(dir_.path() / "ref.cpp",
        "#include \"factor.h\"\n#include <cstdint>\n"
        "extern \"C\" void saxpy_ref(const float *x, float *y, float a,\n"
        "    uint32_t n, const uint64_t *) {\n"
        "  for (uint32_t i = 0; i < n; ++i) y[i] += FACTOR * a * x[i];\n}\n");
  HostReferenceSpec spec = saxpySpec(dir_.path() / "ref.cpp");
  HostReferenceResult first = build(spec, cache->get());
  ASSERT_TRUE(first.status.ok()) << first.status.message();
  EXPECT_FALSE(first.cacheHit);
  HostReferenceResult again = build(spec, cache->get());
  ASSERT_TRUE(again.status.ok()) << again.status.message();
  EXPECT_TRUE(again.cacheHit);
  EXPECT_EQ(again.output.sha256, first.output.sha256);

  // A new inode and size: the stat-keyed memo sees the change at once.
  write(dir_.path() / "factor.h", "#define FACTOR 2.00f\n");
  HostReferenceResult changed = build(spec, cache->get());
  ASSERT_TRUE(changed.status.ok()) << changed.status.message();
  EXPECT_FALSE(changed.cacheHit);
  EXPECT_NE(changed.output.sha256, first.output.sha256);
  EXPECT_EQ(callSaxpy(changed.output.path),
            (std::vector<float>{14, 28, 42, 56}));
}

} // namespace
} // namespace kb::toolchains
