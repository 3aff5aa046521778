// real_step.h: a user's header in a folder of its own, found only through the manifest's
// `includes = inc`: the inner step of flags_gemm.cu and flags_gemm.hip. It needs its tile
// size from the manifest's `defines = REAL_TILE=16`. Written for the harness's tests.
#ifndef REAL_STEP_H
#define REAL_STEP_H
#ifndef REAL_TILE
#error "REAL_TILE is the manifest's: defines = REAL_TILE=16"
#endif
__device__ inline float real_step(float acc, float a, float b) { return acc + a * b; }
#endif
