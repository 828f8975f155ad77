// One step of computeparticles' attraction: each particle is pulled toward
// (destX, destY), softened near it, then moves by its new velocity. The
// positions and velocities are vec2 arrays (x, y interleaved); the
// parameters come in a uniform block, as in the sample.
#version 450
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Pos { vec2 pos[]; };
layout(set = 0, binding = 1) readonly buffer Vel { vec2 vel[]; };
layout(set = 0, binding = 2) writeonly buffer PosOut { vec2 posOut[]; };
layout(set = 0, binding = 3) writeonly buffer VelOut { vec2 velOut[]; };
layout(set = 0, binding = 5) uniform UBO {
  float deltaT;
  float destX;
  float destY;
  int particleCount;
} ubo;

void main() {
  uint index = gl_GlobalInvocationID.x;
  if (index >= uint(ubo.particleCount))
    return;
  vec2 p = pos[index];
  vec2 delta = vec2(ubo.destX, ubo.destY) - p;
  float pull = 1.0 / (dot(delta, delta) + 1.0);
  vec2 v = vel[index] + ubo.deltaT * pull * delta;
  velOut[index] = v;
  posOut[index] = p + ubo.deltaT * v;
}
