//===- tests/cli/robustness_cli_test.cpp - hostile inputs and faults -----===//
//
// Hostile inputs as a user meets them, through the built kernel-bench: commands
// hidden in a kernel's inputs never run, a second build into one output
// directory waits (or fails with --no-wait), SIGKILL and SIGHUP leave no
// tool running, a build never deletes files it did not write, and usage
// mistakes get usage errors that say what was meant.
//
// Processes of one kernel-bench run are recognised by a marker in their
// environment (KB_TEST_RUN_MARK=<unique>), which every tool inherits; no
// test signals anything but the kernel-bench it started.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

extern char **environ;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests/cli/fixtures";

using kb::test::CliRun;
using Clock = std::chrono::steady_clock;

/// The pids of processes whose environment holds |entry| ("K=V").
std::set<pid_t> processesCarrying(const std::string &entry) {
  std::set<pid_t> pids;
  for (const fs::path &proc : kb::test::liveProcesses()) {
    std::string environ = kb::test::readProcFile(proc / "environ");
    for (size_t start = 0; start < environ.size();) {
      size_t end = std::min(environ.find('\0', start), environ.size());
      if (environ.compare(start, end - start, entry) == 0) {
        pids.insert(pid_t(std::stol(proc.filename().string())));
        break;
      }
      start = end + 1;
    }
  }
  return pids;
}

/// The command name of |pid| ("" when gone).
std::string commOf(pid_t pid) {
  std::string comm =
      kb::test::readFile("/proc/" + std::to_string(pid) + "/comm");
  while (!comm.empty() && comm.back() == '\n')
    comm.pop_back();
  return comm;
}

/// kernel-bench started in the background, output into a file.
class BackgroundRun {
public:
  BackgroundRun(const std::vector<std::string> &args, const fs::path &log,
                kb::test::EnvVars env)
      : log_(log) {
    std::vector<std::string> argv = {kb::test::kernelBenchBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    env.emplace_back("NO_COLOR", "1");
    env = kb::test::withoutCiEnv(std::move(env));
    std::vector<std::string> envs;
    for (char **e = environ; *e; ++e) {
      std::string entry = *e;
      bool overridden = false;
      for (const auto &kv : env)
        overridden |= entry.rfind(kv.first + "=", 0) == 0;
      if (!overridden)
        envs.push_back(entry);
    }
    for (const auto &[k, v] : env)
      envs.push_back(k + "=" + v);
    std::vector<char *> argvp, envp;
    for (std::string &a : argv)
      argvp.push_back(a.data());
    argvp.push_back(nullptr);
    for (std::string &e : envs)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addchdir_np(&actions, KB_SOURCE_DIR);
    EXPECT_EQ(posix_spawn(&pid_, argvp[0], &actions, nullptr, argvp.data(),
                          envp.data()),
              0);
    posix_spawn_file_actions_destroy(&actions);
  }
  ~BackgroundRun() {
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  pid_t pid() const { return pid_; }
  std::string output() const { return kb::test::readFile(log_); }
  /// Waits up to |limit| for |text| in the output.
  bool waitForOutput(const std::string &text,
                     std::chrono::seconds limit = std::chrono::seconds(60)) {
    auto end = Clock::now() + limit;
    while (Clock::now() < end) {
      if (output().find(text) != std::string::npos)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  /// The wait status.
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    waited_ = true;
    return status;
  }

private:
  fs::path log_;
  pid_t pid_ = -1;
  bool waited_ = false;
};

class RobustnessCliTest : public kb::test::KernelBenchTest {
protected:
  RobustnessCliTest()
      : KernelBenchTest("kb_robust_test", std::chrono::seconds(300)) {}

  /// A copy of fixture |name| under the scratch directory.
  fs::path copyFixture(const std::string &name,
                       const std::string &as = "project") {
    fs::path dir = tmp_ / as;
    fs::copy(kFixtures / name, dir, fs::copy_options::recursive);
    return dir;
  }

  /// A marker unique to this test run, and the env entry that carries it.
  std::string mark() const { return "KB_TEST_RUN_MARK=" + tmp_.string(); }

  /// Waits until no process carries the marker; returns the survivors.
  std::set<pid_t> waitForNoMarkedProcess(std::chrono::seconds limit) {
    auto end = Clock::now() + limit;
    std::set<pid_t> alive;
    do {
      alive = processesCarrying(mark());
      if (alive.empty())
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (Clock::now() < end);
    return alive;
  }

  /// A project whose CUDA job hangs inside nvcc: the host compiler nvcc
  /// runs through its shell sleeps (nvcc -> sh -> slow-cxx -> sleep).
  fs::path hangingNvccProject() {
    fs::path project = copyFixture("good");
    fs::path tool = project / "slow-cxx";
    std::ofstream(tool) << "#!/bin/sh\n"
                           "if [ \"$1\" = --version ]; then exec g++ "
                           "--version; fi\n"
                           "sleep 600\n";
    ::chmod(tool.c_str(), 0755);
    std::ofstream(project / "workbench.toml", std::ios::app)
        << "\n[toolchains]\nhost-cxx = \"slow-cxx\"\n";
    return project;
  }

  /// Starts a build of |project| and waits until its nvcc is inside the
  /// host compiler (a marked `sleep` exists).
  std::unique_ptr<BackgroundRun> startHangingBuild(const fs::path &project,
                                                   const fs::path &scratch) {
    fs::create_directories(scratch);
    auto run = std::make_unique<BackgroundRun>(
        std::vector<std::string>{"build", project.string(), "-o", out_.string(),
                                 "--cache-dir", cache_.string(), "--target",
                                 "cuda:sm_90"},
        tmp_ / "background.log",
        kb::test::EnvVars{{"KB_TEST_RUN_MARK", tmp_.string()},
                          {"TMPDIR", scratch.string()}});
    auto end = Clock::now() + std::chrono::seconds(120);
    while (Clock::now() < end) {
      for (pid_t pid : processesCarrying(mark()))
        if (commOf(pid) == "sleep")
          return run;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "nvcc never reached the host compiler:\n" << run->output();
    return run;
  }
};

//===----------------------------------------------------------------------===//
// 14.1: no command in a kernel's inputs ever runs.
//===----------------------------------------------------------------------===//

TEST_F(RobustnessCliTest, ShellCommandsInKernelInputsNeverRun) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  fs::path markers = tmp_ / "markers";
  fs::create_directories(markers);
  fs::path project = copyFixture("good");
  kb::test::replaceInFile(project / "scale" / "kernel.toml", "[abi]",
                          "defines = { X = \"$(touch " +
                              (markers / "define").string() + ")\" }\n\n[abi]");
  CliRun r = buildProject(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("contains `$`"));
  EXPECT_THAT(r.output, HasSubstr("shell"));
  EXPECT_TRUE(fs::is_empty(markers)) << r.output;

  // Paths are staged under names kernel-bench chooses: a source file name,
  // the project directory and -o full of shell syntax build normally.
  fs::path hostile =
      tmp_ / "p;$(cd $KB_TEST_MARKERS;touch dir)`cd $KB_TEST_MARKERS;touch t`";
  fs::path clean = copyFixture("good", "clean");
  fs::rename(clean, hostile);
  fs::path source = "s;$(cd $KB_TEST_MARKERS;touch file)'\"`x`.cu";
  fs::rename(hostile / "scale" / "scale.cu", hostile / "scale" / source);
  kb::test::replaceInFile(hostile / "scale" / "kernel.toml", "\"scale.cu\"",
                          "\"s;$(cd $KB_TEST_MARKERS;touch file)'\\\"`x`.cu\"");
  fs::path out = tmp_ / "o;$(cd $KB_TEST_MARKERS;touch out)";
  r = run({"build", hostile.string(), "-o", out.string(), "--cache-dir",
           cache_.string()},
          {{"KB_TEST_MARKERS", markers.string()}});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::is_regular_file(out / "kernels/scale/sm_90.ptx")) << r.output;
  EXPECT_TRUE(fs::is_empty(markers)) << r.output;
}

//===----------------------------------------------------------------------===//
// 14.4: a FIFO is not a module.
//===----------------------------------------------------------------------===//

TEST_F(RobustnessCliTest, FifoGivenAsModuleIsRefusedAtOnce) {
  fs::path fifo = tmp_ / "program.kbm";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  CliRun r = run({"run", fifo.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_LT(r.seconds, 30);
  EXPECT_THAT(r.output, HasSubstr("not a regular file"));
}

//===----------------------------------------------------------------------===//
// 14.5: one build per output directory.
//===----------------------------------------------------------------------===//

TEST_F(RobustnessCliTest, SecondBuildWaitsForTheLockOrFailsWithNoWait) {
  REQUIRE_TOOL("glslc");
  fs::path project = kFixtures / "good";
  fs::create_directories(out_);
  // This test holds the lock as a running build would.
  int fd = ::open((out_ / ".kernel-bench.lock").c_str(),
                  O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  std::string pid = std::to_string(::getpid());
  ASSERT_EQ(::write(fd, pid.data(), pid.size()), ssize_t(pid.size()));

  CliRun r = buildProject(project, {"--target", "vulkan:1.2", "--no-wait"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("pid " + pid));
  EXPECT_THAT(r.output, HasSubstr("--no-wait"));
  EXPECT_FALSE(fs::exists(out_ / "build.json"));

  BackgroundRun waiting({"build", project.string(), "-o", out_.string(),
                         "--cache-dir", cache_.string(), "--target",
                         "vulkan:1.2"},
                        tmp_ / "waiting.log", {});
  EXPECT_TRUE(waiting.waitForOutput("waiting for kernel-bench (pid " + pid))
      << waiting.output();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fs::exists(out_ / "build.json")) << "built while locked";
  ::close(fd);
  int status = waiting.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << waiting.output();
  EXPECT_TRUE(fs::exists(out_ / "build.json"));
}

//===----------------------------------------------------------------------===//
// 14.6: SIGKILL and SIGHUP leave no tool running.
//===----------------------------------------------------------------------===//

TEST_F(RobustnessCliTest, SigkillMidNvccLeavesNoToolRunning) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  fs::path scratch = tmp_ / "scratch";
  auto build = startHangingBuild(hangingNvccProject(), scratch);
  std::set<std::string> names;
  for (pid_t pid : processesCarrying(mark()))
    names.insert(commOf(pid));
  EXPECT_TRUE(names.count("nvcc")) << ::testing::PrintToString(names);
  ::kill(build->pid(), SIGKILL);
  build->wait();
  std::set<pid_t> survivors = waitForNoMarkedProcess(std::chrono::seconds(20));
  for (pid_t pid : survivors)
    ADD_FAILURE() << "survived the build's SIGKILL: " << pid << " "
                  << commOf(pid);
  for (pid_t pid : survivors)
    ::kill(pid, SIGKILL); // ours: carries this test's marker

  // The dead build's private directory is still there; the next build
  // (here one that needs no CUDA tool) removes it.
  size_t abandoned = 0;
  for (const auto &entry : fs::directory_iterator(scratch))
    abandoned += entry.path().filename().string().rfind("kb-work-", 0) == 0;
  EXPECT_EQ(abandoned, 1u);
  // Started directly: runKernelBench would give it a private TMPDIR.
  BackgroundRun next({"build", (kFixtures / "good").string(), "-o",
                      out_.string(), "--cache-dir", cache_.string(), "--target",
                      "vulkan:1.2"},
                     tmp_ / "next.log", {{"TMPDIR", scratch.string()}});
  int status = next.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << next.output();
  std::string left;
  for (const auto &entry : fs::recursive_directory_iterator(scratch))
    left += entry.path().string() + "\n";
  EXPECT_EQ(left, "") << "abandoned staging left behind";
}

TEST_F(RobustnessCliTest, SighupStopsTheBuildLikeSigterm) {
  REQUIRE_TOOL("nvcc");
  fs::path scratch = tmp_ / "scratch";
  auto build = startHangingBuild(hangingNvccProject(), scratch);
  ::kill(build->pid(), SIGHUP);
  int status = build->wait();
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the hangup:\n"
                                 << build->output();
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGHUP) << build->output();
  EXPECT_THAT(build->output(), HasSubstr("interrupted by SIGHUP"));
  EXPECT_TRUE(waitForNoMarkedProcess(std::chrono::seconds(20)).empty());
  EXPECT_TRUE(fs::is_empty(scratch));
  nlohmann::json report = buildJson();
  EXPECT_THAT(report["error"].get<std::string>(), HasSubstr("SIGHUP"));
}

//===----------------------------------------------------------------------===//
// 14.7: a build deletes only what it wrote.
//===----------------------------------------------------------------------===//

TEST_F(RobustnessCliTest, OutputDirectoryHoldingTheSourcesIsRefused) {
  fs::path project = copyFixture("good");
  fs::create_directories(project / "bench");
  std::ofstream(project / "bench" / "mybench.kbm") << "mine";
  for (const fs::path &out : {project, tmp_}) {
    CliRun r = run({"build", project.string(), "-o", out.string(),
                    "--cache-dir", cache_.string()});
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("contains the project's sources"));
  }
  EXPECT_EQ(kb::test::readFile(project / "bench" / "mybench.kbm"), "mine");
  EXPECT_FALSE(fs::exists(project / "build.json"));
}

TEST_F(RobustnessCliTest, FailedBuildRemovesOnlyFilesItWrote) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  fs::path project = copyFixture("good");
  CliRun r = buildProject(project);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  ASSERT_TRUE(fs::exists(out_ / "kernels/scale/sm_90.ptx"));
  // The user puts their own files where kernel-bench writes, and replaces
  // one of its outputs with their own.
  std::ofstream(out_ / "kernels/scale/notes.txt") << "mine";
  std::ofstream(out_ / "kernels/scale/vulkan1.2.spv") << "my own spv";
  kb::test::replaceInFile(project / "scale" / "scale.cu", "{",
                          "{ syntax error here;");
  kb::test::replaceInFile(project / "scale" / "scale.comp", "void main()",
                          "void main() syntax error");
  r = buildProject(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  // Its own earlier output is gone (a failed job leaves nothing that could
  // be mistaken for its result); the user's files are untouched.
  EXPECT_FALSE(fs::exists(out_ / "kernels/scale/sm_90.ptx"));
  EXPECT_EQ(kb::test::readFile(out_ / "kernels/scale/notes.txt"), "mine");
  EXPECT_EQ(kb::test::readFile(out_ / "kernels/scale/vulkan1.2.spv"),
            "my own spv");
}

//===----------------------------------------------------------------------===//
// 14.8: no raw library exception reaches the user.
//===----------------------------------------------------------------------===//

TEST_F(RobustnessCliTest, NonUtf8ProjectPathIsRefusedWithAMessage) {
  fs::path project = copyFixture("good", "caf\xe9");
  CliRun r = buildProject(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is not valid UTF-8"));
  EXPECT_THAT(r.output, Not(HasSubstr("json.exception")));
}

TEST_F(RobustnessCliTest, CorruptedCacheRecordsAreMisses) {
  REQUIRE_TOOL("glslc");
  CliRun r = buildProject(kFixtures / "good", {"--target", "vulkan:1.2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // One flipped byte in every cache file (probes, manifests, entries).
  for (const auto &entry : fs::recursive_directory_iterator(cache_)) {
    if (!entry.is_regular_file() || entry.path().filename() == "CACHEDIR.TAG")
      continue;
    std::string bytes = kb::test::readFile(entry.path());
    if (bytes.empty())
      continue;
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0xff);
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << bytes;
  }
  // Into a fresh output directory, so that the job must ask the cache (the
  // same one would be a no-op decided from stat() alone).
  out_ = tmp_ / "out-second";
  r = buildProject(kFixtures / "good", {"--target", "vulkan:1.2"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("json.exception")));
  nlohmann::json report = buildJson();
  ASSERT_EQ(report["jobs"].size(), 1u);
  EXPECT_EQ(report["jobs"][0]["cache"], "miss");
}

//===----------------------------------------------------------------------===//
// 14.9: usage mistakes.
//===----------------------------------------------------------------------===//

TEST_F(RobustnessCliTest, MistypedCommandSuggestsTheNearest) {
  CliRun r = run({"biuld", "."});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown command `biuld`"));
  EXPECT_THAT(r.output, HasSubstr("did you mean `build`?"));
  r = run({"frobnicate"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown command `frobnicate`"));
  EXPECT_THAT(r.output, Not(HasSubstr("did you mean")));
}

TEST_F(RobustnessCliTest, MistypedFlagSuggestsTheNearestInOneErrorFormat) {
  CliRun r = run({"bench", out_.string(), "--quik"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("kernel-bench bench: error: unknown flag "
                                  "`--quik` (did you mean `--quick`?) (see "
                                  "kernel-bench bench --help)"));
  EXPECT_THAT(r.output, Not(HasSubstr("was not expected")));
  r = run({"build", ".", "--targte=cuda:sm_90"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown flag `--targte` (did you mean "
                                  "`--target`?)"));
  // CLI11's own errors take the same form.
  r = run({"bundle", out_.string()});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("kernel-bench bundle: error: "));
  EXPECT_THAT(r.output, HasSubstr("(see kernel-bench bundle --help)"));
  // The hidden worker command is neither listed nor suggested.
  r = run({"__wroker"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("__worker")));
  // --help is not an error.
  EXPECT_EQ(run({"bench", "--help"}).exitCode, 0);
}

TEST_F(RobustnessCliTest, TimeoutOutsideItsRangeIsAUsageError) {
  for (const char *value : {"inf", "nan", "-1", "0", "1e300", "-inf", "x"}) {
    CliRun r = buildProject(kFixtures / "good", {"--timeout", value});
    EXPECT_EQ(r.exitCode, 2) << value << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("--timeout")) << value;
    EXPECT_THAT(r.output, HasSubstr("86400")) << value;
    EXPECT_LT(r.output.size(), 400u) << value << "\n" << r.output;
  }
}

TEST_F(RobustnessCliTest, RunWithAnUnknownDeviceIsAUsageError) {
  CliRun r = run({"run", "--device", "opencl", tmp_.string()});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("opencl"));
  EXPECT_THAT(r.output, HasSubstr("cuda:N"));
}

// An output directory the build cannot write its report into: an error, and
// no "built ..." summary claiming success. (Tests run as root, so the
// unwritable build.json is a directory in its place.)
TEST_F(RobustnessCliTest, UnwritableReportPrintsNoBuiltSummary) {
  REQUIRE_TOOL("glslc");
  fs::create_directories(out_ / "build.json");
  CliRun r = buildProject(kFixtures / "good", {"--target", "vulkan:1.2"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("build.json"));
  EXPECT_THAT(r.output, Not(HasSubstr("built ")));
}

} // namespace
