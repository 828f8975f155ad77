#version 450
// A push-constant array of 10^8 floats: glslc and spirv-val accept it.
layout(local_size_x = 64) in;
struct Body { vec4 pos; vec4 vel; };
layout(std430, set = 0, binding = 0) buffer B { Body bodies[]; };
layout(push_constant) uniform P { float damping[100000000]; uint n; } pc;
void main() { uint i = gl_GlobalInvocationID.x; if (i < pc.n) bodies[i].pos *= pc.damping[i]; }
