"""Piece faces drawn by people (../shared/data/pieces/art): every kind of 12 real-looking sets, with the
calligraphic promoted sides fonts cannot draw. A face is the artwork's own piece (its outline, body and
ink), rasterised once per set and size; the renderer then gives it light, lean, shadow, perspective and
noise like any other piece.

  art.SETS                          the set names (folder/set)
  art.face(set, kind_i, w, h)       (bgr float32 h x w x 3, alpha float32 h x w) of sente's piece kind_i
                                    (style.KINDS order), pointing up

SVG sets are rasterised with rsvg-convert (Debian librsvg2-bin); licences: art/README.md (CC0, CC BY,
CC BY-SA: attribution, and a model trained on them shared alike).
"""

import os
import subprocess
import tempfile

import cv2
import numpy as np

ART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "pieces", "art")
_LISHOGI = ["FU", "KY", "KE", "GI", "KA", "HI", "KI", "OU", "TO", "NY", "NK", "NG", "UM", "RY"]
_SUNFISH = ["pawn", "lance", "knight", "silver", "bishop", "rook", "gold", "king", "prom_pawn", "prom_lance",
            "prom_knight", "prom_silver", "horse", "dragon"]
_SUNFISH_SETS = ["hitomoji", "hitomoji_wood", "hitomoji_dark"]
_LISHOGI_SETS = ["kanji_red_wood", "kanji_light", "kanji_brown", "kanji_guide_shadowed", "1kanji_3d", "ryoko_1kanji",
                 "shogi_bnw", "2kanji_3d", "orangain"]
SETS = [f"sunfish/{s}" for s in _SUNFISH_SETS] + [f"lishogi/{s}" for s in _LISHOGI_SETS]
_cache = {}


def available():
    return os.path.isdir(ART)


def _path(set_name, kind_i):
    src, name = set_name.split("/", 1)
    if src == "sunfish":
        return os.path.join(ART, "sunfish-shogi_shogi-images", name, f"black_{_SUNFISH[kind_i]}.png")
    return os.path.join(ART, "WandererXII_lishogi", name, f"0{_LISHOGI[kind_i]}.svg")


def _load(set_name, kind_i, size=192):
    key = (set_name, kind_i)
    if key in _cache:
        return _cache[key]
    path = _path(set_name, kind_i)
    if path.endswith(".svg"):
        with tempfile.NamedTemporaryFile(suffix=".png") as tmp:
            subprocess.check_call(["rsvg-convert", "-h", str(size), "-o", tmp.name, path])
            img = cv2.imread(tmp.name, cv2.IMREAD_UNCHANGED)
    else:
        img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise ValueError(f"{path}: not an RGBA image")
    a = img[:, :, 3]
    ys, xs = np.nonzero(a > 8)
    img = img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]  # the piece alone, no transparent margin
    _cache[key] = img
    return img


def face(set_name, kind_i, w, h):
    """Sente's piece kind_i of set_name, resized to w x h: (bgr float32, alpha float32 0..1)."""
    img = _load(set_name, kind_i)
    big = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    return np.ascontiguousarray(big[:, :, :3]), big[:, :, 3] / 255.0
