#version 450
// Two uniform blocks, and (with -DWITH_PUSH) a push-constant block beside
// a uniform block: the ABI takes the constants from one block.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { float r[]; };
layout(set = 0, binding = 1) uniform Scale { float scale; };
#ifdef WITH_PUSH
layout(push_constant) uniform Constants { uint n; } pc;
#define SECOND float(pc.n)
#else
layout(set = 0, binding = 2) uniform Bias { float bias; };
#define SECOND bias
#endif

void main() { r[gl_LocalInvocationIndex] = scale + SECOND; }
