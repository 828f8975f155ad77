//===- toolchains/build_cache_test.cpp ------------------------------------===//

#include "toolchains/build_cache.h"
#include "common/file_util.h"

#include <gtest/gtest.h>
#include <thread>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

class BuildCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb-cache-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    auto cache = BuildCache::open(root() / "cache");
    ASSERT_TRUE(cache.ok()) << cache.status().message();
    cache_ = std::move(*cache);
    header_ = (root() / "k.h").string();
    write(header_, "#define N 1\n");
  }
  fs::path root() const { return dir_->path(); }
  void write(const std::string &path, const std::string &text) {
    ASSERT_TRUE(writeFileAtomic(path, text).ok());
  }
  static fs::file_time_type later() {
    return fs::file_time_type::clock::now() + std::chrono::hours(1);
  }
  CacheEntry sampleEntry() const {
    CacheEntry entry;
    entry.outputs["ptx"] = "// ptx\n.version 9.0\n";
    entry.outputs["cubin"] = std::string("\x7f"
                                         "ELF\0\x01\x02",
                                         7);
    Diagnostic d;
    d.tool = "nvcc";
    d.file = "k.cu";
    d.line = 3;
    d.severity = Severity::Warning;
    d.message = "variable \"x\" was declared but never referenced";
    d.code = "177-D";
    entry.diagnostics.push_back(d);
    ResourceUsage usage;
    usage.registers = 10;
    usage.sharedMemoryBytes = 1024;
    entry.resources = usage;
    ToolInvocation invocation;
    invocation.tool = "nvcc";
    invocation.argv = {"/usr/local/cuda/bin/nvcc", "-ptx"};
    invocation.seconds = 0.5;
    entry.commands.push_back(invocation);
    entry.dependencies = {header_};
    return entry;
  }
  std::string key(const std::string &seed) {
    return CacheKeyBuilder().add("test").add(seed).finish();
  }

  std::optional<TempDir> dir_;
  std::unique_ptr<BuildCache> cache_;
  std::string header_;
};

TEST_F(BuildCacheTest, KeyFieldsAreLengthPrefixed) {
  EXPECT_NE(CacheKeyBuilder().add("ab").add("c").finish(),
            CacheKeyBuilder().add("a").add("bc").finish());
  EXPECT_EQ(CacheKeyBuilder().add("a").finish(),
            CacheKeyBuilder().add("a").finish());
  EXPECT_EQ(CacheKeyBuilder().add("a").finish().size(), 64u);
}

TEST_F(BuildCacheTest, MissThenHitRestoresEverything) {
  std::string k = key("one");
  EXPECT_FALSE(cache_->lookup(k).has_value());
  ASSERT_TRUE(cache_->store(k, sampleEntry(), later()).ok());
  auto hit = cache_->lookup(k);
  ASSERT_TRUE(hit.has_value());
  CacheEntry expected = sampleEntry();
  EXPECT_EQ(hit->outputs, expected.outputs);
  ASSERT_EQ(hit->diagnostics.size(), 1u);
  EXPECT_EQ(hit->diagnostics[0].message, expected.diagnostics[0].message);
  EXPECT_EQ(hit->diagnostics[0].severity, Severity::Warning);
  EXPECT_EQ(hit->diagnostics[0].code, "177-D");
  ASSERT_TRUE(hit->resources.has_value());
  EXPECT_EQ(hit->resources->registers, 10u);
  EXPECT_EQ(hit->resources->sharedMemoryBytes, 1024u);
  ASSERT_EQ(hit->commands.size(), 1u);
  EXPECT_EQ(hit->commands[0].argv, expected.commands[0].argv);
  EXPECT_EQ(hit->dependencies, expected.dependencies);
  EXPECT_FALSE(cache_->lookup(key("other")).has_value());
  auto stats = cache_->stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.stores, 1u);
  EXPECT_TRUE(fs::exists(root() / "cache" / "CACHEDIR.TAG"));
}

TEST_F(BuildCacheTest, DependencyChangeInvalidatesAndRevertHitsAgain) {
  std::string k = key("deps");
  ASSERT_TRUE(cache_->store(k, sampleEntry(), later()).ok());
  ASSERT_TRUE(cache_->lookup(k).has_value());

  write(header_, "#define N 2\n");
  EXPECT_FALSE(cache_->lookup(k).has_value());
  CacheEntry second = sampleEntry();
  second.outputs["ptx"] = "// built with N 2\n";
  ASSERT_TRUE(cache_->store(k, second, later()).ok());
  auto hit2 = cache_->lookup(k);
  ASSERT_TRUE(hit2.has_value());
  EXPECT_EQ(hit2->outputs["ptx"], "// built with N 2\n");

  // Both candidates are kept: going back to the old header hits the old
  // result.
  write(header_, "#define N 1\n");
  auto hit1 = cache_->lookup(k);
  ASSERT_TRUE(hit1.has_value());
  EXPECT_EQ(hit1->outputs["ptx"], sampleEntry().outputs["ptx"]);

  fs::remove(header_);
  EXPECT_FALSE(cache_->lookup(k).has_value());
}

TEST_F(BuildCacheTest, DependencyEditedDuringTheJobIsNotStored) {
  std::string k = key("racy");
  auto jobStart = fs::file_time_type::clock::now() - std::chrono::hours(1);
  ASSERT_TRUE(cache_->store(k, sampleEntry(), jobStart).ok());
  EXPECT_FALSE(cache_->lookup(k).has_value());
  EXPECT_EQ(cache_->stats().stores, 0u);
}

TEST_F(BuildCacheTest, CorruptedEntriesAreMisses) {
  std::string k = key("corrupt");
  ASSERT_TRUE(cache_->store(k, sampleEntry(), later()).ok());
  ASSERT_TRUE(cache_->lookup(k).has_value());
  int corrupted = 0;
  for (const auto &file :
       fs::recursive_directory_iterator(root() / "cache" / "v1" / "results")) {
    if (!file.is_regular_file())
      continue;
    auto bytes = readFile(file.path());
    ASSERT_TRUE(bytes.ok());
    std::string flipped = *bytes;
    flipped[flipped.size() / 2] ^= 0x55;
    ASSERT_TRUE(writeFileAtomic(file.path(), flipped).ok());
    ++corrupted;
  }
  ASSERT_EQ(corrupted, 1);
  EXPECT_FALSE(cache_->lookup(k).has_value());

  // A truncated manifest too; storing again repairs the entry.
  for (const auto &file :
       fs::recursive_directory_iterator(root() / "cache" / "v1" / "manifests"))
    if (file.is_regular_file())
      fs::resize_file(file.path(), 10);
  EXPECT_FALSE(cache_->lookup(k).has_value());
  ASSERT_TRUE(cache_->store(k, sampleEntry(), later()).ok());
  EXPECT_TRUE(cache_->lookup(k).has_value());
}

// Two writers (two BuildCache objects on one directory, as two processes
// would have) storing and reading the same keys concurrently: every lookup
// is a miss or a complete, correct entry.
// Paths are bytes, not UTF-8. A source under a Latin-1 directory
// name used to throw nlohmann's type_error.316 out of store(); entries now
// round-trip such bytes exactly.
TEST_F(BuildCacheTest, NonUtf8PathsAndTextRoundTripLosslessly) {
  std::string odd = (root() / "caf\xe9").string();
  fs::create_directories(odd);
  std::string header = odd + "/k\xff.h";
  write(header, "#define N 2\n");
  CacheEntry entry = sampleEntry();
  entry.dependencies = {header};
  entry.diagnostics[0].file = "k\xff.h";
  entry.diagnostics[0].message = "bad byte \xfe here";
  entry.commands[0].argv.push_back(header);
  std::string k = key("latin1");
  Status stored = cache_->store(k, entry, later());
  ASSERT_TRUE(stored.ok()) << stored.message();
  auto hit = cache_->lookup(k);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->dependencies, entry.dependencies);
  EXPECT_EQ(hit->diagnostics[0].file, "k\xff.h");
  EXPECT_EQ(hit->diagnostics[0].message, "bad byte \xfe here");
  EXPECT_EQ(hit->commands[0].argv.back(), header);
  write(header, "#define N 3\n");
  EXPECT_FALSE(cache_->lookup(k).has_value());
}

TEST_F(BuildCacheTest, ConcurrentWritersShareADirectory) {
  auto other = BuildCache::open(root() / "cache");
  ASSERT_TRUE(other.ok());
  std::vector<std::string> keys;
  for (int i = 0; i < 20; ++i)
    keys.push_back(key("concurrent" + std::to_string(i)));
  std::atomic<int> bad{0};
  auto worker = [&](BuildCache *cache) {
    for (int round = 0; round < 5; ++round) {
      for (const std::string &k : keys) {
        if (!cache->store(k, sampleEntry(), later()).ok())
          ++bad;
        auto hit = cache->lookup(k);
        if (hit && hit->outputs != sampleEntry().outputs)
          ++bad;
      }
    }
  };
  std::thread a(worker, cache_.get());
  std::thread b(worker, other->get());
  a.join();
  b.join();
  EXPECT_EQ(bad.load(), 0);
  for (const std::string &k : keys)
    EXPECT_TRUE(cache_->lookup(k).has_value());
  // No temporary files are left behind.
  for (const auto &file : fs::recursive_directory_iterator(root() / "cache"))
    EXPECT_EQ(file.path().filename().string().find(".tmp-"), std::string::npos)
        << file.path();
}

TEST(BuildCacheDirectoryTest, DefaultDirectoryFollowsTheEnvironment) {
  auto saved = [](const char *name) -> std::optional<std::string> {
    const char *value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  auto kb = saved("KB_CACHE_DIR"), xdg = saved("XDG_CACHE_HOME"),
       home = saved("HOME");
  ::setenv("KB_CACHE_DIR", "/kb", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(*BuildCache::defaultDirectory(), fs::path("/kb"));
  ::unsetenv("KB_CACHE_DIR");
  EXPECT_EQ(*BuildCache::defaultDirectory(), fs::path("/xdg/kernel-bench"));
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(*BuildCache::defaultDirectory(),
            fs::path("/home/u/.cache/kernel-bench"));
  ::unsetenv("HOME");
  auto none = BuildCache::defaultDirectory();
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("KB_CACHE_DIR"), std::string::npos);
  auto restore = [](const char *name, const std::optional<std::string> &value) {
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  };
  restore("KB_CACHE_DIR", kb);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

} // namespace
} // namespace kb::toolchains
