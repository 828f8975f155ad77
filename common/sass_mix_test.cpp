//===- common/sass_mix_test.cpp -------------------------------------------===//
#include "common/sass_mix.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

// cuobjdump -sass's shape (nvdisasm prints the same instruction lines); the
// second half of each 128-bit instruction is a line of its own, offset-less.
constexpr const char *kListing = R"sass(
	code for sm_90
		Function : copy
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe20000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                     /* 0x0000000000007919 */
        /*0020*/                   ISETP.GE.U32.AND P0, PT, R0, UR4, PT ; /* 0x0000000400007c0c */
        /*0030*/               @P0 EXIT ;                                 /* 0x000000000000094d */
        /*0040*/                   LDG.E.128 R4, desc[UR4][R2.64] ;       /* 0x0000000402047981 */
        /*0050*/                   STG.E.128 desc[UR4][R8.64], R4 ;       /* 0x0000000408007986 */
        /*0060*/              @!PT BRA 0x60 ;                             /* 0xfffffffc00fc7947 */
        /*0070*/                   EXIT ;                                 /* 0x000000000000794d */
		..........
)sass";

TEST(SassMixTest, CountsOpcodesWithModifiersPastGuards) {
  SassInstructionMix mix = countSassInstructions(kListing);
  EXPECT_EQ(mix.instructions, 8u);
  EXPECT_EQ(mix.opcodes["LDG.E.128"], 1u);
  EXPECT_EQ(mix.opcodes["STG.E.128"], 1u);
  EXPECT_EQ(mix.opcodes["EXIT"], 2u);
  EXPECT_EQ(mix.opcodes["BRA"], 1u);
  EXPECT_EQ(mix.opcodes["ISETP.GE.U32.AND"], 1u);
}

TEST(SassMixTest, TextWithoutInstructionsCountsNone) {
  EXPECT_EQ(countSassInstructions("").instructions, 0u);
  EXPECT_EQ(
      countSassInstructions("/* 0x000fe2 */ ;\n/*zz*/ MOV ;\n").instructions,
      0u);
}

} // namespace
} // namespace kb
