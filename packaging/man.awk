# man.awk: harness(1) in man(7) roff, from the records from-help.sh reads out of `harness help`
# (C command, X exit code line, U usage, D description line, O option). Only the prose that
# help does not print (what the tool is, its files and environment) is written here.
function esc(s) {
    gsub(/\\/, "\\\\e", s)
    gsub(/-/, "\\\\-", s)
    if (s ~ /^[.']/)
        s = "\\&" s
    return s
}
function usage_line(u,    name, rest) {
    sub(/^usage: harness /, "", u)
    name = u
    sub(/ .*/, "", name)
    rest = substr(u, length(name) + 1)
    return "\\fBharness " esc(name) "\\fR" esc(rest)
}
$1 == "C" { ncmd++; cname[ncmd] = $2; ctext[ncmd] = $3 }
$1 == "X" { line = $3; sub(/^exit codes: */, "", line); exits = exits (exits == "" ? "" : " ") line }
$1 == "U" { usage[$2] = $3 }
$1 == "D" { desc[$2] = desc[$2] (desc[$2] == "" ? "" : "\n") $3 }
$1 == "O" {
    if (!($2 in nopt))
        ocmd[++nocmd] = $2
    n = ++nopt[$2]
    tag = ($3 != "" ? "\\fB" esc($3) "\\fR, " : "") "\\fB\\-\\-" esc($4) "\\fR" ($5 != "" ? " \\fI" esc($5) "\\fR" : "")
    opt[$2, n] = ".TP\n" tag "\n" esc($6)
    sig[$2] = sig[$2] "|" $3 $4 $5 $6
}
END {
    print ".\\\" harness.1: generated from `harness help` by packaging/from-help.sh; edit the option tables, not this."
    printf ".TH HARNESS 1 \"%s\" \"gpu-harness %s\" \"User Commands\"\n", date, version
    print ".SH NAME"
    print "harness \\- conformance checks for GPU compute kernels on every backend and warp width"
    print ".SH SYNOPSIS"
    for (i = 1; i <= nocmd; i++)
        print (i > 1 ? ".br\n" : "") usage_line(usage[ocmd[i]])
    print ".br\n\\fBharness \\-\\-version\\fR\n.br\n\\fBharness help\\fR [\\fIcommand\\fR]"
    print ".SH DESCRIPTION"
    print "\\fBharness\\fR runs every kernel on each available backend (Vulkan compute, CUDA, HIP, and a"
    print "CPU SIMT emulator), at every warp or subgroup width the device offers, over odd sizes and edge"
    print "cases; compares each result with OpenBLAS and a float64 reference under error bounds; and says"
    print "what diverged: kernel, backend, device, width, case, how many elements, how large the error and"
    print "where. Kernels are data: a manifest describes a kernel as it is written (see \\fB\\-\\-manifest\\fR)."
    print ".SH COMMANDS"
    for (i = 1; i <= ncmd; i++)
        printf ".TP\n\\fB%s\\fR\n%s\n", esc(cname[i]), esc(ctext[i])
    for (i = 1; i <= nocmd; i++) {
        c = ocmd[i]
        printf ".SH \"%s OPTIONS\"\n", toupper(c)
        n = split(desc[c], lines, "\n")
        for (j = 1; j <= n; j++)
            if (lines[j] != "") {
                l = lines[j]
                sub(/^ +/, "", l)
                print (l ~ /^exit codes:/ ? ".PP\n" : "") esc(l)
            }
        for (j = 1; j < i; j++)
            if (sig[ocmd[j]] == sig[c])
                break
        if (j < i) {
            printf ".PP\nThe options of \\fBharness %s\\fR.\n", esc(ocmd[j])
            continue
        }
        for (j = 1; j <= nopt[c]; j++)
            print opt[c, j]
    }
    print ".SH \"EXIT STATUS\""
    print esc(exits)
    print ".SH ENVIRONMENT"
    print ".TP\n.B HB_ROOT\nwhere the kernel sources, manifests and cases are (default: found from the binary's own place)"
    print ".TP\n.B HB_BUILD_DIR\nwhere the backends and built kernels are (default: likewise)"
    print ".TP\n.B XDG_CACHE_HOME\nkernels compiled at run time are cached in \\fI$XDG_CACHE_HOME/gpu\\-harness\\fR"
    print ".SH FILES"
    print ".TP\n.I PREFIX/share/gpu\\-harness\nkernel sources and manifests (\\fIkernels/\\fR), case catalogues (\\fIcases/\\fR)"
    print ".TP\n.I PREFIX/lib/gpu\\-harness\nthe binary, its backends and built kernels"
    print ".TP\n.I PREFIX/lib/cmake/gpu\\-harness\n\\fBfind_package(gpu\\-harness)\\fR and \\fBgpu_harness_add_test()\\fR for ctest"
    print ".SH \"SEE ALSO\""
    print "The README, \\fIkernels/README.md\\fR (manifests), \\fIcases/README.md\\fR (case catalogues) and"
    print "\\fIdocs/json\\-schema.md\\fR (the \\fB\\-\\-json\\fR records) in the source tree."
}
