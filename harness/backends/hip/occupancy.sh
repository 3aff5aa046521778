#!/bin/sh
# SPDX-License-Identifier: MIT
# occupancy.sh: for each HIP code object and AMD target, reads the kernel metadata hipcc wrote
# (registers, LDS, scratch, spills) and prints the occupancy it allows, next to the CUDA build's
# ptxas figures for the same kernel. Exits 1 when a kernel's LDS cannot fit a target (or a
# target is missing from a bundle), so that is caught before anyone runs it. It reads files
# only: no GPU, and it does not model scratch bandwidth or instruction-level throughput.
# Usage: occupancy.sh BUILD_DIR ARCH...   (POSIX sh + awk; `make occupancy` runs it)
#
# Limits used (per target). Sources: LLVM AMDGPU backend, lib/Target/AMDGPU/Utils/
# AMDGPUBaseInfo.cpp (getMaxWavesPerEU, getTotalNumVGPRs, getVGPRAllocGranule,
# getTotalNumSGPRs, getSGPRAllocGranule, getEUsPerCU, getMaxWorkGroupsPerCU); LLVM AMDGPUUsage
# (LDS_SIZE granule 128 dwords; 64 KiB LDS per workgroup); AMD CDNA2 (MI200) and CDNA3 (MI300)
# ISA guides / white papers (64 KiB LDS per CU, 4 SIMD per CU, unified 512-entry VGPR+AGPR
# file per lane); AMD RDNA2 ISA guide / RDNA white paper (WGP = 2 CUs = 4 SIMD32, 128 KiB LDS
# per WGP shared by its workgroups, a workgroup addresses at most 64 KiB; hipcc's default is
# WGP mode); NVIDIA CUDA C++ Programming Guide, compute capability 9.0 table, and the CUDA
# occupancy calculator's allocation rules (256-register warp granule, 1 KiB smem reserved per
# block, 128 B smem granule).
#   target  wave SIMDs/unit  waves/SIMD  VGPRs/lane(granule)  SGPRs(granule)  LDS/unit  LDS/WG  WGs/unit
#   gfx90a   64  4 (CU)       8           512 (8) VGPR+AGPR    800 (16)        64 KiB    64 KiB  16
#   gfx940   64  4 (CU)       8           512 (8) VGPR+AGPR    800 (16)        64 KiB    64 KiB  16
#   gfx1030  32  4 (WGP)      16          1024 (16)            no limit (106)  128 KiB   64 KiB  32
#   sm_90    32  (SM)         64 warps    65536 regs/SM (256/warp)  -          228 KiB   227 KiB 32

set -u
build=${1:?usage: occupancy.sh BUILD_DIR ARCH...}
shift
[ $# -gt 0 ] || set -- gfx90a gfx940 gfx1030

# The LLVM that hipcc drives: clang-offload-bundler and llvm-readelf must match its version.
ver=$(hipcc --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1)
bin=/usr/lib/llvm-$ver/bin
[ -n "$ver" ] && [ -x "$bin/clang-offload-bundler" ] || bin=$(hipconfig -l 2>/dev/null)
bundler=$bin/clang-offload-bundler
readelf=$bin/llvm-readelf
for t in "$bundler" "$readelf"; do
    [ -x "$t" ] || { echo "occupancy: $t not found (LLVM of hipcc: ${ver:-unknown})" >&2; exit 2; }
done

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM
status=0

# Threads per block of each entry point, from the manifests (the compiled bound,
# max_flat_workgroup_size, is 1024 for every kernel without launch bounds).
awk '/^\[/ { e = "" }
     $1 == "entry" { e = $3 }
     $1 == "block" && e != "" { print e, $3 * $4 * $5 }' kernels/hip/*.manifest > "$tmp/blocks" 2>/dev/null

# One record per kernel and target: K stem arch name wave vgpr agpr sgpr lds scratch vspill sspill
for hsaco in "$build"/kernels/hip/*.hsaco; do
    [ -e "$hsaco" ] || { echo "occupancy: no code objects under $build/kernels/hip (run make)" >&2; exit 2; }
    stem=$(basename "$hsaco" .hsaco)
    for arch in "$@"; do
        co=$tmp/$stem.$arch.co
        if ! "$bundler" --unbundle --type=o --input="$hsaco" \
                --targets="hipv4-amdgcn-amd-amdhsa--$arch" --output="$co" 2>"$tmp/err" ||
            [ ! -s "$co" ]; then
            echo "M $stem $arch" >> "$tmp/rec"
            continue
        fi
        "$readelf" --notes "$co" | awk -v stem="$stem" -v arch="$arch" '
            function flush() { if (n != "") print "K", stem, arch, n, f["wavefront_size"],
                f["vgpr_count"], f["agpr_count"] + 0, f["sgpr_count"],
                f["group_segment_fixed_size"], f["private_segment_fixed_size"],
                f["vgpr_spill_count"], f["sgpr_spill_count"]; n = ""; split("", f) }
            /^  - \./ { flush(); sub(/^  - /, "    ") }      # a new kernel in amdhsa.kernels
            /^    \.[a-z_]+:/ { k = $1; sub(/^\./, "", k); sub(/:$/, "", k); f[k] = $2
                               if (k == "name") n = $2 }
            /^amdhsa\.target/ { flush() }
            END { flush() }' >> "$tmp/rec"
    done
done

# CUDA figures: C stem name arch regs smem spill_store_bytes (first listed arch, sm_90 preferred)
for hsaco in "$build"/kernels/hip/*.hsaco; do
    stem=$(basename "$hsaco" .hsaco)
    p=$build/kernels/cuda/$stem.ptxas.txt
    [ -r "$p" ] || continue
    awk -v stem="$stem" '
        /Compiling entry function/ { split($0, q, "'\''"); name = q[2]; arch = q[4] }
        /bytes spill stores/ { sp = $5 }
        /Used [0-9]+ registers/ {
            regs = $5; smem = 0
            for (i = 1; i < NF; ++i) if ($(i + 1) == "bytes" && $(i + 2) == "smem") smem = $i
            line = "C " stem " " name " " arch " " regs " " smem " " sp
            if (!(name in best) || arch == "sm_90") best[name] = line }
        END { for (k in best) print best[k] }' "$p" >> "$tmp/rec"
done

touch "$tmp/rec"
awk -v archs="$*" '
function ceil_to(x, g) { return int((x + g - 1) / g) * g }
function min(a, b) { return a < b ? a : b }
BEGIN {
    # wave simds waves_per_simd vgpr_total vgpr_granule sgpr_total(0 = none) sgpr_granule
    # lds_per_unit lds_per_wg wgs_per_unit unit
    L["gfx90a"]  = "64 4 8 512 8 800 16 65536 65536 16 CU"
    L["gfx940"]  = "64 4 8 512 8 800 16 65536 65536 16 CU"
    L["gfx1030"] = "32 4 16 1024 16 0 0 131072 65536 32 WGP"
    fail = 0
}
FILENAME ~ /blocks$/ { threads[$1] = $2; next }
$1 == "M" { missing[$2 " " $3] = 1; next }
$1 == "K" { key = $2 " " $3; kern[key] = kern[key] (kern[key] == "" ? "" : "|") $0; stems[$2] = 1; next }
$1 == "C" { cuda[$3] = $0; next }
END {
    na = split(archs, A, " ")
    printf "%-18s %-8s %4s %5s %4s %6s %7s %8s %-24s | %-6s %5s %6s %5s %s\n",
        "kernel", "target", "wave", "VGPR", "SGPR", "LDS", "scratch", "spills", "occupancy (limiter)",
        "cuda", "regs", "smem", "spill", "warps/SM (limiter)"
    ns = 0; for (s in stems) S[++ns] = s
    for (i = 1; i <= ns; ++i) for (j = i + 1; j <= ns; ++j) if (S[j] < S[i]) { t = S[i]; S[i] = S[j]; S[j] = t }
    for (a = 1; a <= na; ++a) for (i = 1; i <= ns; ++i) if ((S[i] " " A[a]) in missing) {
        printf "%-18s %-8s  NOT IN BUNDLE: rebuild with HIP_ARCHS including %s\n", S[i], A[a], A[a]
        fail = 1 }
    for (i = 1; i <= ns; ++i) for (a = 1; a <= na; ++a) {
        key = S[i] " " A[a]
        if (!(key in kern)) continue
        nk = split(kern[key], K, "|")
        for (k = 1; k <= nk; ++k) row(K[k])
    }
    print ""
    print "limits: gfx90a/gfx940 (CDNA2/3, CU): wave64, 4 SIMD, 8 waves/SIMD, 512 VGPR+AGPR/lane, 800 SGPR/SIMD, 64 KiB LDS/CU, 64 KiB/WG"
    print "        gfx1030 (RDNA2, WGP mode): wave32, 4 SIMD32, 16 waves/SIMD, 1024 VGPR/lane, 128 KiB LDS/WGP, 64 KiB/WG"
    print "        sm_90 (H200, SM): 32-wide warps, 64 warps/SM, 32 blocks/SM, 65536 regs/SM (255/thread), 228 KiB smem/SM (227 KiB/block)"
    print "occupancy = waves per SIMD (AMD) or warps per SM (CUDA) that fit at once; the block size comes from the manifest."
    exit fail
}
function row(rec,    r, lim, name, wave, vgpr, sgpr, lds, scratch, vsp, ssp, thr, w, occ, why, x, wg, flag, c, cs) {
    split(rec, r, " ")
    name = r[4]; wave = r[5]; vgpr = r[6]; sgpr = r[8]; lds = r[9]; scratch = r[10]; vsp = r[11]; ssp = r[12]
    thr = (name in threads) ? threads[name] : 1024
    flag = (name in threads) ? "" : " block?"
    if (!(r[3] in L)) { occ = "no limits known"; why = "" }
    else {
        split(L[r[3]], lim, " ")
        w = int((thr + wave - 1) / wave)                       # waves per workgroup
        wg = int(lim[2] * lim[3] / w); why = "waves"            # hardware wave slots
        if (lim[10] < wg) { wg = lim[10]; why = "barriers" }
        x = ceil_to(vgpr < 1 ? 1 : vgpr, lim[5])                # VGPRs allocated per lane
        x = int(lim[2] * min(int(lim[4] / x), lim[3]) / w)
        if (x < wg) { wg = x; why = "VGPR" }
        if (lim[6] > 0) {
            x = int(lim[2] * min(int(lim[6] / ceil_to(sgpr < 1 ? 1 : sgpr, lim[7])), lim[3]) / w)
            if (x < wg) { wg = x; why = "SGPR" }
        }
        if (lds > lim[9]) { wg = 0; why = "LDS > " lim[9] / 1024 " KiB/WG"; fail = 1; flag = flag " LDS-DOES-NOT-FIT" }
        else if (lds > 0) {
            x = int(lim[8] / ceil_to(lds, 512))
            if (x < wg) { wg = x; why = "LDS" }
        }
        occ = sprintf("%d/%d (%s)", min(int(wg * w / lim[2]), lim[3]), lim[3], why)
    }
    if (vsp + ssp > 0 || scratch > 0) flag = flag " SPILLS"
    if (name in cuda) {
        split(cuda[name], c, " ")
        cs = sprintf("%-6s %5d %6d %5d %s", c[4], c[5], c[6], c[7], cuda_occ(c[4], c[5], c[6], thr))
    } else cs = "n/a"
    printf "%-18s %-8s %4d %5d %4d %6d %7d %8s %-24s | %s%s\n", name, r[3], wave, vgpr, sgpr, lds,
        scratch, vsp "v/" ssp "s", occ, cs, flag
}
function cuda_occ(arch, regs, smem, thr,    wpb, b, x, why) {
    if (arch != "sm_90") return "(limits for sm_90 only)"
    wpb = int((thr + 31) / 32)
    b = int(64 / wpb); why = "warps"
    if (32 < b) { b = 32; why = "blocks" }
    if (regs > 0) { x = int(65536 / (ceil_to(regs * 32, 256) * wpb)); if (x < b) { b = x; why = "regs" } }
    x = int(233472 / ceil_to(smem + 1024, 128)); if (x < b) { b = x; why = "smem" }
    return sprintf("%d/64 (%s)", b * wpb, why)
}
' "$tmp/blocks" "$tmp/rec" || status=1
exit $status
