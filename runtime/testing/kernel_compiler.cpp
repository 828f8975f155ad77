//===- runtime/testing/kernel_compiler.cpp - Compile test kernels ---------===//
#include "runtime/testing/kernel_compiler.h"

#include "common/file_util.h"
#include "common/process.h"
#include "common/tool_search.h"

#include <chrono>
#include <filesystem>

namespace kb::testing {

namespace fs = std::filesystem;

namespace {
StatusOr<std::string> run(const std::string &tool,
                          std::vector<std::string> args,
                          const fs::path &output) {
  KB_ASSIGN_OR_RETURN(fs::path path, searchTool(tool));
  kb::ProcessOptions options;
  options.argv = {path.string()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.timeout = std::chrono::seconds(120);
  KB_ASSIGN_OR_RETURN(kb::ProcessResult result, kb::runProcess(options));
  if (!result.succeeded())
    return invalidArgument(tool + " failed (" + result.describe() + "):\n" +
                           result.stderrText + result.stdoutText);
  return readFile(output);
}

/// Writes |text| to `<fresh dir>/<name>`, runs |tool| with |args| (in which
/// `{in}` and `{out}` stand for the input and `<fresh dir>/<outName>`) and
/// returns what it wrote.
StatusOr<std::string> compile(const std::string &tool, const std::string &text,
                              const std::string &name,
                              const std::string &outName,
                              std::vector<std::string> args) {
  KB_ASSIGN_OR_RETURN(
      TempDir dir, TempDir::create(fs::temp_directory_path(), "kb-kernels-"));
  fs::path in = dir.path() / name, out = dir.path() / outName;
  KB_RETURN_IF_ERROR(writeFileAtomic(in, text));
  for (std::string &arg : args) {
    if (arg == "{in}")
      arg = in.string();
    else if (arg == "{out}")
      arg = out.string();
  }
  return run(tool, std::move(args), out);
}
} // namespace

StatusOr<std::string> compileGlsl(const std::string &source,
                                  const std::string &env) {
  return compile("glslc", source, "k.comp", "k.spv",
                 {"--target-env=" + env, "-O", "{in}", "-o", "{out}"});
}

StatusOr<std::string> compileCudaToPtx(const std::string &source,
                                       const std::string &arch) {
  return compile("nvcc", source, "k.cu", "k.ptx",
                 {"-ptx", "-arch=" + arch, "{in}", "-o", "{out}"});
}

StatusOr<std::string> assembleCubin(const std::string &ptx,
                                    const std::string &arch) {
  return compile("ptxas", ptx, "k.ptx", "k.cubin",
                 {"-arch=" + arch, "{in}", "-o", "{out}"});
}

} // namespace kb::testing
