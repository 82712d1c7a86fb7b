#!/bin/sh
# fuzz-run.sh BUILD SECONDS TARGET... - runs each libFuzzer target BUILD/fuzz/TARGET (built by `make fuzz`)
# for SECONDS, from the corpus it grew before (BUILD/corpus/TARGET/, new inputs go there) and the
# checked-in inputs (tests/fuzz/seeds/TARGET/, tests/fuzz/regress/TARGET/). A crash, leak, timeout or
# undefined behaviour leaves its input in BUILD/crashes/TARGET/ and the run's output in
# BUILD/fuzz-TARGET.log. Prints one line a target (executions, corpus, result) and exits 1 if any failed.
set -u
build=${1:?usage: fuzz-run.sh BUILD SECONDS TARGET...}
seconds=${2:?usage: fuzz-run.sh BUILD SECONDS TARGET...}
shift 2
failed=""
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
printf '%-10s %12s %8s  %s\n' target executions corpus result
for t in "$@"; do
    bin="$build/fuzz/$t"
    [ -x "$bin" ] || { echo "fuzz-run: $bin not built" >&2; exit 2; }
    mkdir -p "$build/corpus/$t" "$build/crashes/$t"
    case $t in
    jpeg) maxlen=65536 ;; # whole MJPEG frames of a small camera
    kifu) maxlen=8192 ;;
    resume) maxlen=16384 ;; # a few events of 700 bytes
    *) maxlen=4096 ;;
    esac
    log="$build/fuzz-$t.log"
    "$bin" -max_total_time="$seconds" -max_len=$maxlen -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/crashes/$t/" "$build/corpus/$t" $(ls -d tests/fuzz/seeds/$t tests/fuzz/regress/$t 2>/dev/null) \
        >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    corpus=$(ls "$build/corpus/$t" | wc -l)
    if [ $rc -eq 0 ]; then
        result=ok
    else
        result="FAILED (exit $rc): $(ls -t "$build/crashes/$t" | head -n 1 | sed "s|^|$build/crashes/$t/|")"
        failed="$failed $t"
    fi
    printf '%-10s %12s %8s  %s\n' "$t" "${execs:-?}" "$corpus" "$result"
done
if [ -n "$failed" ]; then
    for t in $failed; do
        echo "== fuzz-run: $t failed; the end of $build/fuzz-$t.log:"
        grep -v '^#[0-9]' "$build/fuzz-$t.log" | tail -n 40
    done
    echo "fuzz-run: failed:$failed (keep each input in tests/fuzz/regress/TARGET/ with its fix)"
    exit 1
fi
