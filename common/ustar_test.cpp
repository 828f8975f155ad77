//===- common/ustar_test.cpp - The strict ustar reader and writer --------===//
#include "common/ustar.h"

#include "common/test_util.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <fstream>
#include <map>

#include <unistd.h>

namespace kb::ustar {
namespace {

using kb::TempDir;

std::map<std::string, std::string> readAll(const std::string &path,
                                           Status &status) {
  std::map<std::string, std::string> out;
  status =
      readArchive(path, [&](const std::string &name, std::string_view bytes) {
        out[name] = std::string(bytes);
        return okStatus();
      });
  return out;
}

Status readStatus(const std::string &path) {
  Status status;
  readAll(path, status);
  return status;
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A raw ustar header with any name/type (the writer refuses bad ones).
std::string rawHeader(const std::string &name, char type, size_t size,
                      const char *magic = "ustar", const char *version = "00") {
  std::array<char, 512> b{};
  std::memcpy(&b[0], name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(&b[100], 8, "%07o", 0644);
  std::snprintf(&b[108], 8, "%07o", 0);
  std::snprintf(&b[116], 8, "%07o", 0);
  std::snprintf(&b[124], 12, "%011zo", size);
  std::snprintf(&b[136], 12, "%011o", 0);
  b[156] = type;
  std::memcpy(&b[257], magic, std::strlen(magic) + 1);
  std::memcpy(&b[263], version, 2);
  std::memset(&b[148], ' ', 8);
  unsigned sum = 0;
  for (char c : b)
    sum += static_cast<unsigned char>(c);
  std::snprintf(&b[148], 7, "%06o", sum);
  return std::string(b.data(), b.size());
}

std::string rawMember(const std::string &name, char type,
                      const std::string &data) {
  std::string out = rawHeader(name, type, data.size()) + data;
  out.append((512 - data.size() % 512) % 512, '\0');
  return out;
}

const std::string kEnd(1024, '\0');

TEST(UstarTest, RoundTripsNamesAndSizes) {
  TempDir dir = kb::testing::makeTempDir();
  std::string longName =
      std::string(120, 'd') + "/" + std::string(90, 'f') + ".kbm";
  std::vector<WriteMember> members = {
      {"build.json", "{}"},
      {"bench/empty.kbm", ""},
      {"bench/block.kbm", std::string(512, 'x')},
      {longName, std::string(1000, '\1')}};
  std::string tar = dir.file("a.tar");
  ASSERT_TRUE(writeArchive(tar, members).ok());
  Status status;
  auto read = readAll(tar, status);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(read.size(), members.size());
  for (const WriteMember &m : members)
    EXPECT_EQ(read[m.name], m.bytes) << m.name;
  // Deterministic: the same members give the same bytes.
  std::string again = dir.file("b.tar");
  ASSERT_TRUE(writeArchive(again, members).ok());
  EXPECT_EQ(kb::testing::readFile(tar), kb::testing::readFile(again));
}

TEST(UstarTest, SystemTarReadsOursAndWeReadItsUstar) {
  if (!kb::testing::findTool("tar"))
    GTEST_SKIP() << "no tar on PATH";
  TempDir dir = kb::testing::makeTempDir();
  std::string tar = dir.file("ours.tar");
  ASSERT_TRUE(writeArchive(tar, {{"bench/a.kbm", "abc"}}).ok());
  auto listed = kb::testing::runCommand(
      "tar -tvf " + kb::testing::shellQuote(tar), dir.file("list.log"));
  EXPECT_EQ(listed.exitCode, 0) << listed.output;
  EXPECT_NE(listed.output.find("bench/a.kbm"), std::string::npos);

  ASSERT_EQ(::mkdir(dir.file("src").c_str(), 0755), 0);
  writeBytes(dir.file("src/x.txt"), "hello");
  std::string theirs = dir.file("theirs.tar");
  auto made = kb::testing::runCommand(
      "tar --format=ustar -C " + kb::testing::shellQuote(dir.file("src")) +
          " -cf " + kb::testing::shellQuote(theirs) + " x.txt",
      dir.file("make.log"));
  ASSERT_EQ(made.exitCode, 0) << made.output;
  Status status;
  auto read = readAll(theirs, status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(read["x.txt"], "hello");
}

TEST(UstarTest, WriterRefusesBadNames) {
  TempDir dir = kb::testing::makeTempDir();
  for (const std::string &bad :
       std::vector<std::string>{"../x", "/etc/passwd", "a/../b", "a//b", "./a",
                                "a/", "", std::string(200, 'n')}) {
    Status s = writeArchive(dir.file("bad.tar"), {{bad, "x"}});
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << bad;
  }
  EXPECT_FALSE(
      writeArchive(dir.file("dup.tar"), {{"a", "1"}, {"a", "2"}}).ok());
  EXPECT_FALSE(std::ifstream(dir.file("bad.tar")).good())
      << "nothing is written for a refused archive";
}

TEST(UstarTest, ReaderRefusesTraversalAndAbsoluteNames) {
  TempDir dir = kb::testing::makeTempDir();
  for (const std::string bad : {"../x", "/abs", "a/../../x", "a/./b", "a//b"}) {
    std::string tar = dir.file("t.tar");
    writeBytes(tar, rawMember(bad, '0', "x") + kEnd);
    Status s = readStatus(tar);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << bad;
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.message();
  }
}

TEST(UstarTest, ReaderRefusesEveryKindButRegularFiles) {
  TempDir dir = kb::testing::makeTempDir();
  std::map<char, std::string> kinds = {
      {'1', "hard link"},    {'2', "symbolic link"}, {'3', "character device"},
      {'5', "directory"},    {'6', "FIFO"},          {'x', "pax"},
      {'L', "GNU long-name"}};
  for (const auto &[type, words] : kinds) {
    std::string tar = dir.file("k.tar");
    writeBytes(tar, rawMember("evil", type, "") + kEnd);
    Status s = readStatus(tar);
    EXPECT_FALSE(s.ok()) << type;
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("evil"), std::string::npos) << s.message();
  }
}

TEST(UstarTest, ReaderRefusesGnuFormatDuplicatesAndBadChecksums) {
  TempDir dir = kb::testing::makeTempDir();
  std::string tar = dir.file("g.tar");
  std::string gnu = rawHeader("a", '0', 0, "ustar ", " \0");
  writeBytes(tar, gnu + kEnd);
  EXPECT_NE(readStatus(tar).message().find("not a POSIX ustar"),
            std::string::npos);

  writeBytes(tar, rawMember("a", '0', "1") + rawMember("a", '0', "2") + kEnd);
  EXPECT_NE(readStatus(tar).message().find("appears twice"), std::string::npos);

  std::string member = rawMember("a", '0', "1");
  member[10] = 'z'; // the checksum no longer matches
  writeBytes(tar, member + kEnd);
  EXPECT_EQ(readStatus(tar).code(), StatusCode::DataLoss);
}

TEST(UstarTest, EveryTruncationIsRefusedNamingWhatIsMissing) {
  TempDir dir = kb::testing::makeTempDir();
  std::string full = dir.file("full.tar");
  ASSERT_TRUE(
      writeArchive(full, {{"build.json", "{}"}, {"bench/a.kbm", "abc"}}).ok());
  std::string bytes = kb::testing::readFile(full);
  std::string cut = dir.file("cut.tar");
  ASSERT_EQ(bytes.size(), 3u * 1024) << "two members and the end marker";
  ASSERT_TRUE(readStatus(full).ok());
  // Every proper prefix, byte by byte: a cut in a header, in data, at a
  // block boundary or in the end marker is each refused as lost data.
  for (size_t n = 0; n < bytes.size(); ++n) {
    writeBytes(cut, bytes.substr(0, n));
    Status s = readStatus(cut);
    ASSERT_EQ(s.code(), StatusCode::DataLoss)
        << "prefix of " << n << " bytes: " << s.message();
  }
  // Cut inside the second member's data: the message names it.
  writeBytes(cut, bytes.substr(0, 512 * 3 + 1));
  Status s = readStatus(cut);
  EXPECT_NE(s.message().find("bench/a.kbm` is truncated"), std::string::npos)
      << s.message();
}

TEST(UstarTest, ReaderRefusesDataAfterTheEndButAcceptsZeroPadding) {
  TempDir dir = kb::testing::makeTempDir();
  std::string tar = dir.file("p.tar");
  writeBytes(tar, rawMember("a", '0', "1") + kEnd + std::string(8192, '\0'));
  EXPECT_TRUE(readStatus(tar).ok());
  writeBytes(tar, rawMember("a", '0', "1") + kEnd + rawMember("b", '0', "2"));
  EXPECT_NE(readStatus(tar).message().find("after the end-of-archive"),
            std::string::npos);
}

TEST(UstarTest, AHugeSizeFieldIsTruncationNotAnAllocation) {
  TempDir dir = kb::testing::makeTempDir();
  std::string tar = dir.file("h.tar");
  writeBytes(tar, rawHeader("big", '0', 077777777777ULL) + kEnd);
  Status s = readStatus(tar);
  EXPECT_EQ(s.code(), StatusCode::DataLoss);
  EXPECT_NE(s.message().find("`big` is truncated"), std::string::npos);
}

/// A member's header reaches the visitor before any of its bytes are read:
/// a sparse 2 GiB member is refused by name at once, and one that is read
/// arrives in bounded chunks, never as one allocation.
TEST(UstarTest, StreamingVisitsHeadersFirstAndReadsInChunks) {
  TempDir dir = kb::testing::makeTempDir();
  std::string tar = dir.file("s.tar");
  const uint64_t huge = uint64_t(2) << 30;
  writeBytes(tar, rawMember("small", '0', std::string(3000, 'x')) +
                      rawHeader("huge", '0', huge));
  // The huge member's bytes: a hole, then the end marker.
  ASSERT_EQ(::truncate(tar.c_str(), off_t(512 * 8 + huge + 1024)), 0);
  std::vector<std::string> seen;
  size_t largestChunk = 0, smallBytes = 0;
  Status status =
      streamArchive(tar,
                    [&](const std::string &name, uint64_t size,
                        const MemberBytes &read) -> Status {
                      seen.push_back(name + ":" + std::to_string(size));
                      if (name == "huge")
                        return invalidArgument("`huge` is not wanted");
                      return read([&](std::string_view chunk) {
                        largestChunk = std::max(largestChunk, chunk.size());
                        smallBytes += chunk.size();
                        return okStatus();
                      });
                    });
  EXPECT_EQ(status.message(), "`huge` is not wanted");
  EXPECT_EQ(seen, (std::vector<std::string>{"small:3000",
                                            "huge:" + std::to_string(huge)}));
  EXPECT_EQ(smallBytes, 3000u);
  EXPECT_LE(largestChunk, kStreamChunkBytes);
  // A member the visitor does not read is skipped; the rest still checked.
  std::string plain = dir.file("p.tar");
  writeBytes(plain,
             rawMember("a", '0', "1") + rawMember("b", '0', "22") + kEnd);
  std::vector<std::string> names;
  EXPECT_TRUE(streamArchive(plain, [&](const std::string &name, uint64_t,
                                       const MemberBytes &) {
                names.push_back(name);
                return okStatus();
              }).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
}

} // namespace
} // namespace kb::ustar
