//===- tests/e2e/frontend_reference_test.cpp - formed kernels are right ---===//
//
// The front end's generated kernels are the reference handwritten kernels
// are checked against, so they are checked against the CPU here: a model
// is built with `kernel-bench build` (program = model.mlir), its program
// runs on lavapipe with the generated kernels only, and the outputs are
// compared with a double-precision CPU computation from the same seeded
// inputs (the module's own generator). Matmul at sizes up to 512^3,
// including sizes no workgroup divides, a padded convolution and a slice,
// and the MLP example end to end.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "runtime/hal/driver_registry.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/module/executor.h"
#include "runtime/module/inputs.h"
#include "runtime/module/module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;

std::vector<float> toFloats(const std::vector<uint8_t> &bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

class FrontEndReferenceTest : public kb::test::KernelBenchTest {
protected:
  FrontEndReferenceTest() : KernelBenchTest("kb_frontend_test") {}

  /// Builds |model| for Vulkan, runs it with the generated kernels, and
  /// returns the model's arguments (as seeded) and its output. False (with
  /// a skip or failure recorded) when that cannot happen.
  bool runModel(const std::string &model, std::vector<std::vector<float>> &args,
                std::vector<std::vector<float>> &outputs) {
    fs::path project = tmp_ / "model";
    fs::create_directories(project);
    std::ofstream(project / "model.mlir") << model;
    std::ofstream(project / "workbench.toml")
        << "[project]\nname = \"model\"\nprogram = \"model.mlir\"\n"
           "kernels = []\ntargets = [\"vulkan:1.2\"]\n";
    kb::test::CliRun built = buildProject(project);
    EXPECT_EQ(built.exitCode, 0) << built.output;
    if (built.exitCode != 0)
      return false;
    auto module = kb::module::loadModuleFile((out_ / "program.kbm").string());
    EXPECT_TRUE(module.ok()) << module.status().message();
    if (!module.ok())
      return false;
    auto selected = kb::hal::selectDevice(kb::hal::builtinDrivers(), "vulkan");
    if (!selected.ok()) {
      // Skip only where the driver lists no device; a listed device that
      // cannot be picked is a regression, not a machine without Vulkan.
      EXPECT_FALSE(kb::testing::vulkanDeviceListed())
          << "a Vulkan device is listed but could not be selected: "
          << selected.status().message();
      skip_ = kb::testing::noVulkanReason();
      return false;
    }
    const kb::module::Function &main = module->functions.at(0);
    auto result =
        kb::module::runFunction(*selected->device, *module, main,
                                kb::module::VariantChoice::ReferenceOnly);
    EXPECT_TRUE(result.ok()) << result.status().message();
    if (!result.ok())
      return false;
    // The host function allocates the model's arguments first, in order.
    for (size_t i = 0; i < args.size(); ++i)
      args[i] = toFloats(kb::module::generateContents(main.buffers[i]));
    for (const kb::module::OutputData &output : result->outputs)
      outputs.push_back(toFloats(output.bytes));
    return true;
  }

  std::string skip_;
};

#define RUN_MODEL_OUTPUTS(model, args, outputs)                                \
  do {                                                                         \
    if (!runModel(model, args, outputs)) {                                     \
      if (!skip_.empty())                                                      \
        GTEST_SKIP() << skip_;                                                 \
      return;                                                                  \
    }                                                                          \
  } while (false)

/// One output: |output|.
#define RUN_MODEL(model, args, output)                                         \
  std::vector<std::vector<float>> outputs_;                                    \
  RUN_MODEL_OUTPUTS(model, args, outputs_);                                    \
  ASSERT_EQ(outputs_.size(), 1u);                                              \
  output = outputs_[0]

struct MatmulSize {
  int m, k, n;
};

class FrontEndMatmulTest : public FrontEndReferenceTest,
                           public ::testing::WithParamInterface<MatmulSize> {};

TEST_P(FrontEndMatmulTest, GeneratedMatmulMatchesTheCpu) {
  auto [m, k, n] = GetParam();
  std::ostringstream model;
  auto t = [](int a, int b) {
    return "tensor<" + std::to_string(a) + "x" + std::to_string(b) + "xf32>";
  };
  model << "func.func @main(%a: " << t(m, k) << ", %b: " << t(k, n) << ") -> "
        << t(m, n) << " {\n"
        << "  %zero = arith.constant 0.0 : f32\n"
        << "  %e = tensor.empty() : " << t(m, n) << "\n"
        << "  %f = linalg.fill ins(%zero : f32) outs(%e : " << t(m, n)
        << ") -> " << t(m, n) << "\n"
        << "  %c = linalg.matmul ins(%a, %b : " << t(m, k) << ", " << t(k, n)
        << ") outs(%f : " << t(m, n) << ") -> " << t(m, n) << "\n"
        << "  return %c : " << t(m, n) << "\n}\n";
  std::vector<std::vector<float>> args(2);
  std::vector<float> c;
  RUN_MODEL(model.str(), args, c);
  const std::vector<float> &a = args[0], &b = args[1];
  ASSERT_EQ(c.size(), static_cast<size_t>(m) * n);
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        sum += double(a[i * k + p]) * b[p * n + j];
        magnitude += std::fabs(double(a[i * k + p]) * b[p * n + j]);
      }
      double got = c[i * n + j];
      // f32 accumulation in order: error grows with k and the magnitudes.
      if (std::fabs(got - sum) > 1e-6 * k * magnitude + 1e-6 && ++wrong <= 5)
        ADD_FAILURE() << "c[" << i << "][" << j << "] = " << got
                      << ", the CPU says " << sum;
    }
  EXPECT_EQ(wrong, 0) << m << "x" << k << "x" << n;
}

INSTANTIATE_TEST_SUITE_P(Sizes, FrontEndMatmulTest,
                         ::testing::Values(MatmulSize{1, 1, 1},
                                           MatmulSize{17, 33, 9},
                                           MatmulSize{64, 128, 256},
                                           MatmulSize{512, 512, 512}),
                         [](const ::testing::TestParamInfo<MatmulSize> &info) {
                           return std::to_string(info.param.m) + "x" +
                                  std::to_string(info.param.k) + "x" +
                                  std::to_string(info.param.n);
                         });

/// relu(x * w + b) for x rows x in, w in x out, b out.
std::vector<double> denseRelu(const std::vector<double> &x,
                              const std::vector<float> &w,
                              const std::vector<float> &b, int rows, int in,
                              int out) {
  std::vector<double> y(static_cast<size_t>(rows) * out);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < out; ++j) {
      double sum = 0;
      for (int p = 0; p < in; ++p)
        sum += x[i * in + p] * w[p * out + j];
      y[i * out + j] = std::max(0.0, sum + b[j]);
    }
  return y;
}

// Padding and slices are read through (no dispatch of their own): a TOSA
// convolution with a 1-pixel border, and a strided slice.
TEST_F(FrontEndReferenceTest, PaddedConvolutionAndSliceMatchTheCpu) {
  const std::string model = R"(
func.func @main(%x: tensor<1x9x7x4xf32>, %w: tensor<8x3x3x4xf32>, %b: tensor<8xf32>, %s: tensor<8x9xf32>) -> (tensor<1x9x7x8xf32>, tensor<3x4xf32>) {
  %0 = "tosa.conv2d"(%x, %w, %b) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x9x7x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>) -> tensor<1x9x7x8xf32>
  %1 = "tosa.slice"(%s) {start = array<i64: 2, 1>, size = array<i64: 3, 4>} : (tensor<8x9xf32>) -> tensor<3x4xf32>
  %2 = "tosa.negate"(%1) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %2 : tensor<1x9x7x8xf32>, tensor<3x4xf32>
}
)";
  std::vector<std::vector<float>> args(4);
  std::vector<std::vector<float>> outputs;
  RUN_MODEL_OUTPUTS(model, args, outputs);
  ASSERT_EQ(outputs.size(), 2u);
  const std::vector<float> &x = args[0], &w = args[1], &b = args[2],
                           &in = args[3], &conv = outputs[0];
  const int H = 9, W = 7, C = 4, F = 8;
  int wrong = 0;
  for (int h = 0; h < H; ++h)
    for (int x0 = 0; x0 < W; ++x0)
      for (int f = 0; f < F; ++f) {
        double sum = b[f];
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw)
            for (int c = 0; c < C; ++c) {
              int ih = h + kh - 1, iw = x0 + kw - 1;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                sum += double(x[(ih * W + iw) * C + c]) *
                       w[((f * 3 + kh) * 3 + kw) * C + c];
            }
        double got = conv[(h * W + x0) * F + f];
        if (std::fabs(got - sum) > 1e-4 * (1 + std::fabs(sum)) && ++wrong <= 5)
          ADD_FAILURE() << "conv[" << h << "][" << x0 << "][" << f
                        << "] = " << got << ", the CPU says " << sum;
      }
  EXPECT_EQ(wrong, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(outputs[1][i * 4 + j], -in[(2 + i) * 9 + 1 + j])
          << "slice[" << i << "][" << j << "]";
}

TEST_F(FrontEndReferenceTest, MlpExampleMatchesTheCpu) {
  std::ifstream file(kSourceDir / "examples/mlp/model.mlir");
  std::string model((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  ASSERT_FALSE(model.empty());
  std::vector<std::vector<float>> args(5);
  std::vector<float> probs;
  RUN_MODEL(model, args, probs);
  const int rows = 256, in = 512, hidden = 512, out = 128;
  std::vector<double> x(args[0].begin(), args[0].end());
  std::vector<double> h = denseRelu(x, args[1], args[2], rows, in, hidden);
  std::vector<double> y = denseRelu(h, args[3], args[4], rows, hidden, out);
  ASSERT_EQ(probs.size(), static_cast<size_t>(rows) * out);
  int wrong = 0;
  for (int i = 0; i < rows; ++i) {
    double max = *std::max_element(&y[i * out], &y[i * out] + out), sum = 0;
    for (int j = 0; j < out; ++j)
      sum += std::exp(y[i * out + j] - max);
    for (int j = 0; j < out; ++j) {
      double expected = std::exp(y[i * out + j] - max) / sum;
      if (std::fabs(probs[i * out + j] - expected) > 1e-4 && ++wrong <= 5)
        ADD_FAILURE() << "probs[" << i << "][" << j
                      << "] = " << probs[i * out + j] << ", the CPU says "
                      << expected;
    }
  }
  EXPECT_EQ(wrong, 0);
}

} // namespace
