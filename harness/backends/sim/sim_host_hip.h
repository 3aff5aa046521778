/* SPDX-License-Identifier: MIT */
/* sim_host_hip.h: the HIP runtime's host API for whole files on the emulator (sim_host.h): its
 * own types, error codes and device attributes, hipLaunchKernelGGL, then the API it shares with
 * CUDA (sim_host_api.h, prefixed hip). Included by the hip/hip_runtime.h shim after the prelude. */
#ifndef SIM_HOST_HIP_H
#define SIM_HOST_HIP_H

#include "sim_host.h"

typedef enum hipError_t {
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    hipErrorMemoryAllocation = 2,
    hipErrorNotInitialized = 3,
    hipErrorInitializationError = 3,
    hipErrorDeinitialized = 4,
    hipErrorInvalidConfiguration = 9,
    hipErrorInvalidSymbol = 13,
    hipErrorInvalidDevicePointer = 17,
    hipErrorInvalidMemcpyDirection = 21,
    hipErrorInsufficientDriver = 35,
    hipErrorInvalidDeviceFunction = 98,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorNoBinaryForGpu = 209,
    hipErrorInvalidHandle = 400,
    hipErrorInvalidResourceHandle = 400,
    hipErrorNotReady = 600,
    hipErrorIllegalAddress = 700,
    hipErrorLaunchOutOfResources = 701,
    hipErrorLaunchTimeOut = 702,
    hipErrorPeerAccessAlreadyEnabled = 704,
    hipErrorAssert = 710,
    hipErrorLaunchFailure = 719,
    hipErrorNotSupported = 801,
    hipErrorUnknown = 999,
} hipError_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
/* The prelude's warpSize macro is not a member's name here (host code reads prop.warpSize). */
#pragma push_macro("warpSize")
#undef warpSize
typedef struct hipDeviceProp_t {
    SIM_HOST_PROP_FIELDS;
    char gcnArchName[256];
    int gcnArch, clockInstructionRate;
} hipDeviceProp_t;
#pragma pop_macro("warpSize")
typedef enum hipDeviceAttribute_t {
    hipDeviceAttributeMaxThreadsPerBlock,
    hipDeviceAttributeMaxBlockDimX,
    hipDeviceAttributeMaxBlockDimY,
    hipDeviceAttributeMaxBlockDimZ,
    hipDeviceAttributeMaxGridDimX,
    hipDeviceAttributeMaxGridDimY,
    hipDeviceAttributeMaxGridDimZ,
    hipDeviceAttributeMaxSharedMemoryPerBlock,
    hipDeviceAttributeTotalConstantMemory,
    hipDeviceAttributeWarpSize,
    hipDeviceAttributeMaxRegistersPerBlock,
    hipDeviceAttributeClockRate,
    hipDeviceAttributeMemoryClockRate,
    hipDeviceAttributeMemoryBusWidth,
    hipDeviceAttributeMultiprocessorCount,
    hipDeviceAttributeComputeMode,
    hipDeviceAttributeL2CacheSize,
    hipDeviceAttributeMaxThreadsPerMultiProcessor,
    hipDeviceAttributeComputeCapabilityMajor,
    hipDeviceAttributeComputeCapabilityMinor,
    hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
    hipDeviceAttributeManagedMemory,
    hipDeviceAttributeCooperativeLaunch,
    hipDeviceAttributeSharedMemPerBlockOptin,
} hipDeviceAttribute_t;
enum {
    hipHostMallocDefault = 0,
    hipHostMallocPortable = 1,
    hipHostMallocMapped = 2,
    hipHostMallocWriteCombined = 4,
};

/* Flags that the runtime defines as macros: 0 is a stream too (`k<<<g, b, 0, hipStreamDefault>>>`). */
#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01

#define SIM_API(x) hip##x
#define SIM_API_PROP hipDeviceProp_t
#define SIM_API_ATTR hipDeviceAttribute_t
#include "sim_host_api.h"
#undef SIM_API
#undef SIM_API_PROP
#undef SIM_API_ATTR

/* HIP's own spellings: pinned memory, and the launch macro with its kernel-name helpers. The
 * launch compiles the kernel call and never makes it, as a rewritten <<<>>> (sim_host.h). */
SIM_HOST_FN(hipError_t, hipHostMalloc, (void **, std::size_t, unsigned = 0))
SIM_HOST_TFN(hipError_t, hipHostMalloc, (_Tp **, std::size_t, unsigned = 0))
SIM_HOST_FN(hipError_t, hipHostFree, (void *))
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(X) X
#define hipLaunchKernelGGL(K, G, B, S, ST, ...)                                                                        \
    (::__sim_host_launch((G), (B), (S), (ST)) ? (void)0 : (void)(K)(__VA_ARGS__))

#endif
