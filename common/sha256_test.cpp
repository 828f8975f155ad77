//===- common/sha256_test.cpp ---------------------------------------------===//

#include "common/sha256.h"
#include "common/test_util.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace kb {
namespace {

// FIPS 180-4 / NIST CAVP example vectors.
TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding edge cases: 55, 56 and 64 bytes straddle the length field.
TEST(Sha256Test, PaddingBoundaries) {
  EXPECT_EQ(sha256Hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256Hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256Test, IncrementalEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 1000; ++i)
    data.push_back(char(i * 7));
  for (size_t split : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65),
                       size_t(999)}) {
    Sha256 hash;
    hash.update(data.substr(0, split));
    hash.update(data.substr(split));
    EXPECT_EQ(hash.hexDigest(), sha256Hex(data)) << "split at " << split;
  }
}

TEST(Sha256Test, FileAndMissingFile) {
  kb::TempDir scratch = kb::testing::makeTempDir();
  auto path = scratch.path() / "abc";
  {
    std::ofstream out(path, std::ios::binary);
    out << "abc";
  }
  auto hash = sha256File(path);
  ASSERT_TRUE(hash.ok()) << hash.status().message();
  EXPECT_EQ(*hash,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::filesystem::remove(path);
  auto missing = sha256File(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_NE(missing.status().message().find(path.string()), std::string::npos);
}

} // namespace
} // namespace kb
