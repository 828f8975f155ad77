//===- toolchains/diagnostics_test.cpp ------------------------------------===//
//
// Every sample line below was produced by the real tools (nvcc/ptxas 13.0,
// gcc 12, glslc 2023.2, spirv-val 2023.1).
//
//===----------------------------------------------------------------------===//

#include "toolchains/diagnostics.h"
#include "toolchains/ptxas_report.h"

#include <gtest/gtest.h>

namespace kb::toolchains {
namespace {

struct Case {
  const char *tool; // the tool whose stderr this is
  const char *line;
  const char *expectTool;
  const char *file;
  int line_;
  int column;
  Severity severity;
  const char *message;
  const char *code;
};

const Case kCases[] = {
    {"nvcc", R"(bad.cu(2): error: identifier "undefined_thing" is undefined)",
     "nvcc", "bad.cu", 2, 0, Severity::Error,
     R"(identifier "undefined_thing" is undefined)", ""},
    {"nvcc", R"(inc/bad.h(1): error: expected a ";")", "nvcc", "inc/bad.h", 1,
     0, Severity::Error, R"(expected a ";")", ""},
    {"nvcc",
     "spill.cu(12): warning #20044-D: extern declaration of the entity dummy "
     "is treated as a static definition",
     "nvcc", "spill.cu", 12, 0, Severity::Warning,
     "extern declaration of the entity dummy is treated as a static "
     "definition",
     "20044-D"},
    {"nvcc", R"x(At end of source: error: expected a ")")x", "nvcc", "", 0, 0,
     Severity::Error, R"x(at end of source: expected a ")")x", ""},
    {"nvcc", "inc.cu:1:10: fatal error: missing.h: No such file or directory",
     "host-cxx", "inc.cu", 1, 10, Severity::Fatal,
     "missing.h: No such file or directory", ""},
    {"nvcc", "nvcc fatal   : Unsupported gpu architecture 'sm_99'", "nvcc", "",
     0, 0, Severity::Fatal, "Unsupported gpu architecture 'sm_99'", ""},
    {"ptxas",
     "ptxas bad.ptx, line 5; error   : Arguments mismatch for instruction 'ld'",
     "ptxas", "bad.ptx", 5, 0, Severity::Error,
     "Arguments mismatch for instruction 'ld'", ""},
    {"nvcc",
     "ptxas /tmp/tmpxft_00003296_00000000-6_asm.ptx, line 27; error   : "
     "Unknown modifier '.instr'",
     "ptxas", "/tmp/tmpxft_00003296_00000000-6_asm.ptx", 27, 0, Severity::Error,
     "Unknown modifier '.instr'", ""},
    {"ptxas", "ptxas fatal   : Ptx assembly aborted due to errors", "ptxas", "",
     0, 0, Severity::Fatal, "Ptx assembly aborted due to errors", ""},
    {"ptxas",
     "ptxas warning : Registers are spilled to local memory in function "
     "'spill', 672 bytes spill stores, 736 bytes spill loads",
     "ptxas", "", 0, 0, Severity::Warning,
     "Registers are spilled to local memory in function 'spill', 672 bytes "
     "spill stores, 736 bytes spill loads",
     ""},
    {"ptxas",
     "ptxas error   : Registers are spilled to local memory in function "
     "'spill', 672 bytes spill stores, 736 bytes spill loads",
     "ptxas", "", 0, 0, Severity::Error,
     "Registers are spilled to local memory in function 'spill', 672 bytes "
     "spill stores, 736 bytes spill loads",
     ""},
    {"ptxas",
     "ptxas application ptx input, line 5; error   : Unknown symbol 'x'",
     "ptxas", "", 5, 0, Severity::Error, "Unknown symbol 'x'", ""},
    {"glslc", "add.comp:11: error: 'SCALE' : undeclared identifier", "glslc",
     "add.comp", 11, 0, Severity::Error, "'SCALE' : undeclared identifier", ""},
    {"glslc", "badinc.glsl:2: error: 'undefined_x' : undeclared identifier",
     "glslc", "badinc.glsl", 2, 0, Severity::Error,
     "'undefined_x' : undeclared identifier", ""},
    {"glslc",
     "warn.comp:2: warning: '#extension' : extension not supported: "
     "GL_NONEXISTENT_ext",
     "glslc", "warn.comp", 2, 0, Severity::Warning,
     "'#extension' : extension not supported: GL_NONEXISTENT_ext", ""},
    {"glslc",
     "glslc: error: 'k2.glsl': .glsl file encountered but no -fshader-stage "
     "specified ahead",
     "glslc", "", 0, 0, Severity::Error,
     "'k2.glsl': .glsl file encountered but no -fshader-stage specified ahead",
     ""},
    {"spirv-val", "error: line 0: Invalid SPIR-V magic number.", "spirv-val",
     "", 0, 0, Severity::Error, "Invalid SPIR-V magic number.", ""},
};

TEST(DiagnosticsTest, ParsesEveryKnownFormat) {
  for (const Case &c : kCases) {
    SCOPED_TRACE(c.line);
    std::vector<Diagnostic> parsed = parseDiagnostics(c.tool, c.line);
    ASSERT_EQ(parsed.size(), 1u);
    const Diagnostic &d = parsed[0];
    EXPECT_EQ(d.tool, c.expectTool);
    EXPECT_EQ(d.file, c.file);
    EXPECT_EQ(d.line, c.line_);
    EXPECT_EQ(d.column, c.column);
    EXPECT_EQ(d.severity, c.severity);
    EXPECT_EQ(d.message, c.message);
    EXPECT_EQ(d.code, c.code);
  }
}

// Whole stderr blocks: source echo, carets, summaries and resource reports
// are dropped; order is kept.
TEST(DiagnosticsTest, NvccFrontEndBlock) {
  const char *text =
      R"(inc/bad.h(1): error: identifier "undefined_thing" is undefined
  inline __attribute__((device)) int f() { return undefined_thing; }
                                                  ^

b.cu(2): error: expected a ";"
  extern "C" __attribute__((global)) void k(int* p) { p[0] = f() }
                                                                 ^

2 errors detected in the compilation of "b.cu".
)";
  auto parsed = parseDiagnostics("nvcc", text);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].file, "inc/bad.h");
  EXPECT_EQ(parsed[1].file, "b.cu");
  EXPECT_EQ(parsed[1].line, 2);
}

TEST(DiagnosticsTest, HostPreprocessorBlock) {
  const char *text =
      "In file included from m2.cu:1:\n"
      "inc/m2.h:1:10: fatal error: nothere.h: No such file or directory\n"
      "    1 | #include <nothere.h>\n"
      "      |          ^~~~~~~~~~~\n"
      "compilation terminated.\n";
  auto parsed = parseDiagnostics("nvcc", text);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].tool, "host-cxx");
  EXPECT_EQ(parsed[0].file, "inc/m2.h");
  EXPECT_EQ(parsed[0].column, 10);
}

TEST(DiagnosticsTest, PtxasVerboseReportIsNotADiagnostic) {
  const char *text =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'saxpy' for 'sm_90'\n"
      "ptxas info    : Function properties for saxpy\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compile time = 3.349 ms\n";
  EXPECT_TRUE(parseDiagnostics("ptxas", text).empty());
}

TEST(DiagnosticsTest, SpirvValKeepsTheInstructionContext) {
  const char *text =
      "error: line 51: Structure id 9 decorated as Block for variable in "
      "PushConstant storage class must follow relaxed storage buffer layout "
      "rules: member 1 at offset 2 is not aligned to 4\n"
      "  %PC = OpTypeStruct %uint %float\n";
  auto parsed = parseDiagnostics("spirv-val", text);
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].severity, Severity::Error);
  EXPECT_NE(parsed[0].message.find("(SPIR-V instruction 51)"),
            std::string::npos);
  EXPECT_NE(parsed[0].message.find("\n  %PC = OpTypeStruct %uint %float"),
            std::string::npos)
      << parsed[0].message;
}

TEST(DiagnosticsTest, FormatsCompilerStyle) {
  Diagnostic d;
  d.tool = "nvcc";
  d.file = "/k/saxpy.cu";
  d.line = 12;
  d.column = 3;
  d.severity = Severity::Warning;
  d.message = "unused variable";
  d.code = "177-D";
  EXPECT_EQ(formatDiagnostic(d, false),
            "/k/saxpy.cu:12:3: warning: unused variable [nvcc #177-D]");
  std::string colored = formatDiagnostic(d, true);
  EXPECT_NE(colored.find("\x1b[1;35mwarning:"), std::string::npos);

  Diagnostic fatal;
  fatal.tool = "nvcc";
  fatal.severity = Severity::Fatal;
  fatal.message = "Unsupported gpu architecture 'sm_99'";
  EXPECT_EQ(formatDiagnostic(fatal, false),
            "nvcc: fatal error: Unsupported gpu architecture 'sm_99'");
  EXPECT_EQ(formatDiagnostic(fatal, false).find('\x1b'), std::string::npos);
}

TEST(PtxasReportTest, ReadsUsageForTheRequestedEntry) {
  const char *text =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
      "ptxas info    : Function properties for other\n"
      "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'saxpy' for 'sm_75'\n"
      "ptxas info    : Function properties for saxpy\n"
      "    640 bytes stack frame, 672 bytes spill stores, 736 bytes spill "
      "loads\n"
      "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, "
      "380 bytes cmem[0]\n";
  auto usage = parsePtxasResourceUsage(text, "saxpy");
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->registers, 10u);
  EXPECT_EQ(usage->barriers, 1u);
  EXPECT_EQ(usage->sharedMemoryBytes, 1024u);
  EXPECT_EQ(usage->constantMemoryBytes, 380u);
  EXPECT_EQ(usage->stackFrameBytes, 640u);
  EXPECT_EQ(usage->spillStoreBytes, 672u);
  EXPECT_EQ(usage->spillLoadBytes, 736u);
  auto other = parsePtxasResourceUsage(text, "other");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->registers, 40u);
  EXPECT_EQ(other->stackFrameBytes, 8u);
  EXPECT_FALSE(parsePtxasResourceUsage(text, "missing").has_value());
}

} // namespace
} // namespace kb::toolchains
