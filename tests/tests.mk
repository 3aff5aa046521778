# SPDX-License-Identifier: MIT
# tests.mk: `make unit` builds each tests/test_*.c (one Check suite per core module) with the
# sanitizers against the core's sanitized objects, runs them all and fails if any test fails.
# It defines no `check` or `conformance` target: the GNUmakefile owns those.

UNIT_TESTS  := $(patsubst tests/%.c,$(BUILD)/san/tests/%,$(sort $(wildcard tests/test_*.c)))
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(or $(shell pkg-config --libs check 2>/dev/null),-lcheck -lsubunit -lrt -lm -pthread)

# Named outside the pattern rule so make keeps the objects instead of treating them as
# intermediate files.
$(UNIT_TESTS): $(SAN_LIBS)
$(BUILD)/san/tests/%: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) $(SAN_FLAGS) $(CHECK_CFLAGS) $(HB_INC_cmd) -Iharness -Itests -DHB_TEST_ROOT='"$(CURDIR)"' \
	    -DHB_TEST_BUILD='"$(abspath $(BUILD))"' -MMD -MP $< $(SAN_LIBS) -o $@ \
	    $(CHECK_LIBS) $(OPENBLAS_LIBS) $(JSONC_LIBS) -ldl -lm -lpthread

# Every suite runs even after a failure, so one report shows them all. No driver is loaded,
# so leak checking applies to the core as a whole.
unit: $(UNIT_TESTS)
	@failed=0; for t in $(UNIT_TESTS); do \
	    ASAN_OPTIONS=detect_leaks=1 $$t || { echo "unit: $$t failed"; failed=1; }; \
	done; exit $$failed

# Fuzzing the parsers of what users and other runs hand us (libFuzzer, clang): the case
# catalogue, the manifest and the JSON lines reader. `make fuzz FUZZ_SECONDS=60` runs each
# target that long; the default keeps `make check`'s fuzz step short.
FUZZ_SECONDS ?= 5
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
# The parsers and the layers below them, built by clang with libFuzzer's coverage hooks.
$(call hb_flavour,fuzz,-fsanitize=fuzzer-no-link $$(FUZZ_SAN),$$(FUZZ_CC))
FUZZ_LIBS := $(foreach l,report core lib,$(BUILD)/fuzz/libhb_$(l).a)
FUZZ_TARGETS := case manifest jsonl
$(BUILD)/fuzz/fuzz_%: tests/fuzz_%.c $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(HB_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) $(HB_INC_report) $(OPENBLAS_CFLAGS) $(JSONC_CFLAGS) -MMD -MP \
	    $< $(FUZZ_LIBS) -o $@ $(OPENBLAS_LIBS) $(JSONC_LIBS) -lm

.PHONY: fuzz
fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(BUILD)/fuzz/corpus_$$t; \
	    $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	        -artifact_prefix=$(BUILD)/fuzz/$$t- $(BUILD)/fuzz/corpus_$$t tests/fuzz/$${t}_corpus || exit 1; \
	done
