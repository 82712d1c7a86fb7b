"""Renders a training or evaluation set of square crops to an .npz (x: N x 48 x 48 x 3 uint8 BGR, y: N int).

  /usr/bin/python3 -m render.dataset --boards 1200 --tight 15000 --seed 1 --out build/train.npz
  /usr/bin/python3 -m render.dataset --boards 1000 --held-out --seed 7 --out build/heldout.npz

Deterministic from --seed (board i uses seed (seed, i)). --held-out renders only the held-out font and
board colour (style.HELD_OUT_FONT, style.HELD_OUT_BOARD); otherwise they are never used.
"""

import argparse
import multiprocessing as mp
import sys

import numpy as np

from . import board as B


RING = [(r, c) for r in range(-1, 10) for c in range(-1, 10) if r in (-1, 9) or c in (-1, 9)]  # off the grid


def _boards(args):
    seed, lo, hi, held_out, empty_keep, offboard, wood_table = args
    xs, ys, bid = [], [], []
    for i in range(lo, hi):
        rng = np.random.default_rng([seed, i])
        pos = B.random_position(rng)
        wood = wood_table > 0 and rng.uniform() < wood_table
        img, g, lab = B.render_board(rng, pos, held_out=held_out, wood_table=wood)
        crops = B.all_crops(img, *g)
        for k in rng.choice(len(RING), offboard, replace=False) if offboard else []:
            xs.append(B.square_crop(img, *g, *RING[k]))  # the board's edge and the table: no piece
            ys.append(0)
            bid.append(i)
        for k in range(81):
            if lab[k] < 0:
                continue
            if lab[k] == 0 and rng.uniform() > empty_keep:
                continue
            xs.append(crops[k])
            ys.append(lab[k])
            bid.append(i)
    return xs, ys, bid


def _tight(args):
    seed, lo, hi, held_out = args
    xs, ys = [], []
    for i in range(lo, hi):
        rng = np.random.default_rng([seed, 1_000_000 + i])
        c = int(rng.integers(0, 29)) if rng.uniform() > 0.1 else 0
        xs.append(B.render_tight(rng, c, held_out=held_out))
        ys.append(c)
    return xs, ys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=1000)
    ap.add_argument("--tight", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--empty-keep", type=float, default=1.0, help="fraction of empty squares kept")
    ap.add_argument("--offboard", type=int, default=0, help="crops per board centred off the grid (empty)")
    ap.add_argument("--wood-table", type=float, default=0.0, help="share of boards on a wooden table")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    chunk = 25
    jobs = [(a.seed, lo, min(a.boards, lo + chunk), a.held_out, a.empty_keep, a.offboard, a.wood_table)
            for lo in range(0, a.boards, chunk)]
    tj = [(a.seed, lo, min(a.tight, lo + 500), a.held_out) for lo in range(0, a.tight, 500)]
    xs, ys, bid = [], [], []
    with mp.Pool(a.jobs) as pool:
        for n, (x, y, b) in enumerate(pool.imap(_boards, jobs)):
            xs += x
            ys += y
            bid += b
            print(f"boards {min(a.boards, (n + 1) * chunk)}/{a.boards}", file=sys.stderr, flush=True)
        for x, y in pool.imap(_tight, tj):
            xs += x
            ys += y
            bid += [-1] * len(y)
    np.savez(a.out, x=np.stack(xs), y=np.array(ys, np.int64), board=np.array(bid, np.int64))
    print(f"{a.out}: {len(ys)} crops", file=sys.stderr)


if __name__ == "__main__":
    main()
