//===- runtime/bench/fixed_data_test.cpp - .npy data for a dispatch -------===//
#include "runtime/bench/fixed_data.h"

#include "common/file_util.h"
#include "common/npy.h"
#include "common/sha256.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::bench {
namespace {

class FixedDataLoadTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb_fixed_data_");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    // Buffers: 0 scratch, 1 x (f32 x 4), 2 y (f32 x 4); the dispatch binds
    // x as binding 0 and y as binding 1; y is the function's output.
    function_.name = "main";
    function_.buffers = {{"scratch", ElementType::U32, 1, {}},
                         {"x", ElementType::F32, 4, {}},
                         {"y", ElementType::F32, 4, {}}};
    dispatch_.kind = module::Op::Kind::Dispatch;
    dispatch_.bindings = {{1, 0, 0}, {2, 0, 0}};
    function_.outputs = {{2, std::nullopt, std::nullopt}};
  }

  /// |bytes| written as |name|, declared for |binding|.
  FixedArray array(const std::string &name, uint32_t binding,
                   const std::string &bytes) {
    FixedArray a;
    a.name = binding == 0 ? "x" : "y";
    a.binding = binding;
    a.source = name;
    a.file = dir_->path() / name;
    a.sha256 = sha256Hex(bytes);
    std::ofstream(a.file, std::ios::binary) << bytes;
    return a;
  }

  std::string f32(size_t count, char fill = 0) {
    return npy::encode(ElementType::F32, {count}, std::string(4 * count, fill));
  }

  std::optional<TempDir> dir_;
  module::Function function_;
  module::Op dispatch_;
};

TEST_F(FixedDataLoadTest, InputsAndExpectedOutputsGoToTheDispatchesBuffers) {
  KernelDeclared declared;
  declared.fixedInputs.push_back(array("x.npy", 0, f32(4, 1)));
  declared.expectedOutputs.push_back(array("y.npy", 1, f32(4, 2)));
  auto fixed = loadFixedData(declared, function_, dispatch_);
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  ASSERT_EQ(fixed->inputs.size(), 1u);
  ASSERT_TRUE(fixed->inputs.count(1)) << "x is buffer 1";
  EXPECT_EQ(*fixed->inputs.at(1), std::vector<uint8_t>(16, 1));
  ASSERT_EQ(fixed->expected.size(), 1u);
  EXPECT_EQ(fixed->expected[0].buffer, 2u);
  EXPECT_EQ(fixed->expected[0].name, "y");
  EXPECT_EQ(fixed->expected[0].bytes, std::vector<uint8_t>(16, 2));
  EXPECT_EQ(fixed->description,
            "checked against y.npy (fixed inputs x.npy); seeded, all-zero, "
            "large-magnitude and special-value checks not applicable to "
            "fixed inputs");
}

TEST_F(FixedDataLoadTest, AFileChangedSinceTheBuildIsRefused) {
  KernelDeclared declared;
  declared.fixedInputs.push_back(array("x.npy", 0, f32(4)));
  std::ofstream(declared.fixedInputs[0].file, std::ios::app) << "x";
  auto fixed = loadFixedData(declared, function_, dispatch_);
  ASSERT_FALSE(fixed.ok());
  EXPECT_THAT(fixed.status().message(),
              HasSubstr("the file changed after `kernel-bench build`"));
}

TEST_F(FixedDataLoadTest, AFileThatDoesNotFitItsBufferIsRefused) {
  KernelDeclared declared;
  declared.fixedInputs.push_back(array("x.npy", 0, f32(5)));
  auto fixed = loadFixedData(declared, function_, dispatch_);
  ASSERT_FALSE(fixed.ok());
  EXPECT_THAT(fixed.status().message(),
              HasSubstr("5 elements (shape (5,)), but binding `x` has 4"));
  declared.fixedInputs[0] = array("x.npy", 7, f32(4));
  fixed = loadFixedData(declared, function_, dispatch_);
  ASSERT_FALSE(fixed.ok());
  EXPECT_THAT(fixed.status().message(),
              HasSubstr("binding 7 `y` is not one of the dispatch's 2"));
}

TEST_F(FixedDataLoadTest, AMissingFileIsNotFound) {
  KernelDeclared declared;
  declared.fixedInputs.push_back(array("x.npy", 0, f32(4)));
  fs::remove(declared.fixedInputs[0].file);
  auto fixed = loadFixedData(declared, function_, dispatch_);
  ASSERT_FALSE(fixed.ok());
  EXPECT_EQ(fixed.status().code(), StatusCode::NotFound)
      << fixed.status().message();
}

TEST_F(FixedDataLoadTest, AnExpectedOutputMustBeAnOutputOfTheFunction) {
  KernelDeclared declared;
  declared.expectedOutputs.push_back(array("y.npy", 1, f32(4)));
  function_.outputs.clear();
  auto fixed = loadFixedData(declared, function_, dispatch_);
  ASSERT_FALSE(fixed.ok());
  EXPECT_THAT(fixed.status().message(),
              HasSubstr("only 0 are outputs of function `main`"));
}

} // namespace
} // namespace kb::bench
