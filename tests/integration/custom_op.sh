# SPDX-License-Identifier: MIT
# tests/integration/custom_op.sh: op = custom (issue 28) with kernels of our own
# (tests/data/custom/): a row softmax, a layer norm, an integer histogram with atomics and every
# buffer type, role and tolerance form pass against their C references; their broken twins FAIL
# for their own reasons; references that go wrong are the harness's ERROR naming them; reports,
# baselines, --shrink and the HTML heat map treat custom rows as any other; GLSL ones on Vulkan.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
C=tests/data/custom
custom_run() { "$H" run --only-manifest --cases "$C/custom.cases" --quiet "$@" >"$T/out" 2>&1; }
if [ -z "$(device_count sim)" ]; then
    skip "op = custom on the emulator" "sim backend not built"
else
    echo "integration: op = custom kernels judged by their C references (issue 28)"
    custom_run --backend sim --width 8,32,64 --manifest "$C/custom.manifest" --json "$T/cu.jsonl" \
        --junit "$T/cu.xml" --record "$T/cu.base"
    for k in row_softmax layer_norm histogram roles; do
        json_check "$k passes at widths 8, 32 and 64 (the wave64 port check)" "$T/cu.jsonl" \
            "len(find(kernel='$k')) >= 12 and {r['width'] for r in find(kernel='$k')} == {8, 32, 64} and all(r['verdict'] == 'PASS' for r in find(kernel='$k'))"
    done
    json_check "custom rows carry their sizes and op" "$T/cu.jsonl" \
        'any(r["op"] == "custom" and r["sizes"] == "rows=7 cols=300" and r["case"] == "sm_7x300" for r in recs)'
    json_check "the layer norm is checked on its three outputs (y, mean, rstd)" "$T/cu.jsonl" \
        'all(r["elements"] == 7 * 300 + 2 * 7 for r in find(kernel="layer_norm", case="sm_7x300"))'
    if xmllint --noout "$T/cu.xml" 2>"$T/xml"; then ok "JUnit of custom rows is valid XML"; else bad "JUnit of custom rows is valid XML" "$T/xml"; fi
    expect_exit 0 "a custom run compared with its own baseline: no difference" -- "$H" run --only-manifest \
        --cases "$C/custom.cases" --backend sim --width 8,32,64 --manifest "$C/custom.manifest" --compare "$T/cu.base" --quiet
    if grep -q "Baseline: 0 failing differences" "$T/out"; then ok "... and it says so"; else bad "... and it says so" "$T/out"; fi

    custom_run --backend sim --width 32 --manifest "$C/types.manifest" --json "$T/ty.jsonl"
    for t in f32 f64 f16 bf16 i32 u32 i64 u64 u8; do
        json_check "type $t: kernel and reference agree exactly" "$T/ty.jsonl" \
            "len(find(kernel='affine_$t')) == 4 and all(r['verdict'] == 'PASS' and r['max_ratio'] == 0 for r in find(kernel='affine_$t'))"
    done

    echo "integration: broken twins FAIL for their own reasons"
    custom_run --backend sim --width 32 --manifest "$C/broken.manifest" --json "$T/br.jsonl" --html "$T/br.html"
    json_check "softmax with one column per thread: right up to 256 columns, unwritten past them" "$T/br.jsonl" \
        'all((r["verdict"] == "FAIL" and "unwritten" in r["classes"]) == (r["sizes"].endswith("cols=300")) for r in find(kernel="row_softmax_one_pass"))'
    json_check "layer norm with the sample variance: wrong, first at y" "$T/br.jsonl" \
        'all(r["verdict"] == "FAIL" and r["classes"] == "wrong" and r["first_bad"]["buffer"] == "y" for r in find(kernel="layer_norm_sample_var") if "cols=1" not in r["sizes"].split(" "))'
    json_check "histogram merged before its block has counted: wrong counts, named in u32" "$T/br.jsonl" \
        'find(kernel="histogram_no_barrier") and all(r["verdict"] == "FAIL" and "wrong" in r["classes"] and r["first_bad"]["values"].endswith("(u32)") for r in find(kernel="histogram_no_barrier"))'
    for pair in writes_input:input-modified writes_past:oob skips_last:unwritten; do
        json_check "${pair%%:*}: FAIL ${pair#*:}, as for any op" "$T/br.jsonl" \
            "find(kernel='${pair%%:*}') and all(r['verdict'] == 'FAIL' and '${pair#*:}' in r['classes'].split('+') for r in find(kernel='${pair%%:*}'))"
    done
    if grep -q 'columns 0..299 of y' "$T/br.html"; then ok "HTML heat map of a 2-D output (rows*cols) is named after it"; else bad "HTML heat map of a 2-D output" "$T/br.html"; fi
    if grep -q 'first bad y\[0\]\[0\]: expected [-0-9.e]* got [-0-9.e]* (f32)' "$T/out"; then
        ok "failure lines name the output, its indices and typed values"
    else bad "failure lines name the output, its indices and typed values" "$T/out"; fi

    echo "integration: each tolerance form"
    custom_run --backend sim --width 32 --manifest "$C/tolerance.manifest" --json "$T/tol.jsonl"
    for pair in tol_ulp16:PASS tol_ulp2:FAIL tol_rel:PASS tol_rel_tight:FAIL tol_abs:PASS tol_exact:FAIL; do
        json_check "${pair%%:*} on a kernel 4 to 9 ULP off: ${pair#*:}" "$T/tol.jsonl" \
            "len(find(kernel='${pair%%:*}')) == 3 and all(r['verdict'] == '${pair#*:}' for r in find(kernel='${pair%%:*}') if r['case'] != 'n_1')"
    done

    echo "integration: a reference that goes wrong is the harness's ERROR, naming it"
    custom_run --backend sim --width 32 --manifest "$C/references.manifest" --case n_1000 --json "$T/ref.jsonl"
    for pair in ref_reads_past:"read past the end of x (at byte 4000; x has 4000 bytes)" \
        ref_writes_input:"wrote its input x" ref_null:"crashed: read an address outside every buffer" \
        ref_aborts:"crashed: Aborted (signal 6)" ref_hangs:"did not return in 2 s: killed" \
        ref_skips:"did not write y[999] (still the poison)" ref_broken:"does not compile (cc -O2" \
        ref_missing:"undefined symbol: no_such_ref"; do
        k=${pair%%:*} says=${pair#*:}
        json_check "$k: ERROR reference-error, '$says'" "$T/ref.jsonl" \
            "len(find(kernel='$k')) == 1 and all(r['verdict'] == 'ERROR' and r['classes'] == 'reference-error' and r['why'].startswith('reference ') and '_ref.c) ' in r['why'] and '''$says''' in r['why'] for r in find(kernel='$k'))"
    done

    echo "integration: HIP ports judged by their CUDA original (oracle =, the emulator at width 32 in lockstep)"
    custom_run --backend sim --width 32,64 --manifest "$C/port/port.manifest" --json "$T/port.jsonl"
    json_check "the 32-lane port passes at width 32 against its CUDA original" "$T/port.jsonl" \
        'len(find(kernel="row_sum_warp32", width=32)) == 7 and all(r["verdict"] == "PASS" for r in find(kernel="row_sum_warp32", width=32))'
    json_check "... and FAILs at width 64 (wrong) wherever a row is wider than 32, its line naming both kernels" "$T/port.jsonl" \
        'all((r["verdict"] == "FAIL" and r["classes"] == "wrong" and "hip/row_sum_warp32 against its oracle cuda/row_sum (the emulator at width 32, lockstep)" in r["why"]) == ("cols=1" not in r["sizes"].split()) for r in find(kernel="row_sum_warp32", width=64))'
    json_check "the width-generic port passes at widths 32 and 64" "$T/port.jsonl" \
        'len(find(kernel="row_sum_generic")) == 14 and all(r["verdict"] == "PASS" for r in find(kernel="row_sum_generic"))'
    json_check "an oracle that fails its own run (a write past y) is the harness's ERROR, named" "$T/port.jsonl" \
        'find(kernel="row_sum_port_of_oob") and all(r["verdict"] == "ERROR" and r["classes"] == "reference-error" and "oracle cuda/row_sum_oob (" in r["why"] and "failed its own run" in r["why"] and "writes out of bounds" in r["why"] for r in find(kernel="row_sum_port_of_oob"))'
    json_check "... while that CUDA kernel, judged by its C reference, FAILs oob" "$T/port.jsonl" \
        'find(kernel="row_sum_oob") and all(r["verdict"] == "FAIL" and "oob" in r["classes"] for r in find(kernel="row_sum_oob"))'

    echo "integration: --shrink over a custom kernel's declared sizes"
    "$H" run --backend sim --width 32 --only-manifest --manifest "$C/broken.manifest" --cases "$C/custom.cases" \
        --kernel layer_norm_sample_var --case sm_7x300 --shrink --quiet >"$T/out" 2>&1
    if grep -q "^shrink: sim:0:w32:cuda/layer_norm_sample_var:sm_7x300 FAIL wrong: still fails at rows=1 cols=2 " "$T/out" &&
        grep -q "custom sm_7x300_shrunk_1x2 rows=1 cols=2 dist=uniform seed=" "$T/out"; then
        ok "the layer norm's wrong variance shrinks to rows=1 cols=2, with its reproducer"
    else bad "the layer norm's wrong variance shrinks to rows=1 cols=2" "$T/out"; fi

    echo "integration: custom manifests and case lines that are wrong stop the run with file:line"
    printf '[k]\nop = custom\nlang = cuda\nsource = softmax.cu\nentry = e\nsizes = n\nbuffers = x f32 in n; y f32 out m\nargs = x y n\nblock = 1\ngrid = n\nreference = softmax_ref.c f\n' >"$T/bad.manifest"
    cp "$C/softmax.cu" kernels/ref/softmax_ref.c "$T/"
    expect_exit 2 "a length in a size the kernel does not take" -- "$H" run --backend sim --only-manifest \
        --manifest "$T/bad.manifest" --cases "$C/custom.cases"
    if grep -q "bad.manifest:7: buffer y: length: 'm': 'm' is not one of the kernel's sizes" "$T/out"; then ok "... named at its line"; else bad "... named at its line" "$T/out"; fi
    # issue 47: what no case can change is refused at parse, at the manifest's line; what a case
    # decides is that case's ERROR, naming the manifest's line too.
    const_error() { # NAME BUFFERS GRID SCALARS REFERENCE WANT-AT-LINE
        printf '[k]\nop = custom\nlang = cuda\nsource = softmax.cu\nentry = e\nsizes = n\nbuffers = %s\nargs = x y n\nblock = 1\ngrid = %s\nreference = %s\n%s\n' \
            "$2" "$3" "$5" "$4" >"$T/const.manifest"
        expect_exit 2 "issue 47: $1 is refused at parse" -- "$H" run --backend sim --only-manifest \
            --manifest "$T/const.manifest" --cases "$C/custom.cases"
        if grep -qF "const.manifest:$6" "$T/out"; then ok "... at its line"; else bad "... at its line: want $6" "$T/out"; fi
    }
    const_error "a length divided by 0" "x f32 in n/0; y f32 out n" n "" "softmax_ref.c f" "7: buffer x: length n/0 divides by 0 whatever the case"
    const_error "a constant length past 2^31-1" "x f32 in 2147483648; y f32 out n" n "" "softmax_ref.c f" "7: buffer x: length 2147483648 is 2147483648 elements (0 to 2147483647)"
    const_error "an empty constant range" "x f32 in n range 5 5; y f32 out n" n "" "softmax_ref.c f" "7: buffer x: range 5 5 is empty"
    const_error "a backwards constant range" "x f32 in n range 5 1; y f32 out n" n "" "softmax_ref.c f" "7: buffer x: range 5 1 is empty"
    const_error "a negative constant grid" "x f32 in n; y f32 out n" "n 0-1 1" "" "softmax_ref.c f" "10: grid 0-1 is -1 blocks"
    const_error "an f32 scalar past FLT_MAX (1e40: inf)" "x f32 in n; y f32 out n" n "scalars = s f32 1e40" "softmax_ref.c f" "12: scalar s = 1e40: infinite as a float"
    mkfifo "$T/fifo_ref.c" && mkdir -p "$T/dir_ref.c" && ln -sf /dev/zero "$T/zero_ref.c"
    for r in fifo:FIFO dir:folder zero:"link to /dev/zero"; do
        const_error "a reference that is a ${r#*:}" "x f32 in n; y f32 out n" n "" "${r%%:*}_ref.c f" "11: reference "
        if grep -q "not a regular file" "$T/out"; then ok "... not a regular file"; else bad "... not a regular file" "$T/out"; fi
    done
    printf '[k]\nop = custom\nlang = cuda\nsource = %s/tests/data/nocase/k.cu\nentry = copy\nsizes = n\nbuffers = x f32 in n-200; y f32 out n\nargs = x y n\nblock = 64\ngrid = n/64\nreference = %s/tests/data/nocase/ref.c copy_ref\n' \
        "$PWD" "$PWD" >"$T/short.manifest"
    expect_exit 1 "issue 47: a length negative on a case is that case's ERROR" -- "$H" run --backend sim --width 32 \
        --only-manifest --manifest "$T/short.manifest" --cases "$C/custom.cases" --case n_1 --json "$T/short.jsonl"
    json_check "issue 47: ... naming the declaration and the manifest's line" "$T/short.jsonl" \
        "len(recs) == 1 and recs[0]['verdict'] == 'ERROR' and 'buffer x f32 in n-200 ($T/short.manifest:7): length: -199 elements' in recs[0]['why']"
    printf 'custom c n=1 9lives=2\n' >"$T/bad.cases"
    expect_exit 2 "a custom case size that is no C name" -- "$H" run --backend sim --only-manifest \
        --manifest "$C/custom.manifest" --cases "$T/bad.cases"
    if grep -q "bad.cases:1: '9lives' is not a size name" "$T/out"; then ok "... named at its line"; else bad "... named at its line" "$T/out"; fi
fi

if [ -z "$(device_count vulkan)" ]; then
    skip "op = custom on Vulkan" "vulkan backend has no device"
else
    echo "integration: op = custom in GLSL on Vulkan (buffers by binding, push constants in declared order)"
    HB_VK_VALIDATION=1 custom_run --backend vulkan --manifest "$C/vulkan.manifest" --json "$T/vk.jsonl"
    json_check "GLSL histogram (u32 atomics) and axpy (float scalar, inout) pass at every width" "$T/vk.jsonl" \
        'len(find(kernel="histogram_vk")) == 18 and len(find(kernel="axpy_vk")) == 12 and all(r["verdict"] == "PASS" for r in recs)'
fi

# issue 47: expected values. Nothing compares against poison: a reference or an oracle that
# leaves an output element unwritten is the harness's ERROR in every type (an element that holds
# the poison is checked by a second run from the other poison, since a u8 165 is 0xa5), a kernel
# that skips an element whose right value is the poison FAILs unwritten, an oracle runs at a width
# it is written for, more than 64 references run, only selected kernels' references are made,
# and --timeout bounds a reference without a timeout key.
E=tests/data/expected
expected_run() { "$H" run --backend sim --only-manifest --cases "$E/expected.cases" --quiet "$@" >"$T/out" 2>&1; }
if [ -z "$(device_count sim)" ]; then
    skip "expected values (issue 47)" "sim backend not built"
else
    echo "integration: expected values (issue 47)"
    expected_run --width 32 --manifest "$E/references.manifest" --kernel 'ref_nothing_*,copy_u8*' --json "$T/ev.jsonl"
    for t in i32 u32 u8 i64; do
        json_check "a $t reference that writes nothing: ERROR reference-error 'did not write y[0]'" "$T/ev.jsonl" \
            "len(find(kernel='ref_nothing_$t')) == 2 and all(r['verdict'] == 'ERROR' and r['classes'] == 'reference-error' and 'reference nothing_${t}_ref (' in r['why'] and 'did not write y[0]' in r['why'] for r in find(kernel='ref_nothing_$t'))"
    done
    json_check "a u8 reference whose output holds 165 (the poison): a right kernel PASSes" "$T/ev.jsonl" \
        "len(find(kernel='copy_u8')) == 2 and all(r['verdict'] == 'PASS' for r in find(kernel='copy_u8'))"
    json_check "... and one skipping exactly that element FAILs unwritten at y[165], not nondeterministic" "$T/ev.jsonl" \
        "find(kernel='copy_u8_skip165', case='n_1')[0]['verdict'] == 'PASS' and all(r['verdict'] == 'FAIL' and r['classes'] == 'unwritten' and r['first_bad']['i'] == 165 and r['first_bad']['buffer'] == 'y' for r in find(kernel='copy_u8_skip165', case='n_300'))"

    expected_run --width 32,64 --manifest "$E/oracles.manifest" --json "$T/eo.jsonl"
    json_check "a port against an oracle that writes nothing: ERROR 'oracle ... left y[0] unwritten'" "$T/eo.jsonl" \
        "len(find(kernel='port_nothing')) == 4 and all(r['verdict'] == 'ERROR' and r['classes'] == 'reference-error' and 'oracle cuda/orc_nothing (' in r['why'] and 'left y[0] unwritten' in r['why'] for r in find(kernel='port_nothing'))"
    json_check "two kernels skipping their last element, each the other's oracle: never PASS" "$T/eo.jsonl" \
        "len(find(kernel='skip_a') + find(kernel='skip_b')) == 8 and all(r['verdict'] == 'ERROR' and 'unwritten' in r['why'] for r in find(kernel='skip_a') + find(kernel='skip_b'))"
    json_check "a right port against a wave64-only oracle PASSes at 32 and 64, the oracle run at 64" "$T/eo.jsonl" \
        "len(find(kernel='port_of_wave64')) == 2 and all(r['verdict'] == 'PASS' and 'hip/row_sum_wave64 (the emulator at width 64, lockstep)' in r['why'] for r in find(kernel='port_of_wave64'))"

    # 70 kernels, each judged by a reference function of its own (one C file).
    cp "$E/expected.cu" "$T/"
    : >"$T/many_ref.c" && : >"$T/many.manifest"
    for i in $(seq 0 69); do
        printf 'void copy%d(const float *x, float *y, int n) { for (int i = 0; i < n; i++) y[i] = x[i]; }\n' "$i" >>"$T/many_ref.c"
        printf '[many%d]\nop = custom\nlang = cuda\nsource = expected.cu\nentry = copy_f32\nsizes = n\nbuffers = x f32 in n; y f32 out n\nargs = x y n\nblock = 64\ngrid = n/64\nreference = many_ref.c copy%d\n\n' "$i" "$i" >>"$T/many.manifest"
    done
    expect_exit 0 "70 kernels with 70 distinct references in one run" -- "$H" run --backend sim --width 32 --only-manifest \
        --manifest "$T/many.manifest" --cases "$E/expected.cases" --case n_1 --json "$T/many.jsonl" --quiet
    json_check "... every one ran and PASSed (no 'too many references')" "$T/many.jsonl" \
        "len(recs) == 70 and all(r['verdict'] == 'PASS' for r in recs)"

    s=$(date +%s)
    expect_exit 0 "--kernel copy_f32 beside a kernel whose reference sleeps 30 s: its reference is never run" -- \
        timeout 25 "$H" run --backend sim --width 32 --only-manifest --manifest "$E/references.manifest" \
        --cases "$E/expected.cases" --kernel copy_f32 --quiet
    s=$(( $(date +%s) - s ))
    if [ "$s" -lt 20 ]; then ok "... in $s s"; else bad "... in $s s (the other kernel's reference ran)" "$T/out"; fi
    expect_exit 1 "--timeout 3 bounds a reference without a timeout key (not 120 s)" -- timeout 60 "$H" run --backend sim \
        --width 32 --only-manifest --manifest "$E/references.manifest" --cases "$E/expected.cases" --case n_1 \
        --kernel ref_sleeps --timeout 3 --json "$T/sleeps.jsonl" --quiet
    json_check "... ERROR reference-error 'did not return in 3 s'" "$T/sleeps.jsonl" \
        "len(recs) == 1 and recs[0]['verdict'] == 'ERROR' and recs[0]['classes'] == 'reference-error' and 'did not return in 3 s' in recs[0]['why']"
fi
