#!/bin/sh
# bench_record.sh - the whole `kifucam record` pipeline on one core: frames per second and the latency
# of each move (median, p95: from the first frame without the hand to the frame whose reading wrote
# the move, on the frames' clock), from the recorder's own summary line, plus the moves found against
# the clip's truth (samples/compare_moves.py).
# usage: sh bench/bench_record.sh BUILD_DIR [CLIP]   (make bench; CLIP defaults to the 12-move test
# clip tests/data/record-clip.mp4, 800x450 at 10 fps; its moves are in CLIP with .usi for .mp4)
set -u
BUILD=${1:-build}
CLIP=${2:-tests/data/record-clip.mp4}
OUT="$BUILD/bench-record"
PIN=""
command -v taskset >/dev/null 2>&1 && PIN="taskset -c 0"
[ -x "$BUILD/kifucam" ] || { echo "bench: $BUILD/kifucam not built (run make bench)" >&2; exit 2; }
[ -f "$CLIP" ] || { echo "bench: $CLIP not found" >&2; exit 2; }
echo "record: $CLIP, one core, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
rm -rf "$OUT"
line=$(OMP_NUM_THREADS=1 $PIN "$BUILD/kifucam" record --source "$CLIP" --out "$OUT" </dev/null 2>/dev/null) || {
    echo "bench: kifucam record failed" >&2
    exit 1
}
echo "$line"
echo "$line" | sed -n 's/.*; \([0-9.]*\) fps,.*latency median \([0-9]*\) ms, p95 \([0-9]*\) ms.*/fps \1 (target 30), latency median \2 ms, p95 \3 ms (target under 300)/p'
/usr/bin/python3 samples/compare_moves.py "${CLIP%.mp4}.usi" "$OUT" | tail -1
