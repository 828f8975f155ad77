// What the front end refuses, each at the op (or function) to fix.
// RUN: kb-opt %s --split-input-file --verify-diagnostics --kb-lower-model --kb-form-dispatches

func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'scf.for' op is not accepted in a model function: the front end takes tosa, linalg (named ops and linalg.generic), tensor, arith and math ops}}
  scf.for %i = %c0 to %c4 step %c1 {
  }
  return %x : tensor<4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument #0 has type 'tensor<?x4xf32>'; the front end takes static shapes only (dynamic dimensions are not supported yet)}}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "tosa.exp"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// expected-error@+1 {{'func.func' op argument #1 has type 'f32'; a model function's arguments and results are ranked tensors}}
func.func @scalar(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %0 = "tosa.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @weights(%x: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  // expected-error@+1 {{is a tensor constant of 'tensor<1x2x2xf32>' with distinct values (weights); the front end does not embed weights: pass them as function arguments}}
  %w = "tosa.const"() {value = dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>} : () -> tensor<1x2x2xf32>
  %0 = "tosa.matmul"(%x, %w) : (tensor<1x2x2xf32>, tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  return %0 : tensor<1x2x2xf32>
}

// -----

func.func @concat(%x: tensor<8xf32>, %y: tensor<4xf32>) -> tensor<12xf32> {
  // expected-error@+1 {{'tensor.insert_slice' op cannot be formed into a dispatch: after TOSA conversion the front end takes linalg.generic (and named linalg ops), tensor.empty, expand_shape, collapse_shape, pad, extract_slice and splat constants}}
  %0 = "tosa.concat"(%x, %y) {axis = 0 : i64} : (tensor<8xf32>, tensor<4xf32>) -> tensor<12xf32>
  return %0 : tensor<12xf32>
}

// -----

func.func @predicate(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xi1> {
  // expected-error@+1 {{passes a tensor of 'i1' between dispatches; bindings hold i8, i16, i32, i64, f16, bf16, f32 or f64}}
  %0 = "tosa.greater"(%x, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

// expected-error@+1 {{'func.func' op is a declaration; a model function needs a body of tosa or linalg ops}}
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>

// -----

func.func @view(%x: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'tensor.extract_slice' op is returned by the model without a dispatch computing it; the front end needs results computed by a dispatch}}
  %0 = "tosa.slice"(%x) {start = array<i64: 2>, size = array<i64: 4>} : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
