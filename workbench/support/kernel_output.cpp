//===- workbench/support/kernel_output.cpp - What kernels print -----------===//
#include "workbench/support/kernel_output.h"

#include "common/terminal_text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

namespace kb::workbench {

namespace {
int gSavedStdout = -1; // the original descriptor 1 while capturing
int gCapture = -1;     // the temporary file behind descriptor 1
off_t gTaken = 0;      // bytes of it already collected
std::vector<KernelOutput::Printed> gPrinted;
constexpr size_t kMaxBytesPerRun = 64 * 1024;

std::string readFrom(off_t from, size_t maxBytes) {
  off_t end = ::lseek(gCapture, 0, SEEK_END);
  if (end <= from)
    return "";
  size_t want = static_cast<size_t>(end - from);
  std::string text(std::min(want, maxBytes), '\0');
  ssize_t got = ::pread(gCapture, text.data(), text.size(), from);
  text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  if (want > text.size())
    text +=
        "\n... and " + std::to_string(want - text.size()) + " more byte(s)\n";
  gTaken = end;
  return text;
}
} // namespace

Status KernelOutput::start() {
  if (gCapture >= 0)
    return okStatus();
  std::fflush(stdout);
  const char *dir = std::getenv("TMPDIR");
  std::string templ =
      std::string(dir && *dir ? dir : "/tmp") + "/kb-kernel-output.XXXXXX";
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    return internalError(std::string("cannot create a file for what kernels "
                                     "print: ") +
                         std::strerror(errno));
  ::unlink(name.data()); // nothing is left behind, whatever happens
  int saved = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (saved < 0 || ::dup2(fd, STDOUT_FILENO) < 0) {
    int err = errno;
    ::close(fd);
    if (saved >= 0)
      ::close(saved);
    return internalError(std::string("cannot redirect stdout: ") +
                         std::strerror(err));
  }
  gSavedStdout = saved;
  gCapture = fd;
  gTaken = 0;
  gPrinted.clear();
  return okStatus();
}

void KernelOutput::collect(const std::string &when) {
  if (gCapture < 0)
    return;
  std::fflush(stdout);
  if (std::string text = readFrom(gTaken, kMaxBytesPerRun); !text.empty())
    gPrinted.push_back({when, std::move(text)});
}

std::vector<KernelOutput::Printed>
KernelOutput::finish(const std::string &lastWhen) {
  if (gCapture < 0)
    return {};
  collect(lastWhen);
  ::dup2(gSavedStdout, STDOUT_FILENO);
  ::close(gSavedStdout);
  ::close(gCapture);
  gSavedStdout = gCapture = -1;
  return std::move(gPrinted);
}

std::vector<std::string> printedLines(const std::string &text,
                                      size_t maxLines) {
  std::vector<std::string> lines;
  size_t more = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    // A kernel's bytes: shown, never obeyed, by a terminal.
    std::string clean = terminalLine(line);
    if (clean.empty())
      continue;
    if (lines.size() == maxLines) {
      ++more;
      continue;
    }
    lines.push_back(clean.size() > 200 ? clean.substr(0, 200) + "..." : clean);
  }
  if (more)
    lines.push_back("... and " + std::to_string(more) + " more line(s)");
  return lines;
}

} // namespace kb::workbench
