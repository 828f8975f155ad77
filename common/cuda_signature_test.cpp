#include "common/cuda_signature.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(CudaSignature, TemplateInstanceGivesTypesAndConstness) {
  // nvcc's name for `reduce<256, true>(const float *, float *, unsigned)`.
  StatusOr<CudaSignature> sig =
      demangleCudaKernel("_Z6reduceILj256ELb1EEvPKfPfj");
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  EXPECT_EQ(sig->function, "reduce");
  ASSERT_EQ(sig->parameters.size(), 3u);
  EXPECT_TRUE(sig->parameters[0].pointer);
  EXPECT_TRUE(sig->parameters[0].pointeeConst);
  EXPECT_EQ(sig->parameters[0].type, "f32");
  EXPECT_TRUE(sig->parameters[1].pointer);
  EXPECT_FALSE(sig->parameters[1].pointeeConst);
  EXPECT_FALSE(sig->parameters[2].pointer);
  EXPECT_EQ(sig->parameters[2].type, "u32");
}

TEST(CudaSignature, HalfBf16VectorsAndNamespaces) {
  StatusOr<CudaSignature> sig =
      demangleCudaKernel("_ZN2ns4tileEPK6__halfP13__nv_bfloat16P6float4x");
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  EXPECT_EQ(sig->function, "tile");
  ASSERT_EQ(sig->parameters.size(), 4u);
  EXPECT_EQ(sig->parameters[0].type, "f16");
  EXPECT_TRUE(sig->parameters[0].pointeeConst);
  EXPECT_EQ(sig->parameters[1].type, "bf16");
  EXPECT_EQ(sig->parameters[2].type, "f32");
  EXPECT_EQ(sig->parameters[2].vectorWidth, 4u);
  EXPECT_EQ(sig->parameters[3].type, "i64");
}

TEST(CudaSignature, TypesOutsideTheAbiAreEmpty) {
  StatusOr<CudaSignature> sig = demangleCudaKernel("_Z4move8ParticlePPfb");
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  ASSERT_EQ(sig->parameters.size(), 3u);
  EXPECT_EQ(sig->parameters[0].type, ""); // a struct by value
  EXPECT_EQ(sig->parameters[1].type, ""); // float **
  EXPECT_EQ(sig->parameters[2].type, ""); // bool
}

TEST(CudaSignature, ExternCNamesAreRefused) {
  EXPECT_FALSE(isMangledName("saxpy"));
  EXPECT_TRUE(isMangledName("_Z5saxpyPKfPffj"));
  EXPECT_FALSE(demangleCudaKernel("saxpy").ok());
  EXPECT_FALSE(demangleCudaKernel("_Zgarbage").ok());
}

TEST(CudaSignature, NoParameters) {
  StatusOr<CudaSignature> sig = demangleCudaKernel("_Z4tickv");
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  EXPECT_EQ(sig->function, "tick");
  EXPECT_TRUE(sig->parameters.empty());
}

} // namespace
} // namespace kb
