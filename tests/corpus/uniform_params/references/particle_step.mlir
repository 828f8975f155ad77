// The reference of particle_step, one scalar at a time: for particle i,
// p = pos[2i, 2i+1], d = (destX, destY) - p, pull = 1 / (d.d + 1),
// v = vel + deltaT * pull * d, and the new position p + deltaT * v.
kb.executable @particle_step {
  kb.export @particle_step
      bindings(pos: f32 readonly, vel: f32 readonly, pos_out: f32 writeonly,
               vel_out: f32 writeonly)
      constants(deltaT: f32, destX: f32, destY: f32, particleCount: i32)
      workgroup_size = [256, 1, 1]
  builtin.module {
    func.func @particle_step() {
      %one = arith.constant 1.0 : f32
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %pos = kb.binding 0 : memref<?xf32>
      %vel = kb.binding 1 : memref<?xf32>
      %pos_out = kb.binding 2 : memref<?xf32>
      %vel_out = kb.binding 3 : memref<?xf32>
      %dt = kb.constant 0 : f32
      %dest_x = kb.constant 1 : f32
      %dest_y = kb.constant 2 : f32
      %count_i32 = kb.constant 3 : i32
      %count = arith.index_castui %count_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %wg_size = kb.workgroup_size x
      %wg_count = kb.workgroup_count x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %wg_size : index
      %start = arith.addi %base, %tid : index
      %stride = arith.muli %wg_count, %wg_size : index
      scf.for %i = %start to %count step %stride {
        %ix = arith.muli %i, %c2 : index
        %iy = arith.addi %ix, %c1 : index
        %px = memref.load %pos[%ix] : memref<?xf32>
        %py = memref.load %pos[%iy] : memref<?xf32>
        %vx = memref.load %vel[%ix] : memref<?xf32>
        %vy = memref.load %vel[%iy] : memref<?xf32>
        %dx = arith.subf %dest_x, %px : f32
        %dy = arith.subf %dest_y, %py : f32
        %dxx = arith.mulf %dx, %dx : f32
        %dyy = arith.mulf %dy, %dy : f32
        %dd = arith.addf %dxx, %dyy : f32
        %dd1 = arith.addf %dd, %one : f32
        %pull = arith.divf %one, %dd1 : f32
        %scale = arith.mulf %dt, %pull : f32
        %ax = arith.mulf %scale, %dx : f32
        %ay = arith.mulf %scale, %dy : f32
        %nvx = arith.addf %vx, %ax : f32
        %nvy = arith.addf %vy, %ay : f32
        %sx = arith.mulf %dt, %nvx : f32
        %sy = arith.mulf %dt, %nvy : f32
        %npx = arith.addf %px, %sx : f32
        %npy = arith.addf %py, %sy : f32
        memref.store %nvx, %vel_out[%ix] : memref<?xf32>
        memref.store %nvy, %vel_out[%iy] : memref<?xf32>
        memref.store %npx, %pos_out[%ix] : memref<?xf32>
        memref.store %npy, %pos_out[%iy] : memref<?xf32>
      }
      return
    }
  }
}
