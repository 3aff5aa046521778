# tests.mk: `make unit` builds each tests/test_*.c (one Check suite per core module) with the
# sanitizers against the core's sanitized objects, runs them all and fails if any test fails.
# It defines no `check` or `conformance` target: the GNUmakefile owns those.

UNIT_TESTS  := $(patsubst tests/%.c,$(BUILD)/san/tests/%,$(sort $(wildcard tests/test_*.c)))
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(or $(shell pkg-config --libs check 2>/dev/null),-lcheck -lsubunit -lrt -lm -pthread)

# Named outside the pattern rule so make keeps the objects instead of treating them as
# intermediate files.
$(UNIT_TESTS): $(SAN_OBJ)
$(BUILD)/san/tests/%: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HB_CFLAGS) $(SAN_FLAGS) $(CHECK_CFLAGS) -Itests -DHB_TEST_ROOT='"$(CURDIR)"' \
	    -DHB_TEST_BUILD='"$(abspath $(BUILD))"' -MMD -MP $< $(SAN_OBJ) -o $@ \
	    $(CHECK_LIBS) $(OPENBLAS_LIBS) -ldl -lm -lpthread

# Every suite runs even after a failure, so one report shows them all. No driver is loaded,
# so leak checking applies to the core as a whole.
unit: $(UNIT_TESTS)
	@failed=0; for t in $(UNIT_TESTS); do \
	    ASAN_OPTIONS=detect_leaks=1 $$t || { echo "unit: $$t failed"; failed=1; }; \
	done; exit $$failed

# Fuzzing the case parser (libFuzzer, clang): `make fuzz FUZZ_SECONDS=60`.
FUZZ_SECONDS ?= 20
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Iharness -Ireference \
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# The parser needs the op table, which needs the core below it (references, comparison).
FUZZ_SRC := tests/fuzz_case.c harness/case.c harness/case_line.c harness/util.c harness/verdict.c harness/op.c harness/op_gemm.c harness/op_gemm_data.c \
            harness/op_reduce.c harness/compare.c harness/gen.c harness/guard.c harness/manifest.c harness/manifest_parse.c reference/ref.c
$(BUILD)/fuzz/fuzz_case: $(FUZZ_SRC) harness/case.h harness/op.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(OPENBLAS_CFLAGS) $(FUZZ_SRC) -o $@ $(OPENBLAS_LIBS) -lm

.PHONY: fuzz
fuzz: $(BUILD)/fuzz/fuzz_case
	@mkdir -p $(BUILD)/fuzz/corpus
	$(BUILD)/fuzz/fuzz_case -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	    -artifact_prefix=$(BUILD)/fuzz/ \
	    $(BUILD)/fuzz/corpus tests/fuzz/case_corpus
