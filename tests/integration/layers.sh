# SPDX-License-Identifier: MIT
# tests/integration/layers.sh: the core's layers (abi < lib < core < report < run < cmd)
# only reach down. Every quoted include resolves in its own layer or one below it, and the
# build itself refuses an upward include: a file compiled with the core layer's include
# paths, as make compiles harness/core/*.c, cannot see the reports' header. And no file
# outside an op's own names an op (tests/op_names.py). Sourced by integration.sh.

echo "integration: the core's layers only reach down"
if python3 - >"$T/layers" 2>&1 <<'PY'
import os, re, sys
order = ["abi", "lib", "core", "report", "run", "cmd"]
where = {}
for layer in order:
    for f in os.listdir("harness/" + layer):
        where[f] = layer
where.update({f: "core" for f in os.listdir("reference")})
bad = []
for layer in order:
    for f in sorted(os.listdir("harness/" + layer)):
        for n, line in enumerate(open(f"harness/{layer}/{f}", encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if m and m.group(1) in where and order.index(where[m.group(1)]) > order.index(layer):
                bad.append(f"harness/{layer}/{f}:{n}: includes {m.group(1)} from {where[m.group(1)]}/")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "every include in harness/<layer>/ is of its own layer or one below"; else bad "an include reaches up a layer" "$T/layers"; fi

# The include paths make gives each layer, read from the commands it would run.
layer_flags() {
    make --no-print-directory -s -n -W "harness/$1/$2" "$BUILD/obj/harness/$1/${2%.c}.o" BUILD="$BUILD" 2>/dev/null |
        grep -- "-c harness/$1/$2" | grep -o -- '-I[^ ]*' | tr '\n' ' '
}
printf '#include "report.h"\nint main(void) { return 0; }\n' >"$T/upward.c"
core_flags=$(layer_flags core op.c) report_flags=$(layer_flags report report.c)
if [ -z "$core_flags" ] || [ -z "$report_flags" ]; then
    bad "make names each layer's include paths" /dev/null
else
    # shellcheck disable=SC2086 # the flags are words
    if cc $core_flags -fsyntax-only "$T/upward.c" >"$T/up.out" 2>&1; then
        bad "a core file that includes report.h does not compile ($core_flags)" "$T/up.out"
    elif grep -q 'report.h' "$T/up.out"; then
        ok "a core file that includes report.h does not compile"
    else
        bad "a core file that includes report.h fails for the include" "$T/up.out"
    fi
    # shellcheck disable=SC2086
    if cc $report_flags $(pkg-config --cflags openblas json-c 2>/dev/null) -fsyntax-only "$T/upward.c" >"$T/up.out" 2>&1; then
        ok "the report layer itself sees report.h"
    else
        bad "the report layer itself sees report.h" "$T/up.out"
    fi
fi

# The house limits: no C file of ours over 500 lines, no function over 80 (a function is what
# stands between a `{` and a `}` at the start of a line, as clang-format lays them out).
if python3 - >"$T/limits" 2>&1 <<'PY'
import pathlib, sys
bad = []
files = [p for d in ("harness", "reference", "tests") for p in pathlib.Path(d).rglob("*")
         if p.suffix in (".c", ".h", ".cc") and "nv-include" not in p.parts and "data" not in p.parts]
for p in files:
    lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
    if len(lines) > 500:
        bad.append(f"{p}: {len(lines)} lines")
    start = None
    for n, line in enumerate(lines, 1):
        if line == "{":
            start = n
        elif line.startswith("}") and start is not None:
            if n - start - 1 > 80:
                bad.append(f"{p}:{start}: a function of {n - start - 1} lines")
            start = None
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "no C file over 500 lines, no function over 80"; else bad "a C file over 500 lines or a function over 80" "$T/limits"; fi

# An op is one file (harness/core/op.h): no file outside an op's own names an op constant, an
# op's name or one of its size keys (tests/op_names.py counts them); and the count sees a use
# planted in a copy of the tree.
if python3 tests/op_names.py . >"$T/op_names" 2>&1; then
    ok "no file outside an op's own names an op, its name or its sizes"
else
    bad "a file outside an op's own names an op, its name or its sizes" "$T/op_names"
fi
rm -rf "$T/planted" && mkdir -p "$T/planted/harness"
for layer in abi lib core report run cmd; do cp -r "harness/$layer" "$T/planted/harness/"; done
cat >>"$T/planted/harness/run/plan.c" <<'C'
static long planted(const struct hb_case *c) { return c->op == OP_SGEMM_STRIDED ? case_size(c, "lda") : 0; }
static const char *planted_why = "layout applies to sgemm only";
C
if python3 tests/op_names.py "$T/planted" >"$T/op_planted" 2>&1; then
    bad "the op count sees a planted use" "$T/op_planted"
elif [ "$(grep -c '^harness/run/plan.c:' "$T/op_planted")" = 3 ]; then
    ok "the op count sees a planted constant, key and name"
else
    bad "the op count names the planted constant, key and name" "$T/op_planted"
fi
