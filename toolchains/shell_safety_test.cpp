//===- toolchains/shell_safety_test.cpp -----------------------------------===//

#include "toolchains/shell_safety.h"

#include <gtest/gtest.h>

namespace kb::toolchains {
namespace {

TEST(ShellSafetyTest, DoubleQuotedRefusesWhatIsLiveInsideDoubleQuotes) {
  for (const char *value : {"$(x)", "`x`", "a\\b", "a\"b", "a\nb", "a\tb"}) {
    Status status =
        checkShellSafe("define `X`", value, ShellExposure::DoubleQuoted);
    EXPECT_FALSE(status.ok()) << value;
    EXPECT_NE(status.message().find("define `X` contains"), std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("shell"), std::string::npos);
  }
  for (const char *value :
       {"(16*2)", "a;b|c&d>e<f", "'q'", "{x}", "3.0f", "caf\xc3\xa9", ""})
    EXPECT_TRUE(
        checkShellSafe("define", value, ShellExposure::DoubleQuoted).ok())
        << value;
}

TEST(ShellSafetyTest, BareAllowsOnlyPlainFlagCharacters) {
  for (const char *value : {"-O3", "-Xptxas=-v,--warn-on-spills", "-std=c++17",
                            "--maxrregcount=32", "-DA=1"})
    EXPECT_TRUE(checkShellSafe("flag", value, ShellExposure::Bare).ok())
        << value;
  for (const char *value :
       {"-Da;b", "-D a", "x|y", "x&", "x>y", "x<y", "(x)", "x*", "x?", "[x]",
        "~x", "#x", "x!", "{x}", "'x'", "\"x\"", "$x", "`x`", "x\\"}) {
    Status status = checkShellSafe("flag `f`", value, ShellExposure::Bare);
    EXPECT_FALSE(status.ok()) << value;
    EXPECT_NE(status.message().find("unquoted"), std::string::npos)
        << status.message();
  }
  EXPECT_NE(
      checkShellSafe("f", "a b", ShellExposure::Bare).message().find("a space"),
      std::string::npos);
}

TEST(ShellSafetyTest, MacroNamesAreIdentifiers) {
  EXPECT_TRUE(checkMacroName("define", "KB_SCALE2").ok());
  EXPECT_TRUE(checkMacroName("define", "_x").ok());
  for (const char *name : {"", "2X", "X$(y)", "X=1", "X Y", "X;"})
    EXPECT_FALSE(checkMacroName("define", name).ok()) << name;
}

} // namespace
} // namespace kb::toolchains
