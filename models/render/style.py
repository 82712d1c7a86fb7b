"""Styles of the renderer: fonts, piece faces, piece and board colours, and what is held out of training.

Owns the class numbering shared with vision/ (see models/README.md): 0 empty, 1 + kind + 14 * owner with
kind in USI order P L N S B R G K +P +L +N +S +B +R and owner 0 = sente (points up), 1 = gote.
"""

import os

KINDS = ["P", "L", "N", "S", "B", "R", "G", "K", "+P", "+L", "+N", "+S", "+B", "+R"]
NCLASS = 29
CLASS_NAMES = ["."] + KINDS + [k.lower() for k in KINDS]


def cls_of(kind, owner):
    """Class index of a kind index 0..13 and an owner 0 (sente) / 1 (gote)."""
    return 1 + kind + 14 * owner


def swap_owner(c):
    """The class with the other owner (what a crop turned by 180 degrees shows)."""
    if c == 0:
        return 0
    return c + 14 if c <= 14 else c - 14


SWAP = [swap_owner(c) for c in range(NCLASS)]

# Fonts from Debian packages (fonts-ipafont, fonts-noto-cjk, fonts-aoyagi-kouzan-t, fonts-aoyagi-soseki,
# fonts-hanazono, fonts-kouzan-mouhitsu; since session 4 also the kaiti (regular-script brush) and
# handwriting fonts fonts-arphic-ukai, fonts-cns11643-kai, fonts-cwtex-kai, fonts-lxgw-wenkai, fonts-klee,
# fonts-kiloji, fonts-seto, fonts-yozvox-yozfont, fonts-dejima-mincho, fonts-yusei-magic,
# fonts-oradano-mincho-gsrr, fonts-motoya-l-cedar). name -> (path, ttc index). A font that lacks a
# character (ukai and cwkai have no 歩) is completed from FALLBACK (piece.glyph).
FONTS = {
    "ipag": ("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf", 0),
    "ipam": ("/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf", 0),
    "notosans": ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 0),
    "notoserif": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 0),
    "notoserif-r": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 0),
    "kouzant": ("/usr/share/fonts/truetype/aoyagi-kouzan-t/AoyagiKouzanT.ttf", 0),
    "soseki": ("/usr/share/fonts/truetype/aoyagi-soseki/aoyagi-soseki.ttf", 0),
    "hanamin": ("/usr/share/fonts/truetype/hanazono/HanaMinA.ttf", 0),
    "sousyo": ("/usr/share/fonts/truetype/kouzan-mouhitsu/KouzanBrushFontSousyo.ttf", 0),
    "gyosho": ("/usr/share/fonts/truetype/kouzan-mouhitsu/kouzan-mouhitsu-gyosho.ttf", 0),
    "mouhitsu": ("/usr/share/fonts/truetype/kouzan-mouhitsu/kouzan-mouhitsu.ttf", 0),
    "ukai": ("/usr/share/fonts/truetype/arphic/ukai.ttc", 0),
    "twkai": ("/usr/share/fonts/truetype/cns11643/TW-Kai-98_1.ttf", 0),
    "cwkai": ("/usr/share/fonts/truetype/cwtex/cwkai.ttf", 0),
    "wenkai": ("/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf", 0),
    "wenkai-b": ("/usr/share/fonts/truetype/lxgw-wenkai/LXGWWenKai-Bold.ttf", 0),
    "klee": ("/usr/share/fonts/truetype/klee/KleeOne-SemiBold.ttf", 0),
    "kiloji": ("/usr/share/fonts/truetype/kiloji/kiloji.ttf", 0),
    "seto": ("/usr/share/fonts/truetype/seto/setofont.ttf", 0),
    "yoz": ("/usr/share/fonts/truetype/yozvox-yozfont/YOzRE_.ttf", 0),
    "dejima": ("/usr/share/fonts/truetype/dejima-mincho/dejima-mincho-r227.ttf", 0),
    "yusei": ("/usr/share/fonts/truetype/yusei-magic/YuseiMagic-Regular.ttf", 0),
    "oradano": ("/usr/share/fonts/truetype/oradano-mincho/OradanoGSRR.ttf", 0),
    "cedar": ("/usr/share/fonts/truetype/motoya-l-cedar/MTLc3m.ttf", 0),
    # session 12: more shapes of the same characters (below)
    "gkai": ("/usr/share/fonts/truetype/arphic-gkai00mp/gkai00mp.ttf", 0),
    "bkai": ("/usr/share/fonts/truetype/arphic-bkai00mp/bkai00mp.ttf", 0),
    "uming": ("/usr/share/fonts/truetype/arphic/uming.ttc", 0),
    "twsung": ("/usr/share/fonts/truetype/cns11643/TW-Sung-98_1.ttf", 0),
    "ipaexm": ("/usr/share/fonts/opentype/ipaexfont-mincho/ipaexm.ttf", 0),
    "ipamj": ("/usr/share/fonts/truetype/ipamj/ipamjm.ttf", 0),
    "ume-mincho": ("/usr/share/fonts/truetype/horai-umefont/ume-pmo3.ttf", 0),
    "bizud-g": ("/usr/share/fonts/truetype/bizud-gothic/BIZUDGothic-Bold.ttf", 0),
    "bizud-m": ("/usr/share/fonts/truetype/bizud-mincho/BIZUDMincho-Regular.ttf", 0),
    "maruberi": ("/usr/share/fonts/truetype/motoya-l-maruberi/MTLmr3m.ttf", 0),
    "sawarabi-m": ("/usr/share/fonts/truetype/sawarabi-mincho/sawarabi-mincho-medium.ttf", 0),
    "reggae": ("/usr/share/fonts/truetype/reggae/ReggaeOne-Regular.ttf", 0),
    "konatu": ("/usr/share/fonts/truetype/konatu/Konatu.ttf", 0),
    "wqy": ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    "migu": ("/usr/share/fonts/truetype/migmix/migu-1c-bold.ttf", 0),
    "monapo": ("/usr/share/fonts/truetype/monapo/monapo.ttf", 0),
    "notosans-black": ("/usr/share/fonts/opentype/noto/NotoSansCJK-Black.ttc", 0),
    "notoserif-light": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Light.ttc", 0),
    "notoserif-black": ("/usr/share/fonts/opentype/noto/NotoSerifCJK-Black.ttc", 0),
}
# Session 12 (fonts-arphic-gkai00mp, fonts-arphic-bkai00mp, fonts-arphic-uming, fonts-cns11643-sung,
# fonts-ipaexfont-mincho, fonts-ipamj-mincho, fonts-horai-umefont, fonts-morisawa-bizud-gothic,
# fonts-morisawa-bizud-mincho, fonts-motoya-l-maruberi, fonts-sawarabi-mincho, fonts-reggae, fonts-konatu,
# fonts-wqy-zenhei, fonts-migmix, fonts-monapo, fonts-noto-cjk-extra): more shapes of the same characters
# for training. Only piece sets of the training style draw them (piece.piece_set), so the held-out
# renders (eval.py, samples/) are what they were.
# The kaiti ones among them: brush-like, drawn as often as BRUSH (piece.piece_set).
EXTRA_BRUSH = ["gkai", "bkai"]
# Where a font lacks a character (see piece.glyph): a kaiti font is completed by another kaiti font.
FALLBACK = {"ukai": "wenkai", "cwkai": "wenkai", "twkai": "wenkai", "gkai": "bkai", "bkai": "wenkai"}
DEFAULT_FALLBACK = "ipam"
LAST_FALLBACK = "notoserif"  # where the fallback font lacks the character too (Noto CJK has them all)
# Brush fonts look like the calligraphy of wooden sets; the others like plastic/printed sets.
BRUSH = ["kouzant", "soseki", "sousyo", "gyosho", "mouhitsu", "ukai", "twkai", "cwkai", "wenkai", "wenkai-b"]
# Fonts written in full cursive (sosho): real sets write only the promoted sides so (the cursive 金 of a
# promoted silver, knight or lance); an unpromoted gold in cursive would look like them.
PROMOTED_ONLY = ["sousyo"]

# Held out of training entirely, for the held-out evaluation (issue 5).
HELD_OUT_FONT = "soseki"
HELD_OUT_BOARD = "walnut"


def available_fonts():
    return {k: v for k, v in FONTS.items() if os.path.exists(v[0])}


# Piece faces per kind: one or two characters (two are written one above the other). "⿱AB" (the Unicode
# ideographic description "above to below") is one character drawn from A over B: traditional sets
# write the promoted silver, knight and lance as cursive forms of 金 (gold), 全-, 今- and 个-like
# (roof, bars and a long stem), which no font has as one character. The most cursive forms are drawn
# with the kana and kanji whose brush shapes they share: the promoted lance's bar-and-zigzag as 乏 / 之
# under a short roof (never without one: a bare 之 is a promoted pawn's と), the promoted knight's roof over a hooked bottom as 会 / 今 over ユ, ろ or 云, and the
# cursive 馬 of a two-character promoted bishop (龍馬) as る or ろ under 竜 / 龍.
FACES = {
    "P": ["歩", "歩兵"],
    "L": ["香", "香車"],
    "N": ["桂", "桂馬"],
    "S": ["銀", "銀将"],
    "B": ["角", "角行"],
    "R": ["飛", "飛車"],
    "G": ["金", "金将"],
    "K": ["王", "玉", "王将", "玉将"],
    "+P": ["と", "と", "と", "个"],
    "+L": ["杏", "成香", "仝", "仐", "⿱人干", "⿱人十", "⿱个十", "⿱丆乏", "⿱ヤ之", "⿱个乏", "⿱丆之"],
    "+N": ["圭", "成桂", "今", "⿱今王", "⿱今土", "⿱今干", "会", "⿱今ユ", "⿱今ろ", "⿱人云"],
    "+S": ["全", "成銀", "全", "⿱人王"],
    "+B": ["馬", "龍馬", "竜馬", "竜る", "龍る", "竜ろ", "龍ろ"],
    "+R": ["龍", "竜", "龍王", "竜王"],
}
IDS_ABOVE = "⿱"
# How often a set with two-character faces writes a kind with two characters: 0.85 (piece.pick_face)
# but for the kinds such sets still mostly write as one cursive character (成銀, 成桂 and 成香 written out
# are rare).
TWO_CHAR_SHARE = {"+S": 0.3, "+N": 0.3, "+L": 0.3}
# Cursive promoted faces (session 12). Handwritten sets write the promoted silver, knight and lance as
# cursive forms of 金, more cursive from silver to lance: the promoted silver a semi-cursive (gyosho) 金,
# the promoted knight a cursive 全-like form (roof over a hooked 王), the promoted lance the full cursive
# (sosho) 金, a roof over a zigzag stem. The brush fonts draw exactly these: (kind, font) -> face, used
# by piece.pick_face only where the set's promoted side is written in that font and its unpromoted side
# (its gold) is not, in the training style. A face given here is never drawn for another promoted kind
# in the same font.
CURSIVE_FACES = {("+S", "gyosho"): "金", ("+N", "sousyo"): "全", ("+L", "sousyo"): "金", ("+N", "gyosho"): "⿱今王"}
CURSIVE_SHARE = 0.6
# In the training style the cursive fonts are drawn this many extra times as a set's promoted-side font.
CURSIVE_EXTRA = ["sousyo", "gyosho"]


def face_cells(face):
    """The character cells of a face, top to bottom: a character, or (top, bottom) for "⿱AB"."""
    out, i = [], 0
    while i < len(face):
        if face[i] == IDS_ABOVE and i + 2 < len(face):
            out.append((face[i + 1], face[i + 2]))
            i += 3
        else:
            out.append(face[i])
            i += 1
    return out


# Piece size as a fraction of the square width, by kind (king biggest, pawn smallest).
PIECE_W = {"K": 0.86, "R": 0.83, "B": 0.83, "G": 0.80, "S": 0.80, "N": 0.76, "L": 0.72, "P": 0.70}

# Piece body colours (BGR, 0..255): wooden and plastic sets.
PIECE_COLOURS = {
    "boxwood": (120, 200, 235),
    "pale-wood": (160, 215, 238),
    "honey": (90, 175, 225),
    "dark-wood": (70, 140, 190),
    "ivory": (205, 232, 245),
    "white-plastic": (238, 240, 242),
    "yellow-plastic": (110, 205, 240),
    "orange-wood": (70, 150, 220),
}

# Board colours (BGR): wooden and printed boards.
BOARD_COLOURS = {
    "kaya": (100, 185, 225),
    "light-kaya": (135, 200, 230),
    "shin-kaya": (120, 195, 215),
    "orange": (70, 150, 215),
    "walnut": (60, 110, 160),
    "pale-print": (170, 215, 235),
    "grey-print": (175, 185, 190),
    "green-vinyl": (140, 175, 150),
}

INK_BLACK = [(20, 20, 20), (35, 30, 30), (10, 10, 25), (45, 45, 45)]
INK_RED = [(40, 40, 200), (30, 60, 220), (50, 30, 170), (35, 35, 140)]
