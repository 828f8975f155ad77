//===- tests/support/cli_test_support.cpp ---------------------------------===//
#include "tests/support/cli_test_support.h"

#include "common/process.h"
#include "toolchains/toolchains.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

namespace kb::test {

const std::vector<std::string> &ciVariables() {
  static const std::vector<std::string> names = {
      "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",   "SLURM_ARRAY_TASK_MIN",
      "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT",
      "KB_SHARD_INDEX",       "KB_SHARD_COUNT",        "GITHUB_STEP_SUMMARY"};
  return names;
}

EnvVars withoutCiEnv(EnvVars set) {
  EnvVars env;
  for (const std::string &name : ciVariables())
    env.emplace_back(name, "");
  // One entry per name: a child's environment with a name twice is read
  // differently by different readers.
  for (auto &[name, value] : set) {
    auto slot = std::find_if(env.begin(), env.end(),
                             [&](const auto &kv) { return kv.first == name; });
    if (slot != env.end())
      slot->second = std::move(value);
    else
      env.emplace_back(std::move(name), std::move(value));
  }
  return env;
}

CliRun runKernelBench(const std::vector<std::string> &args, EnvVars env,
                      std::chrono::seconds timeout) {
  return runKernelBenchAt(KB_KERNEL_BENCH, args, std::move(env), timeout);
}

CliRun runKernelBenchAt(const fs::path &binary,
                        const std::vector<std::string> &args, EnvVars env,
                        std::chrono::seconds timeout) {
  kb::ProcessOptions options;
  options.argv = {binary.string()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.workingDirectory = KB_SOURCE_DIR;
  env.emplace_back("NO_COLOR", "1");
  options.env = withoutCiEnv(std::move(env));
  options.timeout = timeout;
  auto result = kb::runProcess(options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  CliRun r;
  if (!result.ok())
    return r;
  EXPECT_EQ(result->signal, 0) << result->describe();
  r.exitCode = result->exitCode;
  r.output = result->stdoutText + result->stderrText;
  r.seconds = result->seconds;
  return r;
}

CliRun checkHtmlRender(const fs::path &page, const fs::path &work,
                       const std::vector<std::string> &args) {
  kb::ProcessOptions options;
  options.argv = {KB_SYSTEM_PYTHON3,
                  std::string(KB_SOURCE_DIR) +
                      "/tests/cli/report/check_html_render.py",
                  page.string(), work.string()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.timeout = std::chrono::seconds(300);
  auto result = kb::runProcess(options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  CliRun r;
  if (!result.ok())
    return r;
  r.exitCode = result->exitCode;
  r.output = result->stdoutText + result->stderrText;
  r.seconds = result->seconds;
  return r;
}

TerminalRun runKernelBenchOnTerminal(const std::vector<std::string> &args,
                                     const std::string &until,
                                     double timeoutS) {
  kb::ProcessOptions options;
  options.argv = {KB_SYSTEM_PYTHON3,
                  std::string(KB_SOURCE_DIR) + "/tests/cli/terminal/pty_run.py",
                  "--until",
                  until,
                  "--timeout",
                  std::to_string(timeoutS),
                  "--",
                  KB_KERNEL_BENCH};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.workingDirectory = KB_SOURCE_DIR;
  options.env = withoutCiEnv();
  options.timeout = std::chrono::seconds(static_cast<int>(timeoutS) + 60);
  TerminalRun run;
  auto result = kb::runProcess(options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok())
    return run;
  nlohmann::json seen = nlohmann::json::parse(result->stdoutText, nullptr,
                                              /*allow_exceptions=*/false);
  EXPECT_TRUE(seen.is_object()) << result->stdoutText << result->stderrText;
  if (!seen.is_object())
    return run;
  run.matched = seen.value("matched", false);
  if (seen["matched_after_s"].is_number())
    run.matchedAfterS = seen["matched_after_s"].get<double>();
  if (seen["exit"].is_number_integer())
    run.exitCode = seen["exit"].get<int>();
  run.output = seen.value("output", "");
  return run;
}

std::string kernelBenchBinary() { return KB_KERNEL_BENCH; }

void checkUnavailableRun(int exitCode, const std::string &output) {
  if (exitCode != kExitUnavailable)
    return;
  if (!kb::testing::vulkanDeviceListed())
    GTEST_SKIP() << kb::testing::noVulkanReason() << "; kernel-bench said:\n"
                 << output;
  FAIL() << "kernel-bench exited " << kExitUnavailable
         << " (unavailable) although the environment lists a Vulkan device: "
            "a skip here would hide a regression. Its output:\n"
         << output;
}

bool haveTool(const std::string &tool) {
  kb::toolchains::Toolchains tools;
  return tools.find(tool).ok();
}

std::string readFile(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::string readProcFile(const fs::path &file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  std::string text;
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n < 0)
        text.clear(); // gone mid-read: nothing reliable
      break;
    }
    text.append(chunk, size_t(n));
  }
  ::close(fd);
  return text;
}

std::vector<fs::path> liveProcesses() {
  std::vector<fs::path> live;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator("/proc", ec)) {
    std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos)
      continue;
    // The state follows the parenthesised command name in /proc/PID/stat.
    std::string stat = readProcFile(entry.path() / "stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size() ||
        stat[close + 2] == 'Z')
      continue;
    live.push_back(entry.path());
  }
  return live;
}

nlohmann::json readJsonFile(const fs::path &file) {
  std::ifstream in(file);
  EXPECT_TRUE(in.good()) << "no " << file.filename().string() << " in "
                         << file.parent_path();
  if (!in)
    return nlohmann::json();
  return nlohmann::json::parse(in);
}

void replaceInFile(const fs::path &file, const std::string &from,
                   const std::string &to) {
  std::string text = readFile(file);
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << file;
  text.replace(at, from.size(), to);
  std::ofstream(file, std::ios::trunc) << text;
}

void KernelBenchTest::SetUp() {
  auto dir = kb::TempDir::create(fs::temp_directory_path(), prefix_ + "_");
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  tmpDir_.emplace(std::move(*dir));
  tmp_ = tmpDir_->path();
  out_ = tmp_ / "out";
  cache_ = tmp_ / "cache";
}

void KernelBenchTest::TearDown() { tmpDir_.reset(); }

CliRun KernelBenchTest::run(std::vector<std::string> args, EnvVars env) {
  return runKernelBench(args, std::move(env), timeout_);
}

CliRun KernelBenchTest::buildProject(const fs::path &project,
                                     std::vector<std::string> extra,
                                     EnvVars env) {
  std::vector<std::string> args = {"build",       project.string(),
                                   "-o",          out_.string(),
                                   "--cache-dir", cache_.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return run(std::move(args), std::move(env));
}

nlohmann::json KernelBenchTest::buildJson() {
  return readJsonFile(out_ / "build.json");
}

} // namespace kb::test
