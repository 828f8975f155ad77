// Source substitution: a .mlir (or .mlirbc) replaces the whole executable.
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=%S/Inputs/replacement.mlir})' 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=SOURCENOTE < %t.err
// SOURCENOTE: NOTE: kb.executable @saxpy substituted with MLIR source '{{.*}}Inputs/replacement.mlir'

// .mlirbc input.
// RUN: kb-opt %S/Inputs/replacement.mlir --emit-bytecode -o %t.mlirbc
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=%t.mlirbc})' 2>/dev/null | FileCheck %s

// Directory scan plus explicit list: the explicit substitution wins (the
// scanned `module_saxpy.mlir` does not even parse, so it must not be read);
// files of other types in the directory are ignored without a warning.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: cp %S/Inputs/malformed.mlir %t.dir/module_saxpy.mlir
// RUN: echo notes > %t.dir/README.txt
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{directories=%t.dir substitutions=saxpy=%S/Inputs/replacement.mlir})' 2>%t.scan.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=SCAN < %t.scan.err
// SCAN-NOT: warning
// SCAN: NOTE: kb.executable @saxpy substituted with MLIR source '{{.*}}Inputs/replacement.mlir'
// SCAN-NOT: warning

// The scan alone picks up `module_saxpy.mlir` (the `module_` prefix of IREE's
// dumps is understood) and reports the parse error where it is.
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{directories=%t.dir})' 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: module_saxpy.mlir:4:37: error: expected ','
// PARSE: error: cannot parse substitution source '{{.*}}module_saxpy.mlir' for kb.executable @saxpy

// CHECK: module attributes {kb.substitutions = [{executable = "saxpy", file = "{{.*}}", kind = "source"}]}
// CHECK: kb.executable @saxpy
// CHECK-NEXT: kb.export @saxpy {{.*}} workgroup_size = [128, 1, 1]
// CHECK: arith.mulf
// CHECK-NOT: kb.executable @other
// CHECK: kb.executable @untouched
kb.executable @saxpy {
  kb.export @saxpy bindings(x: f32 readonly, y: f32 readwrite)
      constants(a: f32, n: u32) workgroup_size = [256, 1, 1]
  kb.variant @cuda_sm_90 target(cuda, "sm_90")
  builtin.module {
    func.func @saxpy() { return }
  }
}
kb.executable @untouched {
  kb.export @untouched workgroup_size = [1, 1, 1]
  builtin.module {
    func.func @untouched() { return }
  }
}
func.func @helper() {
  return
}

// Bad inputs, each with a clear message and a failing exit status.

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=%S/Inputs/only_other.mlir})' 2>&1 | FileCheck %s --check-prefix=LACKING
// LACKING: error: substitution source '{{.*}}only_other.mlir' does not contain kb.executable @saxpy (it contains: @other)

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=nope.mlir search-paths=%S/Inputs})' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: kb-substitute-executables: file 'nope.mlir' of substitution 'saxpy=nope.mlir' not found; tried:
// MISSING-NEXT: {{^}}  nope.mlir
// MISSING-NEXT: {{^}}  {{.*}}Inputs/nope.mlir
// MISSING-NEXT: add its directory with --executable-object-search-path=DIR

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=x.mlir search-paths=%t.missing})' 2>&1 | FileCheck %s --check-prefix=SEARCHPATH
// SEARCHPATH: error: kb-substitute-executables: search path '{{.*}}.missing' does not exist

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{directories=%s})' 2>&1 | FileCheck %s --check-prefix=NOTDIR
// NOTDIR: error: kb-substitute-executables: substitution directory '{{.*}}substitute_executables_sources.mlir' is not a directory

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{directories=%t.nodir})' 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: error: kb-substitute-executables: substitution directory '{{.*}}.nodir' does not exist

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy})' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: kb-substitute-executables: malformed substitution 'saxpy'; expected NAME=FILE (e.g. saxpy=kernels/saxpy.ptx), where NAME is an executable or executable/variant

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=k.o})' 2>&1 | FileCheck %s --check-prefix=FILETYPE
// FILETYPE: error: kb-substitute-executables: substitution 'saxpy=k.o' names a file of unknown type; expected .mlir or .mlirbc (source) or .ptx, .cubin or .spv (object)

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=saxpy=%S/Inputs/saxpy.ptx kind=source})' 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: error: kb-substitute-executables: substitution 'saxpy={{.*}}saxpy.ptx' is an object file but this stage takes sources (.mlir, .mlirbc); use --substitute-executable-object

// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=helper=%S/Inputs/replacement.mlir})' 2>&1 | FileCheck %s --check-prefix=NOTEXE
// NOTEXE: error: symbol @helper named by substitution 'helper={{.*}}replacement.mlir' is a 'func.func', not a kb.executable

// Unknown names: a warning (the pass succeeds), an error under strict.
// RUN: kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=nosuch=%S/Inputs/replacement.mlir})' 2>&1 >/dev/null | FileCheck %s --check-prefix=UNKNOWN
// No op is at fault: an unknown location (the module's would be a bogus
// line 0), the program's file named in the message instead.
// UNKNOWN: warning: kb-substitute-executables: no kb.executable matches 'nosuch' (substitution 'nosuch={{.*}}replacement.mlir', file '{{.*}}replacement.mlir') in '{{.*}}substitute_executables_sources.mlir'; executables: @saxpy, @untouched
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=nosuch=%S/Inputs/replacement.mlir strict=true})' 2>&1 | FileCheck %s --check-prefix=STRICT
// STRICT: error: kb-substitute-executables: no kb.executable matches 'nosuch'
// With `origins`, each substitution names where it came from.
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=nosuch=%S/Inputs/replacement.mlir origins=kernels/x/kernel.toml strict=true})' 2>&1 | FileCheck %s --check-prefix=ORIGIN
// ORIGIN: error: kb-substitute-executables: no kb.executable matches 'nosuch' (substitution 'nosuch={{.*}}replacement.mlir' from kernels/x/kernel.toml, file '{{.*}}replacement.mlir') in '{{.*}}substitute_executables_sources.mlir'; executables: @saxpy, @untouched
// RUN: not kb-opt %s --pass-pipeline='builtin.module(kb-substitute-executables{substitutions=nosuch=%S/Inputs/replacement.mlir origins=a,b})' 2>&1 | FileCheck %s --check-prefix=ORIGINS
// ORIGINS: error: kb-substitute-executables: 2 origins for 1 substitutions; give one origin per substitution, or none
