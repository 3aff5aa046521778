# SPDX-License-Identifier: MIT
# harness/backends/cuda/backend.mk: builds build/backends/hb_cuda.so (cudart + cuBLAS)
# and one fatbin per kernels/cuda/*.cu (SASS + PTX for each of CUDA_ARCHS, default 90),
# keeping each `ptxas -v` report as build/kernels/cuda/<stem>.ptxas.txt for the
# occupancy report. Needs nvcc and the cuBLAS headers, never a GPU or a driver.

# The GNUmakefile includes this before its `all`: keep our rules from becoming the default goal.
CU_SAVED_GOAL := $(.DEFAULT_GOAL)
CUDA_HOME  ?= /usr/local/cuda
CUDA_ARCHS ?= 90
CU_NVCC    := $(shell command -v $(CUDA_HOME)/bin/nvcc 2>/dev/null)
CU_SRCS    := $(sort $(wildcard kernels/cuda/*.cu))
CU_FATBINS := $(CU_SRCS:kernels/cuda/%.cu=$(BUILD)/kernels/cuda/%.fatbin)
# Quoted: the brackets are a shell glob otherwise.
CU_GENCODE := $(foreach a,$(CUDA_ARCHS),'-gencode=arch=compute_$(a),code=[sm_$(a),compute_$(a)]')

# The run-time compile with nvcc, with no CUDA call: in hb_cuda.so and cuda-entry.
CU_NVCC_SRC := harness/backends/cuda/cu_nvcc.c harness/backends/cuda/cu_nvcc.h harness/backends/common/rtc.c \
               harness/backends/common/rtc_cache.c harness/backends/common/sha256.c harness/backends/common/sha256.h \
               harness/backends/common/rtc.h harness/abi/backend.h

ifeq ($(CU_NVCC),)
BACKEND_NOTES += cuda:skipped(no-nvcc-at-$(CUDA_HOME)/bin/nvcc)
else
# The symbol a manifest's entry names after the run-time compile (a cubin), with no GPU: what
# the backend builds, from the same code (cu_entry_main.c). Needs nvcc only.
BACKEND_TARGETS += $(BUILD)/backends/cuda-entry
$(BUILD)/backends/cuda-entry: harness/backends/cuda/cu_entry_main.c $(CU_NVCC_SRC) \
                              harness/backends/common/code_object.c harness/backends/common/code_object.h \
                              harness/backends/common/entry_name.h
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) -Iharness/abi -Iharness/backends/common -DCU_CUDA_HOME='"$(CUDA_HOME)"' \
	    $(filter %.c,$^) -o $@ -ldl -lstdc++

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
$(BUILD)/backends/hb_cuda.so: harness/backends/cuda/cu_backend.c harness/backends/cuda/cu_module.c \
                              harness/backends/cuda/cu_info.c harness/backends/cuda/cu_info.h $(CU_NVCC_SRC) \
                              harness/backends/cuda/cu_internal.h harness/backends/common/hbc.h \
                              harness/backends/common/entry_name.h
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_CFLAGS) -isystem $(CUDA_HOME)/include -Iharness/backends/common \
	    -DCU_CUDA_HOME='"$(CUDA_HOME)"' $(filter %.c,$^) -o $@ \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcudart -ldl -lstdc++

# ptxas writes its -v report to stderr: keep it, and show it when nvcc fails. Device-code
# warnings are errors, as for the C code.
$(BUILD)/kernels/cuda/%.fatbin: kernels/cuda/%.cu
	@mkdir -p $(dir $@)
	@echo "NVCC $<"
	@$(CU_NVCC) -fatbin $(CU_GENCODE) -O3 -lineinfo -Werror all-warnings -Xptxas -v $< -o $@ \
	    2> $(@:.fatbin=.ptxas.txt) || { cat $(@:.fatbin=.ptxas.txt); rm -f $@; exit 1; }
endif
endif

.DEFAULT_GOAL := $(CU_SAVED_GOAL)
