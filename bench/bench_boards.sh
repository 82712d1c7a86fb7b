#!/bin/sh
# bench_boards.sh BUILD "K1 K2 ..." - how many boards this computer records at camera speed (make
# bench-boards): for each K, K `kifucam record --realtime` processes at once, one a camera, each on
# samples/sample-clip.mp4 (1280x720, 10 fps, 82 s, 80 moves) read no faster than 10 frames a second.
# A recorder that keeps up ends when the clip does; one that falls behind ends later. Prints per K the
# slowest recorder's wall time, how far behind the clip it ended, the lowest frames per second and
# the moves each wrote (80 expected).
set -u
build=${1:-build}
ks=${2:-"1 2 3 4 5 6"}
clip=samples/sample-clip.mp4
dur=82
top=$(mktemp -d /tmp/kifucam-bench-boards-XXXXXX)
trap 'rm -rf "$top"' EXIT
echo "boards recorded at 10 fps on $(nproc) cores: K recorders of $clip (1280x720, 10 fps, ${dur} s) with --realtime"
echo "| recorders | slowest wall time | behind the clip at the end | lowest fps | moves (each) |"
echo "|---|---|---|---|---|"
for k in $ks; do
    pids=""
    t0=$(date +%s.%N)
    i=1
    while [ "$i" -le "$k" ]; do
        "$build/kifucam" record --realtime --source "$clip" --out "$top/k$k-$i" </dev/null \
            >"$top/k$k-$i.log" 2>&1 &
        pids="$pids $!"
        i=$((i + 1))
    done
    for p in $pids; do wait "$p"; done
    t1=$(date +%s.%N)
    fps=$(grep -ho '[0-9.]* fps' "$top"/k$k-*.log | sort -n | head -1)
    moves=$(grep -ho 'frames, [0-9]* moves' "$top"/k$k-*.log | awk '{print $2}' | sort -n | uniq -c |
        awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
    awk -v k="$k" -v t0="$t0" -v t1="$t1" -v d="$dur" -v f="$fps" -v m="$moves" \
        'BEGIN { w = t1 - t0; printf "| %d | %.1f s | %.1f s | %s | %s |\n", k, w, w - d, f, m }'
    rm -rf "$top"/k$k-*
done
