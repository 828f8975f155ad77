//===- common/byte_size_test.cpp ------------------------------------------===//
#include "common/byte_size.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(ByteSize, ReadsBytesAndBinaryUnits) {
  EXPECT_EQ(parseByteSize("4096"), 4096u);
  EXPECT_EQ(parseByteSize("64KiB"), 64u << 10);
  EXPECT_EQ(parseByteSize("512MiB"), 512u << 20);
  EXPECT_EQ(parseByteSize("4G"), uint64_t(4) << 30);
  EXPECT_EQ(parseByteSize("1TiB"), uint64_t(1) << 40);
  EXPECT_EQ(parseByteSize("0"), 0u);
}

TEST(ByteSize, RefusesWhatIsNotASize) {
  for (const char *bad : {"", "GiB", "-1", "4 GiB", "4gb", "4GB", "1.5GiB",
                          "0x10", "18446744073709551616", "16777216TiB"})
    EXPECT_FALSE(parseByteSize(bad)) << bad;
}

TEST(ByteSize, PrintsTheLargestWholeUnit) {
  EXPECT_EQ(formatByteSize(100), "100 bytes");
  EXPECT_EQ(formatByteSize(1), "1 byte");
  EXPECT_EQ(formatByteSize(512u << 20), "512 MiB");
  EXPECT_EQ(formatByteSize(uint64_t(3) << 29), "1.5 GiB");
  EXPECT_EQ(parseByteSize("4GiB").value(), uint64_t(4) << 30);
}

} // namespace
} // namespace kb
