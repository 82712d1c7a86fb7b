/* kifu_kif.c - KIF and KI2 reader (Kakinoki KIF; KI2 relative moves per the JSA notation
 * page). Headers, board diagrams, moves, times, comments, bookmarks, variations, terminal words and the
 * "まで…" trailer. The writer: kifu_kif_write.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu_internal.h"

static int starts(const char *p, const char *w) { return strncmp(p, w, strlen(w)) == 0; }

/* Skips ASCII blanks and full-width spaces. */
static const char *skip_ws(const char *p) {
    for (;;) {
        if (*p == ' ' || *p == '\t')
            p++;
        else if (starts(p, "　"))
            p += 3;
        else
            return p;
    }
}

/* Strips trailing blanks (ASCII and full-width) in place. */
void rec_kx_rstrip(char *s) {
    size_t n = strlen(s);
    for (;;) {
        if (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        else if (n >= 3 && !memcmp(s + n - 3, "　", 3))
            n -= 3;
        else
            break;
        s[n] = 0;
    }
    s[n] = 0;
}

static int col(const char *line, const char *p) { return rec_kx_u8_cols(line, (size_t)(p - line)) + 1; }

/* A count in ASCII or full-width digits at *pp ("29", "２９"), 0..99999998 (a SFEN move number minus
 * one), advancing *pp past it; -1 (*pp unmoved) when there is none or it is larger. */
static int read_number(const char **pp) {
    const char *p = *pp;
    int n = 0, digits = 0;
    for (;;) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0', p++;
        else if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBC && (unsigned char)p[2] >= 0x90 &&
                 (unsigned char)p[2] <= 0x99) /* "０".."９" (U+FF10..FF19) */
            d = (unsigned char)p[2] - 0x90, p += 3;
        else
            break;
        if (n > 9999999)
            return -1;
        n = n * 10 + d;
        digits++;
    }
    if (!digits || n > 99999998)
        return -1;
    *pp = p;
    return n;
}

/* ---------------------------------------------------------------- reading state */
typedef struct {
    rec_kifu_t *k;
    int ki2;
    int line;       /* current record line index */
    rul_pos_t pos;  /* position before the next move of the current line */
    int prev_to;    /* destination of the last move, -1 */
    int in_moves;   /* 1 once the move section has started */
    int board_rows; /* diagram rows read */
    int have_board;
    rul_pos_t board; /* diagram being read */
    int side_gote;   /* "後手番" seen */
    int pending_end; /* terminal seen on the current line */
    int trailer_end; /* ending from a "まで" trailer, REC_END_NONE if none */
    int trailer_line;
    char *head_comment;   /* comments before the first move */
    int started;          /* start position fixed */
    int lno;              /* 1-based input line number */
    int bad_lno, bad_col; /* a move line read as an unknown terminal word on the current line, 0 if none */
    int ign_lno;          /* a line not understood among the moves of the current line, 0 if none */
    char bad_text[64];    /* that line's text (either kind) */
    int num_off;          /* moves played before the start: 手数＝N before the moves (a move's number is
                             its ply + num_off), 0 */
    int num_checked;      /* 1 once the first KIF move line's number was compared with num_off */
    int num_bad;  /* KIF move lines whose number is not the one expected (warned once, at the first) */
    int num_warn; /* index in k->warnings of that one warning, -1 before it */
    int any_move; /* 1 once a move line was read */
} kst_t;

/* Copies at most n bytes of s into dst (size n + 1) without cutting a UTF-8 character. */
/* "bad move" at the move p of line: the move as written, and a look-alike character (a simplified
 * or variant form a keyboard or OCR gives) named with the one meant. */
static void bad_move(rec_kifu_error_t *err, int lno, const char *line, const char *p, const char *q) {
    static const char *const like[][2] = {
        {"步", "歩"}, {"飞", "飛"}, {"银", "銀"}, {"马", "馬"}, {"龙", "龍"}};
    size_t n = strcspn(p, " \t");
    const char *fw = strstr(p, "　");
    if (fw && (size_t)(fw - p) < n)
        n = (size_t)(fw - p);
    if (n > 40)
        n = 40;
    while (n > 0 && ((unsigned char)p[n] & 0xC0) == 0x80)
        n--;
    for (size_t i = 0; i < sizeof like / sizeof like[0]; i++) {
        const char *at = strstr(p, like[i][0]);
        if (at && at < p + n) {
            rec_kx_err(err, lno, col(line, at), "bad move '%.*s': '%s' is a look-alike of %s", (int)n, p,
                       like[i][0], like[i][1]);
            return;
        }
    }
    if (n == 0)
        rec_kx_err(err, lno, col(line, q), "bad move: no move after the move number");
    else
        rec_kx_err(err, lno, col(line, q), "bad move '%.*s': not a move (read up to column %d)", (int)n, p,
                   col(line, q));
}

static void copy_text(char *dst, size_t size, const char *s) {
    size_t n = strlen(s);
    if (n >= size) {
        n = size - 1;
        while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(dst, s, n);
    dst[n] = 0;
}

/* A move follows a line that could not be read: that line lost a move, an error there. */
static int check_lost_line(kst_t *st, rec_kifu_error_t *err) {
    if (st->bad_lno && st->pending_end) {
        rec_kx_err(err, st->bad_lno, st->bad_col, "cannot read the move '%s' (more moves follow)",
                   st->bad_text);
        return REC_KIFU_EPARSE;
    }
    if (st->ign_lno) {
        rec_kx_err(err, st->ign_lno, 1, "not a move line: '%s' (more moves follow)", st->bad_text);
        return REC_KIFU_EPARSE;
    }
    return REC_KIFU_OK;
}

int rec_kx_move_at(const rec_kifu_t *k, int line, int ply, rul_move_t *m) {
    while (line >= 0) {
        const rec_kifu_line_t *L = &k->lines[line];
        if (ply >= L->start_ply && ply < L->start_ply + L->nmoves) {
            *m = L->moves[ply - L->start_ply].move;
            return 1;
        }
        if (ply >= L->start_ply)
            return 0;
        line = L->parent;
    }
    return 0;
}

/* Parses hands "角　歩二　" / "なし" / "飛角金2" into colour c's hand of st->board. */
static int parse_hand(kst_t *st, const char *v, int c, const char *line, rec_kifu_error_t *err) {
    const char *p = skip_ws(v);
    for (int t = RUL_PAWN; t <= RUL_GOLD; t++)
        rul_pos_set_hand(&st->board, (rul_color_t)c, (rul_type_t)t, 0);
    if (starts(p, "なし") || *p == 0)
        return REC_KIFU_OK;
    while (*p) {
        p = skip_ws(p);
        if (!*p)
            break;
        if (*p == ',' || *p == '|' || starts(p, "、")) {
            p += *p == ',' || *p == '|' ? 1 : 3;
            continue;
        }
        const char *q = p;
        rul_type_t t = rec_kx_ja_piece(&q);
        if (t < RUL_PAWN || t > RUL_GOLD) {
            rec_kx_err(err, st->lno, col(line, p), "bad piece in hand");
            return REC_KIFU_EPARSE;
        }
        int n = rec_kx_ja_count(&q);
        if (n == 0)
            n = 1;
        if (n > 18) {
            rec_kx_err(err, st->lno, col(line, p), "too many pieces in hand");
            return REC_KIFU_EPARSE;
        }
        rul_pos_set_hand(&st->board, (rul_color_t)c, t, n);
        p = q;
    }
    return REC_KIFU_OK;
}

static int parse_board_row(kst_t *st, const char *s, const char *line, rec_kifu_error_t *err) {
    const char *p = s;
    if (*p == '|')
        p++;
    else
        p += 3; /* ｜ */
    int rank = st->board_rows + 1;
    if (rank > 9) {
        rec_kx_err(err, st->lno, 1, "board diagram has more than 9 rows");
        return REC_KIFU_EPARSE;
    }
    for (int file = 9; file >= 1; file--) {
        int gote = 0;
        if (*p == 'v' || *p == 'V')
            gote = 1, p++;
        else if (*p == ' ' || *p == '^' || *p == '+')
            p++;
        const char *q = p;
        if (starts(p, "・")) {
            p += 3;
            continue;
        }
        rul_type_t t = rec_kx_ja_piece(&q);
        if (t == RUL_NO_TYPE || q - p != 3) {
            rec_kx_err(err, st->lno, col(line, p), "bad square in board diagram");
            return REC_KIFU_EPARSE;
        }
        rul_pos_set_piece(&st->board, RUL_SQ(file, rank), RUL_PIECE(gote, t));
        p = q;
    }
    st->board_rows++;
    st->have_board = 1;
    return REC_KIFU_OK;
}

/* Fixes the start position (board diagram or 手合割) before the first move. */
static int fix_start(kst_t *st, rec_kifu_error_t *err) {
    if (st->started)
        return REC_KIFU_OK;
    st->started = 1;
    rec_kifu_t *k = st->k;
    if (st->have_board) {
        if (st->board_rows != 9) {
            rec_kx_err(err, st->lno, 1, "board diagram has %d rows, not 9", st->board_rows);
            return REC_KIFU_EPARSE;
        }
        st->board.side = (uint8_t)(st->side_gote ? RUL_GOTE : RUL_SENTE);
        st->board.ply = 1;
        rul_pos_rehash(&st->board);
        char sfen[160];
        rul_pos_to_sfen(&st->board, sfen, sizeof sfen);
        if (rec_kifu_set_start(k, sfen)) {
            rec_kx_err(err, st->lno, 1, "board diagram gives no valid position");
            return REC_KIFU_EPARSE;
        }
    } else {
        const char *h = rec_kifu_header_get(k, "手合割");
        if (h) {
            char v[128];
            snprintf(v, sizeof v, "%s", h);
            rec_kx_rstrip(v);
            rul_handicap_t hc;
            if (rul_handicap_from_name(v, &hc) == RUL_OK) {
                rul_handicap_info_t info;
                rul_handicap_info(hc, &info);
                rec_kifu_set_start(k, info.sfen);
            } else {
                rec_kifu_warn(k, 0, 0, "unknown 手合割 '%s' without a board diagram: normal start", v);
            }
        }
        if (st->side_gote) {
            rul_pos_t p;
            rul_error_t e;
            rul_pos_from_sfen(&p, k->start_sfen, &e);
            p.side = RUL_GOTE;
            rul_pos_rehash(&p);
            char sfen[160];
            rul_pos_to_sfen(&p, sfen, sizeof sfen);
            rec_kifu_set_start(k, sfen);
        }
    }
    rul_error_t e;
    rul_pos_from_sfen(&st->pos, k->start_sfen, &e);
    return REC_KIFU_OK;
}

/* Parses a time "( 0:04/00:00:04)" at p (after the move). Returns 1 if found. */
static int parse_time(const char *p, int64_t *t, int64_t *tot) {
    p = skip_ws(p);
    if (*p != '(')
        return 0;
    p++;
    long a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    int na = 0, nb = 0;
    double frac = 0;
    for (;;) {
        p = skip_ws(p);
        if (*p < '0' || *p > '9' || na >= 3)
            break;
        long x = 0;
        while (*p >= '0' && *p <= '9' && x < 100000000)
            x = x * 10 + (*p++ - '0');
        a[na++] = x;
        if (*p == '.') { /* fractional seconds */
            double f = 0.1;
            p++;
            while (*p >= '0' && *p <= '9')
                frac += f * (*p++ - '0'), f /= 10;
        }
        if (*p != ':')
            break;
        p++;
    }
    p = skip_ws(p);
    if (*p == '/') {
        p++;
        for (;;) {
            p = skip_ws(p);
            if (*p < '0' || *p > '9' || nb >= 3)
                break;
            long x = 0;
            while (*p >= '0' && *p <= '9' && x < 100000000)
                x = x * 10 + (*p++ - '0');
            b[nb++] = x;
            if (*p == '.') {
                p++;
                while (*p >= '0' && *p <= '9')
                    p++;
            }
            if (*p != ':')
                break;
            p++;
        }
    }
    if (na == 0)
        return 0;
    long s = 0;
    for (int i = 0; i < na; i++)
        s = s * 60 + a[i];
    *t = (int64_t)s * 1000 + (int64_t)(frac * 1000 + 0.5);
    if (nb) {
        long u = 0;
        for (int i = 0; i < nb; i++)
            u = u * 60 + b[i];
        *tot = (int64_t)u * 1000;
    } else
        *tot = REC_TIME_NONE;
    return 1;
}

/* Parses the move notation at *pp into spec; ki2 forbids the (xy) origin. 0 ok, else error column. */
static int parse_notation(const char **pp, rec_kx_spec_t *sp, int ki2) {
    const char *p = *pp;
    memset(sp, 0, sizeof *sp);
    sp->from = -1;
    if (starts(p, "同")) {
        p += 3;
        p = skip_ws(p);
        sp->to = -1;
        /* "同２四歩" style: a square after 同 */
        const char *q = p;
        int f = rec_kx_ja_digit(&q);
        if (f) {
            int r = rec_kx_ja_digit(&q);
            if (r)
                p = q;
        }
    } else {
        int f = rec_kx_ja_digit(&p);
        int r = f ? rec_kx_ja_digit(&p) : 0;
        if (!f || !r)
            return 1;
        sp->to = RUL_SQ(f, r);
        p = skip_ws(p);
        if (starts(p, "同"))
            p = skip_ws(p + 3); /* "２四同歩" */
    }
    sp->type = rec_kx_ja_piece(&p);
    if (!sp->type)
        return 2;
    for (;;) {
        if (starts(p, "右"))
            sp->rel |= REC_KX_REL_RIGHT, p += 3;
        else if (starts(p, "左"))
            sp->rel |= REC_KX_REL_LEFT, p += 3;
        else if (starts(p, "直"))
            sp->rel |= REC_KX_REL_STRAIGHT, p += 3;
        else if (starts(p, "上") || starts(p, "行") || starts(p, "入"))
            sp->rel |= REC_KX_REL_UP, p += 3;
        else if (starts(p, "引"))
            sp->rel |= REC_KX_REL_DOWN, p += 3;
        else if (starts(p, "寄"))
            sp->rel |= REC_KX_REL_SIDE, p += 3;
        else if (starts(p, "打"))
            sp->drop = 1, p += 3;
        else if (starts(p, "不成") || starts(p, "生"))
            sp->promo = -1, p += starts(p, "生") ? 3 : 6;
        else if (starts(p, "成"))
            sp->promo = 1, p += 3;
        else
            break;
    }
    if (!ki2 && *p == '(') {
        const char *q = p + 1;
        if (q[0] >= '0' && q[0] <= '9' && q[1] >= '0' && q[1] <= '9' && q[2] == ')') {
            int f = q[0] - '0', r = q[1] - '0';
            if (f == 0 && r == 0)
                sp->drop = 1;
            else if (f >= 1 && r >= 1)
                sp->from = RUL_SQ(f, r);
            else
                return 3;
            p = q + 3;
        } else {
            /* not "(dd)": a time "( 0:48/00:01:03)" may follow the move at once; anything else is an
             * origin square mistyped ("(7x)"), which must not be read as the move's time */
            const char *t = q;
            while (*t == ' ')
                t++;
            while (*t >= '0' && *t <= '9')
                t++;
            if (*t != ':')
                return 3;
        }
    }
    *pp = p;
    return 0;
}

/* Reads a trailer "まで96手で後手の勝ち" into an ending (relative to the side to move after the moves). */
static rec_end_t parse_trailer(const char *s, int stm_gote) {
    const char *p = strstr(s, "手");
    if (!p)
        return REC_END_NONE;
    p += strlen("手");
    if (starts(p, "詰"))
        return REC_END_MATE; /* "まで49手詰" (tsume records) */
    if (!starts(p, "で"))
        return REC_END_NONE;
    p += strlen("で");
    if (strstr(p, "千日手"))
        return REC_END_SENNICHITE;
    if (strstr(p, "持将棋"))
        return REC_END_JISHOGI;
    if (strstr(p, "中断"))
        return REC_END_ABORT;
    if (strstr(p, "反則勝ち"))
        return REC_END_ILLEGAL_WIN;
    if (strstr(p, "反則負け"))
        return REC_END_ILLEGAL_LOSS;
    if (strstr(p, "入玉勝ち") || strstr(p, "宣言勝ち"))
        return REC_END_KACHI;
    if (strstr(p, "時間切れ") || strstr(p, "切れ負け"))
        return REC_END_TIME_UP;
    if (strstr(p, "不詰"))
        return REC_END_NO_MATE;
    if (strstr(p, "詰み") || starts(p, "詰"))
        return REC_END_MATE;
    if (strstr(p, "勝ち")) {
        int winner_gote = strstr(p, "後手") || strstr(p, "上手") || strstr(p, "△") || strstr(p, "☖");
        /* the winner is normally the side that just moved: the side to move resigned */
        if (winner_gote != stm_gote)
            return REC_END_RESIGN;
        return REC_END_ILLEGAL_WIN;
    }
    rec_end_t e = rec_kx_end_from_kif(p);
    return e;
}

static int add_move(kst_t *st, rec_kx_spec_t *sp, const char *line, const char *at, int64_t t, int64_t tot,
                    rec_kifu_error_t *err) {
    rul_move_t m;
    int legal;
    char msg[160];
    int rc = check_lost_line(st, err);
    if (rc)
        return rc;
    if (st->pending_end) {
        rec_kifu_warn(st->k, st->lno, col(line, at), "move after the terminal word ignored");
        return REC_KIFU_OK;
    }
    rc = rec_kx_resolve(&st->pos, sp, st->prev_to, &m, &legal, msg, sizeof msg);
    if (rc) {
        rec_kx_err(err, st->lno, col(line, at), "%s", msg);
        return rc;
    }
    rc = rec_kx_number_check(st->k, st->line, st->num_off, err, st->lno, col(line, at));
    if (rc)
        return rc;
    if (!legal) {
        size_t tl = strcspn(at, " \t");
        const char *fw = strstr(at, "　");
        if (fw && (size_t)(fw - at) < tl)
            tl = (size_t)(fw - at);
        if (rec_kx_note_illegal(st->k, st->line, st->num_off, &st->pos, m, st->lno, col(line, at), at, tl) !=
            0)
            return REC_KIFU_ENOMEM;
    }
    if (rec_kx_push_play(st->k, st->line, &st->pos, m, legal, t, tot) != 0)
        return REC_KIFU_ENOMEM;
    st->prev_to = RUL_MOVE_TO(m);
    return REC_KIFU_OK;
}

static int set_end(kst_t *st, rec_end_t e, const char *word, int64_t t) {
    rec_kifu_line_t *L = &st->k->lines[st->line];
    if (st->pending_end) /* a second terminal ("123 中断" after "122 投了"): the first one stands */
        return rec_kifu_warn(st->k, st->lno, 1, "second terminal word '%s' ignored", word);
    L->end = e;
    L->end_time_ms = t;
    st->pending_end = 1;
    if (st->line == 0) {
        rec_kifu_set_result(st->k, e, word);
    }
    return REC_KIFU_OK;
}

/* Comments go to the last move of the current line, or to the start. */
static int add_comment(kst_t *st, const char *text) {
    rec_kifu_line_t *L = &st->k->lines[st->line];
    if (L->nmoves == 0) {
        if (st->line == 0)
            return rec_kx_append_text(&st->k->comment, text);
        return rec_kx_append_text(&L->comment, text); /* at a variation's start (the KI2 cut note) */
    }
    return rec_kx_append_text(&L->moves[L->nmoves - 1].comment, text);
}

static int start_variation(kst_t *st, int ply, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int l = st->line;
    /* walk up from the last line read to the line that holds ply `ply` */
    while (l >= 0) {
        const rec_kifu_line_t *L = &k->lines[l];
        if (ply >= L->start_ply && ply < L->start_ply + L->nmoves)
            break; /* holds a move `ply` */
        if (ply == L->start_ply + L->nmoves && L->end != REC_END_NONE)
            break; /* instead of its terminal */
        l = L->parent;
    }
    if (l < 0) {
        rec_kx_err(err, st->lno, 1, "variation at move %d has no move to replace", ply + st->num_off);
        return REC_KIFU_EPARSE;
    }
    if (l > 0 && k->lines[l].start_ply == ply)
        l = k->lines[l].parent; /* a sibling */
    int nl;
    int rc = rec_kifu_add_line(k, l, ply, &nl);
    if (rc)
        return rc;
    st->line = nl;
    st->pending_end = 0;
    st->bad_lno = st->ign_lno = 0;
    rc = rec_kifu_position_at(k, nl, ply, &st->pos);
    if (rc) {
        rec_kx_err(err, st->lno, 1, "variation at move %d: cannot rebuild its position", ply + st->num_off);
        return REC_KIFU_EPARSE;
    }
    rul_move_t pm;
    st->prev_to = ply > 1 && rec_kx_move_at(k, l, ply - 1, &pm) ? RUL_MOVE_TO(pm) : -1;
    return REC_KIFU_OK;
}

static int handle_header(kst_t *st, char *s, const char *line, rec_kifu_error_t *err) {
    char *c = strstr(s, "：");
    size_t kl = (size_t)(c - s);
    char key[128];
    if (kl >= sizeof key)
        kl = sizeof key - 1;
    memcpy(key, s, kl);
    key[kl] = 0;
    rec_kx_rstrip(key);
    const char *v = skip_ws(c + 3);
    int gote = -1;
    if (!strcmp(key, "先手の持駒") || !strcmp(key, "下手の持駒"))
        gote = 0;
    if (!strcmp(key, "後手の持駒") || !strcmp(key, "上手の持駒"))
        gote = 1;
    if (gote >= 0) {
        if (!st->have_board && !st->board_rows) {
            rul_pos_clear(&st->board);
        }
        st->have_board = 1;
        return parse_hand(st, v, gote, line, err);
    }
    if (!strcmp(key, "変化"))
        return REC_KIFU_OK; /* handled by the caller */
    if (st->in_moves && rec_kifu_header_get(st->k, key))
        return REC_KIFU_OK;
    return rec_kifu_header_set(st->k, key, v);
}

/* "変化：N手": a variation replacing move N of the line read so far. */
static int variation_line(kst_t *st, const char *s, char *line, rec_kifu_error_t *err) {
    int rc = REC_KIFU_OK;
    const char *p = s + (starts(s, "変化：") ? strlen("変化：") : strlen("変化:"));
    int ply = 0;
    p = skip_ws(p);
    while (*p >= '0' && *p <= '9' && ply < 100000000)
        ply = ply * 10 + (*p++ - '0');
    if (!ply) {
        rec_kx_err(err, st->lno, col(line, p), "bad variation header");
        rc = REC_KIFU_EPARSE;
        return rc;
    }
    if ((rc = fix_start(st, err)))
        return rc;
    if (ply <= st->num_off) {
        rec_kx_err(err, st->lno, col(line, s), "variation at move %d, before the first move (%d)", ply,
                   st->num_off + 1);
        rc = REC_KIFU_EPARSE;
        return rc;
    }
    rc = start_variation(st, ply - st->num_off, err);
    st->in_moves = 1;
    return rc;
}

/* "手数＝N": the diagram's caption, the moves played before it; before the moves it numbers the first
 * move N + 1 (a game taken up in the middle). */
static int count_line(kst_t *st, const char *s, char *line, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int rc = REC_KIFU_OK;
    /* the diagram's caption (Kakinoki KIF, BOD): "手数＝29  ▲３七銀  まで", the moves played before
       it; before the moves it numbers the first move 30 (a game taken up in the middle) */
    const char *p = skip_ws(s + (starts(s, "手数＝") ? strlen("手数＝") : strlen("手数=")));
    int n = read_number(&p);
    if (n >= 0 && *p && *p != ' ' && *p != '\t' && !starts(p, "　")) {
        /* "手数＝29x": not a count; the caption's move may follow only after a space */
        char bad[8];
        const char *e = p;
        if (rec_kx_u8_next(&e) < 0)
            e = p + 1;
        copy_text(bad, (size_t)(e - p) + 1 < sizeof bad ? (size_t)(e - p) + 1 : sizeof bad, p);
        rec_kx_err(err, st->lno, col(line, p), "手数＝%d followed by '%s': a move count is digits only", n,
                   bad);
        rc = REC_KIFU_EPARSE;
        return rc;
    }
    if (n < 0)
        rec_kifu_warn(k, st->lno, col(line, p), "手数＝ without a move count (0 to 99999998) ignored");
    else if (!st->any_move && !st->in_moves)
        st->num_off = n;
    return rc;
}

/* A KIF move line: number, move (or terminal word), time. */
static int kif_move_line(kst_t *st, const char *s, char *line, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int rc = REC_KIFU_OK;
    const char *p = s;
    int num = 0;
    while (*p >= '0' && *p <= '9' && num < 100000000)
        num = num * 10 + (*p++ - '0');
    p = skip_ws(p);
    if (!st->num_checked) {
        st->num_checked = 1;
        if (st->num_off && num == 1 && st->line == 0) { /* a caption only: the moves count from 1 */
            rec_kifu_warn(k, st->lno, 1, "手数＝%d before the moves, but they are numbered from 1",
                          st->num_off);
            st->num_off = 0;
        }
    }
    if ((rc = fix_start(st, err)))
        return rc;
    st->in_moves = 1;
    st->any_move = 1;
    rec_kifu_line_t *L = &k->lines[st->line];
    int expect = L->start_ply + L->nmoves + st->num_off;
    if (num != expect && !st->pending_end && st->num_bad++ == 0) { /* one warning: the first, counted */
        rec_kifu_warn(k, st->lno, 1, "move number %d where %d was expected%s", num, expect,
                      st->num_off ? " (from 手数＝)" : "");
        st->num_warn = k->nwarnings - 1;
    }
    rec_end_t e = rec_kx_end_from_kif(p);
    if (e != REC_END_NONE) {
        const char *q = p;
        while (*q && *q != ' ' && *q != '(' && !starts(q, "　"))
            q++;
        char word[48];
        size_t wl = (size_t)(q - p) < sizeof word - 1 ? (size_t)(q - p) : sizeof word - 1;
        memcpy(word, p, wl);
        word[wl] = 0;
        int64_t t = REC_TIME_NONE, tot;
        parse_time(q, &t, &tot);
        set_end(st, e, word, t);
        return rc;
    }
    rec_kx_spec_t sp;
    const char *q = p;
    int bad = parse_notation(&q, &sp, 0);
    if (bad) {
        /* an unknown terminal word: keep it as a warning */
        int fw_digit = (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBC &&
                       (unsigned char)p[2] >= 0x90 &&
                       (unsigned char)p[2] <= 0x99; /* ０..９: a move, maybe cut short */
        if (*p && !(*p >= '0' && *p <= '9') && !starts(p, "同") && !fw_digit &&
            !rec_kx_ja_digit(&(const char *){p})) {
            rec_kifu_warn(k, st->lno, col(line, p), "unknown terminal word");
            if (!st->pending_end && !st->bad_lno) { /* an error if moves follow: check_lost_line */
                st->bad_lno = st->lno;
                st->bad_col = col(line, s);
                copy_text(st->bad_text, sizeof st->bad_text, s);
            }
            set_end(st, REC_END_ERROR, "", REC_TIME_NONE);
            return rc;
        }
        bad_move(err, st->lno, line, p, q);
        rc = REC_KIFU_EPARSE;
        return rc;
    }
    int64_t t = REC_TIME_NONE, tot = REC_TIME_NONE;
    parse_time(q, &t, &tot);
    return add_move(st, &sp, line, p, t, tot, err);
}

/* A KI2 move line: "▲７六歩    △３四歩 ...", marks and moves (or a terminal word). */
static int ki2_move_line(kst_t *st, const char *s, char *line, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int rc = REC_KIFU_OK;
    if ((rc = fix_start(st, err)))
        return rc;
    st->in_moves = 1;
    st->any_move = 1;
    const char *p = s;
    while (*p && rc == REC_KIFU_OK) {
        p = skip_ws(p);
        if (!*p)
            break;
        if (!(starts(p, "▲") || starts(p, "△") || starts(p, "☗") || starts(p, "☖") || starts(p, "▽"))) {
            rec_kx_err(err, st->lno, col(line, p), "expected ▲ or △");
            rc = REC_KIFU_EPARSE;
            break;
        }
        int mark_gote = starts(p, "△") || starts(p, "☖") || starts(p, "▽");
        p += 3;
        rec_end_t e = rec_kx_end_from_kif(p);
        if (e != REC_END_NONE) {
            set_end(st, e, "", REC_TIME_NONE);
            while (*p && *p != ' ' && !starts(p, "　"))
                p++;
            continue;
        }
        if (mark_gote != (st->pos.side == RUL_GOTE) && !st->pending_end)
            rec_kifu_warn(k, st->lno, col(line, p), "move mark does not match the side to move");
        rec_kx_spec_t sp;
        const char *q = p;
        if (parse_notation(&q, &sp, 1)) {
            bad_move(err, st->lno, line, p, q);
            rc = REC_KIFU_EPARSE;
            break;
        }
        if (*q == '(') { /* KIF-style origin in KI2: accept */
            while (*q && *q != ')')
                q++;
            if (*q)
                q++;
        }
        rc = add_move(st, &sp, line, p, REC_TIME_NONE, REC_TIME_NONE, err);
        p = q;
    }
    return rc;
}

/* One line of a KIF or KI2 record. Returns REC_KIFU_OK or an error (err says where). */
static int read_line(kst_t *st, char *line, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int rc = REC_KIFU_OK;
    rec_kx_rstrip(line);
    const char *s = skip_ws(line);
    if (!*s)
        return rc;
    if (*s == '#')
        return rc;
    if (*s == '*') {
        if (!st->in_moves && !st->any_move) {
            if (!st->started && (rc = fix_start(st, err)))
                return rc;
        }
        return add_comment(st, s + 1);
    }
    if (*s == '&') {
        rec_kifu_line_t *L = &k->lines[st->line];
        if (L->nmoves) {
            free(L->moves[L->nmoves - 1].bookmark);
            L->moves[L->nmoves - 1].bookmark = rec_kx_strdup(s + 1);
            if (!L->moves[L->nmoves - 1].bookmark)
                rc = REC_KIFU_ENOMEM;
        }
        return rc;
    }
    if (starts(s, "変化：") || starts(s, "変化:")) {
        return variation_line(st, s, line, err);
    }
    if (*s == '|' || starts(s, "｜")) {
        if (st->board_rows == 0 && !st->have_board)
            rul_pos_clear(&st->board);
        return parse_board_row(st, s, line, err);
    }
    if (*s == '+' && s[1] == '-')
        return rc;
    if (starts(s, "９ ８") || starts(s, "９　８") || starts(s, "9 8"))
        return rc;
    if (starts(s, "手数----") || starts(s, "手数-")) {
        st->in_moves = 1;
        return rc;
    }
    if (starts(s, "先手番") || starts(s, "下手番"))
        return rc;
    if (starts(s, "後手番") || starts(s, "上手番")) {
        st->side_gote = 1;
        return rc;
    }
    if (starts(s, "まで")) {
        if (st->line == 0 && !st->pending_end) {
            st->trailer_end = parse_trailer(s, st->pos.side == RUL_GOTE);
            st->trailer_line = st->lno;
        } else if (!st->pending_end && k->lines[st->line].end == REC_END_NONE) {
            /* a variation's own trailer (KI2 has no other terminal): that line's ending */
            k->lines[st->line].end = parse_trailer(s, st->pos.side == RUL_GOTE);
        }
        return rc;
    }
    if (starts(s, "手数＝") || starts(s, "手数=")) {
        return count_line(st, s, line, err);
    }
    /* KIF move lines: number, move, time */
    if (!st->ki2 && *s >= '0' && *s <= '9') {
        return kif_move_line(st, s, line, err);
    }
    /* KI2 move lines: ▲７六歩 △３四歩 ... */
    if (starts(s, "▲") || starts(s, "△") || starts(s, "☗") || starts(s, "☖") || starts(s, "▽")) {
        return ki2_move_line(st, s, line, err);
    }
    if (strstr(s, "：")) {
        return handle_header(st, (char *)s, line, err);
    }
    if (strstr(s, ":") && !st->in_moves) { /* ASCII colon header: keep */
        char *c = strchr((char *)s, ':');
        *c = 0;
        return rec_kifu_header_set(k, s, skip_ws(c + 1));
    }
    rec_kifu_warn(k, st->lno, 1, "line ignored");
    if (st->any_move && !st->pending_end && !st->ign_lno) { /* an error if moves follow: check_lost_line */
        st->ign_lno = st->lno;
        copy_text(st->bad_text, sizeof st->bad_text, s);
    }
    return rc;
}

int rec_kx_read_kif(rec_kifu_t *k, const rec_kx_lines_t *l, int ki2, rec_kifu_error_t *err) {
    kst_t st;
    memset(&st, 0, sizeof st);
    st.k = k;
    st.ki2 = ki2;
    st.prev_to = -1;
    st.num_warn = -1;
    rul_pos_clear(&st.board);
    int rc = REC_KIFU_OK;
    for (int i = 0; i < l->n && rc == REC_KIFU_OK; i++) {
        st.lno = i + 1;
        rc = read_line(&st, l->line[i], err);
    }
    if (st.num_bad > 1 && st.num_warn >= 0 && st.num_warn < k->nwarnings) {
        rec_kifu_warning_t *w = &k->warnings[st.num_warn];
        size_t n = strlen(w->msg);
        snprintf(w->msg + n, sizeof w->msg - n, "; %d move numbers disagree in all", st.num_bad);
    }
    if (rc == REC_KIFU_OK)
        rc = fix_start(&st, err);
    if (rc == REC_KIFU_OK && st.num_off > 0)
        rc = rec_kx_set_start_number(k, st.num_off + 1);
    if (rc == REC_KIFU_OK && k->result.end == REC_END_NONE && st.trailer_end != REC_END_NONE)
        rec_kifu_set_result(k, (rec_end_t)st.trailer_end, "");
    return rc;
}
