//===- common/terminal_text_test.cpp - Text from elsewhere ----------------===//
#include "common/terminal_text.h"

#include <gtest/gtest.h>

#include <random>

namespace kb {
namespace {

TEST(TerminalTextTest, ShowsControlSequencesInsteadOfObeyingThem) {
  EXPECT_EQ(terminalText("k\x1b[31mred\x1b]0;title\x07"),
            "k\\x1B[31mred\\x1B]0;title\\x07");
  EXPECT_EQ(terminalText("over\rwrite"), "over\\x0Dwrite");
  EXPECT_EQ(terminalText("del\x7f"), "del\\x7F");
  EXPECT_EQ(terminalText("c1 \xc2\x9b"
                         "2J"),
            "c1 \\u{009B}2J");
  EXPECT_EQ(terminalText("raw csi \x9b"
                         "2J"),
            "raw csi \\x9B2J");
  EXPECT_EQ(terminalText("bidi \xe2\x80\xae"
                         "cba"),
            "bidi \\u{202E}cba");
}

TEST(TerminalTextTest, KeepsPrintableTextAndLines) {
  EXPECT_EQ(terminalText("saxpy.cu:3: error: #error \"x\"\n\tcaret ^\n"),
            "saxpy.cu:3: error: #error \"x\"\n\tcaret ^\n");
  EXPECT_EQ(terminalText("median \xc2\xb1 IQR \xe6\x97\xa5 \xf0\x9f\x9a\x80"),
            "median \xc2\xb1 IQR \xe6\x97\xa5 \xf0\x9f\x9a\x80");
  EXPECT_EQ(terminalLine("a\nb\tc"), "a\\nb\\tc");
}

TEST(TerminalTextTest, RefusesOverlongAndSurrogateEncodings) {
  EXPECT_EQ(terminalText("\xc0\x9b"), "\\xC0\\x9B");          // overlong ESC
  EXPECT_EQ(terminalText("\xed\xa0\x80"), "\\xED\\xA0\\x80"); // surrogate
  EXPECT_EQ(terminalText("cut \xe2\x80"), "cut \\xE2\\x80");
}

/// Whatever goes in, nothing that a terminal obeys comes out: no byte below
/// 0x20 but newline and tab, no DEL, and valid UTF-8 without C1 controls.
TEST(TerminalTextTest, RandomBytesComeOutInert) {
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    std::string in(rng() % 64, '\0');
    for (char &c : in)
      c = char(rng() % 256);
    std::string out = terminalText(in);
    for (size_t i = 0; i < out.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(out[i]);
      ASSERT_TRUE(c >= 0x20 || c == '\n' || c == '\t') << int(c);
      ASSERT_NE(c, 0x7F);
      if (c == 0xC2 && i + 1 < out.size())
        ASSERT_FALSE(static_cast<unsigned char>(out[i + 1]) >= 0x80 &&
                     static_cast<unsigned char>(out[i + 1]) <= 0x9F);
    }
    EXPECT_EQ(terminalText(out), out) << "escaping twice changes nothing";
  }
}

} // namespace
} // namespace kb
