"""Compares the moves `kifucam record` found with the game's own moves.

  python3 samples/compare_moves.py TRUTH.usi OUT_DIR [--quiet] [--require-all]

TRUTH.usi: a `position ... moves ...` line (samples/make_clip.py writes one beside each clip).
OUT_DIR: a recording folder; its events.jsonl gives the moves found (move and illegal_move events of
game 1, in order) and the uncertain reads. Prints the moves side by side and one summary line:
`moves right R/T, wrong W, missed M, extra X, uncertain U`. A move is right when it is the truth's move
at the same ply. --require-all: exit 1 unless every move is right and nothing is extra.
"""

import json
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quiet = "--quiet" in sys.argv
    if len(args) != 2:
        sys.exit(__doc__)
    line = [ln for ln in open(args[0], encoding="utf-8").read().splitlines() if ln.startswith("position")][0].split()
    truth = line[line.index("moves") + 1:] if "moves" in line else []
    truth = [m for m in truth if m not in ("resign", "win")]
    found, uncertain, hidden = [], 0, 0
    try:
        events = open(f"{args[1]}/events.jsonl", encoding="utf-8").read().splitlines()
    except OSError:
        events = []
    for ln in events:
        try:
            e = json.loads(ln)
        except ValueError:
            continue
        if e.get("game", 1) != 1:
            continue
        if e.get("type") in ("move", "illegal_move", "king_captured"):
            found.append(e.get("move", "?") + ("" if e["type"] == "move" else " (" + e["type"] + ")"))
            hidden += 1 if e.get("hidden") else 0
        elif e.get("type") == "uncertain":
            uncertain += 1
    right = sum(1 for i, m in enumerate(found) if i < len(truth) and m == truth[i])
    wrong = sum(1 for i, m in enumerate(found) if i < len(truth) and m != truth[i])
    missed = max(0, len(truth) - len(found))
    extra = max(0, len(found) - len(truth))
    if not quiet:
        print(" ply  game   found")
        for i in range(max(len(truth), len(found))):
            t = truth[i] if i < len(truth) else "-"
            f = found[i] if i < len(found) else "-"
            print(f"{i + 1:4d}  {t:5s}  {f:5s}  {'' if t == f else 'MISSED' if f == '-' else 'WRONG'}")
    print(f"moves right {right}/{len(truth)}, wrong {wrong}, missed {missed}, extra {extra}, uncertain {uncertain}"
          f"{f', {hidden} recovered while hidden' if hidden else ''}")
    if "--require-all" in sys.argv and (right != len(truth) or extra):
        sys.exit(1)


if __name__ == "__main__":
    main()
