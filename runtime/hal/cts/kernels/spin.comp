#version 450
// Spins until the host writes a non-zero `stop` (volatile: re-read from
// memory every iteration). Tests use it as a kernel that never finishes on
// its own: the submission times out, the device is lost, and teardown must
// neither wait for it nor free what it uses.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) coherent volatile buffer Flag {
  uint stop;
  uint spins;
};

void main() {
  uint n = 0u;
  while (stop == 0u)
    n++;
  spins = n;
}
