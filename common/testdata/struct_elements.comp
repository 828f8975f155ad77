#version 450
// Storage buffers of structs, as computeparticles and computenbody write
// them: binding 0 holds Particle (std430: pos 0, vel 8, gradientPos 16; 32
// bytes), binding 1 a struct with a nested struct, an int array and a
// matrix (std430: mass 0, inner.id 4, inner.weight 8, taps 12 (int[3],
// stride 4), basis 24 (mat2, columns 8 apart); 40 bytes), binding 2 a
// struct of a bool, which SPIR-V stores as a uint. The push constants hold
// an array and a nested struct (coeffs 0, stride 4; inner.id 16,
// inner.weight 20; n 24). With -DOTHER_LAYOUT, Particle begins with a
// float: 48 bytes, pos at 8 (a twin laid out differently).
layout(local_size_x = 64) in;

struct Particle {
#ifdef OTHER_LAYOUT
  float mass; // struct_elements_other: everything after it 16 bytes later
#endif
  vec2 pos;
  vec2 vel;
  vec4 gradientPos;
};
struct Inner {
  uint id;
  float weight;
};
struct Body {
  float mass;
  Inner inner;
  int taps[3];
  mat2 basis;
};
struct Flagged {
  bool on;
};

layout(std430, set = 0, binding = 0) buffer Particles { Particle particles[]; };
layout(std430, set = 0, binding = 1) readonly buffer Bodies { Body bodies[]; };
layout(std430, set = 0, binding = 2) buffer Flags { Flagged flags[]; };
layout(push_constant) uniform Constants {
  float coeffs[4];
  Inner inner;
  uint n;
} pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.n)
    return;
  Body b = bodies[i];
  particles[i].vel += pc.coeffs[i % 4] * b.mass * vec2(b.basis[1]) *
                      float(b.taps[2] + int(b.inner.id)) * pc.inner.weight;
  particles[i].pos += particles[i].vel;
  flags[i].on = particles[i].pos.x > 0.0;
}
