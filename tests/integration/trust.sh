# tests/integration/trust.sh: inputs and results the harness must not trust blindly (issue 27):
# the gate across device shards, runs that cannot prove they were whole, inputs that block or
# explode, outputs that collide, and the emulator's cache of built kernels.
# Sourced by tests/integration.sh, which defines H, T, BUILD and the ok/bad/skip/json_check helpers.
TD=tests/data/trust
# has MESSAGE: the last command's output holds MESSAGE (a fixed string).
has() { if grep -qF -- "$2" "$T/out"; then ok "$1"; else bad "$1: no '$2'" "$T/out"; fi; }

echo "integration: trusted inputs (issue 27)"
mkfifo "$T/fifo"
printf 'include %s\n' "$T/fifo" >"$T/fifo.cases"
for opt in --cases --manifest --compare --rerun-failed; do
    expect_exit 2 "a FIFO as $opt is refused at once" -- timeout 5 "$H" run --backend sim "$opt" "$T/fifo"
    has "... as not a regular file" "$T/fifo: not a regular file"
done
expect_exit 2 "a FIFO as a case file's include is refused at once" -- timeout 5 "$H" run --backend sim --cases "$T/fifo.cases"
has "... naming the include line" "fifo.cases:1: include $T/fifo: not a regular file"
expect_exit 2 "merge of a FIFO is refused at once" -- timeout 5 "$H" merge "$T/fifo"

# Six lists of 32 values: 32^6 = 1.07e9 cases from one 800-byte line.
l32=$(seq -s, 1 32)
printf '# one line, a billion cases\nsgemm_strided huge_{M}_{N}_{K}_{lda}_{ldb}_{ldc} M=%s N=%s K=%s lda=%s ldb=%s ldc=%s\n' \
    "$l32" "$l32" "$l32" "$(seq -s, 40 71)" "$(seq -s, 40 71)" "$(seq -s, 40 71)" >"$T/huge.cases"
expect_exit 2 "a case line expanding to 1.07e9 cases is refused" -- timeout 20 bash -c \
    "ulimit -v 4000000; $H run --backend sim --cases $T/huge.cases --list"
has "... at its file:line, with the count and the cap" "huge.cases:2: the line's lists expand to 1073741824 cases"

printf '[k]\nop = sgemm\nlang = cuda\nsource = k.cu\n\0entry = k\n' >"$T/nul.manifest"
expect_exit 2 "a NUL byte in a manifest is an error" -- "$H" run --backend sim --only-manifest --manifest "$T/nul.manifest"
has "... named as a NUL byte at file:line, not a long line" "nul.manifest:5: holds a NUL byte"

if [ -z "$(device_count sim)" ]; then
    skip "the memory of the run's cases together, --rerun-failed" "sim backend not built"
else
    # Three cases that each pass the host check (11x their buffers) but not together: every
    # used case's data stays for the run.
    s=$(awk '/^MemTotal:/ { printf "%d", sqrt($2 * 1024 / 132 * 0.9) }' /proc/meminfo)
    printf 'sgemm big1 M=%s N=%s K=%s\nsgemm big2 M=%s N=%s K=%s\nsgemm big3 M=%s N=%s K=%s\n' \
        "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" "$s" >"$T/big.cases"
    expect_exit 2 "cases that fit one by one but not together are refused before any is made" -- timeout 20 bash -c \
        "ulimit -v 8000000; $H run --backend sim --width 32 --kernel cuda/sgemm_naive --cases $T/big.cases"
    has "... naming the case that crosses the line" "big.cases:2: case big2 brings the run's case data to about"

    R="--backend sim --width 32 --only-manifest --manifest $TD/bad/gate.manifest --case edge_1x2x3"
    "$H" run $R --json "$T/red.jsonl" >"$T/out" 2>&1
    : >"$T/r_empty.jsonl"
    head -n 1 "$T/red.jsonl" >"$T/r_header.jsonl"
    head -n 2 "$T/red.jsonl" >"$T/r_killed.jsonl"
    for k in empty header killed; do
        expect_exit 2 "--rerun-failed of a $k run's JSON is refused" -- "$H" run $R --rerun-failed "$T/r_$k.jsonl"
    done
    has "... saying why, with the file" "--rerun-failed $T/r_killed.jsonl: no end record"
    expect_exit 1 "--rerun-failed of a whole red run reruns its failure" -- "$H" run $R --rerun-failed "$T/red.jsonl"
fi
