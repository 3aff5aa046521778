# SPDX-License-Identifier: MIT
# tests/integration/families.sh: the scan and softmax families (op = custom, kernels/*/
# families.manifest) pass every case of theirs at widths 32 and 64 on the emulator (CUDA at 64
# is the wave64 port check) and at every lavapipe width; the port check covers the CUDA
# canary twins; the bench times the families against the device copy. Sourced by
# integration.sh.

S=tests/data/sim
FAMILY_KERNELS='scan_naive scan_shfl scan_shfl_b80 softmax_block softmax_warp softmax_warp_b80'
GLSL_FAMILY='scan_naive scan_shuffle scan_subgroup scan_subgroup_b80 softmax_block softmax_subgroup softmax_subgroup_b80'

# families_pass FILE LANG "KERNELS" "WIDTHS": every kernel has results at every width, all PASS.
families_pass() {
    json_check "$2 families: $3 pass every case at widths $4" "$1" \
        "all(find(lang='$2', kernel=k, width=w) and all(r['verdict'] == 'PASS' for r in find(lang='$2', kernel=k, width=w)) \
             for k in '$3'.split() for w in map(int, '$4'.split()))"
}

if [ -z "$(device_count sim)" ]; then
    skip "scan and softmax families on the emulator" "sim backend not built"
else
    echo "integration: the scan and softmax families pass at 32 and 64 on the emulator (CUDA at 64: the port check)"
    expect_exit 0 "families at widths 32 and 64" -- "$H" run --backend sim --width 32,64 \
        --kernel 'cuda/scan_*,cuda/softmax_*,hip/scan_*,hip/softmax_*' --json "$T/fam.jsonl" --quiet
    families_pass "$T/fam.jsonl" cuda "$FAMILY_KERNELS" "32 64"
    families_pass "$T/fam.jsonl" hip "$FAMILY_KERNELS" "32 64"
    json_check "their cases: n = 0 and 1, +-1 around the widths and blocks, special values, rows of 1" "$T/fam.jsonl" \
        "{'scan_0', 'scan_1', 'scan_31', 'scan_65', 'scan_321', 'scan_1025', 'scan_nan_3000', 'softmax_1x1', 'softmax_3x63', 'softmax_inf_5x100'} <= {r['case'] for r in recs}"

    echo "integration: the port check (CUDA at 64) catches every CUDA canary twin, claimed correct at every width"
    "$H" run --backend sim --width 32,64 --only-manifest --manifest "$S/port_twins.manifest" --json "$T/twins.jsonl" \
        --quiet >"$T/out" 2>&1
    for k in scan32 rank32 leader32 softmax32 warp_partials32; do
        json_check "CUDA canary_$k passes at 32 and FAILs as ported to wave64" "$T/twins.jsonl" \
            "find(kernel='$k', width=32) and all(r['verdict'] == 'PASS' for r in find(kernel='$k', width=32)) and any(r['verdict'] == 'FAIL' for r in find(kernel='$k', width=64))"
    done

    echo "integration: bench times the families against the device copy"
    "$H" bench --backend sim --kernel '*s[co][af]*' --reduce-n 4096 --runs 1 --sizes 16 --json "$T/bench.json" >"$T/out" 2>&1
    if python3 - "$T/bench.json" <<'PY' 2>"$T/py"; then ok "bench rows for every family kernel, GB/s and % of copy"; else bad "bench rows for every family kernel, GB/s and % of copy" "$T/out"; fi
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"] if isinstance(doc, dict) else doc
have = {r["impl"] for r in rows if r.get("op") == "custom" and r.get("gbs", 0) > 0 and r.get("pct_copy", -1) > 0}
want = {l + "/" + k for l in ("cuda", "hip") for k in "scan_naive scan_shfl scan_shfl_b80 softmax_block softmax_warp softmax_warp_b80".split()}
sys.exit(0 if want <= have else 1)
PY
fi

if [ -z "$(device_count vulkan)" ]; then
    skip "scan and softmax families on lavapipe" "no Vulkan device"
else
    echo "integration: the GLSL scan and softmax families pass at every lavapipe width"
    widths=$("$H" list 2>/dev/null | grep -m1 '^ *\[0\] llvmpipe' | sed 's/.*| widths //; s/([^)]*)//g')
    expect_exit 0 "GLSL families on lavapipe" -- "$H" run --backend vulkan --kernel 'glsl/scan_*,glsl/softmax_*' \
        --json "$T/famvk.jsonl" --quiet
    families_pass "$T/famvk.jsonl" glsl "$GLSL_FAMILY" "${widths:-4 8 16}"
fi
