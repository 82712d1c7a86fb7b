"""Renders a game clip for `kifucam record`: models/render/game.py's scene (board, both komadai, mild
perspective, a hand that makes each move), optionally in the piece font and board colour held out of
training, encoded as a small H.264 video with ffmpeg (raw frames piped, nothing kept on disk).

  /usr/bin/python3 samples/make_clip.py KIFU_OR_USI OUT.mp4 [--plies 60] [--from-ply 0] [--seed 1]
                   [--still 8] [--start-still 20] [--end-still 8] [--hand 2] [--fps 10] [--size 1280x720]
                   [--held-out] [--camera PLACEMENT:DEG:FRAC] [--light warm|cold] [--art SET] [--crf 28] [--preset slow] [--blackout PLY:SECONDS:MOVES]
                   [--kifucam build/kifucam]

Writes OUT.mp4, OUT.usi (the `position ... moves ...` line of what was rendered: the truth the
recording is compared with, samples/compare_moves.py) and OUT.json (sfen, moves, from_ply, frames, fps,
blackout: [first, last] frame numbers, 1-based, or null). Deterministic from --seed (up to the encoder).
At --fps 10, --still 8 gives 0.8 s of still board after every move: the stability test wants 0.4 s.

--from-ply N: the clip starts from the position after the record's first N moves (record it with
`kifucam record --start SFEN`, the SFEN being OUT.json's sfen); --plies then counts the moves rendered
after it. The moves are played on the picture as written, without the rules: a position reached by an
illegal move (the last move of a game lost by it) is drawn as the players left it.
--blackout PLY:SECONDS:MOVES: before the clip's move PLY (1-based, counted from the clip's start) the
camera delivers black frames for SECONDS while MOVES moves are made unseen; then the picture comes back.
"""

import argparse
import json
import os
import subprocess
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "models"))

from render import board as B  # noqa: E402
from render import game as G  # noqa: E402
from render import piece as P  # noqa: E402


class ClipScene(G.Scene):
    """game.Scene, optionally with the held-out font and board colour (same draws from the same
    generator), and a cheaper still frame: the warped board is kept while the position does not change
    and the sensor noise (the same N(0, 3) per pixel as game.Scene.frame) comes from a bank of 8
    fields drawn once, shifted by a random offset each frame. Frames with a hand are game.Scene's."""

    LIGHTS = {"neutral": (1.0, 1.0, 1.0), "warm": (0.78, 0.95, 1.12), "cold": (1.12, 1.0, 0.84)}  # BGR gains

    def __init__(self, seed, frame_w, frame_h, held_out, piece_look="set", camera=None, light="neutral"):
        super().__init__(seed, frame_w, frame_h, camera)
        self.gain = None if light == "neutral" else np.float32(self.LIGHTS[light])
        if piece_look == "piece":
            self.design = None
        if held_out:
            rng = np.random.default_rng([seed, 0])
            self.pset = P.piece_set(rng, self.fonts, held_out=True)
            self.bstyle = B.board_style(rng, held_out=True)
        bank_rng = np.random.default_rng([seed, 7])
        self.noise = [bank_rng.normal(0, 3, (frame_h, frame_w, 3)).astype(np.float32) for _ in range(8)]
        self.warp_of, self.warped = None, None

    def frame(self, world, Hm, hand_at=None, rng=None):
        img = self._frame(world, Hm, hand_at, rng)
        if self.gain is None:
            return img
        return np.clip(img.astype(np.float32) * self.gain, 0, 255).astype(np.uint8)

    def _frame(self, world, Hm, hand_at=None, rng=None):
        if hand_at is not None:
            return super().frame(world, Hm, hand_at, rng)
        if self.warp_of is not world:
            self.warped = cv2.warpPerspective(world, Hm, (self.W, self.H), flags=cv2.INTER_AREA,
                                              borderValue=tuple(float(v) for v in self.table))
            self.warp_of = world
        n = self.noise[int(rng.integers(len(self.noise)))]
        n = np.roll(n, (int(rng.integers(self.H)), int(rng.integers(self.W))), axis=(0, 1))
        return np.clip(self.warped + n, 0, 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kifu")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plies", type=int, default=0, help="moves rendered (0: all)")
    ap.add_argument("--from-ply", type=int, default=0, help="start from the position after this many moves")
    ap.add_argument("--still", type=int, default=8, help="still frames after each move (and at the start)")
    ap.add_argument("--start-still", type=int, default=20, help="still frames of the set-up board before move 1")
    ap.add_argument("--end-still", type=int, default=-1, help="still frames after the last move (-1: --still)")
    ap.add_argument("--hand", type=int, default=2, help="frames with the hand in view per move (>= 2)")
    ap.add_argument("--fps", type=float, default=10)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--held-out", action="store_true", help="the font and board colour held out of training")
    ap.add_argument("--piece-look", choices=("set", "piece"), default="set",
                    help="set: every piece of a kind shares one design, as in a real set (default); piece: "
                         "each piece drawn on its own (its own layout and handwriting; the clips of commit "
                         "d8d795f and before, samples/sample-clip.mp4 and tests/data/record-clip.mp4)")
    ap.add_argument("--camera", default="",
                    help="PLACEMENT:DEGREES:FRAC, a camera placed as in a hall (render/camera.py): PLACEMENT "
                         "overhead, end-sente, end-gote, side-left or side-right, DEGREES from vertical, the "
                         "board spanning FRAC of the frame width (0.33: a third) (default: the mild random perspective)")
    ap.add_argument("--art", default="", help="pieces from a set drawn by people (models/render/art.py SETS, "
                    "e.g. lishogi/kanji_red_wood), not from a font")
    ap.add_argument("--light", choices=tuple(ClipScene.LIGHTS), default="neutral",
                    help="colour of the light: warm (tungsten), cold (daylight, LED) or neutral")
    ap.add_argument("--crf", type=int, default=28)
    ap.add_argument("--preset", default="slow", help="x264 preset")
    ap.add_argument("--blackout", default="", help="PLY:SECONDS:MOVES, black frames while MOVES moves are made")
    ap.add_argument("--kifucam", default=os.path.join(ROOT, "build", "kifucam"))
    a = ap.parse_args()
    w, h = (int(v) for v in a.size.split("x"))
    sfen, moves = G.read_usi(a.kifu, a.kifucam)
    moves = [m for m in moves if m not in ("resign", "win", "timeout")]
    if a.from_ply < 0 or a.from_ply > len(moves):
        sys.exit(f"--from-ply {a.from_ply}: the record has {len(moves)} moves")
    board, hands, side = G.parse_sfen(sfen)
    ply0 = int(sfen.split()[3]) if len(sfen.split()) > 3 else 1
    for mv in moves[: a.from_ply]:
        G.do_move(board, hands, side, mv)
        side ^= 1
    sfen = G.to_sfen(board, hands, side, ply0 + a.from_ply)
    moves = moves[a.from_ply:]
    if a.plies:
        moves = moves[: a.plies]
    bo_ply, bo_frames, bo_moves = 0, 0, 0
    if a.blackout:
        p, s, m = a.blackout.split(":")
        bo_ply, bo_frames, bo_moves = int(p), int(round(float(s) * a.fps)), int(m)
        if not (1 <= bo_ply and bo_ply + bo_moves - 1 <= len(moves) and bo_moves >= 0):
            sys.exit(f"--blackout {a.blackout}: the clip has {len(moves)} moves")
    camera = None
    if a.camera:
        try:
            where, deg, frac = a.camera.split(":")
            camera = (where, float(deg), float(frac))
        except ValueError:
            sys.exit(f"--camera {a.camera}: expected PLACEMENT:DEGREES:FRAC")
    scene = ClipScene(a.seed, w, h, a.held_out, a.piece_look, camera, a.light)
    if a.art:
        from render import art as ART

        if a.art not in ART.SETS:
            sys.exit(f"--art {a.art}: one of {' '.join(ART.SETS)}")
        scene.pset["art"] = a.art
    rng = np.random.default_rng([a.seed, 9])
    enc = subprocess.Popen(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgr24",
                            "-s", f"{w}x{h}", "-r", str(a.fps), "-i", "-", "-c:v", "libx264", "-preset", a.preset,
                            "-crf", str(a.crf), "-pix_fmt", "yuv420p", "-g", str(int(a.fps * 10)), a.out],
                           stdin=subprocess.PIPE)
    nframe = 0
    black = np.zeros((h, w, 3), np.uint8)
    blackout = None

    def emit(world, Hm, hand_at):
        nonlocal nframe
        nframe += 1
        enc.stdin.write(scene.frame(world, Hm, hand_at, rng).tobytes())

    world, geo = scene.world(board, hands)
    Hm = scene.homography(world.shape)
    for _ in range(a.start_still):
        emit(world, Hm, None)
    ply = 0
    while ply < len(moves):
        if bo_frames and ply + 1 == bo_ply:  # the camera goes black; bo_moves moves are made meanwhile
            blackout = [nframe + 1, nframe + bo_frames]
            for _ in range(bo_frames):
                nframe += 1
                enc.stdin.write(black.tobytes())
            for mv in moves[ply : ply + bo_moves]:
                G.do_move(board, hands, side, mv)
                side ^= 1
            ply += bo_moves
            world, geo = scene.world(board, hands)
            for _ in range(a.still):
                emit(world, Hm, None)
            print(f"blackout: frames {blackout[0]}-{blackout[1]}, moves {bo_ply}-{ply} unseen", file=sys.stderr)
            continue
        mv = moves[ply]
        ply += 1
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
        for _ in range(a.still if ply < len(moves) or a.end_still < 0 else a.end_still):
            emit(world, Hm, None)
        print(f"ply {ply}/{len(moves)}", file=sys.stderr, flush=True)
    enc.stdin.close()
    if enc.wait() != 0:
        sys.exit("ffmpeg failed")
    base = os.path.splitext(a.out)[0]
    with open(base + ".usi", "w") as f:
        f.write(f"position sfen {sfen} moves {' '.join(moves)}\n")
    with open(base + ".json", "w") as f:
        json.dump({"source": a.kifu, "sfen": sfen, "moves": moves, "from_ply": a.from_ply, "frames": nframe,
                   "fps": a.fps, "blackout": blackout, "seed": a.seed, "held_out": a.held_out,
                   "piece_look": a.piece_look, "camera": a.camera or None, "light": a.light, "art": a.art or None}, f)
        f.write("\n")
    print(f"{a.out}: {nframe} frames, {os.path.getsize(a.out)} bytes, font {scene.pset['font']}, "
          f"board {scene.bstyle['name']}, camera "
          f"{a.camera or ('at gote' if scene.cam_end else 'at sente') + chr(39) + 's end'}", file=sys.stderr)


if __name__ == "__main__":
    main()
