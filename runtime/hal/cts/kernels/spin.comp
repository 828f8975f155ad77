#version 450
// Spins until the host writes a non-zero `stop` (read with an atomic, so no
// compiler hoists it out of the loop). Tests use it as a kernel that never
// finishes on its own: the submission times out, the device is lost, and
// teardown must neither wait for it nor free what it uses. llvmpipe ends an
// invocation's loops after 65535 iterations in all, so tests dispatch many
// workgroups: each spins that long unless `stop` is set, which ends them all
// at once.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) coherent buffer Flag {
  uint stop;
  uint spins;
};

void main() {
  uint n = 0u;
  while (atomicAdd(stop, 0u) == 0u)
    n++;
  atomicMax(spins, n);
}
