# SPDX-License-Identifier: MIT
# backend.mk (sim): the CPU SIMT emulator. Builds the runtime (C) and compiles every CUDA and
# HIP kernel source for the host with g++ and the device prelude, CUDA sources twice: as
# written, and for the wave64 port check (width 64, sim_prelude.h). A kernel that does not
# compile leaves a one-line text marker instead of its .so, which load() reports as SKIP:
# one unportable kernel never fails the whole build.
SIM_DIR  := harness/backends/sim
SIM_CXX  := $(shell command -v g++ 2>/dev/null)
SIM_SRC  := $(addprefix $(SIM_DIR)/,sim_backend.c sim_launch.c sim_sched.c sim_shuffle.c sim_switch.c sim_warp.c sim_call.c \
              sim_check.c sim_overflow.c sim_load.c sim_build.c sim_link.c sim_elf.c sim_why.c sim_unroll.c sim_rewrite.c) \
              harness/backends/common/rtc.c harness/backends/common/rtc_cache.c harness/backends/common/sha256.c
# The device side and the host API's stubs, compiled into every kernel, and the runtime's own
# headers.
SIM_PRELUDE := $(addprefix $(SIM_DIR)/,sim_abi.h sim_prelude.h sim_hooks.h sim_atomic.h \
                 sim_math.h sim_vec.h sim_half.h sim_cg.h sim_host.h sim_host_api.h sim_host_cuda.h \
                 sim_host_hip.h sim_wrap.cc) \
               $(wildcard $(SIM_DIR)/include/*.h $(SIM_DIR)/include/*/*.h)
SIM_HDRS := $(SIM_PRELUDE) $(addprefix $(SIM_DIR)/,sim_sched.h sim_lanes.h sim_switch.h sim_internal.h sim_build.h \
              sim_unroll.h sim_rewrite.h)
# The runtime, hb_sim.so: one recipe for its builds (default, ASan's, the portable switch's),
# which differ only in SIM_SO_FLAGS.
SIM_SO_DEPS := $(SIM_SRC) $(SIM_HDRS) harness/abi/backend.h harness/backends/common/rtc.h \
               harness/backends/common/sha256.h harness/backends/common/hbc.h $(SIM_DIR)/backend.mk
SIM_SO_BUILD = @mkdir -p $(dir $@) && $(CC) $(HB_SO_CFLAGS) $(SIM_SO_FLAGS) -I$(SIM_DIR) $(SIM_RTC_DEFS) $(SIM_SRC) \
               -o $@ -ldl -lpthread
# Rewrites a preprocessed source for g++ (launches, main, unroll pragmas), as run-time builds do.
SIM_REWRITE := $(BUILD)/backends/sim-rewrite
# Says whether a kernel object makes volatile accesses (no unchecked copy then).
SIM_VOLATILE := $(BUILD)/backends/sim-volatile
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
# Its innermost accumulator loops keep their unroll pragmas as written (sim-rewrite --rolled,
# sim_unroll.h), which g++ ignores: unrolled first, a thread's 8 x 8 FMA tile leaves the
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
# The emulator's headers: the source tree's for make's builds; run-time builds find them where
# hb_sim.so runs from (installed beside it, else this tree: sim_build.c).
SIM_KINC := -I$(abspath $(SIM_DIR)/include) -I$(abspath $(SIM_DIR))
SIM_KFLAGS := $(SIM_KFLAGS_UNCHECKED) -fsanitize=thread --param=tsan-distinguish-volatile=1 \
              --param=tsan-instrument-func-entry-exit=0
SIM_KWERROR := -Werror
# The shipped kernels' copies are clang's where it is installed (hipcc brings it): the same
# hooks, inlined into the checked copy (sim_clang_build.sh), so a tiled SGEMM's checked launch
# no longer spills around a call per access (the HIP sgemm_optimized's 5x faster, sgemm_tiled's
# 1.5x), and the unchecked copy from the same source (its repeats up to 2x faster than g++'s).
# g++'s build comes first: it holds the shipped kernels to -Werror, decides whether there is an
# unchecked copy (SIM_VOLATILE) and is kept, both copies, where clang's fails. Users' kernels
# are built by g++ at run time (sim_build.c). SIM_CLANG= turns clang off.
ifeq ($(origin SIM_CLANG),undefined)
SIM_CLANG := $(shell ls -d /usr/lib/llvm-*/bin/clang++ 2>/dev/null | sort -V | tail -n 1)
endif
SIM_CLANG_BUILD := $(SIM_DIR)/sim_clang_build.sh
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
# The same compiler and flags for kernels compiled at run time (sim_build.c), which also
# includes the runtime header implicitly, as nvcc and hipcc do.
SIM_RTC_DEFS := -DSIM_KERNEL_CXX='"$(SIM_CXX)"' -DSIM_KERNEL_FLAGS='"$(strip $(SIM_KFLAGS))"' \
                -DSIM_KERNEL_UNCHECKED_FLAGS='"$(strip $(SIM_KFLAGS_UNCHECKED))"' \
                -DSIM_KERNEL_WERROR='"$(SIM_KWERROR)"' -DSIM_KERNEL_LINK='"$(strip $(SIM_KLINK))"' \
                -DSIM_PRELUDE_DIR='"$(abspath $(SIM_DIR))"' -Iharness/backends/common \
                -DSIM_KERNEL_CLANG_TOOL='"$(SIM_CLANG) $(strip $(SIM_CLANG_FLAGS) $(SIM_CLANG_TSAN))"'
SIM_CU   := $(wildcard kernels/cuda/*.cu)
SIM_KSO  := $(patsubst kernels/cuda/%.cu,$(BUILD)/kernels/sim/cuda/%.so,$(SIM_CU)) \
            $(patsubst kernels/cuda/%.cu,$(BUILD)/kernels/sim/cuda-wave64/%.so,$(SIM_CU)) \
            $(patsubst kernels/hip/%.hip,$(BUILD)/kernels/sim/hip/%.so,$(wildcard kernels/hip/*.hip))

ifeq ($(SIM_CXX),)
BACKEND_NOTES += sim:skipped(g++-not-found)
else
BACKEND_TARGETS += $(BUILD)/backends/hb_sim.so $(SIM_REWRITE) $(SIM_VOLATILE) $(SIM_MERGE) $(SIM_KSO)
BACKEND_NOTES += sim:built

# LLVM is built without RTTI; its symbols come from the clang that loads the plugin.
$(BUILD)/backends/sim-merge-checks.so: $(SIM_DIR)/sim_merge_checks.cc $(SIM_DIR)/sim_abi.h $(SIM_DIR)/backend.mk
	@mkdir -p $(dir $@)
	$(SIM_CLANG) -std=c++17 -O2 -fPIC -shared -fno-rtti -fno-exceptions $(HB_WARN) -I$(SIM_DIR) -isystem $(SIM_LLVM_INC) \
	    $< -o $@

$(BUILD)/backends/hb_sim.so: $(SIM_SO_DEPS)
	$(SIM_SO_BUILD)

$(SIM_REWRITE): $(SIM_DIR)/sim_rewrite.c $(SIM_DIR)/sim_unroll.c $(SIM_DIR)/sim_rewrite_main.c \
                $(SIM_DIR)/sim_rewrite.h $(SIM_DIR)/sim_unroll.h
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) -Iharness/abi $(filter %.c,$^) -o $@

$(SIM_VOLATILE): $(SIM_DIR)/sim_elf.c $(SIM_DIR)/sim_volatile_main.c $(SIM_HDRS) harness/abi/backend.h
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) -Iharness/abi -I$(SIM_DIR) $(filter %.c,$^) -o $@

# $(1) product folder, $(2) source folder, $(3) extension, $(4) runtime header, $(5) flags.
# Preprocessed, rewritten for g++, compiled: the steps of a run-time build (sim_build.c); then,
# where clang is, both copies again by clang (above), else g++'s unchecked copy.
# On failure the target becomes "sim-unsupported: <first error line>" and the full log
# stays next to it, so the next make retries only when the source or prelude changes.
define SIM_KERNEL_RULE
$(BUILD)/kernels/sim/$(1)/%.so: kernels/$(2)/%.$(3) $(SIM_PRELUDE) $(SIM_REWRITE) $(SIM_VOLATILE) $(SIM_CLANG_BUILD) \
                                 $(SIM_MERGE) $(SIM_DIR)/backend.mk
	@mkdir -p $$(dir $$@)
	@rm -f $$(basename $$@).unchecked.so
	@if $(SIM_CXX) $(SIM_KFLAGS) $(SIM_KINC) $(SIM_KWERROR) -include $(abspath $(SIM_DIR)/include/$(4)) $(5) \
	        $$< -E -o $$@.ii 2> $$@.log && $(SIM_REWRITE) < $$@.ii > $$@.unrolled.ii && \
	    $(SIM_CXX) $(SIM_KFLAGS) $(SIM_KWERROR) -x c++-cpp-output $$@.unrolled.ii -c -o $$@.o 2>> $$@.log && \
	    $(SIM_CXX) $(SIM_KLINK) $$@.o -o $$@.tmp 2>> $$@.log; then \
	    $(SIM_VOLATILE) $$@.o 2>> $$@.log; u=$$$$?; \
	    if [ -n "$(SIM_CLANG)" ] && SIM_CLANG_UNCHECKED=$$$$u SIM_CLANG_TSAN='$(SIM_CLANG_TSAN)' SIM_MERGE_PLUGIN=$(abspath $(SIM_MERGE)) \
	            $(SIM_CLANG_BUILD) $(SIM_CLANG) $(SIM_REWRITE) $$@.clang $$< $(SIM_CLANG_FLAGS) $(SIM_KINC) \
	            -include $(abspath $(SIM_DIR)/include/$(4)) $(5) 2>> $$@.log && \
	        $(SIM_CXX) $(SIM_KLINK) $$@.clang.o -o $$@.clang.so 2>> $$@.log && \
	        { [ $$$$u != 1 ] || $(SIM_CXX) $(SIM_KLINK) $$@.clang.unchecked.o -o $$@.clang.u.so 2>> $$@.log; }; then \
	        mv $$@.clang.so $$@.tmp; [ $$$$u != 1 ] || mv $$@.clang.u.so $$(basename $$@).unchecked.so; \
	        echo "sim: built $$@ by clang, its access hooks inlined"; \
	    elif [ $$$$u = 1 ] && $(SIM_REWRITE) --rolled < $$@.ii > $$@.rolled.ii && \
	        $(SIM_CXX) $(SIM_KFLAGS_UNCHECKED) $(SIM_KWERROR) -x c++-cpp-output $$@.rolled.ii -c \
	            -o $$@.unchecked.o 2>> $$@.log && \
	        $(SIM_CXX) $(SIM_KLINK) $$@.unchecked.o -o $$(basename $$@).unchecked.so 2>> $$@.log; then \
	        echo "sim: built $$(basename $$@).unchecked.so"; fi; \
	    rm -f $$@.clang.*; \
	    rm -f $$@.o $$@.unchecked.o $$@.ii $$@.unrolled.ii $$@.rolled.ii; mv $$@.tmp $$@; echo "sim: built $$@"; \
	else \
	    rm -f $$@.tmp $$@.o $$@.ii $$@.unrolled.ii $$@.rolled.ii; \
	    { printf 'sim-unsupported: '; grep -m1 -E 'error|undefined' $$@.log || head -n1 $$@.log; } > $$@; \
	    echo "sim: $$< does not build for the emulator: $$$$(tail -c +18 $$@) (log: $$@.log)"; \
	fi
endef
$(eval $(call SIM_KERNEL_RULE,cuda,cuda,cu,cuda_runtime.h,))
$(eval $(call SIM_KERNEL_RULE,cuda-wave64,cuda,cu,cuda_runtime.h,-DSIM_PORT_WAVE64))
$(eval $(call SIM_KERNEL_RULE,hip,hip,hip,hip/hip_runtime.h,))
endif

# The runtime under ASan/UBSan, lane stack switches annotated for ASan (sim_sched.c), for
# sanitizer runs of an instrumented driver: make sim-san. Not built by default.
.PHONY: sim-san
sim-san: $(BUILD)/san/backends/hb_sim.so
$(BUILD)/san/backends/hb_sim.so: SIM_SO_FLAGS = $(SAN_FLAGS)
$(BUILD)/san/backends/hb_sim.so: $(SIM_SO_DEPS)
	$(SIM_SO_BUILD)

# The runtime with the portable lane switch (ucontext), as hosts other than x86-64 build it,
# so that this one's tests run it too (tests/integration/fidelity.sh): make sim-ucontext.
.PHONY: sim-ucontext
sim-ucontext: $(BUILD)/ucontext/backends/hb_sim.so
$(BUILD)/ucontext/backends/hb_sim.so: SIM_SO_FLAGS = -DSIM_UCONTEXT
$(BUILD)/ucontext/backends/hb_sim.so: $(SIM_SO_DEPS)
	$(SIM_SO_BUILD)

# make install: the emulator's headers beside the installed backends (PREFIX/lib/gpu-harness/
# sim), where the installed hb_sim.so finds them, so users' kernels build with no source tree.
BACKEND_INSTALL += sim-install
.PHONY: sim-install
sim-install: install-core
	install -d $(HB_LIBDIR)/sim
	cd $(SIM_DIR) && $(call HB_TAR_COPY,$(abspath $(HB_LIBDIR))/sim,$(SIM_PRELUDE:$(SIM_DIR)/%=%))
