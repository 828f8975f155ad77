#version 450
// Spins until the host writes a non-zero `stop` (read with an atomic, so no
// compiler hoists it out of the loop). Tests use it as a kernel that never
// finishes on its own: the submission times out, the device is lost, and
// teardown must neither wait for it nor free what it uses. llvmpipe ends
// any one loop after 65535 iterations, so three nest: 65535^3 iterations
// outlast any test, and every one of them checks `stop`.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) coherent buffer Flag {
  uint stop;
  uint spins;
};

bool stopped() { return atomicAdd(stop, 0u) != 0u; }

void main() {
  uint n = 0u;
  for (uint i = 0u; i < 65535u && !stopped(); ++i)
    for (uint j = 0u; j < 65535u && !stopped(); ++j)
      for (uint k = 0u; k < 65535u && !stopped(); ++k)
        n++;
  spins = n;
}
