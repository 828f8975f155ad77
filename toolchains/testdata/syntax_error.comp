#version 450
layout(local_size_x = 256) in;
void main() {
  uint i = gl_GlobalInvocationID.x
}
