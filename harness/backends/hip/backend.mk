# backend.mk (hip): builds every kernels/hip/*.hip into a code-object bundle for the AMD
# targets in HIP_ARCHS (default gfx90a gfx940 gfx1030: CDNA2 and CDNA3 wave64, RDNA2 wave32)
# and the runtime backend build/backends/hb_hip.so; `make occupancy` prints each kernel's
# registers, LDS and occupancy per target. It needs no GPU; it does not build for NVIDIA.

HIPCC     := $(shell command -v hipcc 2>/dev/null)
HIP_ARCHS ?= gfx90a gfx940 gfx1030
# The device-code warnings of a port are merge blockers, hence -Werror on the kernels too.
HIP_KFLAGS := -O3 -Wall -Wextra -Werror $(foreach a,$(HIP_ARCHS),--offload-arch=$(a))
HIP_SRC   := $(sort $(wildcard kernels/hip/*.hip))
HIP_HSACO := $(HIP_SRC:kernels/hip/%.hip=$(BUILD)/kernels/hip/%.hsaco)
HIP_RT_HDR := $(firstword $(wildcard /usr/include/hip/hip_runtime_api.h \
                                     /opt/rocm/include/hip/hip_runtime_api.h))
# -I only off the default path: -I/usr/include would reorder the system headers
HIP_RT_INC := $(filter-out /usr/include,$(patsubst %/hip/hip_runtime_api.h,%,$(HIP_RT_HDR)))
HIP_RT_LIB := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libamdhip64.so \
                                     /opt/rocm/lib/libamdhip64.so))

HIP_SKIP := $(if $(HIP_RT_LIB),,libamdhip64-not-found)
HIP_SKIP := $(if $(HIP_RT_HDR),$(HIP_SKIP),hip_runtime_api.h-not-found)
HIP_SKIP := $(if $(HIPCC),$(HIP_SKIP),hipcc-not-found)

.PHONY: occupancy
ifneq ($(HIP_SKIP),)
BACKEND_NOTES += hip:skipped($(HIP_SKIP))
occupancy:
	@echo "occupancy: HIP toolchain missing ($(HIP_SKIP))"; exit 1
else
BACKEND_TARGETS += $(HIP_HSACO) $(BUILD)/backends/hb_hip.so
BACKEND_NOTES += hip:built

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
	TMPDIR=$(abspath $@.tmp) $(HIPCC) --genco $(HIP_KFLAGS) $< -o $@; \
	    rc=$$?; rm -rf $@.tmp; exit $$rc

# HIP_HIPCC: the hipcc that compiles users' own kernels at run time when $$HIPCC is unset.
$(BUILD)/backends/hb_hip.so: harness/backends/hip/hip_backend.c harness/backends/common/rtc.c \
                             harness/backends/common/rtc.h harness/backend.h
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_CFLAGS) -D__HIP_PLATFORM_AMD__ $(HIP_RT_INC:%=-I%) -Iharness/backends/common \
	    -DHIP_HIPCC='"$(HIPCC)"' $(filter %.c,$^) -o $@ $(HIP_RT_LIB) -ldl

occupancy: $(HIP_HSACO)
	sh harness/backends/hip/occupancy.sh $(BUILD) $(HIP_ARCHS)
endif
