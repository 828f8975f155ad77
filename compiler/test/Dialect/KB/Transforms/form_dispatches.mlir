// Dispatch formation (kb-form-dispatches), one op class per case: what
// becomes a dispatch, what is fused, the names, the ABI and the host
// function. Codegen of every case is checked in kb-compile/front_end.test.
// RUN: kb-opt %s --split-input-file --kb-lower-model --kb-form-dispatches | FileCheck %s

// TOSA: matmul is the root; the bias add and the ReLU clamp are fused into
// it. Bindings are what the dispatch reads, in first-use order, then its
// result; the reshape between the two layers is no dispatch.
// CHECK-LABEL: kb.executable @mlp_dispatch_0 {
// CHECK-NEXT: kb.export @mlp_dispatch_0 bindings(arg0: f32 readonly, arg1: f32 readonly, arg2: f32 readonly, result: f32 writeonly) workgroup_size = [16, 16, 1]
// CHECK: func.func @mlp_dispatch_0() {
// CHECK: kb.binding 3 : memref<?xf32>
// CHECK: scf.if
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.minf
// CHECK: arith.maxf
// CHECK: memref.store
// CHECK-LABEL: kb.executable @mlp_dispatch_1 {
// CHECK-NEXT: kb.export @mlp_dispatch_1 bindings(dispatch_0: f32 readonly, arg3: f32 readonly, result: f32 writeonly) workgroup_size = [16, 16, 1]
// CHECK-LABEL: func.func @mlp() {
// CHECK-NEXT: %[[X:.*]] = kb.alloc : !kb.buffer<1x32x64xf32>
// CHECK-NEXT: %[[W1:.*]] = kb.alloc : !kb.buffer<1x64x48xf32>
// CHECK-NEXT: %[[B1:.*]] = kb.alloc : !kb.buffer<1x1x48xf32>
// CHECK-NEXT: %[[W2:.*]] = kb.alloc : !kb.buffer<1x48x16xf32>
// CHECK-NEXT: %[[H:.*]] = kb.alloc : !kb.buffer<{{.*}}48xf32>
// CHECK: kb.dispatch @mlp_dispatch_0::@mlp_dispatch_0[%{{.*}}, %{{.*}}, %{{.*}}](%[[X]], %[[W1]], %[[B1]], %[[H]] :
// CHECK: %[[Y:.*]] = kb.alloc : !kb.buffer<1x32x16xf32>
// CHECK: kb.dispatch @mlp_dispatch_1::@mlp_dispatch_1[%{{.*}}, %{{.*}}, %{{.*}}](%[[H]], %[[W2]], %[[Y]] :
// CHECK-NEXT: return
func.func @mlp(%x: tensor<1x32x64xf32>, %w1: tensor<1x64x48xf32>,
               %b1: tensor<1x1x48xf32>, %w2: tensor<1x48x16xf32>)
    -> tensor<1x32x16xf32> {
  %0 = "tosa.matmul"(%x, %w1) : (tensor<1x32x64xf32>, tensor<1x64x48xf32>) -> tensor<1x32x48xf32>
  %1 = "tosa.add"(%0, %b1) : (tensor<1x32x48xf32>, tensor<1x1x48xf32>) -> tensor<1x32x48xf32>
  %2 = "tosa.clamp"(%1) {min_fp = 0.0 : f32, max_fp = 3.4028234e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  %3 = "tosa.matmul"(%2, %w2) : (tensor<1x32x48xf32>, tensor<1x48x16xf32>) -> tensor<1x32x16xf32>
  return %3 : tensor<1x32x16xf32>
}

// -----

// TOSA softmax: two reductions are two roots (the reciprocal fused into the
// sum); the elementwise ops between and after them form their own
// dispatches, numbered in the order the host runs them.
// CHECK-LABEL: kb.executable @softmax_dispatch_0 {
// CHECK-NEXT: kb.export @softmax_dispatch_0 bindings(arg0: f32 readonly, result: f32 writeonly) workgroup_size = [256, 1, 1]
// CHECK: arith.maxf
// CHECK-LABEL: kb.executable @softmax_dispatch_1 {
// CHECK-NEXT: kb.export @softmax_dispatch_1 bindings(arg0: f32 readonly, dispatch_0: f32 readonly, result: f32 writeonly) workgroup_size = [16, 16, 1]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK-LABEL: kb.executable @softmax_dispatch_2 {
// CHECK-NEXT: kb.export @softmax_dispatch_2 bindings(dispatch_1: f32 readonly, result: f32 writeonly) workgroup_size = [256, 1, 1]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK-LABEL: kb.executable @softmax_dispatch_3 {
// CHECK-NEXT: kb.export @softmax_dispatch_3 bindings(dispatch_1: f32 readonly, dispatch_2: f32 readonly, result: f32 writeonly) workgroup_size = [16, 16, 1]
// CHECK: arith.mulf
// CHECK-NOT: kb.executable
// CHECK-LABEL: func.func @softmax() {
// CHECK-COUNT-4: kb.dispatch @softmax_dispatch_
func.func @softmax(%x: tensor<1x64x32xf32>) -> tensor<1x64x32xf32> {
  %0 = "tosa.reduce_max"(%x) {axis = 2 : i64} : (tensor<1x64x32xf32>) -> tensor<1x64x1xf32>
  %1 = "tosa.sub"(%x, %0) : (tensor<1x64x32xf32>, tensor<1x64x1xf32>) -> tensor<1x64x32xf32>
  %2 = "tosa.exp"(%1) : (tensor<1x64x32xf32>) -> tensor<1x64x32xf32>
  %3 = "tosa.reduce_sum"(%2) {axis = 2 : i64} : (tensor<1x64x32xf32>) -> tensor<1x64x1xf32>
  %4 = "tosa.reciprocal"(%3) : (tensor<1x64x1xf32>) -> tensor<1x64x1xf32>
  %5 = "tosa.mul"(%2, %4) {shift = 0 : i32} : (tensor<1x64x32xf32>, tensor<1x64x1xf32>) -> tensor<1x64x32xf32>
  return %5 : tensor<1x64x32xf32>
}

// -----

// linalg.matmul with its fill: the fill is recomputed as the accumulator's
// initial value (no dispatch, no binding); the K loop runs in the
// invocation. 2-D results of at least 16x16 get 16x16 workgroups and the
// workload [N, M, 1].
// CHECK-LABEL: kb.executable @matmul_dispatch_0 {
// CHECK-NEXT: kb.export @matmul_dispatch_0 bindings(arg0: f32 readonly, arg1: f32 readonly, result: f32 writeonly) workgroup_size = [16, 16, 1]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c24 step %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK-NOT: kb.executable
// CHECK-LABEL: func.func @matmul() {
// CHECK-DAG: %[[N:.*]] = arith.constant 40 : index
// CHECK-DAG: %[[M:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: kb.dispatch @matmul_dispatch_0::@matmul_dispatch_0[%[[N]], %[[M]], %[[ONE]]]
func.func @matmul(%a: tensor<32x24xf32>, %b: tensor<24x40xf32>) -> tensor<32x40xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<32x40xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x40xf32>) -> tensor<32x40xf32>
  %c = linalg.matmul ins(%a, %b : tensor<32x24xf32>, tensor<24x40xf32>) outs(%fill : tensor<32x40xf32>) -> tensor<32x40xf32>
  return %c : tensor<32x40xf32>
}

// -----

// batch_matmul: the batch is the workload's z.
// CHECK-LABEL: kb.executable @bmm_dispatch_0 {
// CHECK-NEXT: kb.export @bmm_dispatch_0 bindings(arg0: f32 readonly, arg1: f32 readonly, result: f32 writeonly) workgroup_size = [16, 16, 1]
// CHECK-LABEL: func.func @bmm() {
// CHECK: kb.dispatch @bmm_dispatch_0::@bmm_dispatch_0[%c24, %c32, %c2]
func.func @bmm(%a: tensor<2x32x16xf32>, %b: tensor<2x16x24xf32>) -> tensor<2x32x24xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x32x24xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x32x24xf32>) -> tensor<2x32x24xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x32x16xf32>, tensor<2x16x24xf32>) outs(%fill : tensor<2x32x24xf32>) -> tensor<2x32x24xf32>
  return %r : tensor<2x32x24xf32>
}

// -----

// Convolution: the window loops are reductions inside the invocation; the
// input index is oh + kh. A small result gets a 1-D grid over its elements.
// CHECK-LABEL: kb.executable @conv_dispatch_0 {
// CHECK-NEXT: kb.export @conv_dispatch_0 bindings(arg0: f32 readonly, arg1: f32 readonly, result: f32 writeonly) workgroup_size = [256, 1, 1]
// CHECK-COUNT-3: scf.for
// CHECK-LABEL: func.func @conv() {
// CHECK: kb.dispatch @conv_dispatch_0::@conv_dispatch_0[%c512]
func.func @conv(%in: tensor<1x10x10x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x8x8x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>) outs(%fill : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// Pooling: the window tensor only gives the shape, so it is no binding;
// the stride shows in the index (2 * oh + kh).
// CHECK-LABEL: kb.executable @pool_dispatch_0 {
// CHECK-NEXT: kb.export @pool_dispatch_0 bindings(arg0: f32 readonly, result: f32 writeonly) workgroup_size = [256, 1, 1]
// CHECK: arith.maxf
func.func @pool(%in: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %ninf = arith.constant -3.4e38 : f32
  %window = tensor.empty() : tensor<2x2xf32>
  %empty = tensor.empty() : tensor<1x4x4x4xf32>
  %fill = linalg.fill ins(%ninf : f32) outs(%empty : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %window : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%fill : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %p : tensor<1x4x4x4xf32>
}

// -----

// linalg.reduce (a reduction root) and linalg.map (elementwise, fused into
// the reduction's consumer chain by MLIR's elementwise fusion).
// CHECK-LABEL: kb.executable @rowsum_dispatch_0 {
// CHECK-NEXT: kb.export @rowsum_dispatch_0 bindings(arg0: f32 readonly, result: f32 writeonly) workgroup_size = [256, 1, 1]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: kb.executable
// CHECK-LABEL: func.func @rowsum() {
// CHECK: kb.dispatch @rowsum_dispatch_0::@rowsum_dispatch_0[%c32]
func.func @rowsum(%a: tensor<32x64xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32x64xf32>
  %sq = linalg.map { arith.mulf } ins(%a, %a : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e0 : tensor<32x64xf32>)
  %empty = tensor.empty() : tensor<32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<32xf32>) -> tensor<32xf32>
  %r = linalg.reduce { arith.addf } ins(%sq : tensor<32x64xf32>) outs(%fill : tensor<32xf32>) dimensions = [1]
  return %r : tensor<32xf32>
}

// -----

// transpose and broadcast are data movement MLIR fuses into their single
// consumer: one dispatch reading the transposed operand through its map.
// CHECK-LABEL: kb.executable @moves_dispatch_0 {
// CHECK-NEXT: kb.export @moves_dispatch_0 bindings(arg0: f32 readonly, arg1: f32 readonly, result: f32 writeonly) workgroup_size = [16, 16, 1]
// CHECK-NOT: kb.executable
// CHECK-LABEL: func.func @moves() {
// CHECK: kb.dispatch @moves_dispatch_0::@moves_dispatch_0[%c32, %c64, %c1]
func.func @moves(%a: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%a : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<64x32xf32>
  %bc = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e2 : tensor<64x32xf32>) dimensions = [0]
  %e3 = tensor.empty() : tensor<64x32xf32>
  %r = linalg.map { arith.addf } ins(%t, %bc : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e3 : tensor<64x32xf32>)
  return %r : tensor<64x32xf32>
}

// -----

// linalg.generic with linalg.index, and a splat constant operand, which is
// recomputed in the body rather than bound. The square's single use fuses
// it into the subtraction; the index value, read three times by that one
// op (operands deduplicated), becomes its root: one dispatch computing it
// once per element.
// CHECK-LABEL: kb.executable @iota_dispatch_0 {
// CHECK-NEXT: kb.export @iota_dispatch_0 bindings(result: i32 writeonly) workgroup_size = [256, 1, 1]
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i32
// CHECK: %[[I:.*]] = arith.index_cast
// CHECK-NEXT: %[[V:.*]] = arith.addi %[[I]], %[[THREE]] : i32
// CHECK-NEXT: %[[SQ:.*]] = arith.muli %[[V]], %[[V]] : i32
// CHECK-NEXT: arith.subi %[[SQ]], %[[V]] : i32
// CHECK-NOT: kb.executable
#id = affine_map<(d0) -> (d0)>
func.func @iota(%unused: tensor<8xi32>) -> tensor<8xi32> {
  %three = arith.constant dense<3> : tensor<8xi32>
  %e = tensor.empty() : tensor<8xi32>
  %i = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%three : tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%c: i32, %out: i32):
    %idx = linalg.index 0 : index
    %v = arith.index_cast %idx : index to i32
    %s = arith.addi %v, %c : i32
    linalg.yield %s : i32
  } -> tensor<8xi32>
  %sq = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%i, %i : tensor<8xi32>, tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %m = arith.muli %a, %b : i32
    linalg.yield %m : i32
  } -> tensor<8xi32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%i, %sq : tensor<8xi32>, tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%a: i32, %b: i32, %out: i32):
    %m = arith.subi %b, %a : i32
    linalg.yield %m : i32
  } -> tensor<8xi32>
  return %sum : tensor<8xi32>
}

// -----

// Padding and slices are views, read through in the consumer's body: a
// padded TOSA convolution is one dispatch reading the unpadded input (the
// padding value where the index falls outside it), and a strided slice
// reads its source at offset + index * stride.
// CHECK-LABEL: kb.executable @views_dispatch_0 {
// CHECK-NEXT: kb.export @views_dispatch_0 bindings(arg0: f32 readonly, arg1: f32 readonly, arg2: f32 readonly, result: f32 writeonly)
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: memref.load
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ZERO:.*]] : f32
// CHECK-LABEL: kb.executable @views_dispatch_1 {
// CHECK-NEXT: kb.export @views_dispatch_1 bindings(arg3: f32 readonly, result: f32 writeonly) workgroup_size = [256, 1, 1]
// CHECK: arith.negf
// CHECK-NOT: kb.executable
func.func @views(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>, %b: tensor<8xf32>, %s: tensor<8x9xf32>) -> (tensor<1x8x8x8xf32>, tensor<3x4xf32>) {
  %0 = "tosa.conv2d"(%x, %w, %b) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %1 = "tosa.slice"(%s) {start = array<i64: 2, 1>, size = array<i64: 3, 4>} : (tensor<8x9xf32>) -> tensor<3x4xf32>
  %2 = "tosa.negate"(%1) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0, %2 : tensor<1x8x8x8xf32>, tensor<3x4xf32>
}

// -----

// A program without model functions is left unchanged.
// CHECK-LABEL: kb.executable @handwritten {
// CHECK-LABEL: func.func @main() {
// CHECK-NEXT: return
kb.executable @handwritten {
  kb.export @handwritten workgroup_size = [1, 1, 1]
  builtin.module {
    func.func @handwritten() { return }
  }
}
func.func @main() {
  return
}
