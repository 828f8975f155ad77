# -*- Python -*-
# lit configuration of the kb compiler tests (compiler/test).
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "KB_COMPILER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kb_obj_root)

config.substitutions.append(("%kb_src_root", config.kb_src_root))
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["kb-opt", "kb-compile"],
                                   [config.kb_tools_dir])

# Real toolchains, for the tests that build the bundled kernels; the tests
# that need them say `REQUIRES:` and are reported UNSUPPORTED without them.
import shutil
nvcc = shutil.which("nvcc") or (
    "/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
if shutil.which("spirv-dis") and shutil.which("spirv-val"):
    config.available_features.add("spirv-tools")
if shutil.which("glslc"):
    config.available_features.add("glslc")
