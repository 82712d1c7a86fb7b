"""Compares the moves `kifucam record` found with the game's own moves.

  python3 samples/compare_moves.py TRUTH.usi OUT_DIR [--quiet] [--require-all] [--illegal PLY]

TRUTH.usi: a `position ... moves ...` line (samples/make_clip.py writes one beside each clip).
OUT_DIR: a recording folder; its events.jsonl gives the moves found (move and illegal_move events of
game 1, in order) and the uncertain reads. Prints the moves side by side and one summary line:
`moves right R/T, wrong W, missed M, extra X, uncertain U`. A move is right when it is the truth's move
at the same ply, and of the same kind: --illegal PLY says that the truth's move PLY (1-based) is an
illegal move, so that it is right only as an illegal_move event and every other move only as a move
event. --require-all: exit 1 unless every move is right and nothing is extra.
samples/eval_games.py imports read_truth() and compare().
"""

import json
import sys


def read_truth(path):
    """The moves of the first `position` line of path (terminal words resign / win / timeout dropped)."""
    line = [ln for ln in open(path, encoding="utf-8").read().splitlines() if ln.startswith("position")][0].split()
    truth = line[line.index("moves") + 1:] if "moves" in line else []
    return [m for m in truth if m not in ("resign", "win", "timeout")]


def read_events(out_dir):
    """The events of game 1 in OUT_DIR/events.jsonl (a cut or bad line is skipped); [] without a log."""
    try:
        lines = open(f"{out_dir}/events.jsonl", encoding="utf-8").read().splitlines()
    except OSError:
        return []
    events = []
    for ln in lines:
        try:
            e = json.loads(ln)
        except ValueError:
            continue
        if e.get("game", 1) == 1:
            events.append(e)
    return events


def compare(truth, events, illegal_ply=0):
    """Counts of the comparison: right, total, wrong, missed, extra, uncertain, hidden (moves recovered
    while the board was hidden) and rows [(ply, truth move, found, verdict)]."""
    found, uncertain, hidden = [], 0, 0
    for e in events:
        if e.get("type") in ("move", "illegal_move", "king_captured"):
            found.append((e.get("move", "?"), e["type"]))
            hidden += 1 if e.get("hidden") else 0
        elif e.get("type") == "uncertain":
            uncertain += 1
    rows, right, wrong = [], 0, 0
    for i in range(max(len(truth), len(found))):
        t = truth[i] if i < len(truth) else "-"
        kind = "illegal_move" if i + 1 == illegal_ply else "move"
        if i >= len(found):
            rows.append((i + 1, t, "-", "MISSED"))
            continue
        f = found[i][0] + ("" if found[i][1] == "move" else " (" + found[i][1] + ")")
        if i >= len(truth):
            rows.append((i + 1, t, f, "EXTRA"))
        elif found[i] == (t, kind):
            right += 1
            rows.append((i + 1, t, f, ""))
        else:
            wrong += 1
            rows.append((i + 1, t, f, "WRONG"))
    return {"right": right, "total": len(truth), "wrong": wrong, "missed": max(0, len(truth) - len(found)),
            "extra": max(0, len(found) - len(truth)), "uncertain": uncertain, "hidden": hidden, "rows": rows}


def main():
    argv = sys.argv[1:]
    illegal = 0
    if "--illegal" in argv:
        i = argv.index("--illegal")
        illegal = int(argv[i + 1])
        del argv[i : i + 2]
    args = [a for a in argv if not a.startswith("--")]
    quiet = "--quiet" in argv
    if len(args) != 2:
        sys.exit(__doc__)
    c = compare(read_truth(args[0]), read_events(args[1]), illegal)
    if not quiet:
        print(" ply  game   found")
        for ply, t, f, verdict in c["rows"]:
            print(f"{ply:4d}  {t:5s}  {f:5s}  {verdict}")
    print(f"moves right {c['right']}/{c['total']}, wrong {c['wrong']}, missed {c['missed']}, extra {c['extra']}, "
          f"uncertain {c['uncertain']}" + (f", {c['hidden']} recovered while hidden" if c["hidden"] else ""))
    if "--require-all" in argv and (c["right"] != c["total"] or c["extra"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
