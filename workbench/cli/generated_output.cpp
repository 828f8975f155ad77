//===- workbench/cli/generated_output.cpp - Print or write a text ---------===//
#include "workbench/cli/generated_output.h"

#include "common/file_util.h"
#include "workbench/support/exit_codes.h"

#include <cstdio>

namespace kb::workbench {

int emitGeneratedText(const std::string &command, const std::string &text,
                      const std::string &output) {
  if (output.empty()) {
    // A closed pipe or a full disk must not pass for a complete script.
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() ||
        std::fflush(stdout) != 0) {
      std::fprintf(stderr,
                   "kernel-bench %s: error: cannot write to standard "
                   "output\n",
                   command.c_str());
      return kExitUserError;
    }
    return kExitOk;
  }
  if (Status written = writeFileAtomic(output, text); !written.ok()) {
    std::fprintf(stderr, "kernel-bench %s: error: %s\n", command.c_str(),
                 written.message().c_str());
    return kExitUserError;
  }
  return kExitOk;
}

} // namespace kb::workbench
