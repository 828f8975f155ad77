//===- workbench/project/kernel_toml_fixed.h - Fixed inputs and outputs ---===//
//
// The part of a standalone kernel's [bench] that fixes data instead of
// drawing it: `init = { x = { file = "x.npy" } }` (a binding's input from a
// NumPy .npy file) and `reference = { outputs = { y = "y.npy" } }` (expected
// output arrays as the reference). Each file is read when the kernel.toml
// is: it must be a .npy array (common/npy.h) of the binding's element type
// and element count, and its sha256 is kept for build.json
// (bench::FixedArray).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_KERNEL_TOML_FIXED_H_
#define KB_WORKBENCH_PROJECT_KERNEL_TOML_FIXED_H_

#include "common/kernel_abi.h"
#include "runtime/bench/declared.h"
#include "workbench/project/project.h"
#include "workbench/project/toml_file.h"

namespace kb::workbench {

/// `init.NAME = { file = "x.npy" }`: |value| is the `file` value, for
/// binding |index| of |abi| with |count| elements.
StatusOr<bench::FixedArray> readFixedInput(const TomlFile &file,
                                           const toml::node &value,
                                           const KernelAbi &abi, size_t index,
                                           uint64_t count);

/// `reference = { outputs = { NAME = "y.npy", ... } }`: |outputs| is the
/// `outputs` table; each key a binding the kernel writes. Every binding the
/// kernel reads must have a fixed input (|declared|.fixedInputs, read
/// before): expected outputs are only meaningful for inputs known outside.
Status readExpectedOutputs(const TomlFile &file, const toml::table &outputs,
                           const KernelAbi &abi, const DeclaredBench &bench,
                           bench::KernelDeclared &declared);

/// Where the build keeps |array| of kernel |kernel|, relative to the build
/// directory: `standalone/KERNEL/data/init/BINDING.npy` for a fixed input,
/// `.../data/expected/BINDING.npy` for an expected output (a read-write
/// binding has both).
std::string storedFixedPath(const std::string &kernel, bool expected,
                            const bench::FixedArray &array);

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_KERNEL_TOML_FIXED_H_
