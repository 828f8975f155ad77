#version 450
// Push constants holding vectors, as image and particle shaders pass them:
// color 0 (vec4), size 16 (uvec2), scale 24, pad 28, dir 32 (vec2, 8-byte
// aligned), taps 40 (vec2[2], stride 8); 56 bytes. Each vector is where
// its components' scalars would be, one after another. With -DNO_PAD the
// block lacks `pad`: dir still starts at 32 (a vec2's alignment), 4 bytes
// after the scalars before it end.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { vec2 r[]; };
layout(push_constant) uniform Constants {
  vec4 color;
  uvec2 size;
  float scale;
#ifndef NO_PAD
  float pad;
#endif
  vec2 dir;
  vec2 taps[2];
} pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.size.x * pc.size.y)
    return;
  r[i] = pc.dir * pc.scale * pc.color.xy + pc.taps[i % 2];
}
