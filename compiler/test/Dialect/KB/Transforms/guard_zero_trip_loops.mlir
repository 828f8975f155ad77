// RUN: kb-opt %s --kb-guard-zero-trip-loops | FileCheck %s

// A loop with results whose trip count may be zero runs under a guard on
// its own header's condition; the else branch yields the initial values,
// which is what the loop's results are when it does not run.

// CHECK-LABEL: func.func @fibonacci
// CHECK-SAME: (%[[K:[^:]*]]: index)
// CHECK: %[[ENTERED:.*]] = arith.cmpi slt, %[[C2:.*]], %[[K]] : index
// CHECK: %[[R:.*]]:2 = scf.if %[[ENTERED]] -> (i32, i32) {
// CHECK:   %[[L:.*]]:2 = scf.for %{{.*}} = %[[C2]] to %[[K]] step %{{.*}} iter_args(%{{.*}} = %[[ONE:.*]], %{{.*}} = %[[ONE]]) -> (i32, i32) {
// CHECK:   scf.yield %[[L]]#0, %[[L]]#1 : i32, i32
// CHECK: } else {
// CHECK:   scf.yield %[[ONE]], %[[ONE]] : i32, i32
// CHECK: }
// CHECK: return %[[R]]#0 : i32
func.func @fibonacci(%k: index) -> i32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  %r:2 = scf.for %j = %c2 to %k step %c1
      iter_args(%curr = %one, %prev = %one) -> (i32, i32) {
    %next = arith.addi %curr, %prev : i32
    scf.yield %next, %curr : i32, i32
  }
  return %r#0 : i32
}

// Constant bounds that run the body, loops without results and loops nested
// in a guarded one: only what may not run is guarded, once.
// CHECK-LABEL: func.func @untouched_and_nested
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.if
// CHECK: scf.for
// CHECK: scf.if
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: return
func.func @untouched_and_nested(%n: index, %p: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %known = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %p[%i] : memref<?xf32>
    %s = arith.addf %a, %v : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %n step %c1 {
    memref.store %known, %p[%i] : memref<?xf32>
  }
  %outer = scf.for %i = %c0 to %n step %c1 iter_args(%a = %known) -> (f32) {
    %inner = scf.for %j = %c0 to %i step %c1 iter_args(%b = %a) -> (f32) {
      %v = memref.load %p[%j] : memref<?xf32>
      %s = arith.addf %b, %v : f32
      scf.yield %s : f32
    }
    scf.yield %inner : f32
  }
  return %outer : f32
}
