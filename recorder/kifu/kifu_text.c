/* kifu_text.c - text plumbing for the kifu readers and writers: string builder, encoding detection and
 * conversion (UTF-8 / BOM / Shift_JIS via iconv), line splitting, Japanese piece and digit tables, and
 * the resolution of a written move (KIF, KI2: JSA relative notation) against a position. */
#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu_internal.h"

/* ---------------------------------------------------------------- string builder */
static int sb_grow(rec_kx_sb_t *sb, size_t need) {
    if (sb->oom)
        return -1;
    if (sb->len + need + 1 <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + need + 1)
        cap *= 2;
    char *nb = realloc(sb->buf, cap);
    if (!nb) {
        sb->oom = 1;
        return -1;
    }
    sb->buf = nb;
    sb->cap = cap;
    return 0;
}

void rec_kx_sb_putn(rec_kx_sb_t *sb, const char *s, size_t n) {
    if (sb_grow(sb, n))
        return;
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = 0;
}

void rec_kx_sb_puts(rec_kx_sb_t *sb, const char *s) { rec_kx_sb_putn(sb, s, strlen(s)); }

void rec_kx_sb_printf(rec_kx_sb_t *sb, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        rec_kx_sb_putn(sb, tmp, (size_t)n);
        return;
    }
    if (sb_grow(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void rec_kx_err(rec_kifu_error_t *err, int line, int column, const char *fmt, ...) {
    if (!err)
        return;
    err->line = line;
    err->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

char *rec_kx_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int rec_kx_append_text(char **dst, const char *text) {
    size_t a = *dst ? strlen(*dst) : 0, b = strlen(text);
    char *n = realloc(*dst, a + b + 2);
    if (!n)
        return REC_KIFU_ENOMEM;
    if (a)
        n[a++] = '\n';
    memcpy(n + a, text, b + 1);
    *dst = n;
    return REC_KIFU_OK;
}

/* ---------------------------------------------------------------- UTF-8 */
int rec_kx_u8_next(const char **p) {
    const unsigned char *s = (const unsigned char *)*p;
    int c = s[0], n, cp;
    if (c == 0)
        return -1;
    if (c < 0x80) {
        *p += 1;
        return c;
    }
    if ((c & 0xE0) == 0xC0)
        n = 1, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
        n = 2, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
        n = 3, cp = c & 0x07;
    else
        return -1;
    for (int i = 1; i <= n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    *p += n + 1;
    return cp;
}

int rec_kx_u8_cols(const char *s, size_t n) {
    int cols = 0;
    for (size_t i = 0; i < n && s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            cols++;
    return cols;
}

/* Length of the valid UTF-8 prefix of data. */
static size_t u8_valid_prefix(const unsigned char *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        if (c < 0x80)
            n = 0;
        else if (c >= 0xC2 && c <= 0xDF)
            n = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            n = 2;
        else if (c >= 0xF0 && c <= 0xF4)
            n = 3;
        else
            return i;
        if (i + n >= len + (n ? 0 : 1) && n)
            return i;
        for (size_t k = 1; k <= n; k++)
            if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
                return i;
        i += n + 1;
    }
    return len;
}

/* Converts with iconv; on a bad sequence *bad gets its offset in the input. */
static int conv(const char *to, const char *from, const char *in, size_t len, char **out, size_t *outlen,
                size_t *bad) {
    iconv_t cd = iconv_open(to, from);
    if (cd == (iconv_t)-1)
        return REC_KIFU_ENCODING;
    size_t cap = len * 2 + 16;
    char *buf = malloc(cap);
    int rc = REC_KIFU_OK;
    if (!buf) {
        iconv_close(cd);
        return REC_KIFU_ENOMEM;
    }
    char *ip = (char *)(uintptr_t)in, *op = buf;
    size_t il = len, ol = cap - 1;
    while (il > 0) {
        size_t r = iconv(cd, &ip, &il, &op, &ol);
        if (r != (size_t)-1)
            break;
        if (errno == E2BIG) {
            size_t used = (size_t)(op - buf);
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                rc = REC_KIFU_ENOMEM;
                break;
            }
            buf = nb;
            op = buf + used;
            ol = cap - used - 1;
            continue;
        }
        if (bad)
            *bad = (size_t)(ip - in);
        rc = REC_KIFU_ENCODING;
        break;
    }
    iconv_close(cd);
    if (rc) {
        free(buf);
        return rc;
    }
    *op = 0;
    *out = buf;
    *outlen = (size_t)(op - buf);
    return REC_KIFU_OK;
}

int rec_kx_utf8_to_cp932(const char *in, size_t len, char **out, size_t *outlen) {
    return conv("CP932", "UTF-8", in, len, out, outlen, NULL);
}

/* Looks for an explicit encoding declaration in the first lines. 1 UTF-8, 2 Shift_JIS, 0 none. */
static int declared_encoding(const char *s, size_t len) {
    size_t n = len < 512 ? len : 512;
    char head[513];
    memcpy(head, s, n);
    head[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (head[i] == 0)
            head[i] = ' ';
    const char *e = strstr(head, "encoding=");
    if (!e)
        return 0;
    e += 9;
    if (!strncmp(e, "UTF-8", 5) || !strncmp(e, "utf-8", 5))
        return 1;
    if (!strncmp(e, "Shift_JIS", 9) || !strncmp(e, "SHIFT_JIS", 9) || !strncmp(e, "shift_jis", 9) ||
        !strncmp(e, "CP932", 5) || !strncmp(e, "cp932", 5))
        return 2;
    return 0;
}

static void line_col_of(const char *data, size_t off, int *line, int *col) {
    int l = 1, c = 1;
    for (size_t i = 0; i < off; i++) {
        if (data[i] == '\n')
            l++, c = 1;
        else
            c++;
    }
    *line = l;
    *col = c;
}

int rec_kx_lines_split(const char *data, size_t len, rec_kx_lines_t *out, rec_kifu_error_t *err) {
    memset(out, 0, sizeof *out);
    const unsigned char *u = (const unsigned char *)data;
    char *text = NULL;
    size_t tlen = 0;
    int decl = declared_encoding(data, len);
    if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        data += 3, len -= 3;
        decl = 1;
    }
    size_t valid = u8_valid_prefix((const unsigned char *)data, len);
    if (memchr(data, 0, len)) {
        size_t off = (size_t)((const char *)memchr(data, 0, len) - data);
        int l, c;
        line_col_of(data, off, &l, &c);
        rec_kx_err(err, l, c, "binary data: NUL byte");
        return REC_KIFU_ENCODING;
    }
    if (valid == len && decl != 2) {
        text = malloc(len + 1);
        if (!text)
            return REC_KIFU_ENOMEM;
        memcpy(text, data, len);
        text[len] = 0;
        tlen = len;
    } else {
        /* not UTF-8 (even when it says so: Kifu for Windows writes Shift_JIS files declaring UTF-8) */
        size_t bad = 0;
        int rc = conv("UTF-8", "CP932", data, len, &text, &tlen, &bad);
        if (rc == REC_KIFU_ENCODING) { /* old records from Unix tools: EUC-JP */
            size_t bad2 = 0;
            rc = conv("UTF-8", "EUC-JP", data, len, &text, &tlen, &bad2);
            if (rc == REC_KIFU_ENCODING && bad2 > bad)
                bad = bad2;
        }
        if (rc == REC_KIFU_ENCODING) {
            int l, c;
            line_col_of(data, bad, &l, &c);
            rec_kx_err(err, l, c, "neither UTF-8, Shift_JIS nor EUC-JP: bad byte 0x%02x",
                       bad < len ? (unsigned char)data[bad] : 0);
        }
        if (rc)
            return rc;
    }
    /* split: CRLF, LF, CR */
    int cap = 64, n = 0;
    char **lines = malloc(sizeof(char *) * (size_t)cap);
    if (!lines) {
        free(text);
        return REC_KIFU_ENOMEM;
    }
    size_t i = 0;
    while (i < tlen || (i == tlen && n == 0 && tlen == 0 && 0)) {
        size_t st = i;
        while (i < tlen && text[i] != '\n' && text[i] != '\r')
            i++;
        if (n == cap) {
            cap *= 2;
            char **nl = realloc(lines, sizeof(char *) * (size_t)cap);
            if (!nl) {
                free(lines);
                free(text);
                return REC_KIFU_ENOMEM;
            }
            lines = nl;
        }
        lines[n++] = text + st;
        if (i < tlen) {
            if (text[i] == '\r' && i + 1 < tlen && text[i + 1] == '\n')
                text[i++] = 0;
            text[i++] = 0;
        }
    }
    out->text = text;
    out->line = lines;
    out->n = n;
    return REC_KIFU_OK;
}

void rec_kx_lines_free(rec_kx_lines_t *l) {
    if (!l)
        return;
    free(l->text);
    free(l->line);
    memset(l, 0, sizeof *l);
}

/* ---------------------------------------------------------------- Japanese tables */
const char *const rec_kx_fw_digit[10] = {"０", "１", "２", "３", "４", "５", "６", "７", "８", "９"};
const char *const rec_kx_kanji_digit[19] = {"〇",   "一",   "二",   "三",   "四",   "五",   "六",
                                            "七",   "八",   "九",   "十",   "十一", "十二", "十三",
                                            "十四", "十五", "十六", "十七", "十八"};

static int starts(const char *p, const char *w) { return strncmp(p, w, strlen(w)) == 0; }

int rec_kx_ja_digit(const char **p) {
    const char *s = *p;
    if (*s >= '1' && *s <= '9') {
        (*p)++;
        return *s - '0';
    }
    for (int d = 1; d <= 9; d++) {
        if (starts(s, rec_kx_fw_digit[d])) {
            *p += strlen(rec_kx_fw_digit[d]);
            return d;
        }
        if (starts(s, rec_kx_kanji_digit[d])) {
            *p += strlen(rec_kx_kanji_digit[d]);
            return d;
        }
    }
    return 0;
}

int rec_kx_ja_count(const char **p) {
    const char *s = *p;
    if (*s >= '0' && *s <= '9') {
        int v = 0;
        while (*s >= '0' && *s <= '9' && v < 1000)
            v = v * 10 + (*s++ - '0');
        *p = s;
        return v;
    }
    int v = 0;
    if (starts(s, "十")) {
        v = 10;
        s += strlen("十");
    }
    for (int d = 1; d <= 9; d++)
        if (starts(s, rec_kx_kanji_digit[d])) {
            v += d;
            s += strlen(rec_kx_kanji_digit[d]);
            break;
        }
    *p = s;
    return v;
}

static const struct {
    const char *name;
    rul_type_t type;
} ja_pieces[] = {
    {"成香", RUL_PRO_LANCE}, {"成桂", RUL_PRO_KNIGHT}, {"成銀", RUL_PRO_SILVER}, {"成角", RUL_HORSE},
    {"成飛", RUL_DRAGON},    {"歩", RUL_PAWN},         {"香", RUL_LANCE},        {"桂", RUL_KNIGHT},
    {"銀", RUL_SILVER},      {"角", RUL_BISHOP},       {"飛", RUL_ROOK},         {"金", RUL_GOLD},
    {"玉", RUL_KING},        {"王", RUL_KING},         {"と", RUL_PRO_PAWN},     {"杏", RUL_PRO_LANCE},
    {"圭", RUL_PRO_KNIGHT},  {"全", RUL_PRO_SILVER},   {"馬", RUL_HORSE},        {"龍", RUL_DRAGON},
    {"竜", RUL_DRAGON},      {"仝", RUL_PRO_LANCE},    {"个", RUL_PRO_SILVER},
};

rul_type_t rec_kx_ja_piece(const char **p) {
    for (size_t i = 0; i < sizeof ja_pieces / sizeof ja_pieces[0]; i++)
        if (starts(*p, ja_pieces[i].name)) {
            *p += strlen(ja_pieces[i].name);
            return ja_pieces[i].type;
        }
    return RUL_NO_TYPE;
}

const char *rec_kx_ja_piece_name(rul_type_t t) {
    static const char *const names[RUL_TYPE_NB] = {"",   "歩", "香",   "桂",   "銀",   "角", "飛", "金",
                                                   "玉", "と", "成香", "成桂", "成銀", "馬", "龍"};
    return (unsigned)t < RUL_TYPE_NB ? names[t] : "";
}

const char *const rec_kx_csa_piece[RUL_TYPE_NB] = {"",   "FU", "KY", "KE", "GI", "KA", "HI", "KI",
                                                   "OU", "TO", "NY", "NK", "NG", "UM", "RY"};

rul_type_t rec_kx_csa_piece_parse(const char *s) {
    for (int t = 1; t < RUL_TYPE_NB; t++)
        if (s[0] == rec_kx_csa_piece[t][0] && s[1] == rec_kx_csa_piece[t][1])
            return (rul_type_t)t;
    return RUL_NO_TYPE;
}

/* ---------------------------------------------------------------- terminal words */
static const struct {
    const char *word;
    rec_end_t end;
} kif_ends[] = {
    {"投了", REC_END_RESIGN},
    {"中断", REC_END_ABORT},
    {"千日手", REC_END_SENNICHITE},
    {"持将棋", REC_END_JISHOGI},
    {"詰み", REC_END_MATE},
    {"詰", REC_END_MATE},
    {"不詰", REC_END_NO_MATE},
    {"切れ負け", REC_END_TIME_UP},
    {"時間切れ", REC_END_TIME_UP},
    {"反則勝ち", REC_END_ILLEGAL_WIN},
    {"反則負け", REC_END_ILLEGAL_LOSS},
    {"入玉勝ち", REC_END_KACHI},
    {"宣言勝ち", REC_END_KACHI},
    {"不戦勝", REC_END_DEFAULT_WIN},
    {"不戦敗", REC_END_DEFAULT_LOSS},
    {"引き分け", REC_END_HIKIWAKE},
    {"待った", REC_END_MATTA},
    {"エラー", REC_END_ERROR},
    {"手数制限", REC_END_MAX_MOVES},
    {"封じ手", REC_END_ABORT}, /* sealed move: the game is adjourned there (json-kifu-format: CHUDAN) */
};

rec_end_t rec_kx_end_from_kif(const char *w) {
    for (size_t i = 0; i < sizeof kif_ends / sizeof kif_ends[0]; i++)
        if (starts(w, kif_ends[i].word)) {
            const char *r = w + strlen(kif_ends[i].word);
            if (*r == 0 || *r == ' ' || *r == '\t' || starts(r, "　") || *r == '(')
                return kif_ends[i].end;
        }
    return REC_END_NONE;
}

const char *rec_kx_end_to_kif(rec_end_t e) {
    switch (e) {
    case REC_END_RESIGN: return "投了";
    case REC_END_ABORT: return "中断";
    case REC_END_SENNICHITE: return "千日手";
    case REC_END_JISHOGI: return "持将棋";
    case REC_END_MATE: return "詰み";
    case REC_END_NO_MATE: return "不詰";
    case REC_END_TIME_UP: return "切れ負け";
    case REC_END_ILLEGAL_WIN: return "反則勝ち";
    case REC_END_ILLEGAL_LOSS: return "反則負け";
    case REC_END_KACHI: return "入玉勝ち";
    case REC_END_DEFAULT_WIN: return "不戦勝";
    case REC_END_DEFAULT_LOSS: return "不戦敗";
    case REC_END_MAX_MOVES: return "手数制限";
    case REC_END_HIKIWAKE: return "引き分け";
    case REC_END_MATTA: return "待った";
    case REC_END_ERROR: return "エラー";
    default: return NULL;
    }
}

/* ---------------------------------------------------------------- move resolution */
rul_type_t rec_kx_move_type(const rul_pos_t *pos, rul_move_t m) {
    if (RUL_MOVE_IS_DROP(m))
        return RUL_MOVE_DROP_TYPE(m);
    return RUL_PIECE_TYPE(rul_pos_piece_at(pos, RUL_MOVE_FROM(m)));
}

int rec_kx_move_playable(const rul_pos_t *pos, rul_move_t m) {
    int to = RUL_MOVE_TO(m);
    if (to < 0 || to >= RUL_SQ_NB)
        return 0;
    rul_piece_t dst = rul_pos_piece_at(pos, to);
    if (RUL_MOVE_IS_DROP(m)) {
        int t = RUL_MOVE_DROP_TYPE(m);
        if (t < 1 || t > RUL_HAND_NB)
            return 0;
        return dst == RUL_PIECE_NONE && rul_pos_hand(pos, (rul_color_t)pos->side, t) > 0;
    }
    int from = RUL_MOVE_FROM(m);
    if (from < 0 || from >= RUL_SQ_NB || from == to)
        return 0;
    rul_piece_t pc = rul_pos_piece_at(pos, from);
    if (pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != pos->side)
        return 0;
    if (dst != RUL_PIECE_NONE && RUL_PIECE_COLOR(dst) == pos->side)
        return 0;
    if (dst != RUL_PIECE_NONE && RUL_PIECE_TYPE(dst) == RUL_KING)
        return 0;
    if (RUL_MOVE_IS_PROMO(m)) {
        rul_type_t t = RUL_PIECE_TYPE(pc);
        if (t == RUL_GOLD || t == RUL_KING || t >= RUL_PRO_PAWN)
            return 0;
    }
    return 1;
}

/* Forward rank step for the mover: rank decreases for sente. Returns +1 if the move goes forward,
 * -1 backward, 0 sideways. */
static int move_dir(int from, int to, int side) {
    int d = RUL_SQ_RANK(from) - RUL_SQ_RANK(to);
    if (side)
        d = -d;
    return d > 0 ? 1 : d < 0 ? -1 : 0;
}

/* Keeps in c[0..n) the candidate origins that match the relative bits. */
static int filter_rel(int *c, int n, int to, rul_type_t t, unsigned rel, int side) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        int f = c[i], dir = move_dir(f, to, side);
        int df = RUL_SQ_FILE(f) - RUL_SQ_FILE(to);
        if (side)
            df = -df; /* > 0: origin on the mover's left (higher file for sente) */
        if ((rel & REC_KX_REL_UP) && dir != 1)
            continue;
        if ((rel & REC_KX_REL_DOWN) && dir != -1)
            continue;
        if ((rel & REC_KX_REL_SIDE) && dir != 0)
            continue;
        if ((rel & REC_KX_REL_STRAIGHT) && !(df == 0 && dir == 1))
            continue;
        if (t != RUL_HORSE && t != RUL_DRAGON) {
            if ((rel & REC_KX_REL_RIGHT) && df >= 0)
                continue;
            if ((rel & REC_KX_REL_LEFT) && df <= 0)
                continue;
        }
        c[k++] = f;
    }
    if ((t == RUL_HORSE || t == RUL_DRAGON) && (rel & (REC_KX_REL_RIGHT | REC_KX_REL_LEFT)) && k > 1) {
        /* 馬 / 龍: 右 / 左 name the piece on that side of the other (JSA) */
        int best = c[0];
        for (int i = 1; i < k; i++) {
            int fa = RUL_SQ_FILE(c[i]), fb = RUL_SQ_FILE(best);
            int right = side ? fa > fb : fa < fb;
            if ((rel & REC_KX_REL_RIGHT) ? right : (fa != fb && !right))
                best = c[i];
        }
        c[0] = best;
        k = 1;
    }
    return k;
}

const char *rec_kx_en_piece_name(rul_type_t t) {
    static const char *const n[RUL_TYPE_NB] = {
        "nothing", "pawn", "lance",         "knight",         "silver",          "bishop",          "rook",
        "gold",    "king", "promoted pawn", "promoted lance", "promoted knight", "promoted silver", "horse",
        "dragon"};
    return (unsigned)t < RUL_TYPE_NB ? n[t] : "piece";
}

int rec_kx_check_origin(const rul_pos_t *pos, int from, rul_type_t named, char *msg, size_t msgsize) {
    rul_piece_t pc = rul_pos_piece_at(pos, from);
    rul_type_t pt = RUL_PIECE_TYPE(pc);
    if (pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != pos->side) {
        snprintf(msg, msgsize, "no piece of the side to move on %d%d", RUL_SQ_FILE(from), RUL_SQ_RANK(from));
        return REC_KIFU_EMOVE;
    }
    /* the kind on the square, or its promoted kind (a promotion named by the piece after it: CSA, 成銀) */
    if (pt == named || (pt < RUL_KING && (int)pt + RUL_PROMOTED == (int)named))
        return REC_KIFU_OK;
    snprintf(msg, msgsize, "the piece on %d%d is a %s, not a %s", RUL_SQ_FILE(from), RUL_SQ_RANK(from),
             rec_kx_en_piece_name(pt), rec_kx_en_piece_name(named));
    return REC_KIFU_EMOVE;
}

int rec_kx_resolve(const rul_pos_t *pos, const rec_kx_spec_t *s, int prev_to, rul_move_t *m, int *legal,
                   char *msg, size_t msgsize) {
    int to = s->to < 0 ? prev_to : s->to;
    if (to < 0 || to >= RUL_SQ_NB) {
        snprintf(msg, msgsize, "同 with no previous move");
        return REC_KIFU_EMOVE;
    }
    rul_type_t t = s->type;
    int side = pos->side;
    /* a named origin: take it as written */
    if (s->from >= 0 && !s->drop) {
        if (rec_kx_check_origin(pos, s->from, t, msg, msgsize))
            return REC_KIFU_EMOVE;
        rul_piece_t pc = rul_pos_piece_at(pos, s->from);
        rul_type_t pt = RUL_PIECE_TYPE(pc);
        int promo = s->promo == 1;
        /* a promoted kind named for an unpromoted piece ("成銀" for a silver, CSA style) promotes */
        if (pc != RUL_PIECE_NONE && (int)pt + RUL_PROMOTED == (int)t && pt <= RUL_ROOK)
            promo = 1;
        *m = RUL_MOVE_MAKE(s->from, to, promo);
        if (rul_is_legal(pos, *m)) {
            *legal = 1;
            return REC_KIFU_OK;
        }
        if (!rec_kx_move_playable(pos, *m)) {
            snprintf(msg, msgsize, "no piece of the side to move can make this move");
            return REC_KIFU_EMOVE;
        }
        *legal = 0;
        return REC_KIFU_OK;
    }
    if (s->drop) {
        if (t < RUL_PAWN || t > RUL_GOLD) {
            snprintf(msg, msgsize, "this piece cannot be dropped");
            return REC_KIFU_EMOVE;
        }
        *m = RUL_MOVE_DROP(t, to);
        *legal = rul_is_legal(pos, *m);
        if (!*legal && !rec_kx_move_playable(pos, *m)) {
            snprintf(msg, msgsize, "drop of a piece not in hand or onto an occupied square");
            return REC_KIFU_EMOVE;
        }
        return REC_KIFU_OK;
    }
    /* board candidates: pieces of type t that can reach `to` (legally, else pseudo-legally) */
    int cand[RUL_SQ_NB], n = 0, lg = 1;
    int promo = s->promo == 1;
    for (int pass = 0; pass < 2 && n == 0; pass++) {
        /* no legal board move: a legal drop without 打 comes before an illegal board move */
        if (pass == 1 && !promo && t >= RUL_PAWN && t <= RUL_GOLD &&
            rul_is_legal(pos, RUL_MOVE_DROP(t, to))) {
            *m = RUL_MOVE_DROP(t, to);
            *legal = 1;
            return REC_KIFU_OK;
        }
        for (int f = 0; f < RUL_SQ_NB; f++) {
            rul_piece_t pc = rul_pos_piece_at(pos, f);
            if (pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != side || RUL_PIECE_TYPE(pc) != t)
                continue;
            rul_move_t mv = RUL_MOVE_MAKE(f, to, promo);
            if (pass == 0
                    ? rul_is_legal(pos, mv)
                    : (rec_kx_move_playable(pos, mv) && rul_why_illegal(pos, mv) != RUL_WHY_NOT_A_LEGAL_MOVE))
                cand[n++] = f;
        }
        if (n == 0)
            lg = 0;
    }
    if (n == 0) {
        /* no board move: a drop without 打 */
        if (t >= RUL_PAWN && t <= RUL_GOLD && rul_pos_hand(pos, (rul_color_t)side, t) > 0 && !promo) {
            *m = RUL_MOVE_DROP(t, to);
            *legal = rul_is_legal(pos, *m);
            if (*legal || rec_kx_move_playable(pos, *m))
                return REC_KIFU_OK;
        }
        snprintf(msg, msgsize, "no %s can move to %d%d", rec_kx_ja_piece_name(t), RUL_SQ_FILE(to),
                 RUL_SQ_RANK(to));
        return REC_KIFU_EMOVE;
    }
    if (n > 1 && s->rel)
        n = filter_rel(cand, n, to, t, s->rel, side);
    if (n != 1) {
        snprintf(msg, msgsize,
                 n ? "ambiguous move: %d pieces can make it"
                   : "no piece matches the "
                     "relative notation",
                 n);
        return REC_KIFU_EMOVE;
    }
    *m = RUL_MOVE_MAKE(cand[0], to, promo);
    *legal = lg;
    return REC_KIFU_OK;
}

/* ---------------------------------------------------------------- KI2 / Western notation out */
/* Origins of the mover's pieces of type t that could move to `to`, pins ignored (a pinned piece still
 * counts, as readers such as tsshogi and Kifu for Windows count it). */
static int reach(const rul_pos_t *pos, rul_type_t t, int to, int *cand) {
    int n = 0;
    for (int f = 0; f < RUL_SQ_NB; f++) {
        rul_piece_t pc = rul_pos_piece_at(pos, f);
        if (pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != pos->side || RUL_PIECE_TYPE(pc) != t || f == to)
            continue;
        for (int promo = 0; promo < 2; promo++) {
            rul_move_t mv = RUL_MOVE_MAKE(f, to, promo);
            if (rec_kx_move_playable(pos, mv) && rul_why_illegal(pos, mv) != RUL_WHY_NOT_A_LEGAL_MOVE) {
                cand[n++] = f;
                break;
            }
        }
    }
    return n;
}

/* Side of origin f relative to destination `to`, from the mover's seat: -1 on its right, +1 on its left,
 * 0 in the same file. */
static int side_of(int f, int to, int side) {
    int df = RUL_SQ_FILE(f) - RUL_SQ_FILE(to);
    if (side)
        df = -df;
    return df < 0 ? -1 : df > 0 ? 1 : 0;
}

int rec_kifu_move_to_ki2(const rul_pos_t *pos, rul_move_t m, int prev_to, char *buf, size_t size) {
    if (!pos || !buf || size < 64 || !rec_kx_move_playable(pos, m))
        return REC_KIFU_EARG;
    if (!rul_is_legal(pos, m))
        return REC_KIFU_EMOVE; /* no origin in KI2: "６六歩左" would be 6g6f for 7g6f */
    int to = RUL_MOVE_TO(m), side = pos->side;
    rul_type_t t = rec_kx_move_type(pos, m);
    char sq[32];
    if (to == prev_to)
        snprintf(sq, sizeof sq, strlen(rec_kx_ja_piece_name(t)) > 3 ? "同" : "同　");
    else
        snprintf(sq, sizeof sq, "%s%s", rec_kx_fw_digit[RUL_SQ_FILE(to)],
                 rec_kx_kanji_digit[RUL_SQ_RANK(to)]);
    int cand[RUL_SQ_NB];
    int n = reach(pos, t, to, cand);
    char rel[16] = "";
    if (RUL_MOVE_IS_DROP(m)) {
        if (n > 0)
            snprintf(rel, sizeof rel, "打");
    } else {
        /* JSA: a horizontal word (右 直 左) when another piece moves in the same vertical direction, a
           vertical word (上 寄 引) when another comes from the same side (or nothing horizontal applies);
           馬 and 龍 never take 直 */
        int from = RUL_MOVE_FROM(m), vm = move_dir(from, to, side), sm = side_of(from, to, side);
        int nh = 0, nv = 0, others = 0, h0 = 0, no_vertical = 0;
        for (int i = 0; i < n; i++) {
            if (cand[i] == from)
                continue;
            others++;
            if (move_dir(cand[i], to, side) == vm && nh++ == 0)
                h0 = side_of(cand[i], to, side);
            if (side_of(cand[i], to, side) == sm)
                nv++;
        }
        if (nh) {
            if (t == RUL_HORSE || t == RUL_DRAGON) {
                if (sm < 0 || (sm == 0 && h0 > 0))
                    snprintf(rel, sizeof rel, "右");
                else if (sm > 0 || (sm == 0 && h0 < 0))
                    snprintf(rel, sizeof rel, "左");
            } else if (sm == 0) {
                snprintf(rel, sizeof rel, "直");
                no_vertical = 1;
            } else {
                snprintf(rel, sizeof rel, "%s", sm < 0 ? "右" : "左");
            }
        }
        if (!no_vertical && (nv || (!nh && others)))
            snprintf(rel + strlen(rel), sizeof rel - strlen(rel), "%s", vm > 0 ? "上" : vm < 0 ? "引" : "寄");
    }
    const char *pr = "";
    if (!RUL_MOVE_IS_DROP(m)) {
        if (RUL_MOVE_IS_PROMO(m))
            pr = "成";
        else if (t <= RUL_ROOK && t != RUL_GOLD && t != RUL_KING &&
                 rul_is_legal(pos, RUL_MOVE_MAKE(RUL_MOVE_FROM(m), to, 1)))
            pr = "不成";
    }
    snprintf(buf, size, "%s%s%s%s", sq, rec_kx_ja_piece_name(t), rel, pr);
    return REC_KIFU_OK;
}

int rec_kifu_move_to_western(const rul_pos_t *pos, rul_move_t m, char *buf, size_t size) {
    static const char *const wn[RUL_TYPE_NB] = {"",  "P",  "L",  "N",  "S",  "B",  "R", "G",
                                                "K", "+P", "+L", "+N", "+S", "+B", "+R"};
    if (!pos || !buf || size < 16 || !rec_kx_move_playable(pos, m))
        return REC_KIFU_EARG;
    int to = RUL_MOVE_TO(m);
    rul_type_t t = rec_kx_move_type(pos, m);
    char dst[4] = {(char)('0' + RUL_SQ_FILE(to)), (char)('a' + RUL_SQ_RANK(to) - 1), 0, 0};
    if (RUL_MOVE_IS_DROP(m)) {
        snprintf(buf, size, "%s*%s", wn[t], dst);
        return REC_KIFU_OK;
    }
    int from = RUL_MOVE_FROM(m);
    int cand[RUL_SQ_NB];
    int n = reach(pos, t, to, cand);
    char org[4] = "";
    /* the origin when another piece could reach the square, and for an illegal move, which a reader
       would otherwise resolve to a legal one (P-6f for 7g6f is read as 6g6f) */
    if (n > 1 || !rul_is_legal(pos, m))
        snprintf(org, sizeof org, "%d%c", RUL_SQ_FILE(from), 'a' + RUL_SQ_RANK(from) - 1);
    int cap = rul_pos_piece_at(pos, to) != RUL_PIECE_NONE;
    const char *pr = "";
    if (RUL_MOVE_IS_PROMO(m))
        pr = "+";
    else if (t <= RUL_ROOK && rul_is_legal(pos, RUL_MOVE_MAKE(from, to, 1)))
        pr = "=";
    snprintf(buf, size, "%s%s%c%s%s", wn[t], org, cap ? 'x' : '-', dst, pr);
    return REC_KIFU_OK;
}
