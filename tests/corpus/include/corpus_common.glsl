// Helpers shared by the corpus's GLSL kernels (#include through
// GL_GOOGLE_include_directive, which glslc enables).
#ifndef CORPUS_COMMON_GLSL
#define CORPUS_COMMON_GLSL

// The flat global invocation index of a 1-D dispatch.
uint globalIndex() { return gl_GlobalInvocationID.x; }

float reluOf(float v) { return max(v, 0.0); }

#endif
