# SPDX-License-Identifier: MIT
# tests/integration/layers.sh: the core's layers (abi < lib < core < report < run < cmd)
# only reach down. Every quoted include resolves in its own layer or one below it, and the
# build itself refuses an upward include: a file compiled with the core layer's include
# paths, as make compiles harness/core/*.c, cannot see the reports' header. Calls likewise:
# make layers passes on the tree and fails on a copy of the archives with a call up.
# Sourced by integration.sh.

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
    # shellcheck disable=SC2086,SC2046 # the flags are words
    if cc $report_flags $(pkg-config --cflags openblas json-c 2>/dev/null) -fsyntax-only "$T/upward.c" >"$T/up.out" 2>&1; then
        ok "the report layer itself sees report.h"
    else
        bad "the report layer itself sees report.h" "$T/up.out"
    fi
fi

# Calls, as includes, only reach down: make layers reads the archives' symbols (tools/layer_calls.sh).
echo "integration: the core's layers only call down"
if make --no-print-directory -s layers BUILD="$BUILD" >"$T/out" 2>&1; then
    ok "make layers: no object of a layer uses a name a layer above defines"
else
    bad "make layers: no object of a layer uses a name a layer above defines" "$T/out"
fi
# A copy of the archives whose core holds an object that calls the reports: the link would take
# it whenever the reports' object is in already, the layer check must not.
mkdir -p "$T/up"
cp "$BUILD"/obj/libhb_*.a "$T/up/"
up_sym=$(nm -g --defined-only "$T/up/libhb_report.a" | awk '$2 == "T" { print $3; exit }')
printf 'void %s(void);\nvoid layers_upcall(void) { %s(); }\n' "$up_sym" "$up_sym" >"$T/upcall.c"
if [ -z "$up_sym" ] || ! cc -c "$T/upcall.c" -o "$T/upcall.o" >"$T/out" 2>&1 || ! ar rs "$T/up/libhb_core.a" "$T/upcall.o" >>"$T/out" 2>&1; then
    bad "a copy of the core archive with a call up into the reports" "$T/out"
elif sh tools/layer_calls.sh "$T/up" lib core report run cmd >"$T/out" 2>&1; then
    bad "the layer check fails on a core object that calls $up_sym (report/)" "$T/out"
elif grep -qx "harness/core/upcall.o calls $up_sym, defined in report/ (a layer above)" "$T/out"; then
    ok "the layer check fails on a core object that calls $up_sym, naming the object, the name and the layer"
else
    bad "the layer check names the object, the name and the layer" "$T/out"
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
