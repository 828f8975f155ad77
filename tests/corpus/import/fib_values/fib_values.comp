// In-place Fibonacci over a buffer, in the style of the headless compute
// samples of the Vulkan example collections: one storage buffer read and
// written in place, each invocation replacing its value v with
// fibonacci(v) (fib(0) = 0, fib(1) = 1), here with a push-constant element
// count and a bounds check. In the import corpus as the kernel checked
// against expected outputs in .npy files (values_in.npy -> values_out.npy,
// made by make_npy.py). Values may be 0, so the loop can run zero times.
// Arithmetic wraps mod 2^32 (the data stays at most fib(40)).
#version 450
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Values { uint values[]; };
layout(push_constant) uniform Params { uint count; } params;

uint fibonacci(uint n) {
  uint a = 0u; // fib(k)
  uint b = 1u; // fib(k + 1)
  for (uint k = 0u; k < n; ++k) {
    uint next = a + b;
    a = b;
    b = next;
  }
  return a;
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.count)
    return;
  values[i] = fibonacci(values[i]);
}
