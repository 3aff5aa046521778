# SPDX-License-Identifier: MIT
# nvidia.mk (hip, for HIP_PLATFORM=nvidia): HIP on CUDA is header-only, so this copies HIP's
# headers and the CUDA 13 overlay (nv-include/) into $(BUILD)/hip-nv, where the run-time compile
# finds them too (the folder travels with build/ to a machine without HIP); builds each .hip with
# nvcc through them into $(BUILD)/kernels/hip-nv/<stem>.fatbin (SASS + PTX per CUDA_ARCHS); and
# links hb_hip.so against cudart only, so it loads where no NVIDIA driver is installed.

HIP_NV_DIR     := $(BUILD)/hip-nv
HIP_NV_STAMP   := $(HIP_NV_DIR)/headers.stamp
HIP_NV_OVERLAY := harness/backends/hip/nv-include/hip/nvidia_detail/nvidia_hip_runtime_api.h
HIP_NV_HDRS    := $(wildcard $(HIP_INCLUDE)/hip/*.h $(HIP_INCLUDE)/hip/nvidia_detail/*.h)
# The overlay with -I: it is ours and held to -Werror; HIP's and CUDA's headers are not.
HIP_NV_INC     := -I$(HIP_NV_DIR)/compat -isystem $(HIP_NV_DIR)/include
# Quoted: the brackets are a shell glob otherwise.
HIP_NV_GENCODE := $(foreach a,$(CUDA_ARCHS),'-gencode=arch=compute_$(a),code=[sm_$(a),compute_$(a)]')
HIP_NV_FATBIN  := $(HIP_SRC:kernels/hip/%.hip=$(BUILD)/kernels/hip-nv/%.fatbin)

BACKEND_TARGETS += $(BUILD)/backends/hb_hip.so $(HIP_NV_FATBIN)
BACKEND_NOTES += hip:built(platform=nvidia)

# HIP's top-level headers and its nvidia_detail/ only: amd_detail/ is never read on this platform.
$(HIP_NV_STAMP): $(HIP_NV_HDRS) $(HIP_NV_OVERLAY)
	@rm -rf $(HIP_NV_DIR)/include $(HIP_NV_DIR)/compat
	@mkdir -p $(HIP_NV_DIR)/include/hip/nvidia_detail $(HIP_NV_DIR)/compat/hip/nvidia_detail
	cp $(HIP_INCLUDE)/hip/*.h $(HIP_NV_DIR)/include/hip/
	cp $(HIP_INCLUDE)/hip/nvidia_detail/*.h $(HIP_NV_DIR)/include/hip/nvidia_detail/
	cp $(HIP_NV_OVERLAY) $(HIP_NV_DIR)/compat/hip/nvidia_detail/
	@touch $@

# As the CUDA kernels: device-code warnings are errors; nvcc's output is shown when it fails.
$(BUILD)/kernels/hip-nv/%.fatbin: kernels/hip/%.hip $(HIP_NV_STAMP)
	@mkdir -p $(dir $@)
	@echo "NVCC (hip, nvidia platform) $<"
	@$(HIP_NV_NVCC) -x cu -fatbin $(HIP_NV_GENCODE) -O3 -lineinfo -Werror all-warnings $(HIP_NV_INC) \
	    $< -o $@ 2> $(@:.fatbin=.log) || { cat $(@:.fatbin=.log); rm -f $@; exit 1; }

# The symbol a manifest's entry names after the NVIDIA run-time compile (cubin), with no GPU.
BACKEND_TARGETS += $(BUILD)/backends/hip-entry-nvidia
$(BUILD)/backends/hip-entry-nvidia: harness/backends/hip/hip_entry_main.c $(HIP_ENTRY_SRC) $(HIP_NV_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) -D__HIP_PLATFORM_NVIDIA__ -Iharness/abi -Iharness/backends/common \
	    -DHIP_NV_CUDA_HOME='"$(CUDA_HOME)"' $(filter %.c,$^) -o $@ -ldl -lstdc++

# HIP_NV_CUDA_HOME: where the run-time compile finds nvcc when $$CUDA_HOME is unset.
$(BUILD)/backends/hb_hip.so: $(HIP_BE_SRC) harness/backends/hip/hip_nv_driver.c $(HIP_NV_STAMP) \
                             $(HIP_PLATFORM_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_CFLAGS) -D__HIP_PLATFORM_NVIDIA__ $(HIP_NV_INC) -isystem $(CUDA_HOME)/include \
	    -Iharness/backends/common -DHIP_NV_CUDA_HOME='"$(CUDA_HOME)"' $(filter %.c,$^) -o $@ \
	    -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl -lstdc++
