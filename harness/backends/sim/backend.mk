# backend.mk (sim): the CPU SIMT emulator. Builds the runtime (C) and compiles every CUDA and
# HIP kernel source for the host with g++ and the device prelude. A kernel that does not
# compile leaves a one-line text marker instead of its .so, which load() reports as SKIP:
# one unportable kernel never fails the whole build.
SIM_DIR  := harness/backends/sim
SIM_CXX  := $(shell command -v g++ 2>/dev/null)
SIM_SRC  := $(SIM_DIR)/sim_backend.c $(SIM_DIR)/sim_sched.c harness/backends/common/rtc.c
SIM_HDRS := $(SIM_DIR)/sim_abi.h $(SIM_DIR)/sim_sched.h $(SIM_DIR)/sim_prelude.h \
            $(SIM_DIR)/include/cuda_runtime.h $(SIM_DIR)/include/hip/hip_runtime.h
# #pragma unroll is CUDA's, unknown to g++: the only warning kernels may raise. TSan's
# instrumentation without its runtime lets the prelude see volatile accesses (see there);
# -z defs turns any hook it lacks into a build failure (a SKIP), not a dlopen error.
SIM_KFLAGS := -x c++ -std=c++17 -O2 -g -fPIC -fno-exceptions -fno-rtti \
              -Wall -Wextra -Werror -Wno-unknown-pragmas \
              -I$(abspath $(SIM_DIR)/include) -I$(abspath $(SIM_DIR)) \
              -fsanitize=thread --param=tsan-distinguish-volatile=1 \
              --param=tsan-instrument-func-entry-exit=0
SIM_KLINK := -shared -Wl,-z,defs
# The same compiler and flags for users' kernels compiled at run time (sim_backend.c).
SIM_RTC_DEFS := -DSIM_KERNEL_CXX='"$(SIM_CXX)"' -DSIM_KERNEL_FLAGS='"$(strip $(SIM_KFLAGS))"' \
                -DSIM_KERNEL_LINK='"$(strip $(SIM_KLINK))"' -Iharness/backends/common
SIM_KSO := $(patsubst kernels/cuda/%.cu,$(BUILD)/kernels/sim/cuda/%.so,$(wildcard kernels/cuda/*.cu)) \
           $(patsubst kernels/hip/%.hip,$(BUILD)/kernels/sim/hip/%.so,$(wildcard kernels/hip/*.hip))

ifeq ($(SIM_CXX),)
BACKEND_NOTES += sim:skipped(g++-not-found)
else
BACKEND_TARGETS += $(BUILD)/backends/hb_sim.so $(SIM_KSO)
BACKEND_NOTES += sim:built

$(BUILD)/backends/hb_sim.so: $(SIM_SRC) $(SIM_HDRS) harness/backend.h \
                             harness/backends/common/rtc.h $(SIM_DIR)/backend.mk
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_CFLAGS) -I$(SIM_DIR) $(SIM_RTC_DEFS) $(SIM_SRC) -o $@ -ldl -lpthread

# On failure the target becomes "sim-unsupported: <first error line>" and the full log
# stays next to it, so the next make retries only when the source or prelude changes.
define SIM_KERNEL_RULE
$(BUILD)/kernels/sim/$(1)/%.so: kernels/$(1)/%.$(2) $(SIM_HDRS)
	@mkdir -p $$(dir $$@)
	@if $(SIM_CXX) $(SIM_KFLAGS) -c $$< -o $$@.o 2> $$@.log && \
	    $(SIM_CXX) $(SIM_KLINK) $$@.o -o $$@.tmp 2>> $$@.log; then \
	    rm -f $$@.o; mv $$@.tmp $$@; echo "sim: built $$@"; \
	else \
	    rm -f $$@.tmp $$@.o; \
	    { printf 'sim-unsupported: '; grep -m1 -E 'error|undefined' $$@.log || head -n1 $$@.log; } > $$@; \
	    echo "sim: $$< does not build for the emulator: $$$$(tail -c +18 $$@) (log: $$@.log)"; \
	fi
endef
$(eval $(call SIM_KERNEL_RULE,cuda,cu))
$(eval $(call SIM_KERNEL_RULE,hip,hip))
endif

# The runtime under ASan/UBSan, lane stack switches annotated for ASan (sim_sched.c), for
# sanitizer runs of an instrumented driver: make sim-san. Not built by default.
.PHONY: sim-san
sim-san: $(BUILD)/san/backends/hb_sim.so
$(BUILD)/san/backends/hb_sim.so: $(SIM_SRC) $(SIM_HDRS) harness/backend.h \
                                 harness/backends/common/rtc.h $(SIM_DIR)/backend.mk
	@mkdir -p $(dir $@)
	$(CC) $(HB_SO_CFLAGS) $(SAN_FLAGS) -I$(SIM_DIR) $(SIM_RTC_DEFS) $(SIM_SRC) -o $@ -ldl -lpthread
