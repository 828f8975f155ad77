//===- toolchains/toolchains_test.cpp -------------------------------------===//

#include "common/file_util.h"
#include "toolchains/toolchains.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

class ToolchainsTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir =
        TempDir::create(fs::temp_directory_path(), "kb-toolchains-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
  }
  fs::path root() const { return dir_->path(); }

  /// An executable script printing |version| for --version.
  fs::path fakeTool(const fs::path &path, const std::string &version) {
    Status written =
        writeFileAtomic(path, "#!/bin/sh\necho '" + version + "'\n");
    EXPECT_TRUE(written.ok()) << written.message();
    ::chmod(path.c_str(), 0755);
    return path;
  }

  std::optional<TempDir> dir_;
};

TEST_F(ToolchainsTest, FindsToolsOnTheSearchPathWithTheirVersion) {
  fakeTool(root() / "bin" / "glslc", "shaderc fake-1");
  ToolchainsConfig config;
  config.searchPath =
      (root() / "empty").string() + ":" + (root() / "bin").string();
  Toolchains toolchains(config);
  auto glslc = toolchains.find("glslc");
  ASSERT_TRUE(glslc.ok()) << glslc.status().message();
  EXPECT_EQ(glslc->path, root() / "bin" / "glslc");
  EXPECT_TRUE(glslc->path.is_absolute());
  EXPECT_EQ(glslc->version, "shaderc fake-1");
  EXPECT_EQ(glslc->versionSummary, "shaderc fake-1");
  EXPECT_FALSE(glslc->overridden);
}

TEST_F(ToolchainsTest, SearchOrderOverrideThenCudaPathThenPath) {
  fakeTool(root() / "cuda" / "bin" / "nvcc",
           "nvcc: fake\nCuda compilation tools, release 99.1, V99.1.0");
  fakeTool(root() / "bin" / "nvcc", "path nvcc");
  fakeTool(root() / "override" / "my-nvcc", "override nvcc");

  ToolchainsConfig config;
  config.searchPath = (root() / "bin").string();
  config.cudaPath = (root() / "cuda").string();
  auto fromCuda = Toolchains(config).find("nvcc");
  ASSERT_TRUE(fromCuda.ok()) << fromCuda.status().message();
  EXPECT_EQ(fromCuda->path, root() / "cuda" / "bin" / "nvcc");
  EXPECT_EQ(fromCuda->versionSummary,
            "Cuda compilation tools, release 99.1, V99.1.0");

  config.overrides["nvcc"] = root() / "override" / "my-nvcc";
  auto fromOverride = Toolchains(config).find("nvcc");
  ASSERT_TRUE(fromOverride.ok()) << fromOverride.status().message();
  EXPECT_EQ(fromOverride->path, root() / "override" / "my-nvcc");
  EXPECT_TRUE(fromOverride->overridden);
}

TEST_F(ToolchainsTest, MissingToolIsUnavailableWithAnInstallHint) {
  ToolchainsConfig config;
  config.searchPath = (root() / "nothing-here").string();
  Toolchains toolchains(config);
  auto glslc = toolchains.find("glslc");
  ASSERT_FALSE(glslc.ok());
  EXPECT_EQ(glslc.status().code(), StatusCode::Unavailable);
  const std::string &message = glslc.status().message();
  EXPECT_NE(message.find("glslc not found"), std::string::npos) << message;
  EXPECT_NE(message.find("PATH=" + (root() / "nothing-here").string()),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("`glslc`"), std::string::npos) << message;
  EXPECT_NE(message.find("[toolchains] glslc"), std::string::npos) << message;

  auto spirvVal = toolchains.find("spirv-val");
  ASSERT_FALSE(spirvVal.ok());
  EXPECT_NE(spirvVal.status().message().find("`spirv-tools`"),
            std::string::npos);
}

TEST_F(ToolchainsTest, OverrideToAMissingFileIsUnavailable) {
  fakeTool(root() / "bin" / "ptxas", "would be found on PATH");
  ToolchainsConfig config;
  config.searchPath = (root() / "bin").string();
  config.overrides["ptxas"] = root() / "no" / "ptxas";
  auto ptxas = Toolchains(config).find("ptxas");
  ASSERT_FALSE(ptxas.ok()) << "an override must never fall back to PATH";
  EXPECT_EQ(ptxas.status().code(), StatusCode::Unavailable);
  EXPECT_NE(ptxas.status().message().find((root() / "no" / "ptxas").string()),
            std::string::npos)
      << ptxas.status().message();
  EXPECT_NE(ptxas.status().message().find("does not exist"), std::string::npos);
}

TEST_F(ToolchainsTest, ToolWhoseVersionProbeFailsIsUnavailable) {
  fs::path broken = root() / "bin" / "spirv-opt";
  ASSERT_TRUE(
      writeFileAtomic(broken, "#!/bin/sh\necho broken >&2\nexit 3\n").ok());
  ::chmod(broken.c_str(), 0755);
  ToolchainsConfig config;
  config.searchPath = (root() / "bin").string();
  auto opt = Toolchains(config).find("spirv-opt");
  ASSERT_FALSE(opt.ok());
  EXPECT_EQ(opt.status().code(), StatusCode::Unavailable);
  EXPECT_NE(opt.status().message().find("exit code 3"), std::string::npos)
      << opt.status().message();
}

// With a probe directory, a second run (a new Toolchains, as in a new
// process) reuses the recorded `--version` instead of spawning the tool;
// replacing the executable invalidates the record.
TEST_F(ToolchainsTest, VersionProbesAreRememberedAcrossRuns) {
  fs::path tool = root() / "bin" / "glslc";
  fs::path count = root() / "count";
  auto install = [&](const std::string &version) {
    ASSERT_TRUE(writeFileAtomic(tool, "#!/bin/sh\necho x >> '" +
                                          count.string() + "'\necho '" +
                                          version + "'\n")
                    .ok());
    ::chmod(tool.c_str(), 0755);
  };
  auto spawns = [&] {
    auto text = readFile(count);
    return text.ok() ? std::count(text->begin(), text->end(), '\n') : 0;
  };
  install("glslc one");
  ToolchainsConfig config;
  config.searchPath = (root() / "bin").string();
  config.probeCacheDirectory = root() / "probes";

  auto first = Toolchains(config).find("glslc");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(spawns(), 1);
  auto second = Toolchains(config).find("glslc");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->version, "glslc one");
  EXPECT_EQ(spawns(), 1) << "the recorded probe was not reused";

  install("glslc two"); // a new file: new inode, mtime and ctime
  auto third = Toolchains(config).find("glslc");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->version, "glslc two");
  EXPECT_EQ(spawns(), 2);

  config.probeCacheDirectory.clear();
  ASSERT_TRUE(Toolchains(config).find("glslc").ok());
  EXPECT_EQ(spawns(), 3) << "without a probe directory every run probes";
}

// One flipped byte in a probe record used to reach build.json
// (and nlohmann's UTF-8 check). Every record carries a checksum; a bad one
// is a miss and the tool is asked again.
TEST_F(ToolchainsTest, CorruptedProbeRecordIsAMiss) {
  fs::path tool = root() / "bin" / "glslc";
  fs::path count = root() / "count";
  ASSERT_TRUE(writeFileAtomic(tool, "#!/bin/sh\necho x >> '" + count.string() +
                                        "'\necho 'glslc one'\n")
                  .ok());
  ::chmod(tool.c_str(), 0755);
  ToolchainsConfig config;
  config.searchPath = (root() / "bin").string();
  config.probeCacheDirectory = root() / "probes";
  ASSERT_TRUE(Toolchains(config).find("glslc").ok());
  std::vector<fs::path> records;
  for (const auto &entry : fs::recursive_directory_iterator(root() / "probes"))
    if (entry.is_regular_file())
      records.push_back(entry.path());
  ASSERT_EQ(records.size(), 1u);
  std::string bytes = *readFile(records[0]);
  for (size_t at : {bytes.size() - 3, size_t(30), size_t(5)}) {
    std::string flipped = bytes;
    flipped[at] = char(flipped[at] ^ 0x80);
    ASSERT_TRUE(writeFileAtomic(records[0], flipped).ok());
    auto found = Toolchains(config).find("glslc");
    ASSERT_TRUE(found.ok()) << found.status().message();
    EXPECT_EQ(found->version, "glslc one") << "byte " << at;
  }
  auto text = readFile(count);
  EXPECT_EQ(std::count(text->begin(), text->end(), '\n'), 4)
      << "every corrupted record must be a miss";
}

// A tool that hangs on --version is named, with the timeout.
TEST_F(ToolchainsTest, ToolHangingOnVersionIsNamedWithTheTimeout) {
  fs::path tool = root() / "bin" / "spirv-val";
  ASSERT_TRUE(writeFileAtomic(tool, "#!/bin/sh\nsleep 60\n").ok());
  ::chmod(tool.c_str(), 0755);
  ToolchainsConfig config;
  config.searchPath = (root() / "bin").string();
  config.probeTimeout = std::chrono::milliseconds(300);
  auto found = Toolchains(config).find("spirv-val");
  ASSERT_FALSE(found.ok());
  EXPECT_EQ(found.status().code(), StatusCode::Unavailable);
  const std::string &message = found.status().message();
  EXPECT_NE(message.find("spirv-val `" + tool.string() + "`"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("within 0.3 s"), std::string::npos) << message;
  EXPECT_EQ(message.find(": ."), std::string::npos) << message;
}

TEST_F(ToolchainsTest, UnknownToolIsAnError) {
  auto tool = Toolchains().find("clang");
  ASSERT_FALSE(tool.ok());
  EXPECT_EQ(tool.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(tool.status().message().find("spirv-val"), std::string::npos);
}

// The real toolkit, where installed.
TEST(ToolchainsRealTest, FindsInstalledTools) {
  Toolchains toolchains;
  int found = 0;
  for (const std::string &name : Toolchains::knownTools()) {
    auto tool = toolchains.find(name);
    if (!tool.ok()) {
      EXPECT_EQ(tool.status().code(), StatusCode::Unavailable)
          << tool.status().message();
      continue;
    }
    ++found;
    EXPECT_TRUE(tool->path.is_absolute());
    EXPECT_FALSE(tool->versionSummary.empty()) << name;
    if (name == "nvcc" || name == "ptxas")
      EXPECT_NE(tool->versionSummary.find("release"), std::string::npos)
          << tool->versionSummary;
  }
  if (found == 0)
    GTEST_SKIP() << "no toolchain installed on this host";
}

} // namespace
} // namespace kb::toolchains
