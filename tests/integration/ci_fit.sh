# tests/integration/ci_fit.sh: the harness inside other tools (issue 30): what make install
# adds (man page, bash completion).
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

# --- make install: the man page and completion --------------------------------------------------
if make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$CF/inst" PREFIX="$CFP" >"$CF/install.out" 2>&1; then
    P=$CF/inst$CFP
    check "make install adds harness(1) and bash completion" "$CF/files" -- \
        ls "$P/share/man/man1/harness.1" "$P/share/bash-completion/completions/harness"
else
    bad "make install DESTDIR=... PREFIX=$CFP" "$CF/install.out"
    P=
fi

# The options each command's help lists, one per line: what the man page and completion must offer.
help_options() { "$H" help "$1" | grep -E '^  (-[A-Za-z], |    )--' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
if [ -n "$P" ]; then
    # The roff source as text: \- is a hyphen, \fB and \fR are fonts; a .TP's tag is the line after it.
    sed -e 's/\\-/-/g' -e 's/\\f[BIR]//g' "$P/share/man/man1/harness.1" >"$CF/man.txt"
    missing=
    for c in run list bench merge; do
        for o in $(help_options "$c"); do
            grep -q -- "^\(-[A-Za-z], \)\?$o\( \|$\)" "$CF/man.txt" || missing="$missing $c:$o"
        done
    done
    if [ -z "$missing" ] && grep -q '^\.SH "RUN OPTIONS"' "$CF/man.txt"; then
        ok "harness.1 has an entry for every option harness help lists (run, list, bench, merge)"
    else echo "missing:$missing" >"$CF/man.miss"; bad "harness.1 has an entry for every option harness help lists" "$CF/man.miss"; fi
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
