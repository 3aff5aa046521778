# SPDX-License-Identifier: MIT
# backend.mk (hip): with hipcc, AMD code objects of every kernels/hip/*.hip for HIP_ARCHS (a
# compile check: a port that does not build fails `make`; `make occupancy` reads them), and the
# runtime backend hb_hip.so for one HIP_PLATFORM: amd (ROCm's libamdhip64) or nvidia (HIP on
# CUDA: nvidia.mk). Left empty, HIP_PLATFORM is amd where /dev/kfd exists (an AMD GPU), else
# nvidia where nvcc and HIP's headers are present, else amd. Nothing here needs a GPU.

# ROCM_PATH (as ROCm's own tools read it) is searched first for hipcc, HIP's headers and
# libamdhip64; without it, PATH and Debian's packages, then /opt/rocm.
ROCM_PATH ?=
HIPCC     := $(or $(if $(ROCM_PATH),$(wildcard $(ROCM_PATH)/bin/hipcc)),$(shell command -v hipcc 2>/dev/null))
HIP_ARCHS ?= gfx90a gfx940 gfx1030
# The device-code warnings of a port are merge blockers, hence -Werror on the kernels too.
HIP_KFLAGS := -O3 -Wall -Wextra -Werror $(foreach a,$(HIP_ARCHS),--offload-arch=$(a))
HIP_SRC   := $(sort $(wildcard kernels/hip/*.hip))
HIP_HSACO := $(HIP_SRC:kernels/hip/%.hip=$(BUILD)/kernels/hip/%.hsaco)
# The folder holding hip/hip_runtime.h: Debian's /usr/include, ROCm's, or a `dpkg -x` of
# libamdhip64-dev (HIP_INCLUDE=<folder>/usr/include) where HIP is not installed.
HIP_INCLUDE ?= $(patsubst %/hip/hip_runtime_api.h,%,$(firstword $(wildcard $(if $(ROCM_PATH),\
                   $(ROCM_PATH)/include/hip/hip_runtime_api.h) \
                   /usr/include/hip/hip_runtime_api.h /opt/rocm/include/hip/hip_runtime_api.h)))
HIP_RT_HDR := $(wildcard $(HIP_INCLUDE)/hip/hip_runtime_api.h)
# -I only off the default path: -I/usr/include would reorder the system headers
HIP_RT_INC := $(filter-out /usr/include,$(HIP_INCLUDE))
HIP_RT_LIB := $(firstword $(wildcard $(if $(ROCM_PATH),$(ROCM_PATH)/lib/libamdhip64.so) \
                                     /usr/lib/x86_64-linux-gnu/libamdhip64.so /opt/rocm/lib/libamdhip64.so))
# CUDA_HOME, CUDA_ARCHS and nvcc, for HIP on NVIDIA: common/backends.mk.

HIP_AMD_SKIP := $(if $(HIP_RT_LIB),,libamdhip64-not-found)
HIP_AMD_SKIP := $(if $(HIP_RT_HDR),$(HIP_AMD_SKIP),hip_runtime_api.h-not-found)
HIP_AMD_SKIP := $(if $(HIPCC),$(HIP_AMD_SKIP),hipcc-not-found)
HIP_NV_SKIP  := $(if $(wildcard $(CUDA_HOME)/include/cuda.h),,no-cuda.h-in-$(CUDA_HOME)/include)
HIP_NV_SKIP  := $(if $(HIP_RT_HDR),$(HIP_NV_SKIP),no-hip/hip_runtime_api.h-in-HIP_INCLUDE)
HIP_NV_SKIP  := $(if $(HB_NVCC),$(HIP_NV_SKIP),no-nvcc-at-$(CUDA_HOME)/bin/nvcc)
# HIP_PLAT: the platform in use (HIP_PLATFORM itself cannot be reassigned when it comes from the
# command line); hcc and nvcc are the names HIP gave its platforms before ROCm 4.1.
HIP_PLAT := $(patsubst hcc,amd,$(patsubst nvcc,nvidia,$(strip $(HIP_PLATFORM))))
ifeq ($(HIP_PLAT),)
HIP_PLAT_AUTO := yes
HIP_PLAT := $(if $(and $(wildcard /dev/kfd),$(if $(HIP_AMD_SKIP),,ok)),amd,$(if $(HIP_NV_SKIP),amd,nvidia))
endif
ifeq ($(filter amd nvidia,$(HIP_PLAT)),)
$(error HIP_PLATFORM=$(HIP_PLATFORM): use amd or nvidia, or leave it empty to choose automatically)
endif
HIP_SKIP := $(if $(filter nvidia,$(HIP_PLAT)),$(HIP_NV_SKIP),$(HIP_AMD_SKIP))
# Chosen automatically and neither platform builds: say why for both.
HIP_SKIP := $(if $(and $(HIP_PLAT_AUTO),$(HIP_SKIP)),nvidia:$(HIP_NV_SKIP);amd:$(HIP_AMD_SKIP),$(HIP_SKIP))

# hipcc reads HIP_PLATFORM from the environment too: the AMD bundles must never follow
# HIP_PLATFORM=nvidia into nvcc.
HIP_AMD_ENV := HIP_PLATFORM=amd

# The run-time compile and the entry lookup, with no HIP call: in hb_hip.so and hip-entry-*.
HIP_ENTRY_SRC := harness/backends/hip/hip_rtc.c harness/backends/common/rtc.c harness/backends/common/code_object.c \
                 harness/backends/common/rtc_cache.c harness/backends/common/sha256.c

.PHONY: occupancy
ifeq ($(HIPCC),)
BACKEND_NOTES += hip:amd-code-objects-skipped(hipcc-not-found)
occupancy:
	@echo "occupancy: HIP toolchain missing (hipcc-not-found)"; exit 1
else
BACKEND_TARGETS += $(HIP_HSACO)
HIP_SP := $(subst ,, )
BACKEND_NOTES += hip:amd-code-objects($(subst $(HIP_SP),+,$(strip $(HIP_ARCHS))))
HIP_OCCUPANCY := yes

# Rebuild the bundles when the target list changes: the stamp is rewritten only then.
HIP_ARCH_STAMP := $(BUILD)/kernels/hip/archs.stamp
ifneq ($(strip $(file <$(HIP_ARCH_STAMP))),$(strip $(HIP_ARCHS)))
$(shell mkdir -p $(BUILD)/kernels/hip && printf '%s\n' '$(strip $(HIP_ARCHS))' > $(HIP_ARCH_STAMP))
endif

# --genco: device code only, one bundle holding a code object per target (hipModuleLoad
# picks the device's). Explicit targets keep hipcc from probing for a GPU. HIP 5.2's clang
# leaves an empty <stem>-XXXXXX directory in $$TMPDIR per compile: give it one to delete.
$(BUILD)/kernels/hip/%.hsaco: kernels/hip/%.hip $(HIP_ARCH_STAMP)
	@mkdir -p $@.tmp
	$(HIP_AMD_ENV) TMPDIR=$(abspath $@.tmp) $(HIPCC) --genco $(HIP_KFLAGS) $< -o $@; \
	    rc=$$?; rm -rf $@.tmp; exit $$rc

occupancy: $(HIP_HSACO)
	$(HIP_AMD_ENV) sh harness/backends/hip/occupancy.sh $(BUILD) $(HIP_ARCHS)

# The symbol a manifest's entry names after the AMD run-time compile, with no GPU (hip-entry:
# hip_entry_main.c), on whichever platform hb_hip.so is built for.
BACKEND_TARGETS += $(BUILD)/backends/hip-entry-amd
HIP_ENTRY_AMD_CFLAGS = $(HB_CFLAGS) -D__HIP_PLATFORM_AMD__ -Iharness/abi -Iharness/backends/common -DHIP_HIPCC='"$(HIPCC)"'
HIP_ENTRY_AMD_OBJ := $(call hb_objects,hip-entry-amd,harness/backends/hip/hip_entry_main.c $(HIP_ENTRY_SRC),\
                       HIP_ENTRY_AMD_CFLAGS)
$(HIP_ENTRY_AMD_OBJ): harness/backends/hip/backend.mk
$(BUILD)/backends/hip-entry-amd: $(HIP_ENTRY_AMD_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) $^ -o $@ -ldl -lstdc++
endif

# The runtime backend's sources on either platform (nvidia.mk adds its driver forwarder).
HIP_BE_SRC := harness/backends/hip/hip_backend.c harness/backends/hip/hip_error.c $(HIP_ENTRY_SRC)
HIP_PLATFORM_STAMP := $(BUILD)/backends/hip-platform.stamp

ifneq ($(HIP_SKIP),)
BACKEND_NOTES += hip:skipped($(if $(HIP_PLAT_AUTO),,platform=$(HIP_PLAT):)$(HIP_SKIP))
else
# hb_hip.so is rebuilt when the platform changes: the stamp, which names the platform of the
# hb_hip.so built last (tests read it), is rewritten only then, and never by a skipped build.
ifneq ($(strip $(file <$(HIP_PLATFORM_STAMP))),$(HIP_PLAT))
$(shell mkdir -p $(BUILD)/backends && printf '%s\n' '$(HIP_PLAT)' > $(HIP_PLATFORM_STAMP))
endif
ifeq ($(HIP_PLAT),amd)
BACKEND_TARGETS += $(BUILD)/backends/hb_hip.so
BACKEND_NOTES += hip:built(platform=amd)

# HIP_HIPCC: the hipcc that compiles users' own kernels at run time when $$HIPCC is unset.
HIP_AMD_CFLAGS = $(HB_SO_CFLAGS) -D__HIP_PLATFORM_AMD__ $(HIP_RT_INC:%=-I%) -Iharness/backends/common \
                 -DHIP_HIPCC='"$(HIPCC)"'
HIP_AMD_OBJ := $(call hb_objects,hb_hip-amd,$(HIP_BE_SRC),HIP_AMD_CFLAGS)
$(HIP_AMD_OBJ): harness/backends/hip/backend.mk
$(BUILD)/backends/hb_hip.so: $(HIP_AMD_OBJ) $(HIP_PLATFORM_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_LINK) $(filter %.o,$^) -o $@ $(HIP_RT_LIB) -ldl -lstdc++
else
include harness/backends/hip/nvidia.mk
endif
endif
