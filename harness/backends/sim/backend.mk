# SPDX-License-Identifier: MIT
# backend.mk (sim): the CPU SIMT emulator. Builds the runtime (C) and compiles every CUDA and
# HIP kernel source for the host with g++ and the device prelude, CUDA sources twice: as
# written, and for the wave64 port check (width 64, sim_prelude.h). The flags are set here;
# the steps are C code the runtime's own builds run too (sim-kernel: sim_kernel_main.c). A
# kernel that does not compile leaves a one-line text marker instead of its .so, which load()
# reports as SKIP: one unportable kernel never fails the whole build.
SIM_DIR  := harness/backends/sim
SIM_CXX  := $(shell command -v g++ 2>/dev/null)
# The steps of a kernel's build (sim_build.h), in the runtime and in sim-kernel alike.
SIM_STEPS_SRC := $(addprefix $(SIM_DIR)/,sim_steps.c sim_link.c sim_elf.c sim_rewrite.c sim_unroll.c) \
                 harness/backends/common/rtc.c harness/backends/common/rtc_cache.c harness/backends/common/sha256.c
SIM_SRC  := $(addprefix $(SIM_DIR)/,sim_backend.c sim_launch.c sim_sched.c sim_shuffle.c sim_switch.c sim_warp.c sim_call.c \
              sim_check.c sim_overflow.c sim_load.c sim_build.c sim_why.c) $(SIM_STEPS_SRC)
# The device side and the host API's stubs, compiled into every kernel: what make install
# copies for users' kernels, and what a kernel whose headers are not recorded yet waits on.
SIM_PRELUDE := $(addprefix $(SIM_DIR)/,sim_abi.h sim_prelude.h sim_hooks.h sim_atomic.h \
                 sim_math.h sim_vec.h sim_half.h sim_cg.h sim_host.h sim_host_api.h sim_host_cuda.h \
                 sim_host_hip.h sim_wrap.cc) \
               $(wildcard $(SIM_DIR)/include/*.h $(SIM_DIR)/include/*/*.h)
# Builds one shipped kernel (sim_kernel_main.c): make's only recipe for them.
SIM_KERNEL := $(BUILD)/backends/sim-kernel
# Pragmas for other compilers are not g++'s business (CUDA's unroll is rewritten). TSan's
# instrumentation without its runtime lets the prelude see every access (sim_hooks.h);
# -z defs turns any hook it lacks into a build failure (a SKIP), not a dlopen error. Shipped
# kernels add -Werror; users' kernels are built without it (their warnings stay in the log).
# fmaf and __fmaf_rn are a libm call on baseline x86-64, and each call spills every register
# a tiled kernel keeps its accumulators in: on a host whose CPU fuses, -mfma makes them one
# instruction (sgemm_optimized 3x faster). -ffp-contract=off keeps a*b+c two roundings with
# or without it, as the emulator always computed them.
SIM_FMA := $(if $(and $(shell grep -qw fma /proc/cpuinfo 2>/dev/null && echo y),\
                      $(shell $(SIM_CXX) -mfma -x c++ -E /dev/null >/dev/null 2>&1 && echo y)),-mfma)
# A kernel whose code makes no volatile access also gets an unchecked copy (.unchecked.so,
# the same preprocessed source without the instrumentation, five times faster on a tiled
# SGEMM) for the repeats of a case whose first launch, checked, found nothing (sim_launch.c).
# Its innermost accumulator loops keep their unroll pragmas as written (sim_rewrite's rolled
# form, sim_unroll.h), which g++ ignores: unrolled first, a thread's 8 x 8 FMA tile leaves the
# vectorizer no loop and ran as 64 scalar FMAs with spills, rolled it is 8 packed ones (the
# HIP sgemm_optimized's repeats 2x faster). Unchecked, an array left in memory costs no check.
# The two copies, and any two kernels, share no state: a template's, an inline function's or
# a static member's __shared__ array would be an STB_GNU_UNIQUE symbol, which the dynamic
# linker resolves process-wide to the first object loaded that defines it (the checked copy's
# shared memory, unpoisoned between the repeat's blocks and outside the range it is allowed).
# -fno-gnu-unique makes those weak, and -Bsymbolic (SIM_KLINK) binds every object's references
# to its own definitions first. -fstack-clash-protection: a frame larger than a page (a big
# local array) probes its way down, so it stops at the lane's guard page (sim_overflow.c)
# instead of jumping it into the next lane's stack.
SIM_KFLAGS_UNCHECKED := -x c++ -std=c++17 -O2 -g -fPIC -fno-gnu-unique -fstack-clash-protection -fno-exceptions \
              -fno-rtti $(SIM_FMA) -ffp-contract=off -Wall -Wextra -Wno-unknown-pragmas
SIM_KFLAGS := $(SIM_KFLAGS_UNCHECKED) -fsanitize=thread --param=tsan-distinguish-volatile=1 \
              --param=tsan-instrument-func-entry-exit=0
SIM_KWERROR := -Werror
# The shipped kernels' copies are clang's where it is installed (hipcc brings it): the same
# hooks, inlined into the checked copy (sim_clang.c), so a tiled SGEMM's checked launch
# no longer spills around a call per access (the HIP sgemm_optimized's 5x faster, sgemm_tiled's
# 1.5x), and the unchecked copy from the same source (its repeats up to 2x faster than g++'s).
# g++'s build comes first: it holds the shipped kernels to -Werror, decides whether there is an
# unchecked copy (volatile accesses) and is kept, both copies, where clang's fails. Users' kernels
# are built by g++ at run time (sim_build.c). SIM_CLANG= turns clang off.
ifeq ($(origin SIM_CLANG),undefined)
SIM_CLANG := $(shell ls -d /usr/lib/llvm-*/bin/clang++ 2>/dev/null | sort -V | tail -n 1)
endif
# The pass that merges a group's checks into one (sim_merge_checks.cc), a plugin of that clang,
# built against the headers of the LLVM whose bin folder holds it (llvm-15-dev for hipcc's
# clang-15). Without them the checked copies check each access, as before.
SIM_LLVM_CONFIG := $(if $(SIM_CLANG),$(wildcard $(dir $(SIM_CLANG))llvm-config))
SIM_LLVM_INC := $(strip $(if $(SIM_LLVM_CONFIG),$(if $(filter $(abspath $(dir $(SIM_CLANG))),$(shell $(SIM_LLVM_CONFIG) \
                  --bindir)),$(shell $(SIM_LLVM_CONFIG) --includedir))))
SIM_MERGE := $(if $(wildcard $(SIM_LLVM_INC)/llvm/Passes/PassPlugin.h),$(BUILD)/backends/sim-merge-checks.so)
SIM_CLANG_FLAGS := -std=c++17 -O2 -g -fPIC -fstack-clash-protection -fno-exceptions -fno-rtti $(SIM_FMA) \
                   -ffp-contract=off -w
SIM_CLANG_TSAN := -fsanitize=thread -mllvm -tsan-instrument-func-entry-exit=0 -mllvm -tsan-distinguish-volatile=1
SIM_KLINK := -shared -Wl,-z,defs -Wl,-Bsymbolic
# The compilers, flags and the emulator's headers, for the builds at run time (sim_build.c) and
# make's (sim-kernel) alike; a build also includes the runtime header implicitly, as nvcc and
# hipcc do. Run-time builds find the headers where hb_sim.so runs from (installed beside it),
# else in this tree (sim_steps.c).
SIM_RTC_DEFS := -DSIM_KERNEL_CXX='"$(SIM_CXX)"' -DSIM_KERNEL_FLAGS='"$(strip $(SIM_KFLAGS))"' \
                -DSIM_KERNEL_UNCHECKED_FLAGS='"$(strip $(SIM_KFLAGS_UNCHECKED))"' \
                -DSIM_KERNEL_WERROR='"$(SIM_KWERROR)"' -DSIM_KERNEL_LINK='"$(strip $(SIM_KLINK))"' \
                -DSIM_PRELUDE_DIR='"$(abspath $(SIM_DIR))"' -Iharness/backends/common \
                -DSIM_KERNEL_CLANG='"$(SIM_CLANG)"' -DSIM_KERNEL_CLANG_FLAGS='"$(strip $(SIM_CLANG_FLAGS))"' \
                -DSIM_KERNEL_CLANG_TSAN='"$(SIM_CLANG_TSAN)"'
SIM_CU   := $(wildcard kernels/cuda/*.cu)
SIM_KSO  := $(patsubst kernels/cuda/%.cu,$(BUILD)/kernels/sim/cuda/%.so,$(SIM_CU)) \
            $(patsubst kernels/cuda/%.cu,$(BUILD)/kernels/sim/cuda-wave64/%.so,$(SIM_CU)) \
            $(patsubst kernels/hip/%.hip,$(BUILD)/kernels/sim/hip/%.so,$(wildcard kernels/hip/*.hip))
# Where sim-kernel records the headers a kernel's build read, as make rules.
sim_kdeps = $(patsubst $(BUILD)/kernels/sim/%.so,$(BUILD)/obj/kernels/sim/%.d,$(1))

# The runtime, hb_sim.so: the default build, ASan's and the portable switch's differ only in
# flags, each with its own objects. Any object is rebuilt when this file (the flags) changes.
SIM_SO_CFLAGS = $(HB_SO_CFLAGS) -I$(SIM_DIR) $(SIM_RTC_DEFS)
SIM_SAN_CFLAGS = $(SIM_SO_CFLAGS) $(SAN_FLAGS)
SIM_UCONTEXT_CFLAGS = $(SIM_SO_CFLAGS) -DSIM_UCONTEXT
SIM_SO_OBJ := $(call hb_objects,hb_sim,$(SIM_SRC),SIM_SO_CFLAGS)
SIM_SAN_OBJ := $(call hb_objects,hb_sim-san,$(SIM_SRC),SIM_SAN_CFLAGS)
SIM_UCONTEXT_OBJ := $(call hb_objects,hb_sim-ucontext,$(SIM_SRC),SIM_UCONTEXT_CFLAGS)
# sim-kernel: the steps, clang's copies (sim_clang.c) and the merging pass's path.
SIM_KERNEL_CFLAGS = $(HB_CFLAGS) -Iharness/abi -I$(SIM_DIR) $(SIM_RTC_DEFS) -DSIM_MERGE_PLUGIN='"$(abspath $(SIM_MERGE))"'
SIM_KERNEL_SRC := $(SIM_DIR)/sim_kernel_main.c $(SIM_DIR)/sim_clang.c $(SIM_STEPS_SRC)
SIM_KERNEL_OBJ := $(call hb_objects,sim-kernel,$(SIM_KERNEL_SRC),SIM_KERNEL_CFLAGS)
$(SIM_SO_OBJ) $(SIM_SAN_OBJ) $(SIM_UCONTEXT_OBJ) $(SIM_KERNEL_OBJ): $(SIM_DIR)/backend.mk

ifeq ($(SIM_CXX),)
BACKEND_NOTES += sim:skipped(g++-not-found)
else
BACKEND_TARGETS += $(BUILD)/backends/hb_sim.so $(SIM_KERNEL) $(SIM_MERGE) $(SIM_KSO)
BACKEND_NOTES += sim:built

# LLVM is built without RTTI; its symbols come from the clang that loads the plugin.
$(BUILD)/backends/sim-merge-checks.so: $(SIM_DIR)/sim_merge_checks.cc $(SIM_DIR)/backend.mk
	@mkdir -p $(dir $@)
	$(SIM_CLANG) -std=c++17 -O2 -fPIC -shared -fno-rtti -fno-exceptions $(HB_WARN) -I$(SIM_DIR) -isystem $(SIM_LLVM_INC) \
	    -MMD -MP -MF $(@:.so=.d) $< -o $@
-include $(BUILD)/backends/sim-merge-checks.d

$(BUILD)/backends/hb_sim.so: $(SIM_SO_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_LINK) $^ -o $@ -ldl -lpthread

$(SIM_KERNEL): $(SIM_KERNEL_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) $^ -o $@ $(HB_LDFLAGS) -ldl

# $(1): the flavour (product folder and sim-kernel's first word), $(2) source folder, $(3)
# extension. sim-kernel says what it built; a kernel that does not build becomes
# "sim-unsupported: <first error line>", its full log beside it, so the next make retries only
# when the source, a header it read or the build changes.
define SIM_KERNEL_RULE
$(BUILD)/kernels/sim/$(1)/%.so: kernels/$(2)/%.$(3) $(SIM_KERNEL) $(SIM_MERGE) $(SIM_DIR)/backend.mk
	@mkdir -p $$(dir $$@) $$(dir $$(call sim_kdeps,$$@))
	@$(SIM_KERNEL) $(1) $$< $$@ $$(call sim_kdeps,$$@)
endef
$(eval $(call SIM_KERNEL_RULE,cuda,cuda,cu))
$(eval $(call SIM_KERNEL_RULE,cuda-wave64,cuda,cu))
$(eval $(call SIM_KERNEL_RULE,hip,hip,hip))
-include $(call sim_kdeps,$(SIM_KSO))
# One whose headers are not recorded (never built, or its source did not preprocess) waits on
# the whole prelude.
SIM_KSO_UNRECORDED := $(foreach k,$(SIM_KSO),$(if $(wildcard $(call sim_kdeps,$(k))),,$(k)))
$(if $(SIM_KSO_UNRECORDED),$(eval $(SIM_KSO_UNRECORDED): $(SIM_PRELUDE)))
endif

# The runtime under ASan/UBSan, lane stack switches annotated for ASan (sim_sched.c), for
# sanitizer runs of an instrumented driver: make sim-san. Not built by default.
.PHONY: sim-san
sim-san: $(BUILD)/san/backends/hb_sim.so
$(BUILD)/san/backends/hb_sim.so: $(SIM_SAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_LINK) $(SAN_FLAGS) $^ -o $@ -ldl -lpthread

# The runtime with the portable lane switch (ucontext), as hosts other than x86-64 build it,
# so that this one's tests run it too (tests/integration/fidelity.sh): make sim-ucontext.
.PHONY: sim-ucontext
sim-ucontext: $(BUILD)/ucontext/backends/hb_sim.so
$(BUILD)/ucontext/backends/hb_sim.so: $(SIM_UCONTEXT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_LINK) $^ -o $@ -ldl -lpthread

# make install: the emulator's headers beside the installed backends (PREFIX/lib/gpu-harness/
# sim), where the installed hb_sim.so finds them, so users' kernels build with no source tree.
BACKEND_INSTALL += sim-install
.PHONY: sim-install
sim-install: install-core
	install -d $(HB_LIBDIR)/sim
	cd $(SIM_DIR) && $(call HB_TAR_COPY,$(abspath $(HB_LIBDIR))/sim,$(SIM_PRELUDE:$(SIM_DIR)/%=%))
