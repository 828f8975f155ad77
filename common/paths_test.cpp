//===- common/paths_test.cpp ----------------------------------------------===//
#include "common/paths.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

namespace fs = std::filesystem;

TEST(Paths, AbsoluteNormalResolvesAgainstTheCurrentDirectory) {
  EXPECT_EQ(absoluteNormal("a/./b/../c"), fs::current_path() / "a" / "c");
  EXPECT_EQ(absoluteNormal("/x/y/../z"), fs::path("/x/z"));
}

TEST(Paths, DisplayPathIsRelativeOnlyBelowTheCurrentDirectory) {
  fs::path cwd = fs::current_path();
  EXPECT_EQ(displayPath(cwd / "k" / "." / "a.cu"), "k/a.cu");
  EXPECT_EQ(displayPath("rel/a.cu"), "rel/a.cu");
  fs::path outside = cwd.root_path() / "elsewhere-kb-test" / ".." / "x.cu";
  EXPECT_EQ(displayPath(outside), (cwd.root_path() / "x.cu").string());
}

TEST(Paths, RelativeToKeepsPathsOutsideTheBase) {
  EXPECT_EQ(relativeTo("/out/kernels/a/sm_90.ptx", "/out"),
            "kernels/a/sm_90.ptx");
  EXPECT_EQ(relativeTo("/other/a.ptx", "/out"), "/other/a.ptx");
}

} // namespace
} // namespace kb
