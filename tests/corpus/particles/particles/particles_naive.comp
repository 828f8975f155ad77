// particles.comp's reference: the same step written member by member on
// the buffer itself, no local copy of the particle. Its struct must lay out
// as the kernel's (checked at build); run and bench compare the two
// member by member.
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
  uint i = gl_GlobalInvocationID.x;
  if (i >= uint(ubo.particleCount))
    return;
  vec2 delta = vec2(ubo.destX, ubo.destY) - particles[i].pos;
  particles[i].vel += ubo.deltaT * (1.0 / (dot(delta, delta) + 1.0)) * delta;
  particles[i].pos += ubo.deltaT * particles[i].vel;
  particles[i].gradientPos.x += 0.02 * ubo.deltaT * length(particles[i].vel);
}
