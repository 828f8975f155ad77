// One step of a computeparticles-style simulation, written the way the
// public samples write it: the particles are an array of structs in one
// storage buffer (position, velocity and a colour gradient position, std430
// like SaschaWillems' computeparticles), the step's parameters a uniform
// block. Each particle is pulled toward (destX, destY), softened near it,
// then moves by its new velocity; the gradient position drifts with speed.
#version 450
layout(local_size_x = 256) in;

struct Particle {
  vec2 pos;
  vec2 vel;
  vec4 gradientPos;
};

layout(std430, set = 0, binding = 0) buffer Pos { Particle particles[]; };
layout(set = 0, binding = 1) uniform UBO {
  float deltaT;
  float destX;
  float destY;
  int particleCount;
} ubo;

void main() {
  uint index = gl_GlobalInvocationID.x;
  if (index >= uint(ubo.particleCount))
    return;
  Particle p = particles[index];
  vec2 delta = vec2(ubo.destX, ubo.destY) - p.pos;
  float pull = 1.0 / (dot(delta, delta) + 1.0);
  p.vel += ubo.deltaT * pull * delta;
  p.pos += ubo.deltaT * p.vel;
  p.gradientPos.x += 0.02 * ubo.deltaT * length(p.vel);
  particles[index] = p;
}
