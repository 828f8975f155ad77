//===- toolchains/depfile_test.cpp ----------------------------------------===//

#include "toolchains/depfile.h"

#include <gtest/gtest.h>

namespace kb::toolchains {
namespace {

using Strings = std::vector<std::string>;

TEST(DepfileTest, NvccFormWithSpaceBeforeColon) {
  const char *text =
      "k.ptx : k.cu \\\n"
      "    /usr/include/stdc-predef.h \\\n"
      "    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h "
      "\\\n"
      "    k.h\n";
  auto rules = parseDepfile(text);
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].targets, Strings{"k.ptx"});
  EXPECT_EQ((*rules)[0].dependencies,
            (Strings{"k.cu", "/usr/include/stdc-predef.h",
                     "/usr/local/cuda/bin/../targets/x86_64-linux/include/"
                     "cuda_runtime.h",
                     "k.h"}));
}

TEST(DepfileTest, GlslcOneLineForm) {
  auto rules = parseDepfile("out/add.spv: add.comp inc.glsl\n");
  ASSERT_TRUE(rules.ok());
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].targets, Strings{"out/add.spv"});
  EXPECT_EQ((*rules)[0].dependencies, (Strings{"add.comp", "inc.glsl"}));
}

TEST(DepfileTest, EscapesAndSeveralTargets) {
  auto rules =
      parseDepfile("a.o b.o: my\\ file.h cost$$.h hash\\#.h \\\\server\n");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].targets, (Strings{"a.o", "b.o"}));
  EXPECT_EQ((*rules)[0].dependencies,
            (Strings{"my file.h", "cost$.h", "hash#.h", "\\server"}));
}

TEST(DepfileTest, PhonyRulesAndCrlf) {
  auto rules = parseDepfile("k.ptx: k.cu k.h\r\n\r\nk.h:\r\n");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ((*rules)[1].targets, Strings{"k.h"});
  EXPECT_TRUE((*rules)[1].dependencies.empty());
  EXPECT_EQ(allDependencies(*rules), (Strings{"k.cu", "k.h"}));
}

TEST(DepfileTest, DeduplicatesAcrossRules) {
  auto rules = parseDepfile("a: x y\nb: y z\n");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(allDependencies(*rules), (Strings{"x", "y", "z"}));
}

TEST(DepfileTest, EmptyAndMalformed) {
  auto empty = parseDepfile("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  auto bad = parseDepfile("k.ptx k.cu\n", "out/k.d");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(bad.status().message().find("out/k.d:1"), std::string::npos)
      << bad.status().message();
}

} // namespace
} // namespace kb::toolchains
