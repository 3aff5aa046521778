// broken.comp: a user's GLSL kernel that does not compile (an undeclared name): ERROR, and
// the run exits 1, with glslc's first error and its log. For the tests.
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, std430) buffer BufC { float c[]; };
void main() { c[gl_GlobalInvocationID.x] = not_declared; }
