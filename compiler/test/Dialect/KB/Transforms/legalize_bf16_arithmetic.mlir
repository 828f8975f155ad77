// RUN: kb-opt %s --kb-legalize-bf16-arithmetic | FileCheck %s

// bf16 arithmetic is computed in f32; the conversions are integer bit
// operations (extension: shift into the high half; truncation: round to
// nearest even, NaN -> 0x7fc0). Loads, stores and constants keep bf16.

// CHECK-LABEL: func.func @body
// CHECK-SAME: (%[[X:[^:]*]]: bf16, %[[Y:[^:]*]]: bf16, %[[P:[^:]*]]: memref<?xbf16>)
func.func @body(%x: bf16, %y: bf16, %p: memref<?xbf16>) -> (bf16, i1, f32) {
  // CHECK: %[[XB:.*]] = arith.bitcast %[[X]] : bf16 to i16
  // CHECK: %[[XW:.*]] = arith.extui %[[XB]] : i16 to i32
  // CHECK: %[[XS:.*]] = arith.shli %[[XW]], %{{.*}} : i32
  // CHECK: %[[XF:.*]] = arith.bitcast %[[XS]] : i32 to f32
  // CHECK: %[[YF:.*]] = arith.bitcast %{{.*}} : i32 to f32
  // CHECK: %[[SUM:.*]] = arith.addf %[[XF]], %[[YF]] : f32
  // CHECK: %[[BITS:.*]] = arith.bitcast %[[SUM]] : f32 to i32
  // CHECK: arith.shrui %[[BITS]]
  // CHECK: arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
  // CHECK: %[[NARROW:.*]] = arith.trunci %{{.*}} : i32 to i16
  // CHECK: %[[S:.*]] = arith.bitcast %[[NARROW]] : i16 to bf16
  %s = arith.addf %x, %y : bf16
  // CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
  %c = arith.cmpf olt, %s, %y : bf16
  // CHECK: memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<?xbf16>
  %c0 = arith.constant 0 : index
  memref.store %s, %p[%c0] : memref<?xbf16>
  // An extf to f32 is the bit extension alone.
  // CHECK: %[[E:.*]] = arith.bitcast %{{.*}} : i32 to f32
  // CHECK-NOT: arith.extf
  %e = arith.extf %s : bf16 to f32
  // CHECK: return %[[S]], %{{.*}}, %[[E]] : bf16, i1, f32
  return %s, %c, %e : bf16, i1, f32
}

// An f64 source is rounded to f32 first; a bf16 -> f64 extension goes
// through f32.
// CHECK-LABEL: func.func @wide
func.func @wide(%d: f64) -> f64 {
  // CHECK: arith.truncf %{{.*}} : f64 to f32
  // CHECK: arith.bitcast %{{.*}} : i16 to bf16
  %t = arith.truncf %d : f64 to bf16
  // CHECK: arith.extf %{{.*}} : f32 to f64
  %e = arith.extf %t : bf16 to f64
  return %e : f64
}

// A select of bf16 selects the bits.
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:[^:]*]]: i1, %[[A:[^:]*]]: bf16, %[[B:[^:]*]]: bf16)
// CHECK-DAG: %[[AB:.*]] = arith.bitcast %[[A]] : bf16 to i16
// CHECK-DAG: %[[BB:.*]] = arith.bitcast %[[B]] : bf16 to i16
// CHECK: %[[S:.*]] = arith.select %[[C]], %[[AB]], %[[BB]] : i16
// CHECK: arith.bitcast %[[S]] : i16 to bf16
func.func @select(%c: i1, %a: bf16, %b: bf16) -> bf16 {
  %s = arith.select %c, %a, %b : bf16
  return %s : bf16
}

// Nothing to do: f32 and f16 arithmetic are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : f16
// CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} : f32
func.func @untouched(%h: f16, %f: f32) -> (f16, f32) {
  %a = arith.addf %h, %h : f16
  %b = arith.mulf %f, %f : f32
  return %a, %b : f16, f32
}
