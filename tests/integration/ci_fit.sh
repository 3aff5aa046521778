# SPDX-License-Identifier: MIT
# tests/integration/ci_fit.sh: the harness inside other tools (issue 30): what make install
# adds (man page, bash completion, CMake package, pkg-config file), the example CMake project
# run by ctest against an installed harness, the GitHub Action's summary and annotations, and
# the CI examples as GitLab and GitHub read them.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/expect_exit helpers.
echo "integration: the harness in other tools' builds and CI (issue 30)"
CF=$T/ci_fit
CFP=/opt/gpu-harness
mkdir -p "$CF"
# check NAME FILE -- command...: ok when the command succeeds, else bad with FILE (its output).
check() {
    local name=$1 log=$2; shift 3
    if "$@" >"$log" 2>&1; then ok "$name"; else bad "$name" "$log"; fi
}
no_cuda_device() { local n; n=$(device_count cuda); [ -z "$n" ] || [ "$n" = 0 ]; }

# --- make install: the man page, completion, CMake package and pkg-config file -------------------
if make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$CF/inst" PREFIX="$CFP" >"$CF/install.out" 2>&1; then
    P=$CF/inst$CFP
    check "make install adds harness(1), bash completion, the CMake package and gpu-harness.pc" "$CF/files" -- \
        ls "$P/share/man/man1/harness.1" "$P/share/bash-completion/completions/harness" \
        "$P/lib/cmake/gpu-harness/gpu-harnessConfig.cmake" "$P/lib/cmake/gpu-harness/gpu-harnessConfigVersion.cmake" \
        "$P/share/pkgconfig/gpu-harness.pc"
else
    bad "make install DESTDIR=... PREFIX=$CFP" "$CF/install.out"
    P=
fi

# The options each command's help lists, one per line: what the man page and completion must offer.
help_options() { "$H" help "$1" | grep -E '^  (-[A-Za-z], |    )--' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
help_commands() { "$H" help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ && $1 != "version" && $1 != "help" { print $1 }'; }
if [ -n "$P" ]; then
    # The roff source as text: \- is a hyphen, \fB and \fR are fonts; a .TP's tag is the line after it.
    sed -e 's/\\-/-/g' -e 's/\\f[BIR]//g' "$P/share/man/man1/harness.1" >"$CF/man.txt"
    missing=
    for c in $(help_commands); do
        # COMMANDS: the name as a .TP tag, then its text alone.
        grep -A1 -x -- "$c" "$CF/man.txt" | sed -n 2p | grep -q -- "^ *$c  \|^$" && missing="$missing $c(text)"
        grep -qx -- "$c" "$CF/man.txt" || missing="$missing $c"
        for o in $(help_options "$c"); do
            grep -q -- "^\(-[A-Za-z], \)\?$o\( \|$\)" "$CF/man.txt" || missing="$missing $c:$o"
        done
    done
    if [ -z "$missing" ] && [ "$(help_commands | wc -l)" -ge 4 ] && grep -q '^\.SH "RUN OPTIONS"' "$CF/man.txt"; then
        ok "harness.1 has every command harness help lists, and an entry for every option of each"
    else echo "missing:$missing" >"$CF/man.miss"; bad "harness.1 has every command harness help lists, and an entry for every option of each" "$CF/man.miss"; fi
    if command -v groff >/dev/null; then
        groff -man -ww -z "$P/share/man/man1/harness.1" >"$CF/groff.out" 2>&1
        if [ ! -s "$CF/groff.out" ]; then ok "harness.1: groff -man -ww finds nothing to warn of"
        else bad "harness.1: groff -man -ww finds nothing to warn of" "$CF/groff.out"; fi
    else
        skip "harness.1 through groff" "groff not installed"
    fi

    # Completion: what _harness offers for the words typed so far (the last one being completed).
    complete_words() {
        bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _harness
            printf "%s\n" "${COMPREPLY[@]}"' _ "$P/share/bash-completion/completions/harness" "$@" | sort -u
    }
    complete_words harness run -- >"$CF/comp.run"
    help_options run >"$CF/help.run"
    if [ -s "$CF/help.run" ] && diff "$CF/help.run" "$CF/comp.run" >"$CF/comp.diff"; then
        ok "bash completion offers every option harness help run lists, and only those"
    else bad "bash completion offers every option harness help run lists, and only those" "$CF/comp.diff"; fi
    {
        complete_words harness run --backend "" | tr '\n' ' '
        echo "| $(complete_words harness run --tier = st) | $(complete_words harness me) |"
        complete_words harness run --manifest tests/data/ukern/gemm_ | tr '\n' ' '
    } >"$CF/comp.values"
    if [ "$(cat "$CF/comp.values")" = "cuda hip sim vulkan | standard | merge |
tests/data/ukern/gemm_ab.comp tests/data/ukern/gemm_colmajor.cu tests/data/ukern/gemm_rowmajor.cu " ]; then
        ok "completion: commands, backend and tier values (--opt value and --opt=value), file names"
    else bad "completion: commands, backend and tier values, file names" "$CF/comp.values"; fi
fi

# Both follow the binary: a help text with an option no table has yet reaches man page and completion.
cat >"$CF/fake-harness" <<'EOF'
#!/bin/sh
if [ "$#" = 1 ]; then
    printf 'usage: harness <command> [options]\n\ncommands:\n  run       run things\n\nexit codes: 0 fine\n'
else
    printf 'usage: harness run [options]\nRuns.\n\noptions:\n'
    printf '      --frobnicate-everything-at-once-please FILE some text\n'
    printf '  -z, --zap                    zaps\n                               more about zapping\n'
fi
EOF
chmod +x "$CF/fake-harness"
packaging/from-help.sh man "$CF/fake-harness" 9.9 >"$CF/fake.1" 2>&1
packaging/from-help.sh bash "$CF/fake-harness" >"$CF/fake.bash" 2>&1
if grep -q 'frobnicate\\-everything\\-at\\-once\\-please\\fR \\fIFILE' "$CF/fake.1" && grep -q '^zaps more about zapping$' "$CF/fake.1" &&
    grep -q -- '--frobnicate-everything-at-once-please --zap' "$CF/fake.bash" &&
    grep -q -- '--frobnicate-everything-at-once-please) echo file' "$CF/fake.bash"; then
    ok "man page and completion come from the binary's help: a new option (long head, wrapped text) reaches both"
else bad "man page and completion come from the binary's help" "$CF/fake.1"; fi

# --- pkg-config and the CMake package ------------------------------------------------------------
if [ -n "$P" ] && command -v pkg-config >/dev/null; then
    version=$("$H" --version | sed -n 's/^harness \([^ ]*\) .*/\1/p')
    pcv() { PKG_CONFIG_PATH="$P/share/pkgconfig" pkg-config "$@" gpu-harness; }
    if [ "$(pcv --variable=harness)" = "$CFP/bin/harness" ] && [ "$(pcv --modversion)" = "$version" ] &&
        "$(pcv --define-prefix --variable=harness)" --version >"$CF/pc.out" 2>&1; then
        ok "gpu-harness.pc: the binary's path under PREFIX, the version; --define-prefix finds the DESTDIR copy"
    else pcv --print-variables >"$CF/pc.out" 2>&1; bad "gpu-harness.pc: the binary's path and the version" "$CF/pc.out"; fi
else
    skip "gpu-harness.pc" "no install or no pkg-config"
fi

if [ -z "$P" ] || ! command -v cmake >/dev/null || ! command -v ctest >/dev/null; then
    skip "the CMake package and examples/cmake" "no install, or cmake/ctest not installed"
elif [ -z "$(device_count sim)" ]; then
    skip "the CMake package and examples/cmake" "sim backend not built"
else
    # The example project, configured against the installed harness alone.
    check "examples/cmake configures against the installed package (find_package(gpu-harness 0.2))" "$CF/cmake.out" -- \
        cmake -S examples/cmake -B "$CF/ex" -DCMAKE_PREFIX_PATH="$P"
    (cd "$CF/ex" && ctest --output-junit ctest.xml) >"$CF/ctest.out" 2>&1
    want_cuda=skipped
    no_cuda_device || want_cuda=passed
    if python3 - "$CF/ex/ctest.xml" "$want_cuda" >"$CF/ctest.py" 2>&1 <<'PY'; then
import sys, xml.etree.ElementTree as ET
got = {}
for t in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    got[t.get("name")] = "skipped" if t.find("skipped") is not None else "failed" if t.find("failure") is not None else t.get("status")
want = {"block_sum_sim": "run", "block_sum_w32_sim": "failed", "block_sum_cuda": sys.argv[2].replace("passed", "run")}
print(got)
sys.exit(got != want)
PY
        ok "ctest: the right kernel passes on sim, its broken twin fails, cuda without a device skips (exit 3)"
    else cat "$CF/ctest.out" >>"$CF/ctest.py"; bad "ctest: right kernel passes, broken twin fails, cuda skips" "$CF/ctest.py"; fi
    json_check "the broken twin's JSON lines, per test in the build folder: FAIL at width 64 only" \
        "$CF/ex/gpu-harness/block_sum_w32_sim.jsonl" \
        "{r['width'] for r in recs if r['verdict'] == 'FAIL'} == {64} and find(width=32, verdict='PASS')"
    check "each test's JUnit and JSON lines are gpu-harness/NAME.xml and NAME.jsonl in the build folder" "$CF/xml.out" -- \
        xmllint --noout "$CF/ex/gpu-harness/block_sum_sim.xml" "$CF/ex/gpu-harness/block_sum_w32_sim.xml"

    # The version file and the function's argument checks, on a project of a few lines.
    mkdir -p "$CF/proj"
    cat >"$CF/proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(probe LANGUAGES NONE)
foreach(v 9.0 0.1 0.2)
  find_package(gpu-harness ${v} QUIET)
  message(STATUS "want ${v}: ${gpu-harness_FOUND} ${gpu-harness_VERSION}")
  unset(gpu-harness_FOUND)
endforeach()
find_package(gpu-harness REQUIRED)
enable_testing()
gpu_harness_add_test(NAME both BACKEND sim CASES x.cases TIER quick)
EOF
    cmake -S "$CF/proj" -B "$CF/proj/b" -DCMAKE_PREFIX_PATH="$P" >"$CF/proj.out" 2>&1
    rc=$?
    if [ $rc != 0 ] && grep -qx -- "-- want 9.0: 0 " "$CF/proj.out" && grep -qx -- "-- want 0.1: 0 " "$CF/proj.out" &&
        grep -qx -- "-- want 0.2: 1 $version" "$CF/proj.out" &&
        grep -q "CASES or TIER, not both" "$CF/proj.out"; then
        ok "ConfigVersion: 0.2 found, 0.1 and 9.0 refused; CASES with TIER stops the configure"
    else bad "ConfigVersion: 0.2 found, 0.1 and 9.0 refused; CASES with TIER stops the configure" "$CF/proj.out"; fi
fi

# --- the GitHub Action: tools/gh_action.sh as the runner runs it, tools/gh_summary.py ------------
if python3 -c 'import yaml' 2>/dev/null; then
    check "action.yml: composite, every input reaches tools/gh_action.sh as INPUT_*, no expression in shell" \
        "$CF/action.py" -- python3 tests/ci_yaml.py action
else
    skip "action.yml through a YAML parser" "python3 yaml module missing"
fi
if [ -z "$(device_count sim)" ]; then
    skip "the GitHub Action and its summary on an emulator run" "sim backend not built"
else
    # The summary of a run with failures, against the stored one: the example's kernels at 32 and 64.
    EX=examples/cmake
    "$H" run --backend sim --width 32,64 --manifest $EX/block_sum.manifest --manifest $EX/block_sum_w32.manifest \
        --only-manifest --cases $EX/smoke.cases --json "$CF/gs.jsonl" >"$CF/gs.log" 2>&1
    rc=$?
    python3 tools/gh_summary.py "$CF/gs.jsonl" --exit-code $rc --log "$CF/gs.log" --kernels kernels \
        --relative-to "$PWD" --summary "$CF/gs.md" >"$CF/gs.notes" 2>&1
    { cat "$CF/gs.md"; echo "--- annotations"; cat "$CF/gs.notes"; } |
        sed -e "s|$CF|<tmp>|g" -e "s|$H|<harness>|g" -e 's/([0-9]* cores\?)/(N cores)/g' >"$CF/gs.got"
    if diff -u tests/data/gh_summary/block_sum.expected "$CF/gs.got" >"$CF/gs.diff"; then
        ok "gh_summary.py on a run with failures: verdict table, failures with reruns, annotations at the manifest line (stored)"
    else bad "gh_summary.py on a run with failures matches tests/data/gh_summary/block_sum.expected" "$CF/gs.diff"; fi
    sed -n 's/^ *rerun: //p' "$CF/gs.log" | sort -u >"$CF/reruns.text"
    grep "^$H run " "$CF/gs.md" | sort -u >"$CF/reruns.md"
    if [ -s "$CF/reruns.text" ] && diff "$CF/reruns.text" "$CF/reruns.md" >"$CF/reruns.diff"; then
        ok "the summary's rerun commands are the harness's own reproducers"
    else bad "the summary's rerun commands are the harness's own reproducers" "$CF/reruns.diff"; fi

    # The action's step, as a runner would run it: inputs as INPUT_*, the step summary and outputs files.
    action() {
        rm -f "$CF/ws/summary.md" "$CF/ws/outputs"
        (cd "$CF/ws" && env GITHUB_ACTION_PATH="$OLDPWD" GITHUB_WORKSPACE="$CF/ws" GITHUB_STEP_SUMMARY="$CF/ws/summary.md" \
            GITHUB_OUTPUT="$CF/ws/outputs" INPUT_HARNESS="$OLDPWD/$H" "$@" "$OLDPWD/tools/gh_action.sh")
    }
    rm -rf "$CF/ws" && mkdir -p "$CF/ws/k" && cp $EX/block_sum.cu $EX/block_sum_w32.manifest $EX/smoke.cases "$CF/ws/k/"
    action INPUT_BACKEND=sim INPUT_MANIFEST=k/block_sum_w32.manifest INPUT_CASES=k/smoke.cases INPUT_WIDTH=64 \
        INPUT_ARGS=--quiet >"$CF/act.out" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -q '^::error file=k/block_sum_w32.manifest,line=3,title=gpu-harness%3A cuda/block_sum_w32::4 FAIL at sim w64' "$CF/act.out" &&
        grep -q '^| cuda/block_sum_w32 | sim | .* | 64 | 1 PASS 4 FAIL |' "$CF/ws/summary.md" &&
        grep -qx 'exit-code=1' "$CF/ws/outputs" && xmllint --noout "$CF/ws/gpu-harness-results/report.xml"; then
        ok "the action on a broken kernel: exit 1, step summary, ::error at its manifest line, outputs, JUnit"
    else cat "$CF/ws/summary.md" >>"$CF/act.out" 2>/dev/null; bad "the action on a broken kernel (exit $rc)" "$CF/act.out"; fi
    printf '[x]\nop = sgemm\nlang = cuda\nsource = x.cu\nentry = x\nblock = 16 16 1\ngrid = bogus\n' >"$CF/ws/k/bad.manifest"
    action INPUT_MANIFEST=k/bad.manifest >"$CF/act2.out" 2>&1
    rc=$?
    if [ $rc = 2 ] && grep -q '^::error file=k/bad.manifest,line=7,title=gpu-harness%3A bad input::grid term' "$CF/act2.out"; then
        ok "the action on a bad manifest: exit 2, ::error at the line the harness names"
    else bad "the action on a bad manifest (exit $rc)" "$CF/act2.out"; fi
    if no_cuda_device; then
        action INPUT_BACKEND=cuda INPUT_MANIFEST=k/block_sum_w32.manifest >"$CF/act3.out" 2>&1
        rc=$?
        if [ $rc = 3 ] && grep -q '^::error title=gpu-harness%3A exit 3::backend cuda: no usable device' "$CF/act3.out" &&
            grep -q '^### gpu-harness: failed (exit 3: a backend asked for by name has no usable device)' "$CF/ws/summary.md"; then
            ok "the action naming a backend without a device: exit 3, said in the summary and an annotation"
        else cat "$CF/ws/summary.md" >>"$CF/act3.out" 2>/dev/null; bad "the action naming cuda without a device (exit $rc)" "$CF/act3.out"; fi
    else
        skip "the action naming a backend without a device" "this machine has a CUDA device"
    fi
fi

# --- the CI examples as GitLab and GitHub read them ----------------------------------------------
if ! python3 -c 'import yaml' 2>/dev/null; then
    skip "the CI examples through a YAML parser" "python3 yaml module missing"
else
    check "gitlab-ci.yml: no job named after a top-level keyword (the 'image' job was GitLab's image:)" \
        "$CF/gl-names.py" -- python3 tests/ci_yaml.py gitlab-names
    check "gitlab-ci.yml: workflow:rules, one pipeline per change; a fork's merge request reaches no GPU job" \
        "$CF/gl-workflow.py" -- python3 tests/ci_yaml.py gitlab-workflow
    check "gitlab-ci.yml: the CI images are built by Debian 12's buildah, nothing uses archived kaniko" \
        "$CF/gl-images.py" -- python3 tests/ci_yaml.py gitlab-images
    check "github-actions.yml: self-hosted GPU jobs install nothing on the host (no sudo, apt, install-deps.sh)" \
        "$CF/gh-hosts.py" -- python3 tests/ci_yaml.py github-gpu-hosts
fi

# install-deps.sh --check on a host that has nothing: it names what is missing and calls no installer.
mkdir -p "$CF/bare"
for c in sudo apt-get dpkg; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/installer-calls"\n' "$c" "$CF" >"$CF/bare/$c"
    chmod +x "$CF/bare/$c"
done
env PATH="$CF/bare" CUDA_HOME="$CF/bare" /bin/sh ci/install-deps.sh --check cuda >"$CF/deps.out" 2>&1
rc=$?
if [ $rc = 1 ] && [ ! -e "$CF/installer-calls" ] && grep -q 'missing:.* cc .*nvcc' "$CF/deps.out"; then
    ok "install-deps.sh --check: exit 1 naming what is missing (cc, nvcc), no sudo, apt-get or dpkg run"
else cat "$CF/installer-calls" >>"$CF/deps.out" 2>/dev/null; bad "install-deps.sh --check (exit $rc)" "$CF/deps.out"; fi
