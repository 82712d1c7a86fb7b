"""Compares the moves `kifucam record` found with the game's own moves.

  python3 samples/compare_moves.py TRUTH.usi OUT_DIR [--quiet] [--require-all] [--illegal PLY]

TRUTH.usi: a `position ... moves ...` line (samples/make_clip.py writes one beside each clip).
OUT_DIR: a recording folder; its events.jsonl gives the moves found (move and illegal_move events of
game 1, in order, then those of each game that takes game 1 up again after a gap, placed where the
truth reaches its start position (board, hands, side to move; the moves of the gap are missed; a start
the truth never reaches is placed after the moves before it, its moves then counted wrong) and the
uncertain reads. Prints the moves side by side and one summary line:
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


START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -"


def _board(sfen):
    """SFEN (its first three fields) as ({(file, rank): piece}, {piece letter: count}, side)."""
    f = sfen.split()
    board = {}
    for rank, row in enumerate(f[0].split("/"), 1):
        file, prom = 9, ""
        for ch in row:
            if ch.isdigit():
                file -= int(ch)
            elif ch == "+":
                prom = "+"
            else:
                board[(file, rank)] = prom + ch
                file, prom = file - 1, ""
    hands, n = {}, ""
    for ch in f[2] if f[2] != "-" else "":
        if ch.isdigit():
            n += ch
        else:
            hands[ch] = hands.get(ch, 0) + int(n or 1)
            n = ""
    return board, hands, f[1]


def truth_positions(truth, start=START):
    """The positions of the truth game after 0, 1, ... moves as comparable tuples (board, hands, side)."""
    board, hands, side = _board(start)
    out = [(frozenset(board.items()), frozenset(hands.items()), side)]
    for m in truth:
        sq = lambda s: (int(s[0]), ord(s[1]) - ord("a") + 1)
        if m[1] == "*":
            pc = m[0] if side == "b" else m[0].lower()
            board[sq(m[2:4])] = pc
            hands[pc] -= 1
            if hands[pc] == 0:
                del hands[pc]
        else:
            pc = board.pop(sq(m[0:2]))
            took = board.get(sq(m[2:4]))
            if took:
                base = took[-1]
                base = base.upper() if side == "b" else base.lower()
                hands[base] = hands.get(base, 0) + 1
            board[sq(m[2:4])] = ("+" + pc) if m.endswith("+") else pc
        side = "w" if side == "b" else "b"
        out.append((frozenset(board.items()), frozenset(hands.items()), side))
    return out


def read_events(out_dir, truth=None, start=START):
    """The events of game 1 in OUT_DIR/events.jsonl (a cut or bad line is skipped), then those of the games
    that take it up again (game_start with continues), each move given "at": its ply in game 1 (truth: the
    moves from start, whose positions place a game taken up); [] without a log."""
    try:
        lines = open(f"{out_dir}/events.jsonl", encoding="utf-8").read().splitlines()
    except OSError:
        return []
    events, taken = [], {1: 0}  # game -> ply of game 1 before its first move
    positions = truth_positions(truth, start) if truth is not None else []
    last_ply = 0
    for ln in lines:
        try:
            e = json.loads(ln)
        except ValueError:
            continue
        g = e.get("game", 1)
        if truth is not None and e.get("type") == "game_start" and e.get("continues") in taken:
            b, h, sd = _board(e.get("sfen", START))
            key = (frozenset(b.items()), frozenset(h.items()), sd)
            at = [i for i, p in enumerate(positions) if p == key and i >= last_ply]
            taken[g] = at[0] if at else last_ply
        if g in taken:
            if "ply" in e and e.get("type") in ("move", "illegal_move", "king_captured"):
                e = dict(e, at=taken[g] + e["ply"])
                last_ply = e["at"]
            elif "ply" in e and e.get("type") == "game_end":
                e = dict(e, at=taken[g] + e["ply"])
            events.append(e)
    return events


def compare(truth, events, illegal_ply=0):
    """Counts of the comparison: right, total, wrong, missed, extra, uncertain, hidden (moves recovered
    while the board was hidden) and rows [(ply, truth move, found, verdict)]."""
    found, uncertain, hidden = [], 0, 0
    for e in events:
        if e.get("type") in ("move", "illegal_move", "king_captured"):
            at = e.get("at", len(found) + 1)
            while len(found) < at - 1:
                found.append(None)  # a move of the gap before a game taken up again
            found.append((e.get("move", "?"), e["type"]))
            hidden += 1 if e.get("hidden") else 0
        elif e.get("type") == "uncertain":
            uncertain += 1
    rows, right, wrong = [], 0, 0
    for i in range(max(len(truth), len(found))):
        t = truth[i] if i < len(truth) else "-"
        kind = "illegal_move" if i + 1 == illegal_ply else "move"
        if i >= len(found) or found[i] is None:
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
    missed = sum(1 for r in rows if r[3] == "MISSED")
    return {"right": right, "total": len(truth), "wrong": wrong, "missed": missed,
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
    truth = read_truth(args[0])
    c = compare(truth, read_events(args[1], truth), illegal)
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
