#!/bin/sh
# bench.sh - perft speed of kifucam's rules engine against fairy-stockfish, measured in the same run.
# usage: sh bench/bench.sh BUILD_DIR   (make bench). Fails if a kifucam node count is wrong.
# Positions and counts: ../shared/data/fixtures/perft/perft_cases.tsv (YaneuraOu's unit tests).
set -u
BUILD=${1:-build}
BENCH="$BUILD/bench-perft"
FSF=""
for c in /usr/games/fairy-stockfish fairy-stockfish; do
    if command -v "$c" >/dev/null 2>&1; then FSF=$(command -v "$c"); break; fi
done

STARTPOS="lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
MATSURI="l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1"

now() { date +%s.%N; }

# fsf NAME SFEN DEPTH -> "nodes seconds" (USI mode: fairy-stockfish reads SFEN there; its UCI
# "position fen" does not read shogi hands).
fsf() {
    t0=$(now)
    n=$(printf 'usi\nposition sfen %s\ngo perft %s\nquit\n' "$2" "$3" | "$FSF" 2>/dev/null |
        sed -n 's/^Nodes searched: *\([0-9][0-9]*\).*/\1/p')
    t1=$(now)
    echo "${n:-0} $(echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}')"
}

status=0
run_case() { # NAME SFEN DEPTH EXPECTED
    out=$("$BENCH" "$1" "$2" "$3" "$4")
    rc=$?
    echo "$out"
    if [ $rc -ne 0 ]; then status=1; fi
    knps=$(echo "$out" | awk '/ nps /{print $NF; exit}')
    if [ -n "$FSF" ]; then
        set -- "$1" "$2" "$3" "$4" $(fsf "$1" "$2" "$3")
        fn=$5
        ft=$6
        fnps=$(echo "$fn $ft" | awk '{ if ($2 > 0) printf "%.0f", $1 / $2; else print 0 }')
        echo "fairy-stockfish $1 d$3: nodes $fn time $ft s nps $fnps"
        if [ "$fn" != "$4" ]; then
            echo "  note: fairy-stockfish counts $fn, the published count is $4 (fairy-stockfish counts pawn-drop mates as legal moves)"
        fi
        echo "$knps $fnps" | awk -v name="$1" '{ if ($2 > 0) printf "ratio kifucam/fairy-stockfish %s: %.2f\n", name, $1 / $2 }'
    fi
}

if [ ! -x "$BENCH" ]; then
    echo "bench: $BENCH not built (run make bench)" >&2
    exit 2
fi
if [ -z "$FSF" ]; then
    echo "bench: fairy-stockfish not found (/usr/games/fairy-stockfish or on PATH); run make deps" >&2
    status=1
fi
echo "perft nodes per second, single thread, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
run_case startpos "$STARTPOS" 6 547581517
run_case matsuri "$MATSURI" 4 516925165
if [ $status -ne 0 ]; then
    echo "bench: FAILED (a wrong node count, or fairy-stockfish missing)" >&2
fi
exit $status
