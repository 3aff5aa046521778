# SPDX-License-Identifier: MIT
# tests/integration/cli.sh: the command line (issue 14), make install, the CI examples.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
echo "integration: the command line (issue 14)"
for c in run list bench merge; do
    expect_exit 0 "$c --help" -- "$H" "$c" --help
    expect_exit 0 "help $c" -- "$H" help "$c"
done
expect_exit 0 "--version" -- "$H" --version
if grep -q '^harness [0-9][^ ]* (commit [0-9a-f]' "$T/out" && grep -q '^backends: .*sim:' "$T/out" &&
    grep -q '^cflags: .*-Werror' "$T/out"; then ok "--version names the commit, flags and backends"
else bad "--version names the commit, flags and backends" "$T/out"; fi
expect_exit 2 "bench: unknown option" -- "$H" bench --frobnicate
if grep -q -- "--frobnicate: unknown option" "$T/out"; then ok "the bad option is named"; else bad "the bad option is named" "$T/out"; fi
expect_exit 2 "bench: --sizes=0" -- "$H" bench --sizes=0
expect_exit 2 "merge: no input" -- "$H" merge
expect_exit 2 "merge: unknown option" -- "$H" merge --frobnicate x.jsonl
expect_exit 2 "--width 7 can never run" -- "$H" run --width 7
expect_exit 2 "--shard 1/99999999999" -- "$H" run --shard 1/99999999999
expect_exit 2 "--id with an empty field" -- "$H" run --id 'sim::w32'
expect_exit 2 "--rerun-failed of a missing file" -- "$H" run --rerun-failed "$T/none.jsonl"

if [ -z "$(device_count sim)" ]; then
    skip "--list, --id, --rerun-failed, --shrink" "sim backend not built"
else
    expect_exit 2 "--device past the last device" -- "$H" run --backend sim --device 15
    expect_exit 0 "--list with --opt=value, a comma list and a repeat" -- "$H" run --list --backend=sim \
        --width=4,32 --kernel cuda/sgemm_naive -k cuda/sgemm_tiled --case=edge_15x16x17
    cp "$T/out" "$T/ids"
    if [ "$(cat "$T/ids")" = "$(printf '%s\n' sim:0:w4:cuda/sgemm_naive:edge_15x16x17 \
        sim:0:w4:cuda/sgemm_tiled:edge_15x16x17 sim:0:w32:cuda/sgemm_naive:edge_15x16x17 \
        sim:0:w32:cuda/sgemm_tiled:edge_15x16x17)" ]; then ok "--list prints one pasteable id per result"
    else bad "--list prints one pasteable id per result" "$T/ids"; fi
    id=$(sed -n 3p "$T/ids")
    expect_exit 0 "--trace FILE" -- "$H" run --backend sim --width 4,32 --kernel 'cuda/sgemm_naive,cuda/sgemm_tiled' \
        --case 'edge_15x16x17,edge_1x2x3' --trace "$T/trace.json"
    if python3 - "$T/trace.json" >"$T/py" 2>&1 <<'PY'; then
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
spans = lambda cat: [e for e in ev if e.get("cat") == cat and e["ph"] == "X" and e["dur"] >= 0]
groups = spans("group")
assert sorted(e["name"] for e in groups) == ["cuda/sgemm_naive"] * 2 + ["cuda/sgemm_tiled"] * 2, groups
assert sorted(e["name"] for e in spans("data")) == ["edge_15x16x17", "edge_1x2x3"], spans("data")
assert {"probe", "run"} <= {e["name"] for e in spans("harness")}
workers = {e["tid"]: e for e in spans("worker")}
named = {e["tid"] for e in ev if e["ph"] == "M"}
for g in groups:  # each group inside the life of the worker it ran on, whose track has a name
    w = workers[g["tid"]]
    assert w["ts"] <= g["ts"] and g["ts"] + g["dur"] <= w["ts"] + w["dur"] and g["tid"] in named, (g, w)
PY
        ok "--trace: every group on its worker, every case's data, the probe (Chrome trace events)"
    else bad "--trace: every group on its worker, every case's data, the probe (Chrome trace events)" "$T/py"; fi
    expect_exit 0 "--devices all --trace FILE" -- "$H" run --backend sim --devices all --width 32 \
        --kernel cuda/sgemm_naive --case edge_1x2x3 --trace "$T/dtrace.json"
    if [ ! -e "$T/dtrace.json" ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/dtrace.json.device0"; then
        ok "--devices all: each device's shard traces into FILE.deviceK, none overwrites another's"
    else bad "--devices all: each device's shard traces into FILE.deviceK, none overwrites another's" "$T/out"; fi
    expect_exit 2 "--trace into a folder that does not exist" -- "$H" run --backend sim --width 32 \
        --kernel cuda/sgemm_naive --case edge_1x2x3 --trace "$T/no/such/trace.json"
    if grep -q -- "--trace $T/no/such/trace.json: No such file" "$T/out"; then ok "the bad --trace path is named"
    else bad "the bad --trace path is named" "$T/out"; fi
    expect_exit 0 "--id re-runs one listed result" -- "$H" run --id "$id" --json "$T/id.jsonl"
    json_check "--id ran exactly that result" "$T/id.jsonl" \
        "[(r['backend'], r['width'], r['lang'] + '/' + r['kernel'], r['case']) for r in recs] == [('sim', 32, 'cuda/sgemm_naive', 'edge_15x16x17')]"
    "$H" run --list --backend sim --width 8,32 --kernel 'cuda/*' --case 'edge_15x16x17,sum_4097' >"$T/ids2" 2>&1
    "$H" run --backend sim --width 8,32 --kernel 'cuda/*' --case 'edge_15x16x17,sum_4097' --timeout 10 \
        --json "$T/ids2.jsonl" >"$T/out" 2>&1
    json_check "--list names exactly the results a run makes" "$T/ids2.jsonl" \
        "sorted('%s:0:w%d:%s/%s:%s' % (r['backend'], r['width'], r['lang'], r['kernel'], r['case']) for r in recs if r['case'] != '*') == sorted(open('$T/ids2').read().split())"
    name=$("$H" list | awk '$1 == "cuda/sgemm_tiled" { print $1 }')
    if [ -n "$name" ] && "$H" run --list --backend sim --width 32 --kernel "$name" --case edge_1x2x3 >"$T/out" 2>&1 &&
        [ "$(cat "$T/out")" = "sim:0:w32:cuda/sgemm_tiled:edge_1x2x3" ]; then ok "harness list names paste into --kernel"
    else bad "harness list names paste into --kernel ('$name')" "$T/out"; fi

    SH=tests/data/shrink/shrink.manifest
    expect_exit 1 "a planted bug fails past 16 rows" -- "$H" run --backend sim --width 32 --manifest "$SH" \
        --only-manifest --case 'edge_1[25]*,exact_9*' --json "$T/planted.jsonl"
    json_check "3 FAIL, 2 PASS" "$T/planted.jsonl" \
        "sorted(r['verdict'] for r in recs) == ['FAIL', 'FAIL', 'FAIL', 'PASS', 'PASS']"
    # The reproducer's form (backend, device, width, kernel, case, manifest) reruns that one result.
    expect_exit 1 "the reproducer command reruns the failing case" -- "$H" run --backend sim --device 0 --width 32 \
        --kernel cuda/tile_edge --case edge_129x1x2 --manifest "$SH" --only-manifest --json "$T/repro.jsonl"
    python3 -c "import json; json.dump([json.loads(l) for l in open('$T/planted.jsonl') if '\"edge_129x1x2\"' in l], open('$T/planted.json', 'w'))"
    json_check "the rerun has the original's verdict and classes" "$T/repro.jsonl" \
        "[(r['case'], r['verdict'], r['classes']) for r in recs] == [(r['case'], r['verdict'], r['classes']) for r in json.load(open('$T/planted.json'))]"
    expect_exit 1 "--rerun-failed" -- "$H" run --backend sim --manifest "$SH" --only-manifest \
        --rerun-failed "$T/planted.jsonl" --json "$T/rerun.jsonl"
    json_check "--rerun-failed reran exactly the failures" "$T/rerun.jsonl" \
        "sorted((r['width'], r['case'], r['verdict']) for r in recs) == [(32, c, 'FAIL') for c in ('edge_127x128x129', 'edge_128x129x1', 'edge_129x1x2')]"
    expect_exit 0 "--rerun-failed of a green run has nothing to do" -- "$H" run --rerun-failed "$T/id.jsonl"

    expect_exit 1 "--shrink" -- "$H" run --backend sim --width 32 --manifest "$SH" --only-manifest \
        --case edge_127x128x129 --guard-kib 8 --shrink
    if grep -q "^shrink: sim:0:w32:cuda/tile_edge:edge_127x128x129 FAIL wrong: still fails at M=17 N=1 K=1" "$T/out"
    then ok "--shrink finds the smallest failing size (127x128x129 to 17x1x1)"
    else bad "--shrink finds the smallest failing size" "$T/out"; fi
    # The run's own reproducer: the binary as it was called, paths as given, so it runs from
    # the folder the run ran in (where it writes shrunk.cases).
    repro=$(sed -n 's/^  reproduce: //p' "$T/out")
    case $repro in
        *"&& $H run --backend sim "*"--only-manifest "*"--guard-kib 8") ok "the shrink reproducer is the run's own: the binary called, its manifest, its guard bands" ;;
        *) bad "the shrink reproducer is the run's own: the binary called, its manifest, its guard bands" "$T/out" ;;
    esac
    [ -e shrunk.cases ] && mv shrunk.cases "$T/shrunk.cases.before"
    eval "$repro --json $T/shrunk.jsonl" >"$T/out2" 2>&1
    rm -f shrunk.cases
    [ -e "$T/shrunk.cases.before" ] && mv "$T/shrunk.cases.before" shrunk.cases
    json_check "the shrunk reproducer fails the same way" "$T/shrunk.jsonl" \
        "[(r['M'], r['N'], r['K'], r['verdict'], r['classes']) for r in recs] == [(17, 1, 1, 'FAIL', 'wrong')]"
    expect_exit 0 "--shrink a canary" -- "$H" run --backend sim --width 32 --kernel cuda/fault_unwritten \
        --case edge_127x128x129 --shrink
    if grep -q "^shrink: .*cuda/fault_unwritten:edge_127x128x129 XFAIL unwritten: still fails at M=1 N=1 K=1" "$T/out"
    then ok "--shrink keeps a canary's class (unwritten at 1x1x1)"; else bad "--shrink keeps a canary's class" "$T/out"; fi
    # The shrunk line is the op's case as its line gave it: the scalars it gave stay (issue 48).
    printf 'sgemm scaled_33x2x2 M=33 N=2 K=2 alpha=2 beta=0.25 dist=exact\n' >"$T/scaled.cases"
    expect_exit 1 "--shrink a case that gives alpha and beta" -- "$H" run --backend sim --width 32 --manifest "$SH" \
        --only-manifest --cases "$T/scaled.cases" --shrink
    if grep -qF "'sgemm scaled_33x2x2_shrunk_17x1x1 M=17 N=1 K=1 alpha=2 beta=0.25 dist=exact seed=" "$T/out"
    then ok "the shrunk case keeps the alpha and beta its line gave"; else bad "the shrunk case keeps the alpha and beta its line gave" "$T/out"; fi
fi

echo "integration: make install, then the installed binary from another folder"
if make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$T/inst" PREFIX=/usr >"$T/out" 2>&1; then
    ok "make install DESTDIR=... PREFIX=/usr"
    if [ -z "$(device_count sim)" ]; then
        skip "the installed binary runs" "sim backend not built"
    else
        (cd / && "$T/inst/usr/bin/harness" run --backend sim --width 32 --kernel cuda/sgemm_naive \
            --case edge_15x16x17 --json "$T/inst.jsonl") >"$T/out" 2>&1
        rc=$?
        if [ $rc = 0 ]; then ok "installed harness runs from / (exit 0)"; else bad "installed harness exit $rc" "$T/out"; fi
        json_check "installed harness: one PASS" "$T/inst.jsonl" "[r['verdict'] for r in recs] == ['PASS']"
    fi
    if (cd / && "$T/inst/usr/bin/harness" --version) | grep -qx "data: *$T/inst/usr/share/gpu-harness .*"; then
        ok "installed harness finds its data next to itself"
    else bad "installed harness finds its data next to itself" "$T/out"; fi
    if HB_ROOT="$PWD" "$T/inst/usr/bin/harness" --version | grep -qx "data: *$PWD .*"; then ok "HB_ROOT still overrides"
    else bad "HB_ROOT still overrides" "$T/out"; fi
else
    bad "make install DESTDIR=... PREFIX=/usr" "$T/out"
fi

echo "integration: the CI examples"
if python3 -c 'import yaml' 2>/dev/null; then
    if python3 - >"$T/py" 2>&1 <<'PY'
import re, yaml
class Loader(yaml.SafeLoader): pass
Loader.add_constructor('!reference', lambda loader, node: loader.construct_sequence(node))
gh = yaml.load(open('ci/github-actions.yml'), Loader=Loader)
on = gh.get(True, gh.get('on'))
assert 'pull_request_target' not in on, 'pull_request_target runs fork code with secrets'
for name, job in gh['jobs'].items():
    runner = job['runs-on']
    if 'self-hosted' in runner:
        events = set(re.findall(r"github\.event_name == '(\w+)'", job.get('if', '')))
        assert events and events <= {'push', 'merge_group', 'workflow_dispatch', 'schedule'}, (name, job.get('if'))
        assert '!=' not in job['if'], (name, 'a negative condition lets pull requests in')
    for step in job['steps']:
        if 'action-junit-report' in step.get('uses', ''):
            assert job.get('permissions', {}).get('checks') == 'write', (name, 'checks: write')
report = yaml.load(open('ci/github-report.yml'), Loader=Loader)
assert list(report.get(True, report.get('on'))) == ['workflow_run'] and report['permissions']['checks'] == 'write'
assert not any('checkout' in s.get('uses', '') for j in report['jobs'].values() for s in j['steps'])
gl = yaml.load(open('ci/gitlab-ci.yml'), Loader=Loader)
# Every job, with what it extends: one without stage: is in GitLab's default stage, test.
keywords = {'default', 'include', 'stages', 'variables', 'workflow', 'image', 'services', 'cache',
            'before_script', 'after_script'}
def merged(name):
    job, out = dict(gl[name]), {}
    parents = job.pop('extends', [])
    for p in [parents] if isinstance(parents, str) else parents:
        out.update(merged(p))
    out.update(job)
    return out
jobs = [n for n in gl if not n.startswith('.') and n not in keywords]
assert jobs, 'no GitLab jobs'
for name in jobs:
    job = merged(name)
    assert job.get('image') or gl.get('default', {}).get('image'), (name, 'every GitLab job names its image')
    assert job.get('stage', 'test') in gl['stages'], (name, job.get('stage', 'test'))
print('ok')
PY
    then ok "workflows: no fork code on GPU runners, checks: write, every GitLab job has an image"
    else bad "CI examples" "$T/py"; fi
else
    skip "CI examples" "python3 yaml module missing"
fi
if sh -n ci/install-deps.sh; then ok "install-deps.sh parses"; else bad "install-deps.sh parses"; fi
