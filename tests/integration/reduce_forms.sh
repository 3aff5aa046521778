# SPDX-License-Identifier: MIT
# tests/integration/reduce_forms.sh: the reduce op's forms (issue 28 (e)) with kernels of our own
# (tests/data/reduce_types/): i32, u32, f32, f64 and f16 data under sum, max and min, one total
# from atomics and an identity parameter pass at every width; their broken twins FAIL for their
# own reasons; bad form keys are file:line errors; baselines and --shrink take the typed rows.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
R=tests/data/reduce_types
reduce_run() { "$H" run --only-manifest --cases "$R/typed.cases" --quiet "$@" >"$T/out" 2>&1; }
if [ -z "$(device_count sim)" ]; then
    skip "reduce forms on the emulator" "sim backend not built"
else
    echo "integration: reduce forms: types, combines, one total, identity (issue 28 (e))"
    reduce_run --backend sim --width 8,32,64 --manifest "$R/typed.manifest" --json "$T/rt.jsonl" --record "$T/rt.base"
    for k in sum_i32 max_u32 min_f32 max_i32 sum_f64 sum_f16 atomic_sum_i32 atomic_max_i32 atomic_sum_f32; do
        json_check "$k passes at widths 8, 32 and 64" "$T/rt.jsonl" \
            "len(find(kernel='$k')) == 57 and all(r['verdict'] == 'PASS' for r in find(kernel='$k'))"
    done
    json_check "integer and max/min rows are exact (ratio 0) and a max has no sum error" "$T/rt.jsonl" \
        "all(r['max_ratio'] == 0 for k in ('sum_i32', 'max_u32', 'min_f32', 'atomic_max_i32') for r in find(kernel=k)) and not any('total_rel_err' in r for r in find(kernel='max_u32'))"
    json_check "one total is one element, whatever n" "$T/rt.jsonl" \
        "all(r['elements'] == 1 for r in find(kernel='atomic_sum_i32'))"
    json_check "an f64 sum is judged against f64's epsilon (its figures are not f32's)" "$T/rt.jsonl" \
        "any(r['max_ratio'] > 0 for r in find(kernel='sum_f64')) and all(r['max_ulp'] < 1000 for r in find(kernel='sum_f64'))"
    reduce_run --backend sim --width 64 --manifest "$R/typed_hip.manifest" --json "$T/rh.jsonl"
    json_check "the HIP forms (i32 sum, u32 max, f64 sum, atomicMax total) pass on wave64" "$T/rh.jsonl" \
        "len(recs) == 4 * 19 and all(r['verdict'] == 'PASS' and r['lang'] == 'hip' for r in recs)"
    expect_exit 0 "typed rows compared with their own baseline: no difference" -- "$H" run --only-manifest \
        --cases "$R/typed.cases" --backend sim --width 8,32,64 --manifest "$R/typed.manifest" --compare "$T/rt.base" --quiet
    if grep -q "Baseline: 0 failing differences" "$T/out"; then ok "... and it says so"; else bad "... and it says so" "$T/out"; fi

    echo "integration: reduce forms: broken twins FAIL for their own reasons"
    reduce_run --backend sim --width 32,64 --manifest "$R/broken.manifest" --json "$T/rb.jsonl"
    json_check "a max from 0 instead of INT_MIN: wrong on all-negative data (and a last block of one negative)" "$T/rb.jsonl" \
        "all(r['verdict'] == 'FAIL' and r['classes'] == 'wrong' for r in find(kernel='max_i32_from_zero') if 'cancel' in r['case'] and r['n'] > 0) and all(r['classes'] in ('', 'wrong') for r in find(kernel='max_i32_from_zero')) and any(r['verdict'] == 'PASS' and r['n'] == 4097 for r in find(kernel='max_i32_from_zero'))"
    json_check "an f64 sum kept in float: wrong on uniform data, every digit shown" "$T/rb.jsonl" \
        "all(r['verdict'] == 'FAIL' and r['first_bad']['values'].endswith('(f64)') for r in find(kernel='sum_f64_in_float') if 'uniform' in r['case'] and r['n'] > 1)"
    json_check "a 32-lane int sum: PASS at 32, XFAIL at 64 (its upper halves lost)" "$T/rb.jsonl" \
        "all(r['verdict'] == 'PASS' for r in find(kernel='sum_i32_warp32', width=32)) and any(r['verdict'] == 'XFAIL' for r in find(kernel='sum_i32_warp32', width=64)) and not any(r['verdict'] in ('FAIL', 'XPASS') for r in find(kernel='sum_i32_warp32'))"
    json_check "one total stored by block 0 only: wrong exactly past one block" "$T/rb.jsonl" \
        "all((r['verdict'] == 'FAIL') == (r['n'] > 256) for r in find(kernel='atomic_sum_i32_store'))"
    "$H" run --only-manifest --cases "$R/typed.cases" --backend sim --width 32 --manifest "$R/broken.manifest" \
        --kernel cuda/atomic_sum_i32_store --case t_4097_uniform --shrink >"$T/out" 2>&1
    if grep -qE "still fails at n=(2[5-9][0-9]|[3-9][0-9][0-9]|[1-3][0-9]{3}|40[0-9][0-9]) " "$T/out"; then
        ok "--shrink takes a typed one-total case down (past one block)"
    else
        bad "--shrink takes a typed one-total case down (past one block)" "$T/out"
    fi

    echo "integration: reduce forms: bad keys are file:line errors"
    form_error() { # NAME LINE-IT-NAMES WANT KEYS... (FORM_LANG: the kernel's lang, default cuda)
        local name=$1 line=$2 want=$3; shift 3
        { echo "[k]"; echo "op = reduce"; echo "lang = ${FORM_LANG:-cuda}"; echo "source = $PWD/$R/typed.cu"; echo "entry = sum_i32"
          echo "block = 256 1 1"; echo "grid = n/256 1 1"; printf '%s\n' "$@"; } >"$T/form.manifest"
        "$H" run --only-manifest --backend sim --manifest "$T/form.manifest" --cases "$R/typed.cases" >"$T/out" 2>&1
        local rc=$?
        if [ "$rc" = 2 ] && grep -q "form.manifest:$line: .*$want" "$T/out"; then ok "$name"; else bad "$name (exit $rc)" "$T/out"; fi
    }
    form_error "type = i64 is not a reduction's type" 9 "f32, f64, f16" "chunk = 256" "type = i64"
    form_error "combine = avg is not a combine" 9 "sum, max or min" "chunk = 256" "combine = avg"
    form_error "partials = 1 with a chunk" 9 "no chunk" "chunk = 256" "partials = 1"
    form_error "an identity the type cannot hold" 10 "identity 0.5 is not the neutral element of sum over i32" "chunk = 256" "type = i32" "identity = 0.5"
    form_error "a float sum's identity is 0" 9 "identity 1 is not the neutral element of sum over f32 (write 0" "chunk = 256" "identity = 1"
    # issue 47: an identity that is not the combine's neutral element makes every expected
    # output the identity (or NaN), which a kernel writing nothing can match.
    form_error "issue 47: identity = nan for a float max" 10 "identity nan is not the neutral element of max over f32 (write -inf or leave identity out)" "chunk = 256" "combine = max" "identity = nan"
    form_error "issue 47: identity = INT_MAX for an i32 max" 11 "identity 2147483647 is not the neutral element of max over i32 (write -2147483648 or leave identity out)" "chunk = 256" "type = i32" "combine = max" "identity = 2147483647"
    form_error "no chunk and no partials = 1" 1 "has no 'chunk'" "type = i32"
    FORM_LANG=hip form_error "an f64 identity parameter on HIP" 10 "only CUDA" "chunk = 256" "type = f64" "args = x partials n identity"
    form_error "an f64 max's identity is -inf, not 1e300" 11 "identity 1e300 is not the neutral element of max over f64" "chunk = 256" "type = f64" "combine = max" "identity = 1e300" "args = x partials n identity"
fi
