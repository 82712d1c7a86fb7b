"""Renders a whole game as a sequence of camera frames: a board in a scene with both komadai (captured
pieces scattered on them), a mild perspective, and a hand that comes in to make each move.

  /usr/bin/python3 -m render.game KIFU_OR_USI OUT_DIR [--seed 1] [--plies 40] [--kifucam ../build/kifucam]

KIFU_OR_USI: any kifu kifucam reads (converted with `kifucam convert X - --to usi`), or a .usi file with a
`position startpos|sfen ... moves ...` line. Writes OUT_DIR/frames/000001.jpg ..., OUT_DIR/truth.jsonl
(one object a frame: frame, ply, sfen of what lies on the board and the stands, hand: whether a hand is
in view, move: the move being made), OUT_DIR/game.usi. Deterministic from --seed.
"""

import argparse
import json
import os
import re
import subprocess
import sys

import cv2
import numpy as np

from . import board as B
from . import piece as P
from . import style as S

HAND_KINDS = ["R", "B", "G", "S", "N", "L", "P"]  # SFEN order of hands
START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def parse_sfen(sfen):
    from realdata import sfen_board  # noqa: F401  (models/ on sys.path)

    parts = sfen.split()
    board = list(sfen_board(parts[0]))
    hands = [[0] * 7 for _ in range(2)]  # [owner][kind 0..6 = P L N S B R G]
    if len(parts) > 2 and parts[2] != "-":
        n = 0
        for ch in parts[2]:
            if ch.isdigit():
                n = n * 10 + int(ch)
                continue
            owner = 0 if ch.isupper() else 1
            hands[owner][S.KINDS.index(ch.upper())] += max(1, n)
            n = 0
    side = 0 if len(parts) < 2 or parts[1] == "b" else 1
    return board, hands, side


def to_sfen(board, hands, side, ply):
    rows = []
    for r in range(9):
        s, e = "", 0
        for c in range(9):
            v = board[r * 9 + c]
            if v == 0:
                e += 1
                continue
            if e:
                s += str(e)
                e = 0
            s += S.CLASS_NAMES[v]
        rows.append(s + (str(e) if e else ""))
    h = ""
    for owner in (0, 1):
        for k in HAND_KINDS:
            n = hands[owner][S.KINDS.index(k)]
            if n:
                h += (str(n) if n > 1 else "") + (k if owner == 0 else k.lower())
    return f"{'/'.join(rows)} {'bw'[side]} {h or '-'} {ply}"


def sq_index(s):
    """USI square '7g' -> board index (row-major from 9一)."""
    return (ord(s[1]) - ord("a")) * 9 + (9 - int(s[0]))


def do_move(board, hands, side, mv):
    """Plays a USI move; returns (from index or None, to index)."""
    if mv[1] == "*":
        k = S.KINDS.index(mv[0])
        to = sq_index(mv[2:4])
        hands[side][k] -= 1
        board[to] = S.cls_of(k, side)
        return None, to
    fr, to = sq_index(mv[0:2]), sq_index(mv[2:4])
    c = board[fr]
    if board[to]:
        kind = (board[to] - 1) % 14
        hands[side][kind - 8 if kind >= 8 else kind] += 1
    if mv.endswith("+"):
        c += 8
    board[to] = c
    board[fr] = 0
    return fr, to


def read_usi(path, kifucam):
    if path.endswith(".usi"):
        text = open(path, encoding="utf-8").read()
    else:
        text = subprocess.run([kifucam, "convert", path, "-", "--to", "usi"], check=True, capture_output=True,
                              text=True).stdout
    line = [ln for ln in text.splitlines() if ln.startswith("position")][0].split()
    if line[1] == "startpos":
        sfen, rest = START, line[2:]
    else:
        sfen, rest = " ".join(line[2:6]), line[6:]
    moves = rest[1:] if rest and rest[0] == "moves" else []
    ok = re.compile(r"^([1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i])$")
    out = []
    for m in moves:  # stop at anything that is not a move (e.g. a terminal word)
        if not ok.match(m):
            break
        out.append(m)
    return sfen, out


class Scene:
    """One game's fixed look: board, piece set, stands, table, camera."""

    def __init__(self, seed, frame_w=1280, frame_h=720, camera=None):
        """camera: None for the mild random perspective of before, or (placement, degrees from
        vertical, share of the frame's shorter side the board spans): see camera.Camera.placed."""
        self.seed = seed
        self.camera_spec = camera
        self.cam = None
        rng = np.random.default_rng([seed, 0])
        self.fonts = S.available_fonts()
        self.pset = P.piece_set(rng, self.fonts)
        self.bstyle = B.board_style(rng)
        self.sq = 44.0
        self.W, self.H = frame_w, frame_h
        self.stand_col = np.array(S.BOARD_COLOURS["kaya"], np.float32) * rng.uniform(0.8, 1.05, 3)
        self.table = rng.uniform(30, 120, 3).astype(np.float32)
        self.tilt = rng.uniform(0.0, 0.25)  # perspective strength
        self.cam_end = int(rng.integers(2))  # 0: camera at sente's end, 1: at gote's end
        self.design = seed  # one design per kind for the whole set (piece.render_piece); None: per piece
        self.skin = np.array([rng.uniform(120, 170), rng.uniform(150, 190), rng.uniform(200, 235)], np.float32)

    def world(self, board, hands):
        """Top-down picture of board + stands on the table, and the grid geometry in it."""
        img, (x0, y0, sw, sh), _ = B.render_board(np.random.default_rng([self.seed, 1]), np.array(board),
                                                  sq=self.sq, pset=self.pset, bstyle=self.bstyle,
                                                  fonts=self.fonts, effects=False, square_seed=self.seed,
                                                  float_out=True, design_seed=self.design,
                                                  lean_of=self._lean_of())
        bh, bw = img.shape[:2]
        stand_w, stand_h = int(3.2 * sw), int(3.6 * sh)
        pad = int(0.4 * sw)
        Wd = bw + 2 * (stand_w + 2 * pad)
        world = np.empty((bh, Wd, 3), np.float32)
        world[:] = self.table
        bx = stand_w + 2 * pad
        world[:, bx : bx + bw] = img
        stands = {0: (bx + bw + pad, bh - stand_h - pad), 1: (pad, pad)}  # sente's right, gote's right
        for owner, (sx, sy) in stands.items():
            rng = np.random.default_rng([self.seed, 2, owner])
            world[sy : sy + stand_h, sx : sx + stand_w] = P.wood_texture(stand_h, stand_w, self.stand_col, rng, 0.05)
            cv2.rectangle(world, (sx, sy), (sx + stand_w - 1, sy + stand_h - 1), (40, 60, 80), 2)
            slot = 0
            for k in HAND_KINDS[::-1]:  # pawns first, then bigger pieces
                ki = S.KINDS.index(k)
                for n in range(hands[owner][ki]):
                    prng = np.random.default_rng([self.seed, 3, owner, ki, n])
                    col, alpha = P.render_piece(ki, owner, self.pset, sw * 0.9, prng, design=self.design)
                    col, alpha = P.rotate_rgba(col, alpha, prng.normal(0, 12) + (180 if owner else 0))
                    gx, gy = slot % 3, slot // 3
                    cx = sx + (0.5 + gx) * stand_w / 3 + prng.normal(0, 0.12 * sw) + n * 0.25 * sw
                    cy = sy + (0.5 + gy) * stand_h / 4 + prng.normal(0, 0.12 * sh)
                    if owner == 1:
                        cx, cy = 2 * sx + stand_w - cx, 2 * sy + stand_h - cy
                    B.paste(world, None, cv2.GaussianBlur(alpha, (0, 0), 2), cx + 2, cy + 2, dark=0.35)
                    B.paste(world, col, alpha, cx, cy)
                if hands[owner][ki]:
                    slot += 1
        return world, (bx + x0, y0, sw, sh)

    def _board_centre(self):
        """Board centre and width in world pixels (the layout of world(), without drawing it)."""
        sw = self.sq
        mg = int(1.0 * sw)
        bw = int(round(9 * sw + 2 * mg))
        stand_w, pad = int(3.2 * sw), int(0.4 * sw)
        bx = stand_w + 2 * pad
        return (bx + bw / 2.0, bw / 2.0), 9 * sw

    def _camera(self):
        if self.camera_spec is None:
            return None
        if self.cam is None:
            from . import camera as CAM

            where, elev, frac = self.camera_spec
            centre, width = self._board_centre()
            self.cam = CAM.Camera.placed(where, elev, frac, (self.W, self.H), width, centre,
                                         rng=np.random.default_rng([self.seed, 11]))
        return self.cam

    def _lean_of(self):
        cam = self._camera()
        return None if cam is None else cam.lean

    def homography(self, wshape):
        if self._camera() is not None:
            return self.cam.homography()
        h, w = wshape[:2]
        s = min(self.W * 0.92 / w, self.H * 0.92 / h)
        cw, ch = w * s, h * s
        ox, oy = (self.W - cw) / 2, (self.H - ch) / 2
        t = self.tilt * cw
        dst = np.float32([[ox + t * 0.5, oy], [ox + cw - t * 0.5, oy], [ox + cw + t * 0.2, oy + ch], [ox - t * 0.2, oy + ch]])
        if self.cam_end == 1:
            dst = dst[[2, 3, 0, 1]]
        return cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)

    def frame(self, world, Hm, hand_at=None, rng=None):
        img = cv2.warpPerspective(world, Hm, (self.W, self.H), flags=cv2.INTER_AREA, borderValue=tuple(float(v) for v in self.table))
        if hand_at is not None:
            tip = cv2.perspectiveTransform(np.float32([[hand_at[:2]]]), Hm)[0, 0]
            base = np.float32([self.W * 0.5 + (self.W * 0.3 if hand_at[0] > world.shape[1] / 2 else -self.W * 0.3),
                               self.H + 40 if (self.cam_end == 0) == (hand_at[2] == 0) else -40])
            if self.cam is not None:  # the arm comes from the mover's seat, wherever that is in the frame
                seat = np.float32([[[hand_at[0], world.shape[0] * (1.6 if hand_at[2] == 0 else -0.6)]]])
                base = cv2.perspectiveTransform(seat, Hm)[0, 0]
                base = np.clip(base, [-200, -200], [self.W + 200, self.H + 200]).astype(np.float32)
            mask = np.zeros((self.H, self.W), np.float32)
            d = tip - base
            d /= np.linalg.norm(d) + 1e-6
            nrm = np.float32([-d[1], d[0]])
            for k in range(3):
                off = (k - 1) * 11
                cv2.line(mask, tuple(np.int32(base + nrm * off)), tuple(np.int32(tip + nrm * off - d * (6 * abs(k - 1)))), 1.0, 12, cv2.LINE_AA)
            cv2.line(mask, tuple(np.int32(base)), tuple(np.int32(tip - d * 45)), 1.0, 70, cv2.LINE_AA)
            sh = cv2.warpAffine(cv2.GaussianBlur(mask, (0, 0), 15), np.float32([[1, 0, 15], [0, 1, 20]]), (self.W, self.H))
            img *= (1 - 0.4 * sh)[..., None]
            img = img * (1 - mask[..., None]) + self.skin * mask[..., None]
        img = img + rng.normal(0, 3, img.shape).astype(np.float32)
        return np.clip(img, 0, 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kifu")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plies", type=int, default=0, help="stop after this many moves (0: all)")
    ap.add_argument("--still", type=int, default=3, help="stable frames between moves")
    ap.add_argument("--kifucam", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "kifucam"))
    a = ap.parse_args()
    sfen, moves = read_usi(a.kifu, a.kifucam)
    if a.plies:
        moves = moves[: a.plies]
    board, hands, side = parse_sfen(sfen)
    os.makedirs(os.path.join(a.out, "frames"), exist_ok=True)
    scene = Scene(a.seed)
    rng = np.random.default_rng([a.seed, 9])
    nframe = 0
    tf = open(os.path.join(a.out, "truth.jsonl"), "w")

    def emit(world, Hm, ply, hand_at, mv):
        nonlocal nframe
        nframe += 1
        img = scene.frame(world, Hm, hand_at, rng)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(70, 92))])
        open(os.path.join(a.out, "frames", f"{nframe:06d}.jpg"), "wb").write(buf.tobytes())
        tf.write(json.dumps({"frame": nframe, "ply": ply, "sfen": to_sfen(board, hands, side, ply + 1),
                             "hand": hand_at is not None, "move": mv}) + "\n")

    world, geo = scene.world(board, hands)
    Hm = scene.homography(world.shape)
    for _ in range(a.still):
        emit(world, Hm, 0, None, None)
    for ply, mv in enumerate(moves, 1):
        x0, y0, sw, sh = geo
        to = sq_index(mv[2:4])
        tgt = (x0 + (to % 9 + 0.5) * sw, y0 + (to // 9 + 0.5) * sh, side)
        # the hand comes in over the target square, the position changes under it, the hand leaves
        emit(world, Hm, ply - 1, tgt, mv)
        do_move(board, hands, side, mv)
        side ^= 1
        world, geo = scene.world(board, hands)
        emit(world, Hm, ply, tgt, mv)
        for _ in range(a.still):
            emit(world, Hm, ply, None, None)
        print(f"ply {ply}/{len(moves)}", file=sys.stderr, flush=True)
    tf.close()
    with open(os.path.join(a.out, "game.usi"), "w") as f:
        f.write(f"position sfen {sfen} moves {' '.join(moves)}\n")
    print(f"{a.out}: {nframe} frames", file=sys.stderr)


if __name__ == "__main__":
    main()
