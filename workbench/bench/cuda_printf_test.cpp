//===- workbench/bench/cuda_printf_test.cpp - printf in `run` on CUDA -----===//
//
// What a dispatch writes to descriptor 1 while it runs (as CUDA's driver
// writes a kernel's printf when the host synchronizes) is attributed to that
// dispatch; stdout is back afterwards. No GPU here: the writes are the
// test's own, at the points where the driver's would land.
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/cuda_printf.h"

#include "workbench/support/kernel_output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

namespace kb::workbench {
namespace {

using ::testing::HasSubstr;

module::Module withPtx(const std::string &ptx) {
  module::Module m;
  module::Executable exe;
  exe.name = "k";
  module::Variant v;
  v.format = hal::ExecutableFormat::Ptx;
  v.data = ptx;
  exe.variants = {v};
  m.executables = {exe};
  return m;
}

TEST(CudaPrintf, APrintfCallInThePtxIsFound) {
  EXPECT_TRUE(callsCudaPrintf(withPtx(
      ".extern .func (.param .b32 func_retval0) vprintf\n(\n.param .b64 "
      "vprintf_param_0,\n.param .b64 vprintf_param_1\n)\n;\n"
      "\tcall.uni (retval0), \n\tvprintf, \n\t(\n\tparam0, "
      "\n\tparam1\n\t);\n")));
  EXPECT_TRUE(
      callsCudaPrintf(withPtx("  call.uni (retval0), vprintf, (a, b);\n")));
  // Declared but never called, or another name: no.
  EXPECT_FALSE(
      callsCudaPrintf(withPtx(".extern .func (.param .b32 func_retval0) "
                              "vprintf\n(\n.param .b64 a\n)\n;\n")));
  EXPECT_FALSE(
      callsCudaPrintf(withPtx("  call.uni (retval0), my_vprintf_x;\n")));
  EXPECT_FALSE(callsCudaPrintf(withPtx("ret;\n")));
}

TEST(CudaPrintf, EachDispatchsLinesAreItsOwnAndStdoutComesBack) {
  struct stat before {};
  ASSERT_EQ(::fstat(STDOUT_FILENO, &before), 0);
  module::Module m = withPtx("call.uni (retval0), vprintf, (a, b);\n");
  module::Function f;
  f.name = "main";
  module::Op op;
  op.kind = module::Op::Kind::Dispatch;
  op.executable = 0;
  f.ops = {op, op};
  CudaPrintf printed;
  module::RunHooks hooks;
  printed.addTo(hooks, "run with substitutions", m, f, true);
  hooks.afterLoad();
  ASSERT_EQ(::write(STDOUT_FILENO, "i = 3\ni = 4\n", 12), 12);
  hooks.afterDispatch(0);
  hooks.afterDispatch(1); // printed nothing
  ASSERT_EQ(::write(STDOUT_FILENO, "late\n", 5), 5);
  printed.stop("run with substitutions");
  struct stat after {};
  ASSERT_EQ(::fstat(STDOUT_FILENO, &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_dev, after.st_dev);

  testing::internal::CaptureStdout();
  printed.print(2);
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("printf: run with substitutions, op 0 (`k` "
                             "export 0, the generated kernel): i = 3\n"));
  EXPECT_THAT(out, HasSubstr("op 0 (`k` export 0, the generated kernel): "
                             "i = 4\n"));
  EXPECT_THAT(out, HasSubstr("printf: ... and 1 more line(s)"));
}

} // namespace
} // namespace kb::workbench
