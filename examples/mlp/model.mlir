// A two-layer perceptron with a softmax head, as TOSA (what TensorFlow Lite
// and torch-mlir export): 256 rows of 512 features -> 512 hidden (ReLU) ->
// 128 (ReLU) -> softmax over the 128.
//
// The front end forms six dispatches (docs/front-end.md):
//   main_dispatch_0  x * w1 + b1, ReLU     (matmul root, bias and clamp fused)
//   main_dispatch_1  h * w2 + b2, ReLU
//   main_dispatch_2  row max               (reduction root)
//   main_dispatch_3  exp(y - max)
//   main_dispatch_4  row sum               (reduction root)
//   main_dispatch_5  e * (1 / sum)
// Weights are function arguments: the program seeds every argument.
func.func @main(%x: tensor<1x256x512xf32>, %w1: tensor<1x512x512xf32>,
                %b1: tensor<1x1x512xf32>, %w2: tensor<1x512x128xf32>,
                %b2: tensor<1x1x128xf32>) -> tensor<1x256x128xf32> {
  %0 = "tosa.matmul"(%x, %w1) : (tensor<1x256x512xf32>, tensor<1x512x512xf32>) -> tensor<1x256x512xf32>
  %1 = "tosa.add"(%0, %b1) : (tensor<1x256x512xf32>, tensor<1x1x512xf32>) -> tensor<1x256x512xf32>
  %2 = "tosa.clamp"(%1) {min_fp = 0.0 : f32, max_fp = 3.4028234e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<1x256x512xf32>) -> tensor<1x256x512xf32>
  %3 = "tosa.matmul"(%2, %w2) : (tensor<1x256x512xf32>, tensor<1x512x128xf32>) -> tensor<1x256x128xf32>
  %4 = "tosa.add"(%3, %b2) : (tensor<1x256x128xf32>, tensor<1x1x128xf32>) -> tensor<1x256x128xf32>
  %5 = "tosa.clamp"(%4) {min_fp = 0.0 : f32, max_fp = 3.4028234e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  %6 = "tosa.reduce_max"(%5) {axis = 2 : i64} : (tensor<1x256x128xf32>) -> tensor<1x256x1xf32>
  %7 = "tosa.sub"(%5, %6) : (tensor<1x256x128xf32>, tensor<1x256x1xf32>) -> tensor<1x256x128xf32>
  %8 = "tosa.exp"(%7) : (tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  %9 = "tosa.reduce_sum"(%8) {axis = 2 : i64} : (tensor<1x256x128xf32>) -> tensor<1x256x1xf32>
  %10 = "tosa.reciprocal"(%9) : (tensor<1x256x1xf32>) -> tensor<1x256x1xf32>
  %11 = "tosa.mul"(%8, %10) {shift = 0 : i32} : (tensor<1x256x128xf32>, tensor<1x256x1xf32>) -> tensor<1x256x128xf32>
  return %11 : tensor<1x256x128xf32>
}
