"""Renders a game clip for `kifucam record`: models/render/game.py's scene (board, both komadai, mild
perspective, a hand that makes each move), optionally in the piece font and board colour held out of
training, encoded as a small H.264 video with ffmpeg (raw frames piped, nothing kept on disk).

  /usr/bin/python3 samples/make_clip.py KIFU_OR_USI OUT.mp4 [--plies 60] [--seed 1] [--still 8] [--start-still 20] [--hand 2]
                   [--fps 10] [--size 1280x720] [--held-out] [--crf 28] [--kifucam build/kifucam]

Writes OUT.mp4 and OUT.usi (the `position ... moves ...` line of what was rendered: the truth the
recording is compared with, samples/compare_moves.py). Deterministic from --seed (up to the encoder).
At --fps 10, --still 8 gives 0.8 s of still board after every move: the stability test wants 0.4 s.
"""

import argparse
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "models"))

from render import board as B  # noqa: E402
from render import game as G  # noqa: E402
from render import piece as P  # noqa: E402
from render import style as S  # noqa: E402


class HeldOutScene(G.Scene):
    """game.Scene with the held-out font and board colour (same draws from the same generator)."""

    def __init__(self, seed, frame_w, frame_h, held_out):
        super().__init__(seed, frame_w, frame_h)
        if held_out:
            rng = np.random.default_rng([seed, 0])
            self.pset = P.piece_set(rng, self.fonts, held_out=True)
            self.bstyle = B.board_style(rng, held_out=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kifu")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plies", type=int, default=0, help="stop after this many moves (0: all)")
    ap.add_argument("--still", type=int, default=8, help="still frames after each move (and at the start)")
    ap.add_argument("--start-still", type=int, default=20, help="still frames of the set-up board before move 1")
    ap.add_argument("--hand", type=int, default=2, help="frames with the hand in view per move (>= 2)")
    ap.add_argument("--fps", type=float, default=10)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--held-out", action="store_true", help="the font and board colour held out of training")
    ap.add_argument("--crf", type=int, default=28)
    ap.add_argument("--kifucam", default=os.path.join(ROOT, "build", "kifucam"))
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    sfen, moves = G.read_usi(a.kifu, a.kifucam)
    moves = [m for m in moves if m not in ("resign", "win")]
    if a.plies:
        moves = moves[: a.plies]
    board, hands, side = G.parse_sfen(sfen)
    scene = HeldOutScene(a.seed, w, h, a.held_out)
    rng = np.random.default_rng([a.seed, 9])
    enc = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24",
                            "-s", f"{w}x{h}", "-r", str(a.fps), "-i", "-", "-c:v", "libx264", "-preset", "slow",
                            "-crf", str(a.crf), "-pix_fmt", "yuv420p", "-g", str(int(a.fps * 10)), a.out],
                           stdin=subprocess.PIPE)
    nframe = 0

    def emit(world, Hm, hand_at):
        nonlocal nframe
        nframe += 1
        enc.stdin.write(scene.frame(world, Hm, hand_at, rng).tobytes())

    world, geo = scene.world(board, hands)
    Hm = scene.homography(world.shape)
    for _ in range(a.start_still):
        emit(world, Hm, None)
    for ply, mv in enumerate(moves, 1):
        x0, y0, sw, sh = geo
        to = G.sq_index(mv[2:4])
        tgt = (x0 + (to % 9 + 0.5) * sw, y0 + (to // 9 + 0.5) * sh, side)
        for _ in range(a.hand // 2):
            emit(world, Hm, tgt)
        G.do_move(board, hands, side, mv)
        side ^= 1
        world, geo = scene.world(board, hands)
        for _ in range(a.hand - a.hand // 2):
            emit(world, Hm, tgt)
        for _ in range(a.still):
            emit(world, Hm, None)
        print(f"ply {ply}/{len(moves)}", file=sys.stderr, flush=True)
    enc.stdin.close()
    if enc.wait() != 0:
        sys.exit("ffmpeg failed")
    with open(os.path.splitext(a.out)[0] + ".usi", "w") as f:
        f.write(f"position sfen {sfen} moves {' '.join(moves)}\n")
    print(f"{a.out}: {nframe} frames, {os.path.getsize(a.out)} bytes, font {scene.pset['font']}, "
          f"board {scene.bstyle['name']}, camera at {'gote' if scene.cam_end else 'sente'}'s end", file=sys.stderr)


if __name__ == "__main__":
    main()
