/* SPDX-License-Identifier: MIT */
/* sim_host.h: what whole files need of the CUDA and HIP runtimes' host side to build for the
 * emulator as they build for nvcc and hipcc: main() beside the kernels, launches, allocations,
 * events, streams, device queries. The harness never runs host code (it calls the kernels
 * itself), so every host function stops the process, naming itself, if it is ever called.
 * The APIs are sim_host_api.h, once per dialect (sim_host_cuda.h, sim_host_hip.h). */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include <cstdio>
#include <cstdlib>

#include "sim_prelude.h" /* dim3 */

/* Host code is compiled, never run: a call into it is a harness bug, not a result. */
[[noreturn]] inline void __sim_host_unrun(const char *__what)
{
    std::fprintf(stderr, "sim: %s called: the emulator builds host code but never runs it\n", __what);
    std::abort();
}

/* A launch, `k<<<grid, block, shmem, stream>>>(args)`, reaches the compiler rewritten
 * (sim_rewrite.c) as `(__sim_host_launch(grid, block, shmem, stream) ? (void)0 : (void)k(args))`:
 * the configuration is checked as nvcc checks it, and the kernel call is compiled (templates
 * deduced and instantiated, arguments converted) but never made. */
[[noreturn]] inline bool __sim_host_launch(dim3, dim3, std::size_t = 0, const void * = nullptr)
{
    __sim_host_unrun("a kernel launch");
}

/* A host function of either runtime: defined, so the object links, and never run. */
#define SIM_HOST_FN(ret, name, params)                                                                                 \
    [[noreturn]] inline ret name params { __sim_host_unrun(#name); }
/* The same taking any kernel (or symbol) by its address, as the runtimes' templates do. */
#define SIM_HOST_TFN(ret, name, params)                                                                                \
    template <typename _Tp>                                                                                            \
    [[noreturn]] inline ret name params                                                                                \
    {                                                                                                                  \
        __sim_host_unrun(#name);                                                                                       \
    }

/* The fields of cudaDeviceProp and hipDeviceProp_t that host code commonly reads. */
#define SIM_HOST_PROP_FIELDS                                                                                           \
    char name[256];                                                                                                    \
    std::size_t totalGlobalMem, sharedMemPerBlock, memPitch, totalConstMem, textureAlignment;                          \
    std::size_t sharedMemPerMultiprocessor, sharedMemPerBlockOptin;                                                    \
    int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;                       \
    int major, minor, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory;                     \
    int computeMode, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, asyncEngineCount;              \
    int unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize;                     \
    int maxThreadsPerMultiProcessor, regsPerMultiprocessor, managedMemory, isMultiGpuBoard;                            \
    int maxBlocksPerMultiProcessor, cooperativeLaunch, concurrentManagedAccess, pageableMemoryAccess;                  \
    int deviceOverlap, maxSharedMemoryPerMultiProcessor

#endif
