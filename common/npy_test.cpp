//===- common/npy_test.cpp - The .npy reader and writer -------------------===//
#include "common/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace kb::npy {
namespace {

std::string floats(const std::vector<float> &values) {
  std::string bytes(values.size() * 4, '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// A file with |header| as its dict (format 1.0, unpadded) and |data|.
std::string withHeader(const std::string &header, const std::string &data) {
  std::string text = header + "\n";
  std::string out("\x93NUMPY\x01\x00", 8);
  out += char(text.size() & 0xff);
  out += char(text.size() >> 8);
  return out + text + data;
}

std::string errorOf(const std::string &bytes) {
  auto parsed = parse(bytes, "x.npy");
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(NpyTest, RoundTripsWhatItWrites) {
  std::string data = floats({1, 2, 3, 4, 5, 6});
  std::string file = encode(ElementType::F32, {2, 3}, data);
  EXPECT_EQ((file.size() - data.size()) % 64, 0u) << "data 64-byte aligned";
  auto array = parse(file, "x.npy");
  ASSERT_TRUE(array.ok()) << array.status().message();
  EXPECT_EQ(array->descr, "<f4");
  EXPECT_EQ(array->elementType, ElementType::F32);
  EXPECT_EQ(array->shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(array->elementCount, 6u);
  EXPECT_EQ(array->data, data);
}

TEST(NpyTest, ReadsWhatNumpyWritesInEachVersion) {
  // The header numpy.save writes, byte for byte, for np.arange(3, dtype=i4).
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': "
                       "(3,), }";
  std::string data("\1\0\0\0\2\0\0\0\3\0\0\0", 12);
  auto v1 = parse(withHeader(header, data), "x.npy");
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  EXPECT_EQ(v1->elementType, ElementType::I32);
  for (char major : {'\x02', '\x03'}) {
    std::string text = header + "\n";
    std::string file("\x93NUMPY", 6);
    file += major;
    file += '\0';
    file += std::string{char(text.size()), 0, 0, 0};
    auto parsed = parse(file + text + data, "x.npy");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->elementCount, 3u);
  }
  auto scalar = parse(
      withHeader("{'descr': '|u1', 'fortran_order': False, 'shape': ()}", "a"),
      "x.npy");
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->elementCount, 1u);
}

TEST(NpyTest, RefusesWrongMagic) {
  EXPECT_NE(errorOf("PK\3\4 a zip, not an array")
                .find("not a NumPy .npy file: expected the magic"),
            std::string::npos);
}

TEST(NpyTest, RefusesTruncatedHeaderAndData) {
  std::string file = encode(ElementType::F32, {4}, floats({1, 2, 3, 4}));
  EXPECT_NE(errorOf(file.substr(0, 7)).find("truncated .npy header"),
            std::string::npos);
  EXPECT_NE(errorOf(file.substr(0, 40)).find("truncated .npy header"),
            std::string::npos);
  std::string short_ = errorOf(file.substr(0, file.size() - 2));
  EXPECT_NE(short_.find("16 bytes of data, but the file holds 14"),
            std::string::npos)
      << short_;
  EXPECT_NE(short_.find("truncated"), std::string::npos);
  EXPECT_NE(errorOf(file + "xx").find("not one .npy array"), std::string::npos);
}

TEST(NpyTest, RefusesFortranOrderBigEndianAndUnknownDtypes) {
  std::string data = floats({1, 2, 3, 4});
  std::string fortran = errorOf(withHeader(
      "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", data));
  EXPECT_NE(fortran.find("Fortran (column-major) order"), std::string::npos);
  EXPECT_NE(fortran.find("ascontiguousarray"), std::string::npos);
  std::string big = errorOf(withHeader(
      "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", data));
  EXPECT_NE(big.find("big-endian"), std::string::npos) << big;
  EXPECT_NE(big.find("a.astype('<f4')"), std::string::npos) << big;
  EXPECT_NE(errorOf(withHeader("{'descr': '<c8', 'fortran_order': False, "
                               "'shape': (2,), }",
                               data))
                .find("is not one a binding holds"),
            std::string::npos);
  EXPECT_NE(errorOf(withHeader("{'descr': [('a', '<f4')], 'fortran_order': "
                               "False, 'shape': (4,), }",
                               data))
                .find("structured dtype"),
            std::string::npos);
  EXPECT_NE(errorOf(withHeader("{'descr': '<f4', 'shape': (4,), }", data))
                .find("has no `fortran_order`"),
            std::string::npos);
  EXPECT_NE(errorOf(withHeader("not a dict", data)).find("expected `{`"),
            std::string::npos);
  EXPECT_NE(errorOf(std::string("\x93NUMPY\x04\x00", 8)).find("version 4.0"),
            std::string::npos);
}

TEST(NpyTest, ChecksTheBindingsTypeAndSize) {
  std::string file = encode(ElementType::F64, {4}, std::string(32, '\0'));
  auto wrongType =
      parseFor(file, "x.npy", ElementType::F32, 4, "binding `x` (0)");
  ASSERT_FALSE(wrongType.ok());
  EXPECT_NE(wrongType.status().message().find(
                "dtype `<f8` (float64) does not match binding `x` (0) (f32, "
                "stored as `<f4`); save a.astype(numpy.float32)"),
            std::string::npos)
      << wrongType.status().message();
  auto wrongCount =
      parseFor(file, "x.npy", ElementType::F64, 5, "binding `x` (0)");
  ASSERT_FALSE(wrongCount.ok());
  EXPECT_NE(wrongCount.status().message().find(
                "4 elements (shape (4,)), but binding `x` (0) has 5"),
            std::string::npos)
      << wrongCount.status().message();
  EXPECT_TRUE(parseFor(file, "x.npy", ElementType::F64, 4, "x").ok());
  std::string bits = encode(ElementType::U16, {2}, std::string(4, '\0'));
  EXPECT_TRUE(parseFor(bits, "x.npy", ElementType::BF16, 2, "x").ok())
      << "bf16 is stored as its uint16 bits";
}

TEST(NpyTest, EveryPrefixAndRandomMutationsAreErrorsNotCrashes) {
  std::string file = encode(ElementType::I16, {3, 5}, std::string(30, '\7'));
  for (size_t n = 0; n < file.size(); ++n)
    EXPECT_FALSE(parse(file.substr(0, n), "x.npy").ok()) << n << " bytes";
  // Mutations mostly inside the header, where the parsing is: each is
  // either refused or still a well-formed array of what it says.
  std::mt19937 rng(1);
  for (int i = 0; i < 5000; ++i) {
    std::string mutated = file;
    for (int k = 0; k < 3; ++k)
      mutated[rng() % 80] = char(rng());
    auto parsed = parse(mutated, "x.npy");
    if (parsed.ok())
      EXPECT_EQ(parsed->data.size(),
                parsed->elementCount * byteSize(parsed->elementType));
  }
}

TEST(NpyTest, DescrOfEveryElementType) {
  EXPECT_EQ(descrOf(ElementType::I8), "|i1");
  EXPECT_EQ(descrOf(ElementType::U8), "|u1");
  EXPECT_EQ(descrOf(ElementType::F16), "<f2");
  EXPECT_EQ(descrOf(ElementType::BF16), "<u2");
  EXPECT_EQ(descrOf(ElementType::I64), "<i8");
  EXPECT_EQ(descrOf(ElementType::U32), "<u4");
}

} // namespace
} // namespace kb::npy
