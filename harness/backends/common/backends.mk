# SPDX-License-Identifier: MIT
# backends.mk: what the backends' make files share, included by the GNUmakefile before them:
# the objects of a backend product's C sources (its own flags, header dependencies generated
# by the compiler), and NVIDIA's toolkit (CUDA_HOME, CUDA_ARCHS) with the one fatbin recipe the
# CUDA backend (cuda/backend.mk) and HIP on NVIDIA (hip/nvidia.mk) build kernels with. It adds
# no target of its own and says nothing of whether a backend is built.

# $(call hb_objects,NAME,SOURCES,FLAGS): the objects of SOURCES (.c files) for the product NAME,
# in $(BUILD)/obj/backends/NAME/, compiled with $(FLAGS) (FLAGS names a variable: flags hold
# commas), each with the headers it read as make rules beside it (-MMD, read back below).
# Assign the list with := so that its rule is made once.
define HB_OBJECT_RULE
$$(BUILD)/obj/backends/$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$($(2)) -MMD -MP -c $$< -o $$@
endef
hb_objects = $(eval $(call HB_OBJECT_RULE,$(strip $(1)),$(strip $(3))))$(patsubst %.c,$(BUILD)/obj/backends/$(strip $(1))/%.o,$(2))
-include $(wildcard $(BUILD)/obj/backends/*/harness/backends/*/*.d)

# NVIDIA's toolkit, for nvcc's builds and for the backends linked against cudart.
CUDA_HOME  ?= /usr/local/cuda
CUDA_ARCHS ?= 90
HB_NVCC    := $(shell command -v $(CUDA_HOME)/bin/nvcc 2>/dev/null)
# SASS and PTX for each of CUDA_ARCHS. Quoted: the brackets are a shell glob otherwise.
HB_GENCODE := $(foreach a,$(CUDA_ARCHS),'-gencode=arch=compute_$(a),code=[sm_$(a),compute_$(a)]')
# $(call hb_fatbin,SAID,FLAGS,LOG): the recipe of one fatbin, $@ from $< with FLAGS added, said
# as "SAID $<" (SAID in a variable where it holds a comma). Device-code warnings are errors, as
# for the C code; nvcc's output stays in LOG (a ptxas -v report, say) and is shown when it fails.
define hb_fatbin
@mkdir -p $(dir $@)
@echo "$(1) $<"
@$(HB_NVCC) -fatbin $(HB_GENCODE) -O3 -lineinfo -Werror all-warnings $(2) $< -o $@ 2> $(3) || \
    { cat $(3); rm -f $@; exit 1; }
endef
