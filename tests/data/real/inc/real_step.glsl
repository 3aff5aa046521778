// real_step.glsl: flags_gemm.comp's inner step, in a folder found only through the manifest's
// `includes = inc`. Written for the harness's tests.
float real_step(float acc, float a, float b) { return acc + a * b; }
