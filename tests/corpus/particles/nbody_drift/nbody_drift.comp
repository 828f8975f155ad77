// The integration step of a computenbody-style simulation: each body (a
// struct of two vec4, its mass in pos.w as the sample keeps it) moves by
// its velocity, damped per axis. The parameters come as push constants
// holding an array and a nested struct, as samples group them.
#version 450
layout(local_size_x = 128) in;

struct Body {
  vec4 pos; // xyz position, w mass
  vec4 vel; // xyz velocity, w unused
};
struct Step {
  float deltaT;
  float maxSpeed;
};

layout(std430, set = 0, binding = 0) buffer Bodies { Body bodies[]; };
layout(push_constant) uniform Params {
  float damping[3];
  Step step;
  uint bodyCount;
} pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.bodyCount)
    return;
  vec3 v = bodies[i].vel.xyz *
           vec3(pc.damping[0], pc.damping[1], pc.damping[2]);
  float speed = length(v);
  if (speed > pc.step.maxSpeed)
    v *= pc.step.maxSpeed / speed;
  bodies[i].vel.xyz = v;
  bodies[i].pos.xyz += pc.step.deltaT * v;
}
