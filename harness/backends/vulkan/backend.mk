# SPDX-License-Identifier: MIT
# harness/backends/vulkan/backend.mk: builds the Vulkan backend (build/backends/hb_vulkan.so)
# and every kernels/vulkan/*.comp as build/kernels/glsl/<stem>.spv, when glslc and the Vulkan
# headers are present; otherwise it only records why it was skipped. Included by GNUmakefile.

VK_GLSLC   := $(shell command -v glslc 2>/dev/null)
VK_CFLAGS  := $(shell pkg-config --cflags vulkan 2>/dev/null)
VK_LIBS    := $(or $(shell pkg-config --libs vulkan 2>/dev/null),-lvulkan)
VK_HEADER  := $(or $(shell pkg-config --exists vulkan 2>/dev/null && echo yes),\
                   $(wildcard /usr/include/vulkan/vulkan.h))
VK_SRC     := $(wildcard harness/backends/vulkan/vk_*.c) harness/backends/common/rtc.c \
              harness/backends/common/rtc_cache.c harness/backends/common/sha256.c
VK_SPV     := $(patsubst kernels/vulkan/%.comp,$(BUILD)/kernels/glsl/%.spv,\
                $(wildcard kernels/vulkan/*.comp))
# vulkan1.2 gives SPIR-V 1.5, which has the subgroup operations the reductions use; the
# run-time compile in vk_kernel.c uses the same target.
VK_GLSLC_FLAGS := --target-env=vulkan1.2 -O -Werror

ifeq ($(VK_GLSLC),)
BACKEND_NOTES += vulkan:skipped(glslc-not-found)
else ifeq ($(strip $(VK_HEADER)),)
BACKEND_NOTES += vulkan:skipped(vulkan-headers-not-found)
else
BACKEND_TARGETS += $(BUILD)/backends/hb_vulkan.so $(VK_SPV)
BACKEND_NOTES += vulkan:built

VK_SO_CFLAGS = $(HB_SO_CFLAGS) $(VK_CFLAGS) -Iharness/backends/vulkan -Iharness/backends/common
VK_OBJ     := $(call hb_objects,hb_vulkan,$(VK_SRC),VK_SO_CFLAGS)
$(VK_OBJ): harness/backends/vulkan/backend.mk
$(BUILD)/backends/hb_vulkan.so: $(VK_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_LINK) $^ -o $@ $(VK_LIBS)

$(BUILD)/kernels/glsl/%.spv: kernels/vulkan/%.comp
	@mkdir -p $(dir $@)
	$(VK_GLSLC) $(VK_GLSLC_FLAGS) $< -o $@
endif
