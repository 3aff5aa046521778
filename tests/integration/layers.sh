# SPDX-License-Identifier: MIT
# tests/integration/layers.sh: the core's layers (abi < lib < core < report < run < cmd)
# only reach down. Every quoted include resolves in its own layer or one below it, and the
# build itself refuses an upward include: a file compiled with the core layer's include
# paths, as make compiles harness/core/*.c, cannot see the reports' header. Calls likewise:
# make layers passes on the tree and fails on a copy of the archives with a call up. And no
# file outside an op's own names an op (tests/op_names.py). Sourced by integration.sh.

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

# run/ has a top: its files' include-and-call graph has no circle, so each part of the run
# stands on the parts below it (run.c and listing.c on top; rows, the door, the protocol at
# the bottom). A module is a .c with its own .h; includes are read from the sources, calls from
# the objects make built (a name one defines and another uses, as nm lists them).
if python3 - "$BUILD/obj/harness/run" >"$T/circles" 2>&1 <<'PY'
import os, re, subprocess, sys
src, objdir = "harness/run", sys.argv[1]
mod = lambda f: os.path.splitext(f)[0]
files = sorted(os.listdir(src))
edges = {}
def edge(a, b, why):
    if a != b:
        edges.setdefault(a, {}).setdefault(b, why)
for f in files:
    for line in open(os.path.join(src, f), encoding="utf-8"):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if m and m.group(1) in files:
            edge(mod(f), mod(m.group(1)), f"{f} includes {m.group(1)}")
objs = [mod(f) + ".o" for f in files if f.endswith(".c")]  # a stale object of a removed file is no module
if not all(os.path.isfile(os.path.join(objdir, o)) for o in objs):
    sys.exit(f"{objdir}: the objects of harness/run/*.c are not all built")
defined, used = {}, {}
for o in objs:
    for line in subprocess.run(["nm", os.path.join(objdir, o)], capture_output=True, text=True, check=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRC":
            defined[p[2]] = mod(o)
        elif len(p) == 2 and p[0] == "U":
            used.setdefault(mod(o), set()).add(p[1])
for a, names in used.items():
    for n in sorted(names):
        if n in defined:
            edge(a, defined[n], f"{a}.c uses {n} of {defined[n]}.c")
state, stack = {}, []
def visit(a):
    state[a] = 1
    stack.append(a)
    for b in sorted(edges.get(a, {})):
        if state.get(b) == 1:
            loop = stack[stack.index(b):] + [b]
            sys.exit("a circle: " + "; ".join(edges[x][y] for x, y in zip(loop, loop[1:])))
        if b not in state:
            visit(b)
    stack.pop()
    state[a] = 2
for a in sorted(edges):
    if a not in state:
        visit(a)
PY
then ok "run/'s files include and call one another without a circle"; else bad "run/'s files include or call in a circle" "$T/circles"; fi

# One door to the backends (run/backend_call.c): only it and the loader hold a backend's table,
# so every optional method is tested there once and a kernel is loaded only by its rule
# (prepare first). No other file names struct hb_backend or calls through a table `be`; the
# check is shown a planted call first, which it must catch.
if python3 - >"$T/door" 2>&1 <<'PY'
import pathlib, re, sys
door = {"harness/run/backend_call.c", "harness/run/backend_call.h", "harness/run/loader.c", "harness/run/loader.h"}
table = re.compile(r"\bstruct\s+hb_backend\b|\bbe\s*->|->\s*be\s*->")
def strays(named):
    return [f"{p}:{n}: {l.strip()}" for p, text in named for n, l in enumerate(text.splitlines(), 1)
            if table.search(l)]
planted = [("harness/run/planted.c", "static int f(const struct bcall *b) { return b->be->launch(0, 0, 0, 0, 0); }")]
if not strays(planted):
    sys.exit("the check misses a planted call through the table")
files = [p for layer in ("lib", "core", "report", "run", "cmd") for p in sorted(pathlib.Path("harness", layer).glob("*.[ch]"))
         if str(p) not in door]
found = strays((str(p), p.read_text(encoding="utf-8")) for p in files)
print("\n".join(found))
sys.exit(1 if found else 0)
PY
then ok "only the door (run/backend_call.c) and the loader touch a backend's table"; else bad "a backend call outside the door" "$T/door"; fi

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
