/* nvidia_hip_runtime_api.h: the harness's overlay in front of HIP's header of this name (reached
 * by #include_next), not HIP's file. It lets HIP 5.2's NVIDIA platform (Debian 12's 5.2.3)
 * compile against CUDA 13.0 by supplying, scoped to HIP's header, the CUDA names it calls that
 * CUDA 12/13 changed or removed, plus the warp votes HIP 5.2 never mapped. Other HIP or CUDA
 * versions pass straight through. It changes no HIP semantics and adds no HIP API. */
#ifndef HB_HIP_NV_COMPAT_H
#define HB_HIP_NV_COMPAT_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <hip/hip_version.h>
#include <string.h>

#if CUDART_VERSION >= 13000 && HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR == 2
#define HB_HIP_NV_SHIM 1
#endif

#ifdef HB_HIP_NV_SHIM
/* CUDA 13 dropped five fields of cudaDeviceProp that HIP 5.2 copies into hipDeviceProp_t.
 * HIP's code sees this struct under CUDA's name instead: the fields it reads, with the dropped
 * ones read from their device attributes (they still exist as attributes). */
struct hb_nv_prop {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerMultiprocessor, totalConstMem, memPitch,
        textureAlignment, texturePitchAlignment;
    int regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], major, minor,
        multiProcessorCount, l2CacheSize, maxThreadsPerMultiProcessor, memoryBusWidth,
        concurrentKernels, pciDomainID, pciBusID, pciDeviceID, isMultiGpuBoard, canMapHostMemory,
        integrated, cooperativeLaunch, maxTexture1D, maxTexture2D[2], maxTexture3D[3], ECCEnabled,
        tccDriver;
    int clockRate, memoryClockRate, computeMode, kernelExecTimeoutEnabled; /* dropped: attributes */
    int cooperativeMultiDeviceLaunch; /* dropped with multi-device launch itself: always 0 */
};

/* Field by field, so the two layouts need not match (each field's size must: asserted); the
 * macro keeps the list in one place. */
#define HB_NV_PROP_FIELDS(X)                                                                      \
    X(name) X(totalGlobalMem) X(sharedMemPerBlock) X(sharedMemPerMultiprocessor) X(totalConstMem) \
    X(memPitch) X(textureAlignment) X(texturePitchAlignment) X(regsPerBlock) X(warpSize)          \
    X(maxThreadsPerBlock) X(maxThreadsDim) X(maxGridSize) X(major) X(minor)                       \
    X(multiProcessorCount) X(l2CacheSize) X(maxThreadsPerMultiProcessor) X(memoryBusWidth)        \
    X(concurrentKernels) X(pciDomainID) X(pciBusID) X(pciDeviceID) X(isMultiGpuBoard)            \
    X(canMapHostMemory) X(integrated) X(cooperativeLaunch) X(maxTexture1D) X(maxTexture2D)        \
    X(maxTexture3D) X(ECCEnabled) X(tccDriver)
#ifdef __cplusplus
#define HB_NV_SAME_SIZE(f) static_assert(sizeof(((struct hb_nv_prop *)0)->f) == \
    sizeof(((struct cudaDeviceProp *)0)->f), "cudaDeviceProp." #f " changed type");
#else
#define HB_NV_SAME_SIZE(f) _Static_assert(sizeof(((struct hb_nv_prop *)0)->f) == \
    sizeof(((struct cudaDeviceProp *)0)->f), "cudaDeviceProp." #f " changed type");
#endif
HB_NV_PROP_FIELDS(HB_NV_SAME_SIZE)
#define HB_NV_TO_SHIM(f) memcpy(&out->f, &in.f, sizeof out->f);
#define HB_NV_TO_CUDA(f) memcpy(&out.f, &in->f, sizeof out.f);

static inline cudaError_t hb_nv_get_props(struct hb_nv_prop *out, int device)
{
    struct cudaDeviceProp in;
    cudaError_t e = cudaGetDeviceProperties(&in, device);
    memset(out, 0, sizeof *out);
    if (e != cudaSuccess)
        return e;
    HB_NV_PROP_FIELDS(HB_NV_TO_SHIM)
    /* an attribute that fails reads 0, as a missing property would */
    (void)cudaDeviceGetAttribute(&out->clockRate, cudaDevAttrClockRate, device);
    (void)cudaDeviceGetAttribute(&out->memoryClockRate, cudaDevAttrMemoryClockRate, device);
    (void)cudaDeviceGetAttribute(&out->computeMode, cudaDevAttrComputeMode, device);
    (void)cudaDeviceGetAttribute(&out->kernelExecTimeoutEnabled, cudaDevAttrKernelExecTimeout,
                                 device);
    return cudaSuccess;
}

/* hipChooseDevice: the dropped fields cannot be asked for any more, so they are not passed. */
static inline cudaError_t hb_nv_choose(int *device, const struct hb_nv_prop *in)
{
    struct cudaDeviceProp out;
    memset(&out, 0, sizeof out);
    HB_NV_PROP_FIELDS(HB_NV_TO_CUDA)
    return cudaChooseDevice(device, &out);
}

/* CUDA 13 takes a memory location where HIP passes a device ordinal (cudaCpuDeviceId: host). */
static inline struct cudaMemLocation hb_nv_location(int device)
{
    struct cudaMemLocation l;
    memset(&l, 0, sizeof l);
    l.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    l.id = device == cudaCpuDeviceId ? 0 : device;
    return l;
}

static inline cudaError_t hb_nv_mem_advise(const void *p, size_t n, enum cudaMemoryAdvise a, int device)
{
    return cudaMemAdvise(p, n, a, hb_nv_location(device));
}

static inline cudaError_t hb_nv_prefetch(const void *p, size_t n, int device, cudaStream_t s)
{
    return cudaMemPrefetchAsync(p, n, hb_nv_location(device), 0, s);
}

/* cuda.h 13 maps cuCtxCreate to cuCtxCreate_v4, which takes creation parameters (none here). */
static inline CUresult hb_nv_ctx_create(CUcontext *ctx, unsigned int flags, CUdevice dev)
{
    return cuCtxCreate_v4(ctx, NULL, flags, dev);
}

/* Removed in CUDA 12 (texture references, multi-device cooperative launch): HIP 5.2 still wraps
 * them, so they exist here and fail as the feature does. */
struct textureReference;
struct cudaLaunchParams;
static inline cudaError_t hb_nv_bind_texture(size_t *offset, const struct textureReference *tex,
                                             const void *ptr, const struct cudaChannelFormatDesc *desc,
                                             size_t size)
{
    (void)offset, (void)tex, (void)ptr, (void)desc, (void)size;
    return cudaErrorNotSupported;
}

static inline cudaError_t hb_nv_bind_texture_2d(size_t *offset, const struct textureReference *tex,
                                                const void *ptr,
                                                const struct cudaChannelFormatDesc *desc, size_t w,
                                                size_t h, size_t pitch)
{
    (void)offset, (void)tex, (void)ptr, (void)desc, (void)w, (void)h, (void)pitch;
    return cudaErrorNotSupported;
}

static inline cudaError_t hb_nv_texture_offset(size_t *offset, const struct textureReference *tex)
{
    (void)offset, (void)tex;
    return cudaErrorNotSupported;
}

static inline cudaError_t hb_nv_launch_multi(struct cudaLaunchParams *list, unsigned int n,
                                             unsigned int flags)
{
    (void)list, (void)n, (void)flags;
    return cudaErrorNotSupported;
}

#ifdef __cplusplus
/* HIP's templates name texture<T, dim, mode> in their signatures; they are never instantiated. */
template <class T, int dim, enum cudaTextureReadMode mode> struct texture;
#endif

#pragma push_macro("cudaDeviceProp")
#pragma push_macro("cudaGetDeviceProperties")
#pragma push_macro("cudaChooseDevice")
#pragma push_macro("cudaMemAdvise")
#pragma push_macro("cudaMemPrefetchAsync")
#pragma push_macro("cuCtxCreate")
#pragma push_macro("cudaDevAttrCooperativeMultiDeviceLaunch")
#pragma push_macro("cudaBindTexture")
#pragma push_macro("cudaBindTexture2D")
#pragma push_macro("cudaGetTextureAlignmentOffset")
#pragma push_macro("cudaLaunchCooperativeKernelMultiDevice")
#pragma push_macro("cudaGraphAddDependencies")
#pragma push_macro("cudaGraphRemoveDependencies")
#pragma push_macro("cudaGraphGetEdges")
#pragma push_macro("cudaGraphNodeGetDependencies")
#pragma push_macro("cudaGraphNodeGetDependentNodes")
#pragma push_macro("cudaStreamGetCaptureInfo_v2")
#pragma push_macro("cudaStreamUpdateCaptureDependencies")
#undef cudaMemPrefetchAsync
#undef cuCtxCreate
#undef cudaStreamUpdateCaptureDependencies
#define cudaDeviceProp hb_nv_prop
#define cudaGetDeviceProperties hb_nv_get_props
#define cudaChooseDevice hb_nv_choose
#define cudaMemAdvise hb_nv_mem_advise
#define cudaMemPrefetchAsync hb_nv_prefetch
#define cuCtxCreate hb_nv_ctx_create
/* the attribute's old value, which CUDA 13 keeps reserved: querying it fails cleanly */
#define cudaDevAttrCooperativeMultiDeviceLaunch cudaDevAttrReserved96
#define cudaBindTexture hb_nv_bind_texture
#define cudaBindTexture2D hb_nv_bind_texture_2d
#define cudaGetTextureAlignmentOffset hb_nv_texture_offset
#define cudaLaunchCooperativeKernelMultiDevice hb_nv_launch_multi
/* CUDA 13 folded the graph calls' edge-data forms (12.3's _v2) into the plain names: no edge
 * data is what the old forms meant. */
#define cudaGraphAddDependencies(g, from, to, n) cudaGraphAddDependencies(g, from, to, NULL, n)
#define cudaGraphRemoveDependencies(g, from, to, n) cudaGraphRemoveDependencies(g, from, to, NULL, n)
#define cudaGraphGetEdges(g, from, to, n) cudaGraphGetEdges(g, from, to, NULL, n)
#define cudaGraphNodeGetDependencies(node, deps, n) cudaGraphNodeGetDependencies(node, deps, NULL, n)
#define cudaGraphNodeGetDependentNodes(node, deps, n)                                             \
    cudaGraphNodeGetDependentNodes(node, deps, NULL, n)
#define cudaStreamGetCaptureInfo_v2(s, status, id, graph, deps, n)                                \
    cudaStreamGetCaptureInfo(s, status, id, graph, deps, NULL, n)
#define cudaStreamUpdateCaptureDependencies(s, deps, n, flags)                                    \
    cudaStreamUpdateCaptureDependencies(s, deps, NULL, n, flags)
#endif /* HB_HIP_NV_SHIM */

#include_next <hip/nvidia_detail/nvidia_hip_runtime_api.h>

#ifdef HB_HIP_NV_SHIM
#pragma pop_macro("cudaStreamUpdateCaptureDependencies")
#pragma pop_macro("cudaStreamGetCaptureInfo_v2")
#pragma pop_macro("cudaGraphNodeGetDependentNodes")
#pragma pop_macro("cudaGraphNodeGetDependencies")
#pragma pop_macro("cudaGraphGetEdges")
#pragma pop_macro("cudaGraphRemoveDependencies")
#pragma pop_macro("cudaGraphAddDependencies")
#pragma pop_macro("cudaLaunchCooperativeKernelMultiDevice")
#pragma pop_macro("cudaGetTextureAlignmentOffset")
#pragma pop_macro("cudaBindTexture2D")
#pragma pop_macro("cudaBindTexture")
#pragma pop_macro("cudaDevAttrCooperativeMultiDeviceLaunch")
#pragma pop_macro("cuCtxCreate")
#pragma pop_macro("cudaMemPrefetchAsync")
#pragma pop_macro("cudaMemAdvise")
#pragma pop_macro("cudaChooseDevice")
#pragma pop_macro("cudaGetDeviceProperties")
#pragma pop_macro("cudaDeviceProp")
#endif

/* HIP 5.2 maps the unsynchronised shuffles to their _sync forms with a full mask (its line
 * 466) but not the warp votes, which sm_70 and later lack too; the same mapping, so kernels
 * that vote (HIP's __ballot) compile unchanged. A 32-lane warp gives a 32-bit ballot. */
#if defined(__CUDACC__) && !defined(__ballot)
/* CUDA 13's libcu++ (under cooperative_groups.h) declares a `struct __any` whose constructor a
 * function-like macro of that name would rewrite: its header is read first, then the macros. */
#if __has_include(<cuda/std/__functional/invoke.h>)
#include <cuda/std/__functional/invoke.h>
#endif
#define __ballot(pred) __ballot_sync(0xffffffffu, (pred))
#define __any(pred) __any_sync(0xffffffffu, (pred))
#define __all(pred) __all_sync(0xffffffffu, (pred))
#endif

#endif /* HB_HIP_NV_COMPAT_H */
