#!/bin/sh
# eval_games.sh BUILD [KIFU...] - renders (or reuses) a clip of each game with samples/make_clip.py in
# the held-out style, records it with `kifucam record`, and prints one table row a game: moves right /
# total, wrong, missed, extra, uncertain, frames per second. Clips and recordings stay in
# BUILD/eval-games/ (a clip is rendered again only when missing). EVAL_PLIES limits the moves per game
# (0: all; default 0); EVAL_HELD_OUT=0 renders in the training styles instead (default 1: held out);
# without KIFU arguments, EVAL_GAMES (a space-separated list of paths) or the
# default list below from ../shared/data/kifu. Skips with a line when ../shared/data is absent.
set -u
B=${1:-build}
shift 2>/dev/null || true
D=../shared/data/kifu
if [ ! -d "$D" ]; then echo "skipped: ../shared/data not found (eval-games)"; exit 0; fi
PLIES=${EVAL_PLIES:-0}
if [ "${EVAL_HELD_OUT:-1}" = 0 ]; then STYLE=""; SUF=t; else STYLE=--held-out; SUF=h; fi
if [ $# -gt 0 ]; then GAMES="$*"; else GAMES=${EVAL_GAMES:-"
$D/shogi-kifu-converter/csa/WCSC32_F7_NBS_DLS.csa
$D/shogi-kifu-converter/csa/floodgate.csa
$D/shogi-kifu-converter/kif/everyday_20211107.kif
$D/shogi-kifu-converter/kif/everyday_20220604.kif
$D/shogi-kifu-converter/kif/oui202106290101.kif
$D/json-kifu-format/csa/2005_GPS_K-SHOGI.csa
$D/json-kifu-format/csa/2005_YAMADA_GPS.csa
$D/json-kifu-format/kif/jt201409130101.kif
$D/json-kifu-format/kif/kiou201403160101.kif
$D/json-kifu-format/kif/oui201407080101.kif
$D/json-kifu-format/kif/ouza201410070101.kif
$D/json-kifu-format/kif/ryuou201409020101.kif
"}; fi
OUT=$B/eval-games
mkdir -p "$OUT"
printf '%-34s %6s %6s %6s %6s %6s %6s %7s\n' game right total wrong missed extra uncert fps
tr=0; tt=0; tw=0; n=0; seed=0
for g in $GAMES; do
  seed=$((seed + 1))
  name=$(basename "$g" | sed 's/\.[^.]*$//')-$SUF$PLIES
  clip=$OUT/$name.mp4
  if [ ! -f "$clip" ] || [ ! -f "$OUT/$name.usi" ]; then
    /usr/bin/python3 samples/make_clip.py "$g" "$clip" --plies "$PLIES" $STYLE --seed "$seed" \
      --kifucam "$B/kifucam" 2>"$OUT/$name.render.log" || { echo "$name: render failed (see $OUT/$name.render.log)"; continue; }
  fi
  rm -rf "$OUT/$name.rec"
  sum=$("$B/kifucam" record --source "$clip" --out "$OUT/$name.rec" </dev/null 2>"$OUT/$name.rec.log") ||
    { echo "$name: record failed: $(tail -1 "$OUT/$name.rec.log")"; continue; }
  fps=$(echo "$sum" | sed -n 's/.*; \([0-9.]*\) fps.*/\1/p')
  line=$(python3 samples/compare_moves.py "$OUT/$name.usi" "$OUT/$name.rec" --quiet)
  set -- $(echo "$line" | sed 's/[^0-9 ]/ /g')
  # "moves right R/T, wrong W, missed M, extra X, uncertain U"
  printf '%-34s %6s %6s %6s %6s %6s %6s %7s\n' "$name" "$1" "$2" "$3" "$4" "$5" "$6" "$fps"
  tr=$((tr + $1)); tt=$((tt + $2)); tw=$((tw + $3)); n=$((n + 1))
done
echo "games $n: moves right $tr/$tt, wrong $tw"
