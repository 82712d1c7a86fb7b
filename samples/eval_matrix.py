"""`make eval-matrix`: the recorder on clips of real games from every camera placement of the design,
in several looks, with a part of the matrix kept out of all tuning and reported apart (issue 25).

  /usr/bin/python3 samples/eval_matrix.py [BUILD]

Each cell is one game rendered by samples/make_clip.py (its first EVAL_MATRIX_PLIES moves, default 30)
with --camera PLACEMENT:DEGREES:FRAC and --light, recorded by `kifucam record` and compared move by move
with the game (samples/compare_moves.py), as a row of `make eval-games`.

- placements: overhead; 20, 30 and 45 degrees from vertical at sente's end, at gote's end, at the left
  and at the right side (13 in all);
- the board spans a third of the frame width, about half, or as much as the frame's height allows
  (FRAC 0.33, 0.45, 0.55, in turn over the placements);
- looks: the training fonts and boards ("seen"), the font and board colour held out of training
  ("held"), and piece sets drawn by people (--art, ../shared/data/pieces/art); light neutral, warm or
  cold in turn;
- tuned part: games T1.. with seeds 1.. and some of the art sets; untuned part: other games
  (EVAL_MATRIX_UNTUNED), other seeds (+500), the held-out font and the other art sets. Tune on the
  tuned part only; the untuned part is the honest number.
- handicap part (EVAL_MATRIX_PART=handicap, not in "all"): one cell for each standard handicap (15),
  the placements in turn (EVAL_MATRIX_HC_PLACEMENTS="end-gote:45 ..." or "all": every handicap at every
  placement listed, 15 cells a placement): a game of EVAL_MATRIX_HC_PLIES (default 10) legal moves from the handicap's
  start, drawn by the cell's seed from `kifucam moves` (a promotion taken when both are legal, a king
  moved only when nothing else is legal), in the untuned part's looks, recorded with
  `kifucam record --handicap NAME`: the game must start from that handicap and its moves be found.
- EVAL_MATRIX_PART=tuned|untuned|all|handicap (default all), EVAL_MATRIX_PLACEMENTS="overhead:0 end-gote:30 ..."
  picks cells (each list renumbered from its first: other looks, sizes and seeds than in the whole
  matrix); EVAL_MATRIX_ONLY="end-sente:30 side-right:20" runs those cells of the whole matrix exactly
  as it has them (same game, size, light, look and seed); EVAL_RECORD_ARGS adds arguments to every `kifucam record` (a degraded-classifier row:
  EVAL_RECORD_ARGS="--degrade 0.5").

Prints one row a cell, then per part: moves right / total, wrong, and the rows with a wrong move. Writes
BUILD/eval-matrix/results.tsv. Exit 0 unless the build or a tool is missing (the numbers are the output).
"""

import json
import os
import random
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples"))

import eval_games as EG  # noqa: E402

K = EG.K
PLACEMENTS = ["overhead:0"] + [f"{w}:{d}" for w in ("end-sente", "end-gote", "side-left", "side-right")
                               for d in (20, 30, 45)]
FRACS = [0.33, 0.45, 0.55]
LIGHTS = ["neutral", "warm", "cold"]
# Looks: "seen" (the training fonts and boards), "held" (the font and board colour held out of training),
# or a piece set drawn by people (models/render/art.py). The untuned part's sets are never in the tuned one.
TUNED_LOOKS = ["seen", "held", "art:sunfish/hitomoji", "art:lishogi/kanji_light", "art:lishogi/2kanji_3d",
               "art:sunfish/hitomoji_wood", "art:lishogi/ryoko_1kanji"]
UNTUNED_LOOKS = ["held", "art:lishogi/kanji_red_wood", "art:sunfish/hitomoji_dark", "art:lishogi/kanji_brown",
                 "art:lishogi/kanji_guide_shadowed", "art:lishogi/1kanji_3d", "art:lishogi/shogi_bnw",
                 "art:lishogi/orangain"]
TUNED_GAMES = [
    f"{K}/shogi-kifu-converter/csa/floodgate.csa",
    f"{K}/json-kifu-format/kif/jt201409130101.kif",
    f"{K}/mog-core-scala/kif/game/001.kif",
]
# Games no part of the recorder was ever tuned on: not in eval_games.GAMES, not in the tests.
UNTUNED_GAMES = [
    f"{K}/apery_wcsc28/utf8_WCSC28_L1_CGP_PAL.csa",
    f"{K}/apery_wcsc28/utf8_WCSC28_L2_HIM_NRK.csa",
    f"{K}/json-kifu-format/kif/ryuou201409020101.kif",
]


HANDICAPS = {  # rules/position.c's standard handicap starts (gote, the giver, moves first)
    "lance": "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "right-lance": "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "bishop": "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "rook": "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "rook-lance": "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "2-piece": "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "3-piece": "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "4-piece": "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "5-piece": "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "left-5-piece": "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "6-piece": "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "left-7-piece": "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "right-7-piece": "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "8-piece": "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "10-piece": "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}


def handicap_game(kifucam, name, plies, seed, path):
    """Writes to path (once) a USI line of plies legal moves from handicap name's start, drawn by seed."""
    if os.path.exists(path):
        return path
    rng = random.Random(seed)
    sfen, moves = HANDICAPS[name], []
    for _ in range(plies):
        usi = f"position sfen {sfen}" + (f" moves {' '.join(moves)}" if moves else "")
        legal = subprocess.run([kifucam, "moves", "--usi", usi], capture_output=True, text=True,
                               check=True).stdout.split()
        if not legal:
            break
        king = {m for m in legal if not m[1] == "*" and m[:2] in king_squares(sfen, moves, kifucam)}
        pool = [m for m in legal if m not in king and not (m + "+" in legal)] or legal
        moves.append(rng.choice(pool))
    with open(path, "w") as f:
        f.write(f"position sfen {sfen} moves {' '.join(moves)}\n")
    return path


def king_squares(sfen, moves, kifucam):
    """The squares of both kings after moves (USI squares like 5a), from `kifucam moves`'s position:
    replayed here on the SFEN board."""
    board = {}
    for r, row in enumerate(sfen.split()[0].split("/")):
        f, prom = 9, ""
        for ch in row:
            if ch.isdigit():
                f -= int(ch)
            elif ch == "+":
                prom = "+"
            else:
                board[f"{f}{chr(ord('a') + r)}"] = prom + ch
                f, prom = f - 1, ""
    for m in moves:
        if m[1] == "*":
            board[m[2:4]] = m[0]
        else:
            board[m[2:4]] = board.pop(m[0:2])
    return {sq for sq, pc in board.items() if pc in ("K", "k")}


def cells(part):
    out = []
    if part == "handicap":
        every = os.environ.get("EVAL_MATRIX_HC_PLACEMENTS", "").split()
        if every == ["all"]:
            every = PLACEMENTS
        if every:  # each handicap at each placement listed (other sizes, light, looks and seeds in turn)
            for j, pl in enumerate(every):
                for k, name in enumerate(HANDICAPS):
                    n = j * len(HANDICAPS) + k
                    out.append(("handicap", name, pl, FRACS[n % len(FRACS)], LIGHTS[(n + 1) % len(LIGHTS)],
                                UNTUNED_LOOKS[n % len(UNTUNED_LOOKS)], 1001 + n))
            return out
        for k, name in enumerate(HANDICAPS):
            i = k % len(PLACEMENTS)
            out.append(("handicap", name, PLACEMENTS[i], FRACS[(k + 2) % len(FRACS)], LIGHTS[(k + 1) % len(LIGHTS)],
                        UNTUNED_LOOKS[k % len(UNTUNED_LOOKS)], 801 + k))
        return out
    picked = os.environ.get("EVAL_MATRIX_PLACEMENTS", "").split() or PLACEMENTS
    only = os.environ.get("EVAL_MATRIX_ONLY", "").split()
    for i, pl in enumerate(picked):
        if only and pl not in only:
            continue
        frac = FRACS[i % len(FRACS)]
        light = LIGHTS[i % len(LIGHTS)]
        if part in ("tuned", "all"):
            out.append(("tuned", TUNED_GAMES[i % len(TUNED_GAMES)], pl, frac, light,
                        TUNED_LOOKS[i % len(TUNED_LOOKS)], 1 + i))
        if part in ("untuned", "all"):
            games = os.environ.get("EVAL_MATRIX_UNTUNED", "").split() or UNTUNED_GAMES
            out.append(("untuned", games[i % len(games)], pl, FRACS[(i + 1) % len(FRACS)],
                        LIGHTS[(i + 2) % len(LIGHTS)], UNTUNED_LOOKS[i % len(UNTUNED_LOOKS)], 501 + i))
    return out


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args else "build"
    if not os.path.isdir(K):
        print("skipped: ../shared/data not found (eval-matrix)")
        return 0
    ev = EG.Eval(build)
    ev.out = os.path.join(build, "eval-matrix")
    os.makedirs(ev.out, exist_ok=True)
    if not os.access(ev.kifucam, os.X_OK):
        sys.exit(f"eval-matrix: {ev.kifucam} not built")
    plies = int(os.environ.get("EVAL_MATRIX_PLIES", "30"))
    part = os.environ.get("EVAL_MATRIX_PART", "all")
    t0 = time.time()
    print(f"{'cell':<44} {'plies':>7} {'right/total':>10} {'wrong':>5} {'missed':>6} {'extra':>5} {'uncert':>6}  "
          f"{'ending expected':<28} {'ending found':<28} {'ok':<4} {'fps':>5} {'wall s':>6}", flush=True)
    parts = {}
    for prt, game, pl, frac, light, look, seed in cells(part):
        where, deg = pl.split(":")
        start_args = None
        if prt == "handicap":
            start_args = ["--handicap", game]
            game = handicap_game(ev.kifucam, game, int(os.environ.get("EVAL_MATRIX_HC_PLIES", "10")), seed,
                                 os.path.join(ev.out, f"hc-{game}-s{seed}.usi"))
        ev.held_out = look != "seen"
        art = look[4:] if look.startswith("art:") else ""
        tag = f"-{where}{deg}-{int(frac * 100)}-{light}-s{seed}" + (f"-{art.replace('/', '-')}" if art else "")
        base = ev.clip(game, 0, plies, ["--camera", f"{pl}:{frac}", "--light", light, "--seed", str(seed),
                                        "--end-still", "30"] + (["--art", art] if art else []), tag)
        if not base:
            continue
        info = json.load(open(base + ".json"))
        rec = base + ".rec"
        os.system(f"rm -rf '{rec}'")
        summary, wall, note = ev.record(base + ".mp4", rec, info["sfen"], start_args=start_args)
        stem = os.path.splitext(os.path.basename(game))[0][:12]
        name = f"{prt[0]} {where}{deg} {int(frac * 100)}% {light[0]} {art.split('/')[-1] if art else look} {stem}"
        exp = {"reason": "none"}
        ev.row(name, base, rec, exp, summary, wall, note)
        parts.setdefault(prt, []).append(ev.rows[-1])
    for prt, rows in parts.items():
        tot = EG.totals(rows)
        bad = [r["game"] for r in rows if r["wrong"] or r["extra"]]
        pct = 100.0 * tot["right"] / max(1, tot["total"])
        print(f"{prt}: cells {len(rows)}, moves right {tot['right']}/{tot['total']} ({pct:.1f} %), "
              f"wrong {tot['wrong']}, extra {tot['extra']}, missed {tot['missed']}; "
              f"cells with a wrong move: {', '.join(bad) if bad else 'none'}")
    print(f"wall {time.time() - t0:.0f} s (rendering {ev.t_render:.0f} s, recording {ev.t_record:.0f} s)")
    EG.write_results(ev.rows, os.path.join(ev.out, "results.tsv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
