# SPDX-License-Identifier: MIT
# harness/backends/cuda/backend.mk: builds build/backends/hb_cuda.so (cudart + cuBLAS)
# and one fatbin per kernels/cuda/*.cu (SASS + PTX for each of CUDA_ARCHS, default 90),
# keeping each `ptxas -v` report as build/kernels/cuda/<stem>.ptxas.txt for the
# occupancy report. Needs nvcc and the cuBLAS headers, never a GPU or a driver.

# The GNUmakefile includes this before its `all`: keep our rules from becoming the default goal.
CU_SAVED_GOAL := $(.DEFAULT_GOAL)
# CUDA_HOME, CUDA_ARCHS, nvcc and the fatbin recipe: common/backends.mk, shared with HIP on NVIDIA.
CU_SRCS    := $(sort $(wildcard kernels/cuda/*.cu))
CU_FATBINS := $(CU_SRCS:kernels/cuda/%.cu=$(BUILD)/kernels/cuda/%.fatbin)

# The run-time compile with nvcc, with no CUDA call: in hb_cuda.so and cuda-entry.
CU_NVCC_SRC := harness/backends/cuda/cu_nvcc.c harness/backends/common/rtc.c harness/backends/common/rtc_cache.c \
               harness/backends/common/sha256.c

ifeq ($(HB_NVCC),)
BACKEND_NOTES += cuda:skipped(no-nvcc-at-$(CUDA_HOME)/bin/nvcc)
else
# The symbol a manifest's entry names after the run-time compile (a cubin), with no GPU: what
# the backend builds, from the same code (cu_entry_main.c). Needs nvcc only.
BACKEND_TARGETS += $(BUILD)/backends/cuda-entry
CU_ENTRY_CFLAGS = $(HB_CFLAGS) -Iharness/abi -Iharness/backends/common -DCU_CUDA_HOME='"$(CUDA_HOME)"'
CU_ENTRY_OBJ := $(call hb_objects,cuda-entry,harness/backends/cuda/cu_entry_main.c $(CU_NVCC_SRC) \
                  harness/backends/common/code_object.c,CU_ENTRY_CFLAGS)
$(CU_ENTRY_OBJ): harness/backends/cuda/backend.mk
$(BUILD)/backends/cuda-entry: $(CU_ENTRY_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) $^ -o $@ -ldl -lstdc++

ifeq ($(wildcard $(CUDA_HOME)/include/cublas_v2.h),)
BACKEND_NOTES += cuda:skipped(no-cublas_v2.h-in-$(CUDA_HOME)/include)
else
BACKEND_TARGETS += $(BUILD)/backends/hb_cuda.so $(CU_FATBINS)
BACKEND_NOTES += cuda:built

# The rpath lets the child dlopen hb_cuda.so with no LD_LIBRARY_PATH; the driver
# (libcuda.so.1) is loaded by cudart only when a call needs it, so this links and
# loads on machines with no GPU.
# CU_CUDA_HOME is where the run-time compile looks for libnvrtc and cuda_runtime.h when
# $$CUDA_HOME is unset (NVRTC is dlopen'ed: only users' own kernels need it).
# libstdc++ for its demangler: kernels found by enumeration have C++ names.
CU_SO_CFLAGS = $(HB_SO_CFLAGS) -isystem $(CUDA_HOME)/include -Iharness/backends/common -DCU_CUDA_HOME='"$(CUDA_HOME)"'
CU_SO_OBJ := $(call hb_objects,hb_cuda,$(addprefix harness/backends/cuda/,cu_backend.c cu_module.c cu_info.c) \
               $(CU_NVCC_SRC),CU_SO_CFLAGS)
$(CU_SO_OBJ): harness/backends/cuda/backend.mk
$(BUILD)/backends/hb_cuda.so: $(CU_SO_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_LINK) $^ -o $@ -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcudart -ldl -lstdc++

# ptxas writes its -v report to stderr: kept for the occupancy report.
$(BUILD)/kernels/cuda/%.fatbin: kernels/cuda/%.cu
	$(call hb_fatbin,NVCC,-Xptxas -v,$(@:.fatbin=.ptxas.txt))
endif
endif

.DEFAULT_GOAL := $(CU_SAVED_GOAL)
