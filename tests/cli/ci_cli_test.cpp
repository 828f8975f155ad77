//===- tests/cli/ci_cli_test.cpp - bundle, shards and merge end to end ----===//
//
// `kernel-bench bundle`, `bench BUNDLE.tar`'s refusals, the shard flags and
// environments' usage errors and `kernel-bench merge`, through the built
// binary. No device and no toolchain needed: the build directory is made by
// hand (bundle packs files; it does not parse modules) and the reports are
// synthetic. The full pipeline on lavapipe is tests/e2e/ci_pipeline_test.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "workbench/report/bench_json.h"
#include "workbench/report/synthetic_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <sys/resource.h>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

using Cli = kb::test::CliRun;

void writeText(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

class CiCliTest : public kb::test::KernelBenchTest {
protected:
  CiCliTest() : KernelBenchTest("kb_ci_cli") {}

  /// A build directory as `kernel-bench build` leaves it, with files a
  /// bundle must leave out (sources, PTX) next to the ones it takes.
  void SetUp() override {
    KernelBenchTest::SetUp();
    writeText(out_ / "build.json", "{\"schema_version\": 1, \"jobs\": []}\n");
    writeText(out_ / "bench/saxpy.kbm", "saxpy module bytes");
    writeText(out_ / "standalone/scale/bench/scale.kbm", "scale module");
    writeText(out_ / "standalone/scale/program.mlir", "// not bundled");
    writeText(out_ / "program.kbm", "program module");
    writeText(out_ / "kernels/saxpy/sm_90.ptx", "// not bundled");
    writeText(out_ / "results/bench.json", "{}");
    bundle_ = tmp_ / "b.tar";
  }

  Cli makeBundle() {
    return run({"bundle", out_.string(), "-o", bundle_.string()});
  }

  fs::path bundle_;
};

TEST_F(CiCliTest, BundleHoldsTheModulesBuildJsonAndAManifest) {
  Cli made = makeBundle();
  ASSERT_EQ(made.exitCode, 0) << made.output;
  EXPECT_THAT(made.output, HasSubstr("bundled 4 files (build.json + 3 "
                                     "modules"));
  fs::path x = tmp_ / "x";
  fs::create_directories(x);
  std::string tar = "tar -C " + x.string() + " -xf " + bundle_.string();
  ASSERT_EQ(std::system(tar.c_str()), 0);
  std::vector<std::string> files;
  for (const auto &e : fs::recursive_directory_iterator(x))
    if (e.is_regular_file())
      files.push_back(fs::relative(e.path(), x).string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files,
            (std::vector<std::string>{
                "bench/saxpy.kbm", "build.json", "kernel-bench-bundle.sha256",
                "program.kbm", "standalone/scale/bench/scale.kbm"}));
  // The manifest is sha256sum's format: checkable by hand.
  std::string check = "cd " + x.string() +
                      " && sha256sum --quiet -c kernel-bench-bundle.sha256";
  EXPECT_EQ(std::system(check.c_str()), 0);

  // The same build gives the same bytes.
  std::string first = kb::test::readFile(bundle_);
  ASSERT_EQ(makeBundle().exitCode, 0);
  EXPECT_EQ(kb::test::readFile(bundle_), first);
}

TEST_F(CiCliTest, BundleRefusesWhatIsNotABuild) {
  fs::remove(out_ / "build.json");
  Cli r = makeBundle();
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has no build.json"));
  EXPECT_FALSE(fs::exists(bundle_));
  EXPECT_EQ(run({"bundle", out_.string()}).exitCode, 2); // -o is required
}

TEST_F(CiCliTest, ATamperedBundleIsRefusedNamingTheMember) {
  ASSERT_EQ(makeBundle().exitCode, 0);
  std::string bytes = kb::test::readFile(bundle_);
  size_t at = bytes.find("scale module");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'S';
  writeText(bundle_, bytes);
  Cli r = run({"bench", bundle_.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("member `standalone/scale/bench/scale.kbm`"
                                  ": sha256 mismatch"));
  EXPECT_FALSE(fs::exists(tmp_ / "b-results"));
}

/// A manifest whose lines end in CRLF (a Windows checkout or editor on the
/// way) reads as the same manifest, not as "format 1 ... reads format 1".
TEST_F(CiCliTest, ABundleWithACrlfManifestIsRead) {
  ASSERT_EQ(makeBundle().exitCode, 0);
  fs::path x = tmp_ / "crlf";
  fs::create_directories(x);
  std::string members = "kernel-bench-bundle.sha256 build.json program.kbm "
                        "bench/saxpy.kbm standalone/scale/bench/scale.kbm";
  std::string retar = "tar -C " + x.string() + " -xf " + bundle_.string() +
                      " && sed -i 's/$/\r/' " +
                      (x / "kernel-bench-bundle.sha256").string() +
                      " && tar --format=ustar -C " + x.string() + " -cf " +
                      bundle_.string() + " " + members;
  ASSERT_EQ(std::system(retar.c_str()), 0);
  Cli r = run({"bench", bundle_.string(), "--filter", "no-such-benchmark", "-o",
               (tmp_ / "res").string()});
  EXPECT_THAT(r.output, Not(HasSubstr("bundle format"))) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("manifest"))) << r.output;
  EXPECT_EQ(r.exitCode, 5) << r.output; // opened; the filter matched nothing
}

TEST_F(CiCliTest, ABaselineBundleIsCheckedLikeTheBuild) {
  ASSERT_EQ(makeBundle().exitCode, 0);
  std::string bytes = kb::test::readFile(bundle_);
  size_t at = bytes.find("saxpy module");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'S';
  writeText(bundle_, bytes);
  Cli r = run({"bench", out_.string(), "-o", (tmp_ / "res").string(),
               "--baseline", bundle_.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--baseline: " + bundle_.string() +
                                  ": member `bench/saxpy.kbm`: sha256 "
                                  "mismatch"));
  EXPECT_FALSE(fs::exists(tmp_ / "res"));
}

/// A CI runner's own shard variables must not reach the kernel-bench a test
/// starts (tests/support clears them), while a test's own values do.
TEST_F(CiCliTest, TheRunnersShardEnvironmentDoesNotLeakIntoTests) {
  const char *names[] = {"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
                         "KB_SHARD_INDEX", "KB_SHARD_COUNT"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char *name : names) {
    const char *value = std::getenv(name);
    saved.emplace_back(name, value ? std::optional<std::string>(value)
                                   : std::nullopt);
    ::setenv(name, "5", 1);
  }
  ::setenv("KB_SHARD_COUNT", "3", 1);
  fs::path none = tmp_ / "no-build";
  Cli plain = run({"bench", none.string()});
  Cli own = run({"bench", none.string()},
                {{"KB_SHARD_INDEX", "4"}, {"KB_SHARD_COUNT", "3"}});
  for (const auto &[name, value] : saved)
    value ? ::setenv(name.c_str(), value->c_str(), 1)
          : ::unsetenv(name.c_str());
  EXPECT_EQ(plain.exitCode, 1) << plain.output; // no build, not a bad shard
  EXPECT_THAT(plain.output, Not(HasSubstr("shard")));
  EXPECT_EQ(own.exitCode, 2) << own.output;
  EXPECT_THAT(own.output, HasSubstr("shard index 4 is out of range"));
}

TEST_F(CiCliTest, ATruncatedBundleIsRefused) {
  ASSERT_EQ(makeBundle().exitCode, 0);
  std::string bytes = kb::test::readFile(bundle_);
  writeText(bundle_, bytes.substr(0, 512 * 4 + 100));
  Cli r = run({"bench", bundle_.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("truncated"));
}

TEST_F(CiCliTest, LinksAndTraversalInABundleAreRefused) {
  // Python's tarfile writes what our writer never would.
  for (const char *member :
       {"tarfile.TarInfo('../escape')", "tarfile.TarInfo('/etc/x')", "link"}) {
    std::string script =
        "import io, tarfile\n"
        "t = tarfile.open('" +
        bundle_.string() +
        "', 'w', format=tarfile.USTAR_FORMAT)\n"
        "m = b'# kernel-bench bundle 1\\n'\n"
        "i = tarfile.TarInfo('kernel-bench-bundle.sha256'); i.size = len(m)\n"
        "t.addfile(i, io.BytesIO(m))\n"
        "link = tarfile.TarInfo('evil'); link.type = tarfile.SYMTYPE\n"
        "link.linkname = '/etc/passwd'\n"
        "e = " +
        std::string(member) +
        "\n"
        "t.addfile(e, io.BytesIO(b''))\n"
        "t.close()\n";
    writeText(tmp_ / "make.py", script);
    ASSERT_EQ(std::system(("python3 " + (tmp_ / "make.py").string()).c_str()),
              0);
    Cli r = run({"bench", bundle_.string()});
    EXPECT_EQ(r.exitCode, 1) << member << ": " << r.output;
    EXPECT_THAT(r.output, ::testing::AnyOf(HasSubstr("`..` component"),
                                           HasSubstr("absolute path"),
                                           HasSubstr("a symbolic link")));
  }
}

/// A sparse 2 GiB member appended after the others: not in the manifest,
/// it is refused from its header at once, before a byte of it is read.
/// Before, it was read into memory (2.1 GB RSS, 11 s) ahead of the check.
TEST_F(CiCliTest, AHugeMemberIsCheckedAgainstTheManifestBeforeItIsRead) {
  ASSERT_EQ(makeBundle().exitCode, 0);
  auto appendSparse = [&](const std::string &name) {
    std::string script =
        "import os, tarfile\n"
        "p = '" +
        bundle_.string() +
        "'\n"
        "i = tarfile.TarInfo('" +
        name +
        "'); i.size = 2 << 30\n"
        "end = os.path.getsize(p) - 1024\n"
        "with open(p, 'r+b') as f:\n"
        "    f.seek(end); f.write(i.tobuf(format=tarfile.USTAR_FORMAT))\n"
        "    f.truncate(end + 512 + i.size + 1024)\n";
    writeText(tmp_ / "sparse.py", script);
    return std::system(("python3 " + (tmp_ / "sparse.py").string()).c_str());
  };
  ASSERT_EQ(appendSparse("bench/huge.kbm"), 0);
  Cli r = run({"bench", bundle_.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("member `bench/huge.kbm` is not in the "
                                  "manifest"));
  EXPECT_LT(r.seconds, 5.0) << "read the member before refusing it";
  struct rusage children {};
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &children), 0);
  EXPECT_LT(children.ru_maxrss, 256 * 1024) << "peak RSS in KiB";

  // The manifest a bundle carries gives each member's size for that check
  // (as a comment line: `sha256sum -c` still verifies the bundle).
  ASSERT_EQ(makeBundle().exitCode, 0);
  std::string bytes = kb::test::readFile(bundle_);
  std::string manifest = bytes.substr(512, bytes.find('\0', 512) - 512);
  EXPECT_THAT(manifest, HasSubstr("# bytes 18 bench/saxpy.kbm\n"));
}

/// Members stream to disk: a listed member whose header size differs from
/// the manifest's is refused before it is read, naming both sizes.
TEST_F(CiCliTest, AMemberOfAnotherSizeThanListedIsRefused) {
  std::string sha(64, 'a');
  std::string script =
      "import io, tarfile\n"
      "t = tarfile.open('" +
      bundle_.string() +
      "', 'w', format=tarfile.USTAR_FORMAT)\n"
      "def add(name, data):\n"
      "    i = tarfile.TarInfo(name); i.size = len(data)\n"
      "    t.addfile(i, io.BytesIO(data))\n"
      "add('kernel-bench-bundle.sha256', b'# kernel-bench bundle 1\\n"
      "# bytes 4 build.json\\n" +
      sha +
      "  build.json\\n')\n"
      "add('build.json', b'{\"x\": 1}')\n"
      "t.close()\n";
  writeText(tmp_ / "make.py", script);
  ASSERT_EQ(std::system(("python3 " + (tmp_ / "make.py").string()).c_str()), 0);
  Cli r = run({"bench", bundle_.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("member `build.json` is 8 bytes, the "
                                  "manifest lists 4"));
}

TEST_F(CiCliTest, ShardUsageErrorsExit2) {
  struct Case {
    std::vector<std::string> flags;
    kb::test::EnvVars env;
    std::string says;
  } cases[] = {
      {{"--shard", "3/3"}, {}, "shard index 3 is out of range for 3 shards"},
      {{"--shard", "0/0"}, {}, "a shard count of 0"},
      {{"--shard", "x"}, {}, "expected I/N"},
      {{}, {{"KB_SHARD_INDEX", "1"}}, "the shard count is not"},
      {{},
       {{"JOB_COMPLETION_INDEX", "5"}, {"KB_SHARD_COUNT", "3"}},
       "out of range for 3 shards"},
      {{"--shard-count", "0"},
       {{"JOB_COMPLETION_INDEX", "0"}},
       "a shard count of 0"},
      {{},
       {{"SLURM_ARRAY_TASK_ID", "7"},
        {"SLURM_ARRAY_TASK_MIN", "1"},
        {"SLURM_ARRAY_TASK_MAX", "12"},
        {"SLURM_ARRAY_TASK_STEP", "1"},
        {"SLURM_ARRAY_TASK_COUNT", "3"}},
       "the array is sparse"},
      {{"--shard-balance", "prev.json"}, {}, "without --shard"},
  };
  for (const Case &c : cases) {
    std::vector<std::string> args = {"bench", out_.string()};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    Cli r = run(args, c.env);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says));
  }
}

class MergeCliTest : public kb::test::KernelBenchTest {
protected:
  MergeCliTest() : KernelBenchTest("kb_merge_cli") {}

  /// Shard |index| of 3 of a six-benchmark run, written to shardN.json.
  fs::path writeShard(uint32_t index) {
    kb::report::SyntheticSpec spec;
    for (int i = 0; i < 6; ++i)
      spec.benchmarks.push_back({"k" + std::to_string(i)});
    kb::report::BenchReport r = kb::report::makeSyntheticReport(spec);
    kb::report::ShardInfo info{index, 3, "--shard", "count", {}};
    std::vector<kb::report::Benchmark> mine;
    for (size_t i = 0; i < r.benchmarks.size(); ++i) {
      info.plan.push_back({r.benchmarks[i].name, uint32_t(i % 3)});
      if (i % 3 == index)
        mine.push_back(r.benchmarks[i]);
    }
    r.benchmarks = mine;
    r.shard = info;
    fs::path path = tmp_ / ("shard" + std::to_string(index) + ".json");
    EXPECT_TRUE(kb::report::writeBenchJson(path, r).ok());
    return path;
  }
};

TEST_F(MergeCliTest, MergesShardsIntoEveryFormat) {
  std::string a = writeShard(0), b = writeShard(1), c = writeShard(2);
  Cli r = run({"merge", c, a, b, "-o", (tmp_ / "m/bench.json").string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("merged 3 report(s): 6 benchmark(s)"));
  for (const char *file : {"bench.json", "gbench.json", "report.md",
                           "report.csv", "junit.xml", "report.html"})
    EXPECT_TRUE(fs::exists(tmp_ / "m" / file)) << file;
  auto merged = kb::report::readBenchJson(tmp_ / "m/bench.json");
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  ASSERT_EQ(merged->benchmarks.size(), 6u);
  EXPECT_EQ(merged->benchmarks[0].name, "k0"); // the plan's order
  EXPECT_FALSE(merged->shard);
}

TEST_F(MergeCliTest, MissingAndOverlappingShardsExit4ListingBenchmarks) {
  std::string a = writeShard(0), c = writeShard(2);
  Cli missing = run({"merge", a, c, "-o", (tmp_ / "m").string()});
  EXPECT_EQ(missing.exitCode, 4) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("k1 (shard 1/3, no report)"));
  EXPECT_THAT(missing.output, HasSubstr("k4 (shard 1/3, no report)"));
  EXPECT_FALSE(fs::exists(tmp_ / "m/bench.json"));

  Cli partial =
      run({"merge", a, c, "-o", (tmp_ / "m").string(), "--allow-missing"});
  EXPECT_EQ(partial.exitCode, 0) << partial.output;
  EXPECT_THAT(partial.output, HasSubstr("warning: missing k1"));

  Cli twice = run({"merge", a, a, c, "-o", (tmp_ / "m2").string()});
  EXPECT_EQ(twice.exitCode, 4) << twice.output;
  EXPECT_THAT(twice.output, HasSubstr("overlapping shards"));
  EXPECT_THAT(twice.output, HasSubstr("k0 in "));
}

TEST_F(MergeCliTest, BadInputAndUsage) {
  std::string a = writeShard(0);
  writeText(tmp_ / "junk.json", "{\"not\": \"ours\"}");
  Cli junk = run(
      {"merge", a, (tmp_ / "junk.json").string(), "-o", (tmp_ / "m").string()});
  EXPECT_EQ(junk.exitCode, 4) << junk.output;
  EXPECT_THAT(junk.output, HasSubstr("not a kernel-bench bench report"));
  Cli name = run({"merge", a, "-o", (tmp_ / "merged.json").string()});
  EXPECT_EQ(name.exitCode, 2) << name.output;
  EXPECT_THAT(name.output, HasSubstr("DIR/bench.json"));
  EXPECT_EQ(run({"merge", a}).exitCode, 2); // -o is required
}

} // namespace
