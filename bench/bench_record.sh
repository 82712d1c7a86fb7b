#!/bin/sh
# bench_record.sh - the whole `kifucam record` pipeline on one core: frames per second and the latency
# of each move (median, p95: from the first frame without the hand to the frame whose reading wrote
# the move, on the frames' clock), from the recorder's own summary line, plus the moves found against
# the clip's truth (samples/compare_moves.py).
# usage: sh bench/bench_record.sh BUILD_DIR [CLIP]   (make bench). Without CLIP: the 12-move test clip
# tests/data/record-clip.mp4 (800x450, 10 fps), then a 1920x1080 clip of the first 20 moves of
# samples/sample-game.usi rendered once by samples/make_clip.py into BUILD_DIR/bench-1080p.mp4 (about
# 30 s; training style, seed 3, 10 fps). A clip's moves are in the same name with .usi for .mp4.
set -u
BUILD=${1:-build}
PIN=""
command -v taskset >/dev/null 2>&1 && PIN="taskset -c 0"
[ -x "$BUILD/kifucam" ] || { echo "bench: $BUILD/kifucam not built (run make bench)" >&2; exit 2; }

run_clip() {
    CLIP=$1
    OUT="$BUILD/bench-record"
    [ -f "$CLIP" ] || { echo "bench: $CLIP not found" >&2; return 2; }
    echo "record: $CLIP, one core, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
    rm -rf "$OUT"
    line=$(OMP_NUM_THREADS=1 $PIN "$BUILD/kifucam" record --source "$CLIP" --out "$OUT" </dev/null 2>/dev/null) || {
        echo "bench: kifucam record failed" >&2
        return 1
    }
    echo "$line"
    echo "$line" | sed -n 's/.*; \([0-9.]*\) fps,.*latency median \([0-9]*\) ms, p95 \([0-9]*\) ms.*/fps \1 (target 30), latency median \2 ms, p95 \3 ms (target under 300)/p'
    /usr/bin/python3 samples/compare_moves.py "${CLIP%.mp4}.usi" "$OUT" | tail -1
}

if [ $# -ge 2 ]; then
    run_clip "$2"
    exit $?
fi
run_clip tests/data/record-clip.mp4 || exit $?
HD="$BUILD/bench-1080p.mp4"
if [ ! -f "$HD" ] || [ ! -f "${HD%.mp4}.usi" ]; then
    echo "bench: rendering $HD (20 moves, 1920x1080, once)"
    nice -n 5 /usr/bin/python3 samples/make_clip.py samples/sample-game.usi "$HD" --plies 20 --size 1920x1080 \
        --seed 3 --kifucam "$BUILD/kifucam" >"$BUILD/bench-1080p.log" 2>&1 ||
        { echo "bench: rendering failed (see $BUILD/bench-1080p.log)" >&2; exit 1; }
fi
run_clip "$HD"
