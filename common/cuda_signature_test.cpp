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

// `entry = "MatrixMulCUDA<32>"` names the instance as the demangler spells
// it, less the return type and parameters; spaces and the suffixes of an
// unsigned or long argument are the demangler's, not the user's.
TEST(CudaSignature, TemplateInstanceIsTheNameWithItsArguments) {
  StatusOr<CudaSignature> sig =
      demangleCudaKernel("_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii");
  ASSERT_TRUE(sig.ok()) << sig.status().message();
  EXPECT_EQ(sig->instance, "MatrixMulCUDA<32>");
  EXPECT_EQ(demangleCudaKernel("_ZN2ns1kILi3ELi4EEEvPf")->instance,
            "ns::k<3, 4>");
  EXPECT_EQ(demangleCudaKernel("_Z4tickv")->instance, "tick");
  EXPECT_EQ(demangleCudaKernel("_Z6reduceILj256ELb1EEvPKfPfj")->instance,
            "reduce<256u, true>");

  EXPECT_TRUE(sameTemplateInstance("ns::k<3,4>", "ns::k<3, 4>"));
  EXPECT_TRUE(sameTemplateInstance("reduce<256, true>", "reduce<256u, true>"));
  EXPECT_TRUE(sameTemplateInstance("k<32>", "k<32ul>"));
  EXPECT_TRUE(sameTemplateInstance("k<-1>", "k<-1>"));
  EXPECT_FALSE(sameTemplateInstance("k<32>", "k<320>"));
  EXPECT_FALSE(sameTemplateInstance("k<3>", "ns::k<3>"));
  EXPECT_FALSE(sameTemplateInstance("k<16>", "k<32>"));
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
