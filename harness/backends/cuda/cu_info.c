/* SPDX-License-Identifier: MIT */
/* cu_info.c: what the CUDA compiler and the occupancy calculator say of a loaded kernel
 * (registers, shared and local memory, resident blocks per SM) and the device's DRAM
 * bandwidth, for `harness bench`. It launches nothing, and it cannot see clusters: the
 * occupancy is per SM, as the calculator gives it. */
#include "cu_info.h"

#include <cuda_runtime.h>
#include <stdio.h>

/* Memory clock (kHz) x bus width, two transfers per clock (DDR and HBM alike); 0 when the
 * driver does not say. */
static double cu_dram_gbs(int dev)
{
    int khz = 0, bits = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0.0;
    }
    return 2.0 * khz * 1e3 * (bits / 8.0) / 1e9;
}

int cu_kernel_figures(const void *fn, int dev, const unsigned block[3], unsigned dyn_shared, struct hb_kernel_info *out,
                      char *err, size_t errlen)
{
    struct cudaFuncAttributes a;
    int threads = (int)(block[0] * block[1] * block[2]), blocks = 0, max_threads = 0;
    const char *call = "cudaFuncGetAttributes";
    cudaError_t e = cudaFuncGetAttributes(&a, fn);
    if (e == cudaSuccess) {
        call = "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, dyn_shared);
    }
    if (e == cudaSuccess) {
        call = "cudaDeviceGetAttribute(max threads per SM)";
        e = cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    }
    if (e != cudaSuccess) {
        snprintf(err, errlen, "%s: %s (%s)", call, cudaGetErrorName(e), cudaGetErrorString(e));
        (void)cudaGetLastError();
        return HB_ERROR;
    }
    out->regs = a.numRegs;
    out->shared_bytes = (int)(a.sharedSizeBytes + dyn_shared);
    out->local_bytes = (int)a.localSizeBytes;
    out->blocks_per_sm = blocks;
    out->occupancy = max_threads > 0 ? (double)blocks * threads / max_threads : 0.0;
    out->dram_peak_gbs = cu_dram_gbs(dev);
    return HB_OK;
}
