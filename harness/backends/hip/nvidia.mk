# SPDX-License-Identifier: MIT
# nvidia.mk (hip, for HIP_PLATFORM=nvidia): HIP on CUDA is header-only, so this copies HIP's
# headers and the CUDA 13 overlay (nv-include/) into $(BUILD)/hip-nv, where the run-time compile
# finds them too (the folder travels with build/ to a machine without HIP); builds each .hip with
# nvcc through them into $(BUILD)/kernels/hip-nv/<stem>.fatbin (SASS + PTX per CUDA_ARCHS, the
# CUDA backend's recipe: common/backends.mk); and links hb_hip.so against cudart only, so it
# loads where no NVIDIA driver is installed.

HIP_NV_DIR     := $(BUILD)/hip-nv
HIP_NV_STAMP   := $(HIP_NV_DIR)/headers.stamp
HIP_NV_OVERLAY := harness/backends/hip/nv-include/hip/nvidia_detail/nvidia_hip_runtime_api.h
HIP_NV_HDRS    := $(wildcard $(HIP_INCLUDE)/hip/*.h $(HIP_INCLUDE)/hip/nvidia_detail/*.h)
# The overlay with -I: it is ours and held to -Werror; HIP's and CUDA's headers are not.
HIP_NV_INC     := -I$(HIP_NV_DIR)/compat -isystem $(HIP_NV_DIR)/include
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

# As the CUDA kernels, through HIP's headers.
HIP_NV_SAID := NVCC (hip, nvidia platform)
$(BUILD)/kernels/hip-nv/%.fatbin: kernels/hip/%.hip $(HIP_NV_STAMP)
	$(call hb_fatbin,$(HIP_NV_SAID),-x cu $(HIP_NV_INC),$(@:.fatbin=.log))

# The symbol a manifest's entry names after the NVIDIA run-time compile (cubin), with no GPU.
BACKEND_TARGETS += $(BUILD)/backends/hip-entry-nvidia
HIP_ENTRY_NV_CFLAGS = $(HB_CFLAGS) -D__HIP_PLATFORM_NVIDIA__ -Iharness/abi -Iharness/backends/common \
                      -DHIP_NV_CUDA_HOME='"$(CUDA_HOME)"'
HIP_ENTRY_NV_OBJ := $(call hb_objects,hip-entry-nvidia,harness/backends/hip/hip_entry_main.c $(HIP_ENTRY_SRC),\
                      HIP_ENTRY_NV_CFLAGS)
$(HIP_ENTRY_NV_OBJ): harness/backends/hip/nvidia.mk $(HIP_NV_STAMP)
$(BUILD)/backends/hip-entry-nvidia: $(HIP_ENTRY_NV_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) $^ -o $@ -ldl -lstdc++

# HIP_NV_CUDA_HOME: where the run-time compile finds nvcc when $$CUDA_HOME is unset. HIP's
# headers are read from the copy (HIP_NV_STAMP), which each object waits for.
HIP_NV_CFLAGS = $(HB_SO_CFLAGS) -D__HIP_PLATFORM_NVIDIA__ $(HIP_NV_INC) -isystem $(CUDA_HOME)/include \
                -Iharness/backends/common -DHIP_NV_CUDA_HOME='"$(CUDA_HOME)"'
HIP_NV_OBJ := $(call hb_objects,hb_hip-nvidia,$(HIP_BE_SRC) harness/backends/hip/hip_nv_driver.c,HIP_NV_CFLAGS)
$(HIP_NV_OBJ): harness/backends/hip/nvidia.mk $(HIP_NV_STAMP)
$(BUILD)/backends/hb_hip.so: $(HIP_NV_OBJ) $(HIP_PLATFORM_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_LINK) $(filter %.o,$^) -o $@ -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl -lstdc++
