//===- common/ptx_reader_test.cpp -----------------------------------------===//
#include "common/ptx_reader.h"
#include "common/test_util.h"

#include <gtest/gtest.h>
#include <random>

namespace kb {
namespace {

using ::kb::testing::findTool;
using ::kb::testing::readFile;
using ::kb::testing::sourcePath;

std::string fixture() {
  return readFile(sourcePath("common/testdata/saxpy.ptx"));
}

/// The line (1-based) of the first occurrence of |needle| in |text|.
int lineOf(const std::string &text, const std::string &needle) {
  size_t pos = text.find(needle);
  if (pos == std::string::npos)
    return -1;
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
}

void expectSaxpyFixture(const PtxModule &m, const std::string &text) {
  EXPECT_EQ(m.version, "9.0");
  EXPECT_EQ(m.target, "sm_90");
  EXPECT_EQ(m.addressSize, 64u);
  ASSERT_EQ(m.entries.size(), 4u);
  EXPECT_EQ(m.entries[0].name, "saxpy");
  EXPECT_EQ(m.entries[1].name, "_Z5scalePffi");
  EXPECT_EQ(m.entries[2].name, "pair");
  EXPECT_EQ(m.entries[3].name, "noargs");

  const PtxEntry *saxpy = m.findEntry("saxpy");
  ASSERT_NE(saxpy, nullptr);
  EXPECT_TRUE(saxpy->visible);
  EXPECT_EQ(saxpy->line, lineOf(text, ".entry saxpy("));
  ASSERT_EQ(saxpy->params.size(), 4u);
  const char *types[] = {"u64", "u64", "f32", "u32"};
  const uint32_t sizes[] = {8, 8, 4, 4};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(saxpy->params[i].name, "saxpy_param_" + std::to_string(i));
    EXPECT_EQ(saxpy->params[i].type, types[i]);
    EXPECT_EQ(saxpy->params[i].size, sizes[i]);
    EXPECT_EQ(saxpy->params[i].align, sizes[i]);
    EXPECT_FALSE(saxpy->params[i].isArray);
  }
  ASSERT_TRUE(saxpy->maxntid.has_value());
  EXPECT_EQ(*saxpy->maxntid, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_FALSE(saxpy->reqntid.has_value());

  const PtxEntry *pair = m.findEntry("pair");
  ASSERT_NE(pair, nullptr);
  ASSERT_EQ(pair->params.size(), 2u);
  EXPECT_TRUE(pair->params[0].isArray);
  EXPECT_EQ(pair->params[0].type, "b8");
  EXPECT_EQ(pair->params[0].size, 16u); // struct { double; int; }
  EXPECT_EQ(pair->params[0].align, 8u);
  EXPECT_FALSE(pair->maxntid.has_value());

  const PtxEntry *noargs = m.findEntry("noargs");
  ASSERT_NE(noargs, nullptr);
  EXPECT_TRUE(noargs->params.empty());
  EXPECT_EQ(m.findEntry("scale"), nullptr); // mangled: resolved by abi_check
}

TEST(PtxReader, ReadsNvccFixture) {
  std::string text = fixture();
  ASSERT_FALSE(text.empty()) << "missing common/testdata/saxpy.ptx";
  StatusOr<PtxModule> m = readPtx(text);
  ASSERT_TRUE(m.ok()) << m.status().message();
  expectSaxpyFixture(*m, text);
}

TEST(PtxReader, ReadsFreshNvccOutput) {
  auto nvcc = findTool("nvcc");
  if (!nvcc)
    GTEST_SKIP() << "nvcc not found on PATH, $CUDA_PATH/bin or "
                    "/usr/local/cuda/bin";
  kb::TempDir dir = kb::testing::makeTempDir();
  std::string out = dir.file("saxpy.ptx");
  auto result = kb::testing::runCommand(
      kb::testing::shellQuote(*nvcc) + " -ptx -arch=sm_90 " +
          kb::testing::shellQuote(sourcePath("common/testdata/saxpy.cu")) +
          " -o " + kb::testing::shellQuote(out),
      dir.file("log"));
  ASSERT_EQ(result.exitCode, 0) << result.output;
  std::string text = readFile(out);
  StatusOr<PtxModule> m = readPtx(text);
  ASSERT_TRUE(m.ok()) << m.status().message();
  expectSaxpyFixture(*m, text);
}

TEST(PtxReader, HandWrittenSyntaxVariants) {
  // Comments everywhere, parameters on one line, `.ptr` attributes, .reqntid,
  // weak and file-local entries, .func bodies and initialized globals with
  // braces, .file and .section blocks: all skipped or read correctly.
  const char *text = R"(
/* header
   comment */ .version 8.4 // trailing
.target sm_80, debug
.address_size 64

.file 1 "/src/k.cu", 1700000000, 1234
.global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.extern .func (.param .b32 r) helper (.param .b32 a);
.func (.param .b32 r) helper2 (.param .b32 a)
{
  { .reg .b32 %t; }
  ret;
}

.weak .entry one_line(.param .u32 a, /* inline */ .param .align 16 .b8 blob[48], .param .u64 .ptr .global .align 16 p)
.reqntid 32, 4
.minnctapersm 2
{
  // .entry fake( inside a body is not an entry
  ret;
}

.entry local_entry(
	.param .s64 x // comment inside the list

)
.maxntid 1024
{
  ret;
}
.section .debug_str { a: .b8 0 }
)";
  StatusOr<PtxModule> m = readPtx(text);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->version, "8.4");
  EXPECT_EQ(m->target, "sm_80");
  ASSERT_EQ(m->entries.size(), 2u);
  const PtxEntry &one = m->entries[0];
  EXPECT_EQ(one.name, "one_line");
  EXPECT_TRUE(one.visible);
  EXPECT_EQ(one.line, 16);
  ASSERT_EQ(one.params.size(), 3u);
  EXPECT_EQ(one.params[1].name, "blob");
  EXPECT_EQ(one.params[1].size, 48u);
  EXPECT_EQ(one.params[1].align, 16u);
  EXPECT_EQ(one.params[2].type, "u64");
  EXPECT_EQ(one.params[2].align, 8u); // .ptr .align is the pointee's
  ASSERT_TRUE(one.reqntid.has_value());
  EXPECT_EQ(*one.reqntid, (std::array<uint32_t, 3>{32, 4, 1}));
  const PtxEntry &local = m->entries[1];
  EXPECT_EQ(local.name, "local_entry");
  EXPECT_FALSE(local.visible);
  ASSERT_EQ(local.params.size(), 1u);
  EXPECT_EQ(local.params[0].type, "s64");
  EXPECT_EQ(*local.maxntid, (std::array<uint32_t, 3>{1024, 1, 1}));
}

struct BadPtx {
  const char *name;
  const char *text;
  const char *expected; // substring of the error
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BadPtx &value, std::ostream *os) { *os << value.name; }

class PtxReaderErrors : public ::testing::TestWithParam<BadPtx> {};

TEST_P(PtxReaderErrors, NamesLineAndProblem) {
  StatusOr<PtxModule> m = readPtx(GetParam().text);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(m.status().message().find(GetParam().expected), std::string::npos)
      << m.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, PtxReaderErrors,
    ::testing::Values(
        BadPtx{"Empty", "", "no `.version`"},
        BadPtx{"OnlyComments", "// nothing\n/* here */\n", "no `.version`"},
        BadPtx{"NotPtx", "int main() { return 0; }",
               "line 1: expected `.version`"},
        BadPtx{"VersionMissingNumber", ".version\n.target sm_90",
               "line 2: after `.version`: expected a version number"},
        BadPtx{"BadAddressSize", ".version 9.0\n.address_size 48",
               "line 2: .address_size: expected 32 or 64, found 48"},
        BadPtx{"UnknownParamType",
               ".version 9.0\n.visible .entry k(\n.param .q32 a\n)\n{ret;}",
               "line 3: `.entry k`: expected a parameter type such as .u32"},
        BadPtx{"MissingComma",
               ".version 9.0\n.entry k(.param .u32 a .param .u32 b)\n{}",
               "line 2: `.entry k`: expected `,` or `)` after parameter 0"},
        BadPtx{"UnclosedParams", ".version 9.0\n.entry k(.param .u32 a,",
               "expected `.param` in the parameter list, found the end"},
        BadPtx{"UnterminatedBody", ".version 9.0\n\n.entry k()\n{\n ret;\n",
               "line 3: the body of `.entry k` has no closing `}`"},
        BadPtx{"ZeroThreads", ".version 9.0\n.entry k()\n.maxntid 0\n{}",
               "line 3: .maxntid: thread counts must be at least 1"},
        BadPtx{"FourDims", ".version 9.0\n.entry k()\n.reqntid 1,1,1,1\n{}",
               "expected at most 3 dimensions"},
        BadPtx{"HugeArray",
               ".version 9.0\n.entry k(.param .b64 a[4294967295])\n{}",
               "line 2: `.entry k`: parameter `a` is too large"},
        BadPtx{"NumberOverflow",
               ".version 9.0\n.entry k(.param .b8 a[99999999999])\n{}",
               "is too large"},
        BadPtx{"BadAlign",
               ".version 9.0\n.entry k(.param .align 3 .b8 a[4])\n{}",
               ".align must be a power of two, found 3"},
        BadPtx{"UnterminatedComment", ".version 9.0\n/* open\n\n",
               "line 2: unterminated /* comment"},
        BadPtx{"UnterminatedString", ".version 9.0\n.file 1 \"abc\n",
               "line 2: unterminated string literal"},
        BadPtx{"StatementWithoutSemicolon", ".version 9.0\n.global .u32 x",
               "line 2: the statement"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(PtxReader, BinaryInputIsRejected) {
  StatusOr<PtxModule> m = readPtx(std::string("\x7f"
                                              "ELF\x02\x01\0\0",
                                              8));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("line 1: found a NUL byte"),
            std::string::npos)
      << m.status().message();
}

TEST(PtxReader, EveryPrefixOfARealModuleIsHandled) {
  std::string text = fixture();
  ASSERT_FALSE(text.empty());
  size_t ok = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    StatusOr<PtxModule> m = readPtx(std::string_view(text).substr(0, n));
    if (m.ok()) {
      ++ok;
      EXPECT_LE(m->entries.size(), 4u);
    } else {
      EXPECT_FALSE(m.status().message().empty());
    }
  }
  EXPECT_GT(ok, 0u); // whole-statement prefixes are valid modules
}

TEST(PtxReader, RandomMutationsNeverCrash) {
  std::string text = fixture();
  ASSERT_FALSE(text.empty());
  std::mt19937 rng(1234);
  const char alphabet[] = "(){},;[]./ \n\"*0123456789.entry.param.u32\0";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string mutated = text;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % mutated.size();
      switch (rng() % 3) {
      case 0:
        mutated[pos] = alphabet[rng() % (sizeof alphabet - 1)];
        break;
      case 1:
        mutated.erase(pos, rng() % 16);
        break;
      default:
        mutated.insert(pos, 1, alphabet[rng() % (sizeof alphabet - 1)]);
      }
      if (mutated.empty())
        mutated = "x";
    }
    StatusOr<PtxModule> m = readPtx(mutated);
    if (!m.ok()) {
      EXPECT_NE(m.status().message().find("line "), std::string::npos)
          << m.status().message();
    }
  }
}

} // namespace
} // namespace kb
