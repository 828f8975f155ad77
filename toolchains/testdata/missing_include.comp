#version 450
#extension GL_GOOGLE_include_directive : require
#include "does_not_exist.glsl"
layout(local_size_x = 256) in;
void main() {}
