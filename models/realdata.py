"""Readers of the real crop sets in ../shared/data (labels mapped to the 29 classes of models/README.md)."""

import csv
import json
import os

import cv2
import numpy as np

from render import style as S
from render.board import all_crops

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data"))
USI = {k: i for i, k in enumerate(S.KINDS)}


def usi_class(tok):
    """'P' -> sente pawn, 'p' -> gote pawn, '+b' -> gote horse, '.' -> empty."""
    if tok in (".", ""):
        return 0
    prom = tok.startswith("+")
    t = tok[1:] if prom else tok
    owner = 0 if t.isupper() else 1
    return S.cls_of(USI[("+" if prom else "") + t.upper()], owner)


def sfen_board(sfen):
    out = []
    for row in sfen.split("/"):
        i = 0
        while i < len(row):
            ch = row[i]
            if ch.isdigit():
                out += [0] * int(ch)
            elif ch == "+":
                out.append(usi_class(row[i : i + 2]))
                i += 1
            else:
                out.append(usi_class(ch))
            i += 1
    assert len(out) == 81, sfen
    return np.array(out, np.int64)


def _bgr(path):
    im = cv2.imread(path, cv2.IMREAD_COLOR)
    return im


def naoys_koma():
    """(crops 64x64 BGR, classes, series) for the 371 piece photos (sente) and the 27 empty squares."""
    root = os.path.join(DATA, "pieces", "na-o-ys")
    xs, ys, ser = [], [], []
    with open(os.path.join(root, "koma_labels.csv")) as f:
        for r in csv.DictReader(f):
            empty = r["usi"] == "."
            sub = "empty_cell" if empty else "koma"
            xs.append(_bgr(os.path.join(root, sub, os.path.basename(r["file"]))))
            ys.append(usi_class(r["usi"]))
            ser.append("empty" if empty else r["series"])
    return xs, np.array(ys), ser


def naoys_board1_cells():
    root = os.path.join(DATA, "pieces", "na-o-ys", "board1_cells")
    xs, ys = [], []
    with open(os.path.join(root, "labels.csv")) as f:
        for r in csv.DictReader(f):
            xs.append(_bgr(os.path.join(root, r["file"])))
            ys.append(usi_class(r["usi(uppercase=sente)"]))
    return xs, np.array(ys)


HASH_CLASS = {"fu": "P", "ky": "L", "ke": "N", "gi": "S", "ka": "B", "hi": "R", "ki": "G", "ou": "K",
              "to": "+P", "ny": "+L", "nk": "+N", "ng": "+S", "um": "+B", "ry": "+R"}


def hash_cells():
    root = os.path.join(DATA, "pieces", "hash451722")
    xs, ys = [], []
    with open(os.path.join(root, "labels.csv")) as f:
        for r in csv.DictReader(f):
            xs.append(_bgr(os.path.join(root, r["file"])))
            d = r["class_dir"]
            if d == "em":
                ys.append(0)
            else:
                ys.append(S.cls_of(USI[HASH_CLASS[d]], 0 if r["owner_inferred_from_position"].startswith("sente") else 1))
    return xs, np.array(ys)


HASH_SFEN = "+l+n+sgkg+s+n+l/1+r5+b1/+p+p+p+p+p+p+p+p+p/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL"

# The na-o-ys raw photo (board8_raw_photo_with_komadai_500x375.png) does NOT show the position of 8.txt,
# whatever ../shared/data/README.md says: it is an earlier position of the same game (gote's knights
# still on 8a and 2a, sente's king on 7h, the lance on 1i). Read by eye square by square from the photo
# warped top-down at 90 pixels a square (every piece's column checked against the grid lines); the 28
# pieces on the board and the 12 in hand add up to a full set. Hands: sente's stand (bottom right) shows
# R 2G 2P; gote's (top left) holds 7 pieces turned away from the camera, B G 2S N 2P by elimination.
NAOYS_RAW8_SFEN = "ln5nl/5k3/4p1p2/p1p1SB1Pp/1p1r5/P1P2P2P/1PSGP1+p2/2K6/LN6L"
NAOYS_RAW8_HANDS = "R2G2Pbg2sn2p"


def board_truths():
    """{"board1": 81 classes, "board8": ..., "board8_raw": ..., "hash451722": ...}: the labelled positions of
    the real board photos (na-o-ys boards_sfen.txt lines 1.txt and 8.txt for the rectified boards 1 and 8,
    NAOYS_RAW8_SFEN for the raw photo, hash451722 from ../shared/data/README.md), in SFEN order (rank 1
    first, file 9 first in a rank), sente at the bottom."""
    sf = {}
    with open(os.path.join(DATA, "photos", "na-o-ys", "boards_sfen.txt")) as f:
        for line in f:
            k, v = line.split()
            sf[k] = v
    return {"board1": sfen_board(sf["1.txt"]), "board8": sfen_board(sf["8.txt"]),
            "board8_raw": sfen_board(NAOYS_RAW8_SFEN), "hash451722": sfen_board(HASH_SFEN)}


def board_photos():
    """[(name, 81 crops 48x48 per models/README.md, 81 classes)] for the rectified na-o-ys boards and the
    hash451722 photo warped with its labelled corners."""
    out = []
    truth = board_truths()
    for name, key in (("board1_rectified", "board1"), ("board8_rectified", "board8")):
        fn = [p for p in os.listdir(os.path.join(DATA, "photos", "na-o-ys")) if p.startswith(name)][0]
        img = _bgr(os.path.join(DATA, "photos", "na-o-ys", fn))
        H, W = img.shape[:2]
        out.append((name, all_crops(img, 0.0, 0.0, W / 9, H / 9), truth[key]))
    root = os.path.join(DATA, "photos", "hash451722")
    img = _bgr(os.path.join(root, "sample_board.jpg"))
    js = json.load(open(os.path.join(root, "sample_board.json")))
    pts = np.float32([s["points"] for s in js["shapes"] if s["label"] == "squares-99"][0])
    sw, sh, mg = 60.0, 64.0, 30.0
    dst = np.float32([[mg, mg], [mg + 9 * sw, mg], [mg + 9 * sw, mg + 9 * sh], [mg, mg + 9 * sh]])
    M = cv2.getPerspectiveTransform(pts, dst)
    warped = cv2.warpPerspective(img, M, (int(2 * mg + 9 * sw), int(2 * mg + 9 * sh)), borderMode=cv2.BORDER_REPLICATE)
    out.append(("hash451722_photo", all_crops(warped, mg, mg, sw, sh), truth["hash451722"]))
    return out


def dk_flylab():
    """The two MIT close-ups: (BGR image, class)."""
    root = os.path.join(DATA, "photos", "dk-flylab", "images")
    return [(_bgr(os.path.join(root, "ExampleTraining_hohei.JPG")), S.cls_of(0, 0)),
            (_bgr(os.path.join(root, "ExampleTraining_tokin.JPG")), S.cls_of(8, 0))]
