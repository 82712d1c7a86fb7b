"""Renders a warped (top-down, sente at the bottom) board with pieces, light, shadows, hands and camera
artefacts, and cuts the 81 square crops exactly as models/README.md specifies.

Deterministic: every random choice comes from the numpy Generator passed in (seeded by the caller).
"""

import cv2
import numpy as np

from . import piece as P
from . import style as S

CROP = 48  # network input size
CROP_SCALE = 1.3  # crop = 1.3 squares wide and high, centred on the square


def square_crop(img, x0, y0, sw, sh, r, c, size=CROP):
    """The crop of square (row r from the top, column c from the left), per models/README.md."""
    cx = x0 + (c + 0.5) * sw
    cy = y0 + (r + 0.5) * sh
    left = int(round(cx - 0.5 * CROP_SCALE * sw))
    top = int(round(cy - 0.5 * CROP_SCALE * sh))
    w = int(round(CROP_SCALE * sw))
    h = int(round(CROP_SCALE * sh))
    H, W = img.shape[:2]
    if left < 0 or top < 0 or left + w > W or top + h > H:
        pad = max(-left, -top, left + w - W, top + h - H, 0) + 1
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        left += pad
        top += pad
    sub = img[top : top + h, left : left + w]
    interp = cv2.INTER_AREA if w >= size else cv2.INTER_LINEAR
    return cv2.resize(sub, (size, size), interpolation=interp)


def all_crops(img, x0, y0, sw, sh, size=CROP):
    return np.stack([square_crop(img, x0, y0, sw, sh, i // 9, i % 9, size) for i in range(81)])


def paste(img, col, alpha, cx, cy, dark=None):
    """Alpha-composite col (or a darkening by factor dark) centred at (cx, cy)."""
    h, w = alpha.shape
    x0 = int(round(cx - w / 2))
    y0 = int(round(cy - h / 2))
    H, W = img.shape[:2]
    xs, ys, xe, ye = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if xe <= xs or ye <= ys:
        return
    a = alpha[ys - y0 : ye - y0, xs - x0 : xe - x0, None]
    if dark is not None:
        img[ys:ye, xs:xe] *= 1.0 - dark * a
    else:
        img[ys:ye, xs:xe] = img[ys:ye, xs:xe] * (1 - a) + col[ys - y0 : ye - y0, xs - x0 : xe - x0] * a


def board_style(rng, held_out=False):
    names = [b for b in S.BOARD_COLOURS if (b == S.HELD_OUT_BOARD) == held_out]
    name = names[rng.integers(len(names))]
    colour = np.array(S.BOARD_COLOURS[name], np.float32) * rng.uniform(0.9, 1.08, 3)
    printed = name.endswith("print") or name.endswith("vinyl") or rng.uniform() < 0.25
    return {
        "name": name,
        "colour": np.clip(colour, 0, 255),
        "printed": printed,
        "grain": 0.0 if printed and rng.uniform() < 0.5 else rng.uniform(0.02, 0.10),
        "line": rng.uniform(0.8, 2.6),
        "line_col": rng.uniform(10, 70),
        "crease": printed and rng.uniform() < 0.7,
        "stars": rng.uniform() < 0.8,
    }


def random_position(rng, occupancy=None):
    """81 classes, row-major from the top-left (9一) square; pieces uniform over the 28 piece classes."""
    occ = rng.uniform(0.25, 0.8) if occupancy is None else occupancy
    pos = np.zeros(81, np.int64)
    filled = rng.uniform(size=81) < occ
    pos[filled] = rng.integers(1, 29, filled.sum())
    return pos


def _hand(img, rng, sq):
    """Draws a hand/fingers (skin capsules, maybe a sleeve) entering from an edge; returns its mask."""
    H, W = img.shape[:2]
    mask = np.zeros((H, W), np.float32)
    skin = np.array([rng.uniform(120, 190), rng.uniform(150, 200), rng.uniform(190, 240)], np.float32)
    side = rng.integers(4)
    t = rng.uniform(0.1, 0.9)
    if side == 0:
        base = np.array([t * W, 0])
    elif side == 1:
        base = np.array([t * W, H])
    elif side == 2:
        base = np.array([0, t * H])
    else:
        base = np.array([W, t * H])
    tip = np.array([rng.uniform(0.15, 0.85) * W, rng.uniform(0.15, 0.85) * H])
    d = tip - base
    d /= np.linalg.norm(d) + 1e-6
    nrm = np.array([-d[1], d[0]])
    nf = rng.integers(1, 5)
    for k in range(nf):
        off = (k - (nf - 1) / 2) * 0.22 * sq
        ln = rng.uniform(0.0, 0.8) * sq
        p1 = base + nrm * off
        p2 = tip + nrm * off - d * ln
        cv2.line(mask, tuple(np.round(p1).astype(int)), tuple(np.round(p2).astype(int)), 1.0,
                 int(max(2, 0.2 * sq)), cv2.LINE_AA)
    palm = base + (tip - base) * rng.uniform(0.0, 0.5)
    cv2.line(mask, tuple(np.round(base).astype(int)), tuple(np.round(palm).astype(int)), 1.0, int(0.9 * sq), cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.8)
    shade = 1.0 + 0.15 * cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), sq * 0.3)
    col = skin[None, None, :] * shade[..., None]
    if rng.uniform() < 0.5:  # sleeve
        sl = np.zeros_like(mask)
        cv2.circle(sl, tuple(np.round(base).astype(int)), int(rng.uniform(0.8, 1.6) * sq), 1.0, -1, cv2.LINE_AA)
        sc = rng.uniform(20, 220, 3).astype(np.float32)
        col = col * (1 - sl[..., None]) + sc * sl[..., None]
        mask = np.maximum(mask, sl)
    # shadow of the hand
    sh = cv2.GaussianBlur(mask, (0, 0), sq * 0.4)
    M = np.float32([[1, 0, rng.uniform(-0.5, 0.5) * sq], [0, 1, rng.uniform(-0.5, 0.5) * sq]])
    sh = cv2.warpAffine(sh, M, (W, H))
    img *= (1 - 0.45 * sh)[..., None]
    img[:] = img * (1 - mask[..., None]) + col * mask[..., None]
    return mask


def render_board(rng, pos, held_out=False, sq=None, pset=None, bstyle=None, fonts=None, effects=True,
                 hand_p=0.08, square_seed=None, float_out=False, design_seed=None, wood_table=False,
                 lean_of=None):
    """Renders position pos (81 classes, row-major from 9一). Returns (uint8 BGR image, (x0, y0, sw, sh),
    labels) where labels is pos with -1 on squares a hand hides. With square_seed, each piece's look and
    placement depend only on (square_seed, square, class), so a piece that stays looks the same in every
    frame of a game. With design_seed, every piece of a kind shares one design (piece.render_piece's
    design): a real set's look. wood_table: the table around the board is wood with grain (a colour
    of its own) rather than a flat colour; off-board crops of it are empty squares a real table looks
    like (False draws exactly the images of before). lean_of: a function of the piece height (pixels)
    giving the offset (x, y pixels) of a piece's top face from its base, from a camera (camera.Camera.lean);
    None draws a random lean (the same random draws are made either way)."""
    fonts = fonts or S.available_fonts()
    sw = float(sq if sq is not None else rng.uniform(40, 64))
    sh = sw * rng.uniform(1.04, 1.12)
    mg = int(1.0 * sw)
    W = int(round(9 * sw + 2 * mg))
    H = int(round(9 * sh + 2 * mg))
    x0, y0 = float(mg), float(mg)
    bs = bstyle or board_style(rng, held_out)
    ps = pset or P.piece_set(rng, fonts, held_out)

    # table, then the board with its border
    table = np.array(rng.uniform(20, 200, 3), np.float32)
    img = np.empty((H, W, 3), np.float32)
    img[:] = table
    if wood_table:
        tcol = np.array(rng.uniform(40, 220, 3), np.float32)
        if rng.uniform() < 0.5:
            img[:] = P.wood_texture(H, W, tcol, rng, rng.uniform(0.03, 0.15))
        else:
            img[:] = np.transpose(P.wood_texture(W, H, tcol, rng, rng.uniform(0.03, 0.15)), (1, 0, 2))
    img += rng.normal(0, 3, (H, W, 1)).astype(np.float32)
    bord = rng.uniform(0.2, 0.6)
    bx0, by0 = int(x0 - bord * sw), int(y0 - bord * sh)
    bx1, by1 = int(x0 + 9 * sw + bord * sw), int(y0 + 9 * sh + bord * sh)
    bx0, by0, bx1, by1 = max(0, bx0), max(0, by0), min(W, bx1), min(H, by1)
    tex = P.wood_texture(by1 - by0, bx1 - bx0, bs["colour"], rng, bs["grain"])
    if rng.uniform() < 0.5:
        tex = np.ascontiguousarray(np.transpose(P.wood_texture(bx1 - bx0, by1 - by0, bs["colour"], rng, bs["grain"]), (1, 0, 2)))
    img[by0:by1, bx0:bx1] = tex
    # grid
    lc = bs["line_col"]
    th = bs["line"] * sw / 48
    grid = np.zeros((H, W), np.float32)
    ss = 4
    for i in range(10):
        for (p1, p2) in (((x0 + i * sw, y0), (x0 + i * sw, y0 + 9 * sh)), ((x0, y0 + i * sh), (x0 + 9 * sw, y0 + i * sh))):
            cv2.line(grid, (int(p1[0] * ss), int(p1[1] * ss)), (int(p2[0] * ss), int(p2[1] * ss)), 1.0,
                     max(1, int(round(th))), cv2.LINE_AA, shift=2)
    if bs["stars"]:
        for (i, j) in ((3, 3), (3, 6), (6, 3), (6, 6)):
            cv2.circle(grid, (int((x0 + i * sw) * ss), int((y0 + j * sh) * ss)), int(0.06 * sw * ss), 1.0, -1,
                       cv2.LINE_AA, shift=2)
    grid = np.clip(grid, 0, 1)
    img = img * (1 - grid[..., None]) + lc * grid[..., None]
    if bs["crease"]:
        cr = np.zeros((H, W), np.float32)
        if rng.uniform() < 0.5:
            xx = int(x0 + 4.5 * sw + rng.normal(0, 0.05 * sw))
            cv2.line(cr, (xx, by0), (xx, by1), 1.0, max(1, int(sw / 30)))
        else:
            yy = int(y0 + 4.5 * sh + rng.normal(0, 0.05 * sh))
            cv2.line(cr, (bx0, yy), (bx1, yy), 1.0, max(1, int(sw / 30)))
        hl = cv2.GaussianBlur(cr, (0, 0), sw * 0.05)
        hl /= hl.max() + 1e-6
        img *= (1 - 0.25 * cr + 0.25 * hl * rng.uniform(-1, 1))[..., None]

    # view: lean of piece tops (oblique camera), shared by the whole board
    if rng.uniform() < 0.4:
        ang = 0.0
    else:
        ang = np.radians(rng.uniform(10, 50))
    if rng.uniform() < 0.7:
        dirn = [0, np.pi / 2, np.pi, 3 * np.pi / 2][rng.integers(4)] + rng.normal(0, 0.15)
    else:
        dirn = rng.uniform(0, 2 * np.pi)
    lean = ps["thick"] * np.tan(ang) * np.array([np.cos(dirn) * sw, np.sin(dirn) * sh])
    if lean_of is not None:
        lean = np.asarray(lean_of(ps["thick"] * sw), np.float64)
    shadow_v = rng.uniform(-0.12, 0.12, 2) * sw
    shadow_dark = rng.uniform(0.15, 0.5)
    shadow_blur = rng.uniform(0.03, 0.12) * sw

    order = np.argsort([(i // 9) * (-np.sign(lean[1]) if lean[1] else 1) for i in range(81)], kind="stable")
    for i in order:
        c = int(pos[i])
        if c == 0:
            continue
        kind = (c - 1) % 14
        owner = (c - 1) // 14
        prng = rng if square_seed is None else np.random.default_rng([square_seed, int(i), c])
        col, alpha = P.render_piece(kind, owner, ps, sw, prng, design=design_seed)
        angle = prng.normal(0, 3.0) + (180.0 if owner else 0.0)
        col, alpha = P.rotate_rgba(col, alpha, angle)
        r_, c_ = i // 9, i % 9
        cx = x0 + (c_ + 0.5) * sw + prng.normal(0, 0.05) * sw
        cy = y0 + (r_ + 0.5) * sh + prng.normal(0, 0.05) * sh + (0.03 * sh if owner == 0 else -0.03 * sh)
        sa = cv2.GaussianBlur(alpha, (0, 0), shadow_blur) if shadow_blur > 0.3 else alpha
        paste(img, None, sa, cx + shadow_v[0] + lean[0] * 0.5, cy + shadow_v[1] + lean[1] * 0.5, dark=shadow_dark)
        # side of the piece, between the base and the top face
        nstep = int(np.ceil(np.linalg.norm(lean) / 1.5))
        side = col.mean(axis=(0, 1), keepdims=True) * rng.uniform(0.55, 0.8)
        side = np.broadcast_to(side, col.shape)
        for k in range(nstep):
            t = k / max(1, nstep)
            paste(img, side, alpha, cx + lean[0] * t, cy + lean[1] * t)
        paste(img, col, alpha, cx + lean[0], cy + lean[1])

    labels = pos.copy()
    if effects:
        if rng.uniform() < hand_p:
            hm = _hand(img, rng, sw)
            for i in range(81):
                cx = int(x0 + (i % 9 + 0.5) * sw)
                cy = int(y0 + (i // 9 + 0.5) * sh)
                patch = hm[int(cy - 0.35 * sh) : int(cy + 0.35 * sh), int(cx - 0.35 * sw) : int(cx + 0.35 * sw)]
                if patch.size and patch.mean() > 0.15:
                    labels[i] = -1
        img = camera_effects(img, rng, sw)
    if float_out:
        return img, (x0, y0, sw, sh), labels
    return np.clip(img, 0, 255).astype(np.uint8), (x0, y0, sw, sh), labels


def camera_effects(img, rng, sw):
    """Light, colour cast, small warp error, blur, sensor noise, JPEG (float32 in, float32 out)."""
    H, W = img.shape[:2]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xx /= W
    yy /= H
    light = 1.0 + rng.uniform(-0.35, 0.35) * (xx - 0.5) + rng.uniform(-0.35, 0.35) * (yy - 0.5)
    if rng.uniform() < 0.5:
        cx, cy, rr = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.2, 0.8)
        light += rng.uniform(-0.3, 0.3) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (rr * rr))
    if rng.uniform() < 0.3:  # a broad shadow (arm, body)
        sm = np.zeros((H, W), np.float32)
        p = rng.uniform(0, 1, (3, 2)) * [W, H]
        cv2.fillPoly(sm, [np.round(np.vstack([p, [[rng.uniform(0, W), 0]]])).astype(np.int32)], 1.0)
        light *= 1 - rng.uniform(0.1, 0.45) * cv2.GaussianBlur(sm, (0, 0), sw * 0.5)
    img = img * light[..., None] * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    img *= rng.uniform(0.6, 1.25)
    img = np.clip(img, 0, 255)
    # the grid the caller found is a little off: warp the image by a small random homography
    j = rng.normal(0, rng.uniform(0.0, 0.05) * sw, (4, 2)).astype(np.float32)
    src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    Hm = cv2.getPerspectiveTransform(src, src + j)
    img = cv2.warpPerspective(img, Hm, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    s = rng.uniform(0, 1.3) * sw / 48
    if s > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), s)
    if rng.uniform() < 0.1:  # motion blur
        k = np.zeros((7, 7), np.float32)
        k[3, :] = 1 / 7
        M = cv2.getRotationMatrix2D((3, 3), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, M, (7, 7))
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    img = img + rng.normal(0, rng.uniform(0, 8), img.shape).astype(np.float32)
    if rng.uniform() < 0.25:
        g = img.mean(axis=2, keepdims=True)
        img = np.repeat(g, 3, axis=2)
    q = int(rng.uniform(35, 95))
    ok, buf = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR).astype(np.float32)


def render_tight(rng, cls, held_out=False, fonts=None, size=CROP):
    """A crop like a studio photo of one piece (or an empty square): the piece fills most of the crop,
    any background, often grey. Used for scale jitter (the na-o-ys crops look like this)."""
    fonts = fonts or S.available_fonts()
    sq = rng.uniform(60, 90)
    W = int(2.2 * sq)
    bgk = rng.integers(4)
    if bgk == 0:
        bg = np.full((W, W, 3), rng.uniform(0, 60), np.float32)
    elif bgk == 1:
        bg = np.full((W, W, 3), rng.uniform(180, 255), np.float32)
    elif bgk == 2:
        bg = np.empty((W, W, 3), np.float32)
        bg[:] = rng.uniform(0, 255, 3)
    else:
        bg = P.wood_texture(W, W, board_style(rng, held_out)["colour"], rng, 0.06)
    img = bg + rng.normal(0, 2, (W, W, 1)).astype(np.float32)
    c = W / 2
    if cls == 0:
        bs = board_style(rng, held_out)
        img[:] = P.wood_texture(W, W, bs["colour"], rng, bs["grain"])
        th = max(1, int(rng.uniform(0.6, 2.5)))
        for e in (-0.5, 0.5):
            if rng.uniform() < 0.6:
                x = int(c + e * sq)
                cv2.line(img, (x, 0), (x, W), (40, 40, 40), th)
            if rng.uniform() < 0.6:
                y = int(c + e * sq)
                cv2.line(img, (0, y), (W, y), (40, 40, 40), th)
        f = rng.uniform(0.9, 1.35)
        half_w = half_h = 0.5 * f * sq
        ox = oy = 0.0
    else:
        ps = P.piece_set(rng, fonts, held_out)
        kind, owner = (cls - 1) % 14, (cls - 1) // 14
        col, alpha = P.render_piece(kind, owner, ps, sq, rng)
        if rng.uniform() < 0.5:  # visible thickness below the face (studio photos from the front)
            band = int(rng.uniform(0, 0.12) * alpha.shape[0])
            if band > 0:
                side = np.broadcast_to(col.mean(axis=(0, 1), keepdims=True) * 0.6, col.shape)
                paste(img, side, alpha, c, c + band)
        col, alpha = P.rotate_rgba(col, alpha, rng.normal(0, 2.5) + (180.0 if owner else 0.0))
        sa = cv2.GaussianBlur(alpha, (0, 0), 2.0)
        paste(img, None, sa, c + rng.uniform(-3, 3), c + rng.uniform(-3, 3), dark=rng.uniform(0, 0.5))
        paste(img, col, alpha, c, c)
        ys, xs = np.nonzero(alpha > 0.5)
        ph, pw = ys.max() - ys.min(), xs.max() - xs.min()
        f = rng.uniform(1.0, 1.5)
        half_h = 0.5 * f * max(ph, pw) * rng.uniform(0.95, 1.1)
        half_w = half_h * rng.uniform(0.9, 1.1)
        ox, oy = rng.normal(0, 0.04 * pw), rng.normal(0, 0.04 * ph)
    x0, x1 = int(c + ox - half_w), int(c + ox + half_w)
    y0, y1 = int(c + oy - half_h), int(c + oy + half_h)
    img = img[max(0, y0) : y1, max(0, x0) : x1]
    img = cv2.resize(img, (64, 64), interpolation=cv2.INTER_AREA)
    light = np.linspace(rng.uniform(0.7, 1.2), rng.uniform(0.7, 1.2), 64, dtype=np.float32)
    img *= light[None, :, None] if rng.uniform() < 0.5 else light[:, None, None]
    img *= rng.uniform(0.85, 1.15, 3).astype(np.float32)
    s = rng.uniform(0, 1.5)
    if s > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), s)
    img += rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    if rng.uniform() < 0.6:
        img = np.repeat(img.mean(axis=2, keepdims=True), 3, axis=2)
    img = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
