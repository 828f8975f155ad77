//===- runtime/testing/kernel_compiler.cpp - Compile test kernels ---------===//
#include "runtime/testing/kernel_compiler.h"

#include "toolchains/process.h"
#include "toolchains/toolchains.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kb::testing {

namespace fs = std::filesystem;

namespace {
/// A scratch directory removed on destruction.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl =
        (fs::temp_directory_path() / "kb-kernels-XXXXXX").string();
    if (char *p = mkdtemp(tmpl.data()))
      path = p;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty())
      fs::remove_all(path, ec);
  }
};

Status writeText(const fs::path &p, const std::string &text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  return out ? okStatus() : internalError("cannot write " + p.string());
}

StatusOr<std::string> readBytes(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  if (!in)
    return internalError("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

StatusOr<std::string> run(const std::string &tool,
                          std::vector<std::string> args,
                          const fs::path &output) {
  toolchains::Toolchains tools;
  KB_ASSIGN_OR_RETURN(toolchains::ToolIdentity id, tools.find(tool));
  toolchains::ProcessOptions options;
  options.argv = {id.path.string()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.timeout = std::chrono::seconds(120);
  KB_ASSIGN_OR_RETURN(toolchains::ProcessResult result,
                      toolchains::runProcess(options));
  if (!result.succeeded())
    return invalidArgument(tool + " failed (" + result.describe() + "):\n" +
                           result.stderrText + result.stdoutText);
  return readBytes(output);
}
} // namespace

StatusOr<std::string> compileGlsl(const std::string &source,
                                  const std::string &env) {
  ScratchDir dir;
  KB_RETURN_IF_ERROR(writeText(dir.path / "k.comp", source));
  return run("glslc",
             {"--target-env=" + env, "-O", (dir.path / "k.comp").string(), "-o",
              (dir.path / "k.spv").string()},
             dir.path / "k.spv");
}

StatusOr<std::string> compileCudaToPtx(const std::string &source,
                                       const std::string &arch) {
  ScratchDir dir;
  KB_RETURN_IF_ERROR(writeText(dir.path / "k.cu", source));
  return run("nvcc",
             {"-ptx", "-arch=" + arch, (dir.path / "k.cu").string(), "-o",
              (dir.path / "k.ptx").string()},
             dir.path / "k.ptx");
}

StatusOr<std::string> assembleCubin(const std::string &ptx,
                                    const std::string &arch) {
  ScratchDir dir;
  KB_RETURN_IF_ERROR(writeText(dir.path / "k.ptx", ptx));
  return run("ptxas",
             {"-arch=" + arch, (dir.path / "k.ptx").string(), "-o",
              (dir.path / "k.cubin").string()},
             dir.path / "k.cubin");
}

} // namespace kb::testing
