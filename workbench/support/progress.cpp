//===- workbench/support/progress.cpp - Ninja-style build progress --------===//
#include "workbench/support/progress.h"

#include "common/terminal_text.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace kb::workbench {

ProgressOptions detectTerminal() {
  ProgressOptions options;
  const char *term = std::getenv("TERM");
  bool tty = ::isatty(STDOUT_FILENO) == 1;
  options.smartTerminal =
      tty && term && *term && std::strcmp(term, "dumb") != 0;
  const char *noColor = std::getenv("NO_COLOR");
  // no-color.org: "when present and not an empty string".
  options.color = options.smartTerminal && !(noColor && *noColor);
  struct winsize size {};
  if (tty && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    options.width = size.ws_col;
  return options;
}

std::string elideMiddle(const std::string &text, size_t width) {
  if (text.size() <= width)
    return text;
  const char *dots = "...";
  if (width < 4)
    return text.substr(0, width);
  size_t keep = width - 3;
  size_t head = keep / 2 + keep % 2;
  size_t tail = keep / 2;
  return text.substr(0, head) + dots + text.substr(text.size() - tail);
}

std::string colorize(const std::string &text, const char *code, bool color) {
  if (!color)
    return text;
  return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
}

Progress::Progress(std::FILE *out, ProgressOptions options, size_t totalJobs)
    : out_(out), options_(options), total_(totalJobs) {}

Progress::~Progress() { finish(); }

void Progress::jobStarted() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++started_;
}

void Progress::step(const std::string &description) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string line = "[" + std::to_string(started_) + "/" +
                     std::to_string(total_) + "] " + terminalLine(description);
  if (options_.smartTerminal) {
    // Leave the last column free: some terminals wrap when it is written.
    line = elideMiddle(line, options_.width > 1 ? options_.width - 1 : 1);
    std::fprintf(out_, "\r%s\x1b[K", line.c_str());
    statusShown_ = true;
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

void Progress::clearStatusLocked() {
  if (statusShown_) {
    std::fputs("\r\x1b[K", out_);
    statusShown_ = false;
  }
}

void Progress::jobFinished(const std::string &block) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++finished_;
  if (block.empty())
    return;
  clearStatusLocked();
  std::fputs(block.c_str(), out_);
  if (block.back() != '\n')
    std::fputc('\n', out_);
  std::fflush(out_);
}

void Progress::printLine(const std::string &line) {
  std::lock_guard<std::mutex> lock(mutex_);
  clearStatusLocked();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  // The summary that follows replaces the status line (ninja leaves its last
  // status; ours is restated by the summary, so clear it).
  clearStatusLocked();
  std::fflush(out_);
}

} // namespace kb::workbench
