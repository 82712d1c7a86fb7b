"""Renders one shogi piece (pentagon, wood or plastic, a face from a font) as a BGR image and an alpha mask.

Everything is drawn pointing up (sente); the caller turns gote's pieces by 180 degrees. Deterministic:
all randomness comes from the numpy Generator passed in.
"""

import functools

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import style as S

GLYPH_PX = 96  # size at which glyphs are drawn once and cached


@functools.lru_cache(maxsize=None)
def _font(name):
    path, index = S.FONTS[name]
    return ImageFont.truetype(path, GLYPH_PX, index=index)


def _draw(fontname, ch):
    im = Image.new("L", (GLYPH_PX * 2, GLYPH_PX * 2), 0)
    ImageDraw.Draw(im).text((GLYPH_PX // 2, GLYPH_PX // 2), ch, font=_font(fontname), fill=255)
    return np.asarray(im, np.float32) / 255.0


@functools.lru_cache(maxsize=None)
def has_char(fontname, ch):
    """Whether the font draws ch itself: a missing character draws the same as a code point no font
    has (U+10FFFD, private use), a .notdef box or nothing; some fonts map a character to an empty
    glyph (the Kouzan fonts' 仐, 仝), which is missing too."""
    a = _draw(fontname, ch)
    return bool(a.max() > 0.05) and not np.array_equal(a, _draw(fontname, "\U0010FFFD"))


@functools.lru_cache(maxsize=None)
def glyph(fontname, ch):
    """Ink mask (float32 0..1) of one character, cropped to its ink. A character the font lacks is
    drawn with style.FALLBACK[fontname] (or style.DEFAULT_FALLBACK)."""
    if not has_char(fontname, ch):
        fb = S.FALLBACK.get(fontname, S.DEFAULT_FALLBACK)
        if fb == fontname or fb not in S.FONTS:
            fb = S.LAST_FALLBACK  # the IPA fonts lack 丆, which they drew as a crossed box
        if fb != fontname and fb in S.FONTS:
            return glyph(fb, ch)
    a = _draw(fontname, ch)
    ys, xs = np.nonzero(a > 0.05)
    if len(xs) == 0:
        return np.zeros((8, 8), np.float32)
    return a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].copy()


def pentagon(w, h, rng, shoulder=None):
    """Outline of a piece of width w and height h (pixels), apex up, as float points."""
    sy = shoulder if shoulder is not None else rng.uniform(0.20, 0.30)
    sx = rng.uniform(0.40, 0.45)
    bx = 0.5
    return np.array(
        [[0.5 * w, 0], [(0.5 + sx) * w, sy * h], [(0.5 + bx) * w, h], [(0.5 - bx) * w, h], [(0.5 - sx) * w, sy * h]],
        np.float32,
    )


def wood_texture(h, w, base, rng, grain=0.08):
    """A wood-like BGR texture (float32 0..255): base colour, grain stripes along y, low-frequency blotches."""
    n = max(4, w // 2)
    line = rng.normal(0, 1, n).astype(np.float32)
    line = cv2.GaussianBlur(line.reshape(1, -1), (0, 0), sigmaX=rng.uniform(0.6, 2.0)).ravel()
    stripes = cv2.resize(line.reshape(1, -1), (w, h), interpolation=cv2.INTER_LINEAR)
    low = cv2.resize(rng.normal(0, 1, (3, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    f = 1.0 + grain * stripes / (np.abs(stripes).max() + 1e-6) + 0.04 * low
    tex = np.empty((h, w, 3), np.float32)
    for c in range(3):
        tex[..., c] = base[c] * f
    return tex


def vary_glyph(g, rng):
    """Handwriting-like variation of a cached glyph: stroke weight and a smooth elastic warp. Applied only
    when the generator's draw says so (about 60 % of faces), so plain font shapes stay in the data."""
    if rng.uniform() > 0.6:
        return g
    g = cv2.copyMakeBorder(g, 6, 6, 6, 6, cv2.BORDER_CONSTANT, value=0)
    k = int(rng.integers(-2, 4))
    if k > 0:
        g = cv2.dilate(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
    elif k < 0:
        g = cv2.erode(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    h, w = g.shape
    amp = rng.uniform(1.5, 5.0)
    dx = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 9)
    dy = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 9)
    dx *= amp / (np.abs(dx).max() + 1e-6)
    dy *= amp / (np.abs(dy).max() + 1e-6)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    sx = rng.uniform(-0.15, 0.15)  # slant
    g = cv2.remap(g, xx + dx + sx * (yy - h / 2), yy + dy, cv2.INTER_LINEAR, borderValue=0)
    ys, xs = np.nonzero(g > 0.05)
    if len(xs) == 0:
        return g
    return g[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


@functools.lru_cache(maxsize=None)
def composed(fontname, top, bottom):
    """Ink mask of one character drawn as top over bottom (style.FACES "⿱AB"): the top glyph in the
    upper 45 % of the cell, the bottom one in the lower 62 % (they overlap), as narrow as the top."""
    a, b = glyph(fontname, top), glyph(fontname, bottom)
    H = W = GLYPH_PX
    m = np.zeros((H, W), np.float32)
    ta = cv2.resize(a, (W, int(H * 0.45)), interpolation=cv2.INTER_AREA)
    bw = int(W * 0.8)
    tb = cv2.resize(b, (bw, int(H * 0.62)), interpolation=cv2.INTER_AREA)
    m[: ta.shape[0], :] = np.maximum(m[: ta.shape[0], :], ta)
    x0 = (W - bw) // 2
    m[H - tb.shape[0] :, x0 : x0 + bw] = np.maximum(m[H - tb.shape[0] :, x0 : x0 + bw], tb)
    return m


def _cell_glyph(fontname, cell):
    return composed(fontname, *cell) if isinstance(cell, tuple) else glyph(fontname, cell)


def _face_mask(w, h, kind, fontname, face, rng):
    """Ink mask (h x w) for the face text of a piece of size w x h. Two characters may overlap a
    little (up to 18 % of a cell), as brush-written two-character faces do."""
    m = np.zeros((h, w), np.float32)
    chars = S.face_cells(face)
    top = rng.uniform(0.20, 0.27) * h
    bot = rng.uniform(0.88, 0.95) * h
    if len(chars) == 1:
        bot = top + (bot - top) * rng.uniform(0.80, 0.98)
    tw = w * (rng.uniform(0.58, 0.78) if len(chars) == 2 else rng.uniform(0.62, 0.82))
    cell_h = (bot - top) / len(chars)
    cx = w / 2 + rng.normal(0, 0.01 * w)
    ov = 1.0 + (rng.uniform(0, 0.18) if len(chars) == 2 else 0.0)
    for i, ch in enumerate(chars):
        g = vary_glyph(_cell_glyph(fontname, ch), rng)
        gh, gw = max(2, int(round(cell_h * 0.96 * ov))), max(2, int(round(tw)))
        # keep some of the glyph's own aspect ratio
        asp = g.shape[1] / max(1, g.shape[0])
        if len(chars) == 1 and asp < 0.9:
            gw = max(2, int(round(gw * (0.6 + 0.4 * asp))))
        gg = cv2.resize(g, (gw, gh), interpolation=cv2.INTER_AREA)
        x0 = int(round(cx - gw / 2))
        y0 = int(round(top + i * cell_h + (cell_h - gh) / 2))
        xs, ys = max(0, x0), max(0, y0)
        xe, ye = min(w, x0 + gw), min(h, y0 + gh)
        if xe > xs and ye > ys:
            m[ys:ye, xs:xe] = np.maximum(m[ys:ye, xs:xe], gg[ys - y0 : ye - y0, xs - x0 : xe - x0])
    k = rng.uniform(0, 1)
    if k < 0.2:
        m = cv2.dilate(m, np.ones((2, 2), np.uint8))
    return np.clip(m * rng.uniform(0.85, 1.0), 0, 1)


def piece_set(rng, fonts, held_out=False):
    """A piece set: one font and colours for a whole board (as real sets are).

    fonts: {name: (path, index)} (style.available_fonts()). held_out: the held-out font only. In the
    training style a brush font (style.BRUSH, style.EXTRA_BRUSH) is listed twice, so about 40 % of
    the sets are brush-written, as wooden sets are. The draws from rng do not depend on which fonts are
    installed (a Scene's draws after this one stay the same)."""
    names = [f for f in fonts if (f == S.HELD_OUT_FONT) == held_out] if held_out else [f for f in fonts if f != S.HELD_OUT_FONT]
    names = [f for f in names if f not in S.PROMOTED_ONLY] or names
    brushes = S.BRUSH if held_out else S.BRUSH + S.EXTRA_BRUSH + S.CURSIVE_EXTRA
    if not held_out:
        names = names + [f for f in names if f in brushes]
    font = names[rng.integers(len(names))]
    cols = list(S.PIECE_COLOURS)
    colour = np.array(S.PIECE_COLOURS[cols[rng.integers(len(cols))]], np.float32)
    colour = np.clip(colour * rng.uniform(0.9, 1.08, 3), 0, 255)
    brush = [f for f in brushes if f in fonts and f != S.HELD_OUT_FONT]
    two = rng.uniform(0, 1) < 0.65
    return {
        "font": font,
        "promo_font": font if (rng.uniform() < 0.5 or not brush) else brush[rng.integers(len(brush))],
        "colour": colour,
        "grain": rng.uniform(0.02, 0.14),
        "two_chars": two,
        "ink": np.array(S.INK_BLACK[rng.integers(len(S.INK_BLACK))], np.float32),
        "red": np.array(S.INK_RED[rng.integers(len(S.INK_RED))], np.float32),
        "promo_red": rng.uniform() < 0.8,
        "king": rng.integers(2),  # 0: 王 for sente, 1: 玉 for sente
        "thick": rng.uniform(0.10, 0.28),  # side band seen in oblique views, fraction of square
        "shoulder": rng.uniform(0.2, 0.3),
        "size": rng.uniform(0.92, 1.05) if rng.uniform() < 0.7 else rng.uniform(0.68, 0.92),
        "cursive": not held_out,  # style.CURSIVE_FACES allowed (no draw: held-out renders stay as they were)
    }


def pick_face(kind_i, pset, rng, owner):
    kind = S.KINDS[kind_i]
    faces = S.FACES[kind]
    if kind == "K":
        k = "王" if (pset["king"] ^ owner) == 0 else "玉"
        return k + ("将" if pset["two_chars"] and rng.uniform() < 0.9 else "")
    pf = pset.get("promo_font")
    if pset.get("cursive") and kind.startswith("+") and pf != pset["font"]:
        cf = S.CURSIVE_FACES.get((kind, pf))
        if cf and rng.uniform() < S.CURSIVE_SHARE:
            return cf
        taken = [f for (k, fn), f in S.CURSIVE_FACES.items() if fn == pf and k != kind]
        faces = [f for f in faces if f not in taken] or faces
    if pset["two_chars"]:
        two = [f for f in faces if len(S.face_cells(f)) == 2]
        if two and rng.uniform() < S.TWO_CHAR_SHARE.get(kind, 0.85):
            return two[rng.integers(len(two))]
    one = [f for f in faces if len(S.face_cells(f)) == 1]
    return one[rng.integers(len(one))]


def render_piece(kind_i, owner, pset, sq, rng, fonts_ok=None, design=None):
    """One piece pointing up, square size sq (pixels). Returns (bgr float32 HxWx3, alpha float32 HxW).

    design: None, every draw from rng (each piece its own shape, face and handwriting, as the training
    data wants); an int, the piece's design (outline, face text, its layout and the glyphs' variation)
    comes from (design, kind) and only its wood, bevel and light from rng: every pawn of one set looks
    like every other, as the pieces of a real set do (one carver or one print for each kind).
    pset["art"] (a render/art.py set name): the piece is that artwork's, lit like the others."""
    kind = S.KINDS[kind_i]
    base_kind = kind.lstrip("+")
    drng = rng if design is None else np.random.default_rng([int(design), 77, kind_i])
    wf = S.PIECE_W[base_kind] * pset["size"] * drng.uniform(0.97, 1.03)
    w = max(8, int(round(sq * wf)))
    h = max(8, int(round(w * drng.uniform(1.08, 1.18))))
    if pset.get("art"):  # a set drawn by people (render/art.py): its own outline, body and ink
        from . import art

        col, alpha = art.face(pset["art"], kind_i, w, h)
        gy = np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None]
        gx = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
        col *= (1.0 + rng.uniform(-0.12, 0.12) * gx + rng.uniform(-0.12, 0.12) * gy)[..., None]
        return col, alpha
    ss = 4  # supersampling for the outline
    pts = pentagon(w * ss, h * ss, drng, pset["shoulder"])
    big = np.zeros((h * ss, w * ss), np.uint8)
    cv2.fillPoly(big, [np.round(pts).astype(np.int32)], 255, lineType=cv2.LINE_AA)
    alpha = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    col = wood_texture(h, w, pset["colour"], rng, pset["grain"])
    # bevel: darker (or lighter) rim
    er = cv2.erode((alpha > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8), iterations=max(1, w // 16))
    rim = cv2.GaussianBlur(alpha - er.astype(np.float32), (0, 0), 1.0).clip(0, 1)
    col *= (1.0 - rng.uniform(0.05, 0.3) * rim)[..., None]
    # face
    promoted = kind.startswith("+")
    face = pick_face(kind_i, pset, drng, owner)
    font = pset["promo_font"] if promoted else pset["font"]
    ink = _face_mask(w, h, kind, font, face, drng)
    ink_col = pset["red"] if (promoted and pset["promo_red"]) else pset["ink"]
    col = col * (1 - ink[..., None]) + ink_col[None, None, :] * ink[..., None]
    # light across the face
    gy = np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None]
    gx = np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :]
    col *= (1.0 + rng.uniform(-0.12, 0.12) * gx + rng.uniform(-0.12, 0.12) * gy)[..., None]
    return col, alpha


def rotate_rgba(col, alpha, angle_deg):
    """Rotate a piece image about its centre, enlarging the canvas so nothing is cut."""
    h, w = alpha.shape
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    c, s = abs(M[0, 0]), abs(M[0, 1])
    nw, nh = int(np.ceil(h * s + w * c)) + 2, int(np.ceil(h * c + w * s)) + 2
    M[0, 2] += nw / 2 - w / 2
    M[1, 2] += nh / 2 - h / 2
    col2 = cv2.warpAffine(col, M, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a2 = cv2.warpAffine(alpha, M, (nw, nh), flags=cv2.INTER_LINEAR, borderValue=0)
    return col2, a2
