/* SPDX-License-Identifier: MIT */
/* sim_host_api.h: the host API that the CUDA and HIP runtimes spell alike but for their prefix,
 * included once per dialect with SIM_API(x) pasting it (cudaMalloc, hipMalloc), after the
 * dialect's own types (sim_host_cuda.h, sim_host_hip.h: SIM_API(Error_t), Stream_t and
 * Event_t; SIM_API_PROP and SIM_API_ATTR name its device properties and attributes). Every
 * function stops the process if called (sim_host.h). No guard: the second inclusion is the
 * other dialect. */
#ifndef SIM_API
#error "included by sim_host_cuda.h or sim_host_hip.h with SIM_API defined"
#endif

enum SIM_API(MemcpyKind) {
    SIM_API(MemcpyHostToHost) = 0,
    SIM_API(MemcpyHostToDevice) = 1,
    SIM_API(MemcpyDeviceToHost) = 2,
    SIM_API(MemcpyDeviceToDevice) = 3,
    SIM_API(MemcpyDefault) = 4,
};
enum SIM_API(FuncAttribute) {
    SIM_API(FuncAttributeMaxDynamicSharedMemorySize) = 8,
    SIM_API(FuncAttributePreferredSharedMemoryCarveout) = 9,
};
enum SIM_API(FuncCache) {
    SIM_API(FuncCachePreferNone) = 0,
    SIM_API(FuncCachePreferShared) = 1,
    SIM_API(FuncCachePreferL1) = 2,
    SIM_API(FuncCachePreferEqual) = 3,
};
enum SIM_API(SharedMemConfig) {
    SIM_API(SharedMemBankSizeDefault) = 0,
    SIM_API(SharedMemBankSizeFourByte) = 1,
    SIM_API(SharedMemBankSizeEightByte) = 2,
};
struct SIM_API(FuncAttributes) {
    std::size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
};
enum {
    SIM_API(EventDefault) = 0,
    SIM_API(EventBlockingSync) = 1,
    SIM_API(EventDisableTiming) = 2,
    SIM_API(DeviceScheduleAuto) = 0,
    SIM_API(DeviceScheduleSpin) = 1,
    SIM_API(DeviceScheduleYield) = 2,
    SIM_API(DeviceScheduleBlockingSync) = 4,
    SIM_API(DeviceMapHost) = 8,
    SIM_API(MemAttachGlobal) = 1,
    SIM_API(MemAttachHost) = 2,
    SIM_API(CpuDeviceId) = -1,
};

/* Memory. The templates take any pointer's address, as the runtimes' own do. */
SIM_HOST_FN(SIM_API(Error_t), SIM_API(Malloc), (void **, std::size_t))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(Malloc), (_Tp **, std::size_t))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MallocManaged), (void **, std::size_t, unsigned = 1))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(MallocManaged), (_Tp **, std::size_t, unsigned = 1))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MallocHost), (void **, std::size_t))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(MallocHost), (_Tp **, std::size_t))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(HostAlloc), (void **, std::size_t, unsigned))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(HostAlloc), (_Tp **, std::size_t, unsigned))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MallocPitch), (void **, std::size_t *, std::size_t, std::size_t))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(HostGetDevicePointer), (void **, void *, unsigned))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(Free), (void *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(FreeHost), (void *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(Memcpy), (void *, const void *, std::size_t, SIM_API(MemcpyKind)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MemcpyAsync),
            (void *, const void *, std::size_t, SIM_API(MemcpyKind), SIM_API(Stream_t) = 0))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(Memcpy2D),
            (void *, std::size_t, const void *, std::size_t, std::size_t, std::size_t, SIM_API(MemcpyKind)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MemcpyPeer), (void *, int, const void *, int, std::size_t))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(Memset), (void *, int, std::size_t))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MemsetAsync), (void *, int, std::size_t, SIM_API(Stream_t) = 0))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MemGetInfo), (std::size_t *, std::size_t *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(MemPrefetchAsync), (const void *, std::size_t, int, SIM_API(Stream_t) = 0))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(MemcpyToSymbol),
             (const _Tp &, const void *, std::size_t, std::size_t = 0,
              SIM_API(MemcpyKind) = SIM_API(MemcpyHostToDevice)))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(MemcpyFromSymbol),
             (void *, const _Tp &, std::size_t, std::size_t = 0, SIM_API(MemcpyKind) = SIM_API(MemcpyDeviceToHost)))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(GetSymbolAddress), (void **, const _Tp &))

/* Devices. */
SIM_HOST_FN(SIM_API(Error_t), SIM_API(GetDeviceCount), (int *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(GetDevice), (int *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(SetDevice), (int))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(SetDeviceFlags), (unsigned))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(GetDeviceProperties), (SIM_API_PROP *, int))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DeviceGetAttribute), (int *, SIM_API_ATTR, int))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DeviceSynchronize), ())
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DeviceReset), ())
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DeviceSetCacheConfig), (SIM_API(FuncCache)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DeviceSetSharedMemConfig), (SIM_API(SharedMemConfig)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DeviceCanAccessPeer), (int *, int, int))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DeviceEnablePeerAccess), (int, unsigned))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(DriverGetVersion), (int *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(RuntimeGetVersion), (int *))

/* Events and streams. */
SIM_HOST_FN(SIM_API(Error_t), SIM_API(EventCreate), (SIM_API(Event_t) *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(EventCreateWithFlags), (SIM_API(Event_t) *, unsigned))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(EventRecord), (SIM_API(Event_t), SIM_API(Stream_t) = 0))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(EventQuery), (SIM_API(Event_t)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(EventSynchronize), (SIM_API(Event_t)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(EventElapsedTime), (float *, SIM_API(Event_t), SIM_API(Event_t)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(EventDestroy), (SIM_API(Event_t)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(StreamCreate), (SIM_API(Stream_t) *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(StreamCreateWithFlags), (SIM_API(Stream_t) *, unsigned))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(StreamCreateWithPriority), (SIM_API(Stream_t) *, unsigned, int))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(StreamQuery), (SIM_API(Stream_t)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(StreamSynchronize), (SIM_API(Stream_t)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(StreamWaitEvent), (SIM_API(Stream_t), SIM_API(Event_t), unsigned = 0))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(StreamDestroy), (SIM_API(Stream_t)))

/* Errors. */
SIM_HOST_FN(SIM_API(Error_t), SIM_API(GetLastError), ())
SIM_HOST_FN(SIM_API(Error_t), SIM_API(PeekAtLastError), ())
SIM_HOST_FN(const char *, SIM_API(GetErrorString), (SIM_API(Error_t)))
SIM_HOST_FN(const char *, SIM_API(GetErrorName), (SIM_API(Error_t)))

/* Kernels, by address: attributes, occupancy, launches without <<<>>>. */
SIM_HOST_FN(SIM_API(Error_t), SIM_API(FuncSetAttribute), (const void *, SIM_API(FuncAttribute), int))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(FuncSetAttribute), (_Tp *, SIM_API(FuncAttribute), int))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(FuncGetAttributes), (SIM_API(FuncAttributes) *, const void *))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(FuncGetAttributes), (SIM_API(FuncAttributes) *, _Tp *))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(FuncSetCacheConfig), (const void *, SIM_API(FuncCache)))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(FuncSetCacheConfig), (_Tp *, SIM_API(FuncCache)))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(OccupancyMaxActiveBlocksPerMultiprocessor),
            (int *, const void *, int, std::size_t))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(OccupancyMaxActiveBlocksPerMultiprocessor), (int *, _Tp *, int, std::size_t))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(OccupancyMaxPotentialBlockSize), (int *, int *, _Tp, std::size_t = 0, int = 0))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(LaunchKernel),
            (const void *, dim3, dim3, void **, std::size_t = 0, SIM_API(Stream_t) = 0))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(LaunchKernel),
             (_Tp *, dim3, dim3, void **, std::size_t = 0, SIM_API(Stream_t) = 0))
SIM_HOST_FN(SIM_API(Error_t), SIM_API(LaunchCooperativeKernel),
            (const void *, dim3, dim3, void **, std::size_t = 0, SIM_API(Stream_t) = 0))
SIM_HOST_TFN(SIM_API(Error_t), SIM_API(LaunchCooperativeKernel),
             (_Tp *, dim3, dim3, void **, std::size_t = 0, SIM_API(Stream_t) = 0))

/* Profiler markers (cuda_profiler_api.h, hip_runtime_api.h). */
SIM_HOST_FN(SIM_API(Error_t), SIM_API(ProfilerStart), ())
SIM_HOST_FN(SIM_API(Error_t), SIM_API(ProfilerStop), ())
