/* SPDX-License-Identifier: MIT */
/* hip_nv_driver.c (HIP's NVIDIA platform only): the four CUDA driver API calls that HIP's
 * header makes for modules (hipModuleLoad, hipModuleGetFunction, hipModuleUnload,
 * hipModuleLaunchKernel), forwarded to the driver through cudart's entry-point query. So
 * hb_hip.so links libcudart alone and loads on a machine without libcuda.so.1, where
 * hipGetDeviceCount then says there is no driver. It adds no behaviour of its own. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <string.h>

/* The driver's function as this cuda.h declares it (CUDA_VERSION), NULL when there is none.
 * The callers cache it in a static: every backend call comes from the child's one thread. */
static void *nv_entry(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &fn, CUDA_VERSION, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        return NULL;
    return fn;
}

/* Fills the function pointer at slot on first use; nonzero while it is there. POSIX lets
 * object and function pointers convert, so the copy keeps its value. */
static int nv_get(const char *name, void *slot)
{
    void *fn;
    memcpy(&fn, slot, sizeof fn);
    if (!fn) {
        fn = nv_entry(name);
        memcpy(slot, &fn, sizeof fn);
    }
    return fn != NULL;
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    static CUresult (*fn)(CUmodule *, const char *);
    if (!nv_get("cuModuleLoad", &fn))
        return CUDA_ERROR_NOT_INITIALIZED;
    return fn(module, fname);
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    static CUresult (*fn)(CUfunction *, CUmodule, const char *);
    if (!nv_get("cuModuleGetFunction", &fn))
        return CUDA_ERROR_NOT_INITIALIZED;
    return fn(hfunc, hmod, name);
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    static CUresult (*fn)(CUmodule);
    if (!nv_get("cuModuleUnload", &fn))
        return CUDA_ERROR_NOT_INITIALIZED;
    return fn(hmod);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void **params,
                                void **extra)
{
    static CUresult (*fn)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                          unsigned int, unsigned int, CUstream, void **, void **);
    if (!nv_get("cuLaunchKernel", &fn))
        return CUDA_ERROR_NOT_INITIALIZED;
    return fn(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
