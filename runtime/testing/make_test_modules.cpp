//===- runtime/testing/make_test_modules.cpp - Write the sample modules ---===//
//
//   kb-make-test-modules OUT_DIR [--cuda] [--no-spirv]
//
// Writes OUT_DIR/ok/program.kbm (candidate agrees with reference) and
// OUT_DIR/wrong/program.kbm (candidate wrong at element 37) and
// OUT_DIR/huge/program.kbm (valid, but its input x is 1 TiB: no device can
// hold it, so the runtime must refuse it before allocating): the inputs of
// the `kernel-bench run` end-to-end tests, the libFuzzer seed corpus and the
// GPU-host script (which runs them with CUDA variants built here).
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/module_writer.h"
#include "runtime/testing/sample_modules.h"

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: kb-make-test-modules OUT_DIR [--cuda] [--no-spirv]\n");
    return 2;
  }
  std::string out = argv[1];
  kb::testing::SampleOptions options;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cuda"))
      options.cuda = true;
    else if (!std::strcmp(argv[i], "--no-spirv"))
      options.spirv = false;
    else {
      std::fprintf(stderr, "kb-make-test-modules: unknown option %s\n",
                   argv[i]);
      return 2;
    }
  }
  for (const char *kind : {"ok", "wrong", "huge"}) {
    options.wrongCandidate = !std::strcmp(kind, "wrong");
    auto module = kb::testing::makeSampleProgram(options);
    if (!module.ok()) {
      std::fprintf(stderr, "kb-make-test-modules: %s\n",
                   module.status().message().c_str());
      return module.status().isUnavailable() ? 77 : 1;
    }
    if (!std::strcmp(kind, "huge"))
      module->functions.front().buffers.front().elementCount = uint64_t(1)
                                                               << 38;
    std::string path = out + "/" + kind + "/program.kbm";
    kb::Status status =
        kb::testing::writeFile(path, kb::testing::writeModule(*module));
    if (!status.ok()) {
      std::fprintf(stderr, "kb-make-test-modules: %s\n",
                   status.message().c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.c_str());
  }
  return 0;
}
