// One model function per op class the front end accepts (front_end.test):
// convolution, pooling, transpose + broadcast + map, reduce, batch_matmul,
// and a TOSA MLP layer with a softmax.
func.func @conv(%in: tensor<1x10x10x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x8x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}
func.func @pool(%in: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %ninf = arith.constant -3.4e38 : f32
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %k : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %p : tensor<1x4x4x4xf32>
}
func.func @moves(%a: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%a : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<32x64xf32>
  %bc = linalg.broadcast ins(%b : tensor<64xf32>) outs(%e2 : tensor<32x64xf32>) dimensions = [0]
  %e3 = tensor.empty() : tensor<32x64xf32>
  %m = linalg.map { arith.addf } ins(%a, %bc : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e3 : tensor<32x64xf32>)
  %e4 = tensor.empty() : tensor<64x32xf32>
  %t2 = linalg.transpose ins(%m : tensor<32x64xf32>) outs(%e4 : tensor<64x32xf32>) permutation = [1, 0]
  %r = linalg.map { arith.mulf } ins(%t, %t2 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e : tensor<64x32xf32>)
  return %r : tensor<64x32xf32>
}
func.func @red(%a: tensor<32x64xf32>) -> tensor<32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %r = linalg.reduce { arith.addf } ins(%a : tensor<32x64xf32>) outs(%f : tensor<32xf32>) dimensions = [1]
  return %r : tensor<32xf32>
}
func.func @bmm(%a: tensor<2x32x16xf32>, %b: tensor<2x16x24xf32>) -> tensor<2x32x24xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x24xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x32x24xf32>) -> tensor<2x32x24xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x32x16xf32>, tensor<2x16x24xf32>) outs(%f : tensor<2x32x24xf32>) -> tensor<2x32x24xf32>
  return %r : tensor<2x32x24xf32>
}
func.func @tosa(%x: tensor<1x32x64xf32>, %w: tensor<1x64x48xf32>, %b: tensor<1x1x48xf32>) -> tensor<1x32x48xf32> {
  %0 = "tosa.matmul"(%x, %w) : (tensor<1x32x64xf32>, tensor<1x64x48xf32>) -> tensor<1x32x48xf32>
  %1 = "tosa.add"(%0, %b) : (tensor<1x32x48xf32>, tensor<1x1x48xf32>) -> tensor<1x32x48xf32>
  %2 = "tosa.clamp"(%1) {min_fp = 0.0 : f32, max_fp = 3.4028234e38 : f32, min_int = 0 : i64, max_int = 9223372036854775807 : i64} : (tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  %3 = "tosa.reduce_max"(%2) {axis = 2 : i64} : (tensor<1x32x48xf32>) -> tensor<1x32x1xf32>
  %4 = "tosa.sub"(%2, %3) : (tensor<1x32x48xf32>, tensor<1x32x1xf32>) -> tensor<1x32x48xf32>
  %5 = "tosa.exp"(%4) : (tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  %6 = "tosa.reduce_sum"(%5) {axis = 2 : i64} : (tensor<1x32x48xf32>) -> tensor<1x32x1xf32>
  %7 = "tosa.reciprocal"(%6) : (tensor<1x32x1xf32>) -> tensor<1x32x1xf32>
  %8 = "tosa.mul"(%5, %7) {shift = 0 : i32} : (tensor<1x32x48xf32>, tensor<1x32x1xf32>) -> tensor<1x32x48xf32>
  return %8 : tensor<1x32x48xf32>
}
