//===- workbench/project/hardcoded_define_test.cpp ------------------------===//
#include "workbench/project/hardcoded_define.h"

#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

TEST(HardcodedDefine, AnUnguardedDefineIsFoundAtItsLine) {
  EXPECT_EQ(unguardedDefineLine("#include <x.h>\n#define TILE 16\n", "TILE"),
            2u);
  EXPECT_EQ(unguardedDefineLine("  #  define TILE(x) x\n", "TILE"), 1u);
  // Another name, a longer one, a commented-out line: not it.
  EXPECT_FALSE(unguardedDefineLine("#define TILES 4\n#define WPT 2\n", "TILE"));
  EXPECT_FALSE(unguardedDefineLine("// #define TILE 16\n", "TILE"));
}

TEST(HardcodedDefine, GuardedDefaultsAreWhatTuneCanSet) {
  EXPECT_FALSE(
      unguardedDefineLine("#ifndef TILE\n#define TILE 16\n#endif\n", "TILE"));
  EXPECT_FALSE(unguardedDefineLine(
      "#if !defined(TILE)\n#  define TILE 16\n#endif\n", "TILE"));
  EXPECT_FALSE(unguardedDefineLine(
      "#ifdef A\n#else\n#endif\n#ifndef TILE\n#define TILE 8\n#endif\n",
      "TILE"));
}

TEST(HardcodedDefine, AGuardOnAnotherNameOrAnElseBranchDoesNotGuard) {
  EXPECT_EQ(
      unguardedDefineLine("#ifndef WPT\n#define TILE 16\n#endif\n", "TILE"),
      2u);
  EXPECT_EQ(
      unguardedDefineLine("#ifndef TILE\n#define TILE 16\n#else\n#undef TILE\n"
                          "#define TILE 8\n#endif\n",
                          "TILE"),
      5u);
  EXPECT_EQ(
      unguardedDefineLine("#ifndef TILE\n#endif\n#define TILE 16\n", "TILE"),
      3u);
}

// What a preprocessor would not compile, or compiles only when NAME is not
// set, is no hard-coded value.
TEST(HardcodedDefine, DeadCodeCommentsAndCompoundGuardsAreNotHardCoded) {
  EXPECT_FALSE(unguardedDefineLine("#if 0\n#define TILE 16\n#endif\n", "TILE"));
  EXPECT_FALSE(unguardedDefineLine("/* old:\n#define TILE 16\n*/\n", "TILE"));
  EXPECT_FALSE(unguardedDefineLine(
      "#if !defined(TILE) && !defined(WPT)\n#define TILE 16\n#endif\n",
      "TILE"));
  EXPECT_FALSE(unguardedDefineLine(
      "#ifdef FAST\n#else\n#endif\n#if A\n#elif !defined(TILE)\n"
      "#define TILE 8\n#endif\n",
      "TILE"));
  EXPECT_FALSE(unguardedDefineLine(
      "#if !defined(TILE) \\\n    && 1\n#define TILE 16\n#endif\n", "TILE"));
  // Lines keep their numbers across comments and continuations.
  EXPECT_EQ(unguardedDefineLine(
                "/* a\n b */\n#define X \\\n 1\n#define TILE 4\n", "TILE"),
            5u);
}

} // namespace
} // namespace kb::workbench
