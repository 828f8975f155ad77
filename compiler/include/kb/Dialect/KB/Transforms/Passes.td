//===- Passes.td - kb dialect passes -------------------------*- tablegen -*-===//
#ifndef KB_DIALECT_KB_TRANSFORMS_PASSES_TD
#define KB_DIALECT_KB_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SubstituteExecutablesPass
    : Pass<"kb-substitute-executables", "mlir::ModuleOp"> {
  let summary = "Replaces executables (sources) or their variants (objects) "
                "with files on disk";
  let description = [{
    Each substitution is `NAME=FILE`. The file's extension picks the mode:

    * `.mlir` / `.mlirbc` (source): the whole `kb.executable @NAME` is
      replaced by the executable of that name in the file (a bare
      `kb.executable` or one inside a `builtin.module`).
    * `.ptx` / `.cubin` (object): every cuda variant of `@NAME` becomes
      external with the file's bytes inlined; `.spv` does the same for the
      vulkan variants. Other variants are untouched, so multi-target
      executables work. The generated variant is kept, renamed
      `<variant>_reference` and marked `reference`. PTX and SPIR-V objects
      are checked against every export's ABI (entry, parameters/bindings,
      push constants, workgroup size) with the readers of common/; a mismatch
      is an error at the export. A `.cubin` cannot be read, so only its ELF
      header is checked (a warning says so).

    NAME is the executable symbol; `EXE/VARIANT` restricts an object to one
    variant. In `directories`, every file with a relevant extension (the
    pass's `kind`) is a substitution keyed by its stem; a `module_` (or
    `<module name>_`) prefix is dropped, and `<exe>_<variant>` stems (the
    names `kb-dump-executable-binaries` writes) select a variant. Directory
    entries are applied first, in file-name order, then `substitutions`, in
    order: the last substitution for the same key wins.

    Relative files are looked up (1) as given, relative to the working
    directory, then (2) in each of `search-paths`, in order; the error for a
    missing file lists every path tried.

    Each applied substitution prints a `NOTE:` line (unless `print-notes` is
    false) and is appended to the module's `kb.substitutions` array
    (`{executable, variant, kind, file}`), which drivers read. A name that
    matches no executable is a warning, an error under `strict`.

    Example:
    ```
    kb-opt program.mlir --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=saxpy.ptx,softmax=softmax.spv search-paths=kernels/out})'
    NOTE: kb.executable @saxpy variant @cuda_sm_90 substituted with object file 'kernels/out/saxpy.ptx'; generated variant kept as @cuda_sm_90_reference
    ```
  }];
  let options = [
    ListOption<"substitutions", "substitutions", "std::string",
               "`NAME=FILE` pairs (NAME: executable or executable/variant)">,
    ListOption<"origins", "origins", "std::string",
               "Where each of `substitutions` came from (e.g. a kernel.toml "
               "path), in the same order, named by its diagnostics">,
    ListOption<"launch", "launch", "std::string",
               "Launch settings of each of `substitutions`, in the same "
               "order: empty, or `;`-separated `shared_memory=BYTES` (the "
               "dynamic shared memory an object needs, stored on its "
               "variants as kb.shared_memory; the generated reference keeps "
               "the export's), `subgroup_size=N` and `full_subgroups` "
               "(kb.subgroup_size, kb.full_subgroups) and `spec=KEY=VALUE` "
               "(a SPIR-V specialization constant, resolved against the "
               "object and stored as kb.specialization), and "
               "`workgroup_size=XxYxZ` and `workload_per_workgroup=X[xY[xZ]]` "
               "(the object's own launch shape: checked against the object "
               "and stored as kb.workgroup_size, kb.workload_per_workgroup; "
               "its dispatches run ceildiv(workload, these) workgroups), "
               "`entry=NAME` (a CUDA object's own entry name for the "
               "executable's one export, stored in entry_points) and "
               "`parameter_order=S0.S1...` (a CUDA object's parameters in "
               "its own order, each an ABI slot: binding i is i, constant j "
               "is bindings + j; checked against the PTX and stored as "
               "kb.parameter_order), then optionally `device=MODEL` (last: it takes the rest of "
               "the entry): the object was tuned for that device model and "
               "goes into a variant of its own, `<variant>_tuned<N>` with "
               "kb.device, beside the one for any device, which stays)">,
    ListOption<"directories", "directories", "std::string",
               "Directories whose files substitute the executables named by "
               "their stems (non-recursive)">,
    ListOption<"searchPaths", "search-paths", "std::string",
               "Directories searched, in order, for relative files">,
    Option<"kind", "kind", "std::string", "\"any\"",
           "Which substitutions this instance accepts: `source` (.mlir, "
           ".mlirbc), `object` (.ptx, .cubin, .spv) or `any`">,
    Option<"strict", "strict", "bool", "false",
           "A name that matches no executable is an error, not a warning">,
    Option<"printNotes", "print-notes", "bool", "true",
           "Print a `NOTE:` line to stderr per applied substitution">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
  ];
}

def LowerModelPass : Pass<"kb-lower-model", "mlir::ModuleOp"> {
  let summary = "The front end's first half: a model (TOSA or linalg on "
                "tensors) becomes linalg.generic ops";
  let description = [{
    The front end (docs/front-end.md). Every `func.func` with tensor
    arguments or results, or with tosa/linalg/tensor ops, is a *model
    function*. Its ops may come from `tosa`, `linalg` (named ops and
    `linalg.generic`), `tensor`, `arith` and `math`; shapes are static. Any
    other op, a dynamic dimension or a non-tensor argument is an error at
    its location naming it, before anything is converted.

    TOSA is lowered with MLIR's own conversions, in the order
    `mlir::tosa::addTosaToLinalgPasses` uses (tosa-optional-decompositions,
    tosa-infer-shapes, tosa-make-broadcastable, tosa-to-linalg-named,
    canonicalize, tosa-to-linalg, tosa-to-arith, tosa-to-tensor). Then every
    linalg op becomes a `linalg.generic` (MLIR's generalization; `map`,
    `reduce`, `transpose` and `broadcast` from their own region, which MLIR
    16 does not do), and each elementwise generic with one use is fused
    into its consumer with MLIR's elementwise fusion, in program order,
    except into a reduction when it reads another reduction's result
    element for element (formation fuses it there as a consumer instead).

    ```
    kb-opt model.mlir --kb-lower-model
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect", "::mlir::tosa::TosaDialect",
  ];
}

def FormDispatchesPass : Pass<"kb-form-dispatches", "mlir::ModuleOp"> {
  let summary = "The front end's second half: a lowered model becomes one "
                "kb.executable per dispatch and a host function";
  let description = [{
    Runs after `kb-lower-model` (docs/front-end.md). In each model function
    only `linalg.generic`, `tensor.empty`, `expand_shape`, `collapse_shape`
    and constants may be left; anything else is an error at its location.

    1. Formation, in program order: every `linalg.generic` is the root of a
       dispatch, except fills and broadcasts used only as the initial value
       of another op (recomputed there). A root's elementwise consumers are
       fused into its dispatch while the value has one use and the consumer
       reads it element for element. `tensor.expand_shape` /
       `collapse_shape` move no data and are not dispatches; splat tensor
       constants are recomputed where used.
    2. Each dispatch becomes `kb.executable @<function>_dispatch_<N>` (N
       counts from 0 in the order the host runs them) with one export of
       the same name: bindings are the tensors it reads (function arguments
       `argI`, earlier dispatches `dispatch_M`), readonly, in first-use
       order, then its result `result`, writeonly; no constants. Workload
       and workgroup size: `[X, Y, Z]` = the root result's last dimension,
       the one before it and the product of the rest, with `[16, 16, 1]`,
       when the last two dimensions are both >= 16; otherwise `[elements]`
       with `[256, 1, 1]`. The body computes one result element per
       invocation; reductions run inside the invocation.
    3. The model function becomes an argument-less host function of the
       same name: a `kb.alloc` per argument (seeded inputs) and per
       dispatch result, and the dispatches. Its results are the buffers
       nothing reads afterwards (the program's outputs).

    A module without model functions is left unchanged.

    ```
    kb-opt model.mlir --kb-lower-model --kb-form-dispatches
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::kb::KBDialect",
  ];
}

def DumpExecutableSourcesPass
    : Pass<"kb-dump-executable-sources", "mlir::ModuleOp"> {
  let summary = "Writes each executable to `<path>/<executable>.mlir`";
  let description = [{
    One file per `kb.executable`, holding the executable alone. The file stem
    is the executable name, so the directory can be passed back unchanged as
    `kb-substitute-executables{directories=<path> kind=source}` (or
    `kb-compile --substitute-executable-sources-from=<path>`): a dump
    followed by a scan is a no-op. Files are written atomically; the
    directory is created when missing.

    ```
    kb-opt program.mlir --kb-dump-executable-sources=path=dump/
    # dump/saxpy.mlir, dump/softmax.mlir, ...
    ```
  }];
  let options = [
    Option<"path", "path", "std::string", "", "Directory to write to">,
  ];
}

def DumpExecutableBinariesPass
    : Pass<"kb-dump-executable-binaries", "mlir::ModuleOp"> {
  let summary = "Writes each variant's binary, generated or external, to "
                "`<path>/<executable>_<variant>.<ext>`";
  let description = [{
    One file per non-reference variant, named
    `<executable>_<variant>.ptx|.cubin|.spv` (e.g. `saxpy_cuda_sm_90.ptx`):
    the object of an external variant, or the generated code of a variant
    codegen has run for (its PTX, not the cubin made from it, so it can be
    edited; SPIR-V as is). An `objects-from` scan of the directory maps each
    file back to the same executable and variant, so substituting a dump
    back gives executables that carry the same bytes (an object identical
    to an external variant's current one is kept as is). A variant codegen
    has not run for yet has no binary and is skipped.

    ```
    kb-opt program.mlir --kb-dump-executable-binaries=path=bin/
    ```
  }];
  let options = [
    Option<"path", "path", "std::string", "", "Directory to write to">,
  ];
}

def MaterializeVariantsPass
    : Pass<"kb-materialize-variants", "mlir::ModuleOp"> {
  let summary = "Gives every executable exactly one variant per requested "
                "target";
  let description = [{
    For each target (`cuda:sm_XX`, `vulkan:X.Y`) an existing variant for it
    is kept (external or generated, with its reference); a missing one is
    added as a generated variant named `cuda_sm_XX` / `vulkan_X_Y`. Variants
    for targets not requested are removed (a warning names each external one
    dropped). With no targets the pass does nothing.

    ```
    kb-opt program.mlir --kb-materialize-variants=targets=cuda:sm_90,vulkan:1.2
    ```
  }];
  let options = [
    ListOption<"targets", "targets", "std::string",
               "Targets: cuda:sm_XX, vulkan:1.X (an invalid one lists the "
               "valid ones)">,
  ];
}

//===----------------------------------------------------------------------===//
// Codegen and benchmark generation (compiler/lib/Codegen)
//===----------------------------------------------------------------------===//

def CodegenPass : Pass<"kb-codegen", "mlir::ModuleOp"> {
  let summary = "Generates PTX (+ cubin) and SPIR-V for every generated variant";
  let description = [{
    For every `kb.variant` without `objects`, compiles the executable's
    kernel body in-process (kb/Codegen/Codegen.h) and records the result on
    the variant as `kb.generated = [{target = "sm_90", object =
    #kb.object<{path = "<exe>_<variant>.ptx", data = ...}>}, ...]`:

    * `cuda`: PTX from LLVM's NVPTX backend (bindings as bare pointers, then
      typed constants; `.reqntid` = workgroup size), plus a cubin for the
      variant's architecture when ptxas is found (CUDA_PATH/bin,
      /usr/local/cuda/bin, PATH) and `emit-cubin` is set.
    * `vulkan`: SPIR-V (set 0 binding i storage buffers, NonWritable when
      readonly, one push-constant block, LocalSize = workgroup size).

    Every binary is checked against its exports' ABI with common/abi_check.h.
    A body op the lowering does not support is an error at that op naming
    the target. External variants are left alone; a variant that already
    has `kb.generated` is not regenerated. Runs before object substitution,
    so a substituted variant's generated code becomes its reference.

    ```
    kb-opt program.mlir --kb-materialize-variants=targets=cuda:sm_90 --kb-codegen
    ```
  }];
  let options = [
    Option<"emitCubin", "emit-cubin", "bool", "true",
           "Also compile a cubin with ptxas when ptxas is found">,
    Option<"ptxas", "ptxas", "std::string", "",
           "The ptxas to use (default: search CUDA_PATH/bin, "
           "/usr/local/cuda/bin, PATH)">,
  ];
}

def GenerateBenchmarksPass
    : Pass<"kb-generate-benchmarks", "mlir::ModuleOp"> {
  let summary = "Describes one benchmark per (executable, export, workload) "
                "dispatch, after object substitution";
  let description = [{
    Walks every `kb.dispatch` of the host functions and evaluates its
    workload, constants and binding sizes from the constants at the dispatch
    site (`arith.constant` and arith arithmetic on them, through
    `kb.alloc` dynamic sizes). Dispatch sites with the same executable,
    export, workload, constants and binding sizes/aliasing are one
    benchmark; sites that differ in constants or binding sizes are distinct
    (unlike IREE, which keeps the last one seen).

    Sets `kb.benchmarks` on the module, one dictionary per benchmark:
    `name` (`<exe>_<export>_<w0>x<w1>x<w2>`, a mangled C++ export read as
    its plain name; `<kernel>_<w0>x<w1>x<w2>` for an executable with
    `kb.kernel_name`, a standalone kernel's kernel.toml name; `_2`, `_3`...
    for distinct benchmarks of the same shape), `executable`, `export`, `workload`,
    `workgroup_count`, `buffers` (element type, element count, `init`: a
    seeded `uniform` draw for buffers the dispatch reads — or the buffer's
    `kb.alloc` `kb.init` (uniform range, normal, range/constant fill) with
    the seed added — `zero` for write-only ones, `output` for buffers it writes), `bindings` (buffer index
    per binding, so aliasing is kept), typed `constants`, `candidates`
    (external variants: the handwritten kernels) and `references` (generated
    variants), and `sites` (dispatch locations).

    A dispatch that cannot be benchmarked (a workload, constant or buffer
    size that is not a constant at the dispatch site) gets a remark saying
    why and is listed in `kb.unbenchmarked` with the reason, never dropped
    silently.

    ```
    kb-opt program.mlir --kb-generate-benchmarks
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "0",
           "Mixed into every input seed (same seed = same inputs)">,
  ];
}

def LegalizeBf16ArithmeticPass : Pass<"kb-legalize-bf16-arithmetic"> {
  let summary = "Computes bf16 arithmetic in f32 (CUDA codegen runs this)";
  let description = [{
    LLVM 16's NVPTX backend cannot select bf16 arithmetic and miscompiles
    bf16 <-> f32 conversions. Every scalar arith/math op on bf16 is
    recreated on f32 operands and results; every arith.extf / arith.truncf
    between bf16 and a wider float becomes integer bit operations (round to
    nearest even); a select of bf16 selects the bits as i16. bf16 stays only
    in constants, bitcasts, loads and stores. The CUDA codegen of kb-codegen runs the same rewrite before
    lowering; this pass shows it:

    ```
    kb-opt body.mlir --kb-legalize-bf16-arithmetic
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def GuardZeroTripLoopsPass : Pass<"kb-guard-zero-trip-loops"> {
  let summary = "Makes scf.for results defined when the loop runs zero times "
                "(the SPIR-V codegen runs this)";
  let description = [{
    MLIR 16's scf.for -> SPIR-V conversion stores a loop's results only from
    its body, so a loop that runs zero times yields undefined values instead
    of its initial ones. Every scf.for with results whose trip count is not
    known to be at least one is put under an scf.if on the loop header's own
    condition (lb < ub, signed), whose else branch yields the initial values.
    The SPIR-V codegen of kb-codegen runs the same rewrite before lowering;
    this pass shows it:

    ```
    kb-opt body.mlir --kb-guard-zero-trip-loops
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

#endif // KB_DIALECT_KB_TRANSFORMS_PASSES_TD
