/* kifu_csa.c - CSA standard record reader (v2.2 and v3.0, lenient with warnings) and writer (v3.0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu_internal.h"

static int starts(const char *p, const char *w) { return strncmp(p, w, strlen(w)) == 0; }

/* $KEY <-> KIF header names */
static const struct {
    const char *csa, *kif;
} hmap[] = {
    {"EVENT", "棋戦"},          {"SITE", "場所"},    {"START_TIME", "開始日時"}, {"END_TIME", "終了日時"},
    {"TIME_LIMIT", "持ち時間"}, {"OPENING", "戦型"}, {"TIME", "持ち時間"},       {"NOTE", "備考"}};

static const struct {
    const char *word;
    rec_end_t end;
} csa_ends[] = {{"TORYO", REC_END_RESIGN},
                {"CHUDAN", REC_END_ABORT},
                {"SENNICHITE", REC_END_SENNICHITE},
                {"OUTE_SENNICHITE", REC_END_ILLEGAL_WIN},
                {"JISHOGI", REC_END_JISHOGI},
                {"KACHI", REC_END_KACHI},
                {"HIKIWAKE", REC_END_HIKIWAKE},
                {"TSUMI", REC_END_MATE},
                {"FUZUMI", REC_END_NO_MATE},
                {"TIME_UP", REC_END_TIME_UP},
                {"ILLEGAL_MOVE", REC_END_ILLEGAL_LOSS},
                {"MAX_MOVES", REC_END_MAX_MOVES},
                {"ERROR", REC_END_ERROR},
                {"MATTA", REC_END_MATTA}};

typedef struct {
    rec_kifu_t *k;
    rul_pos_t pos;   /* position being built, then played */
    int board_given; /* P1..P9 or PI seen */
    int started;     /* first move read: position fixed */
    int ended;       /* terminal read */
    int lno;
    int any_move;
    int side_given; /* a "+" / "-" line named the side to move */
} cst_t;

static int fix_start(cst_t *st, rec_kifu_error_t *err) {
    if (st->started)
        return REC_KIFU_OK;
    st->started = 1;
    if (!st->board_given)
        return REC_KIFU_OK; /* default start */
    st->pos.ply = 1;
    rul_pos_rehash(&st->pos);
    char sfen[160];
    rul_pos_to_sfen(&st->pos, sfen, sizeof sfen);
    if (rec_kifu_set_start(st->k, sfen)) {
        rec_kx_err(err, st->lno, 1, "the position lines give no valid position");
        return REC_KIFU_EPARSE;
    }
    rul_error_t e;
    rul_pos_from_sfen(&st->pos, st->k->start_sfen, &e);
    return REC_KIFU_OK;
}

static int sq_of(const char *s) {
    if (s[0] < '1' || s[0] > '9' || s[1] < '1' || s[1] > '9')
        return -1;
    return RUL_SQ(s[0] - '0', s[1] - '0');
}

/* P+ / P- pieces: "00HI", "00AL", "59OU". */
static int parse_pieces(cst_t *st, const char *s, int c, rec_kifu_error_t *err) {
    const char *p = s;
    while (*p && *p != ' ') {
        if (strlen(p) < 4) {
            rec_kx_err(err, st->lno, (int)(p - s) + 3, "truncated piece in P%c line", c ? '-' : '+');
            return REC_KIFU_EPARSE;
        }
        rul_type_t t = rec_kx_csa_piece_parse(p + 2);
        if (p[0] == '0' && p[1] == '0') {
            if (starts(p + 2, "AL")) {
                /* every piece not yet placed goes to this side's hand */
                static const int full[RUL_HAND_NB] = {18, 4, 4, 4, 2, 2, 4};
                int used[RUL_HAND_NB] = {0};
                for (int sq = 0; sq < RUL_SQ_NB; sq++) {
                    rul_piece_t pc = rul_pos_piece_at(&st->pos, sq);
                    int ty = RUL_PIECE_TYPE(pc);
                    if (pc == RUL_PIECE_NONE || ty == RUL_KING)
                        continue;
                    if (ty > RUL_PROMOTED)
                        ty -= RUL_PROMOTED;
                    used[ty - 1]++;
                }
                for (int h = 0; h < RUL_HAND_NB; h++) {
                    rul_type_t ht = (rul_type_t)(h + 1);
                    int have = rul_pos_hand(&st->pos, (rul_color_t)c, ht);
                    int n = full[h] - used[h] - rul_pos_hand(&st->pos, RUL_SENTE, ht) -
                            rul_pos_hand(&st->pos, RUL_GOTE, ht);
                    if (n > 0)
                        rul_pos_set_hand(&st->pos, (rul_color_t)c, ht, have + n);
                }
            } else if (t >= RUL_PAWN && t <= RUL_GOLD) {
                int have = rul_pos_hand(&st->pos, (rul_color_t)c, t);
                if (have < 18)
                    rul_pos_set_hand(&st->pos, (rul_color_t)c, t, have + 1);
            } else {
                rec_kx_err(err, st->lno, (int)(p - s) + 5, "bad piece in hand");
                return REC_KIFU_EPARSE;
            }
        } else {
            int sq = sq_of(p);
            if (sq < 0 || !t) {
                rec_kx_err(err, st->lno, (int)(p - s) + 3, "bad square or piece");
                return REC_KIFU_EPARSE;
            }
            rul_pos_set_piece(&st->pos, sq, RUL_PIECE(c, t));
        }
        p += 4;
    }
    st->board_given = 1;
    return REC_KIFU_OK;
}

static void add_comment(cst_t *st, const char *text) {
    rec_kifu_line_t *L = &st->k->lines[0];
    if (L->nmoves == 0)
        rec_kx_append_text(&st->k->comment, text);
    else
        rec_kx_append_text(&L->moves[L->nmoves - 1].comment, text);
}

/* "$KEY:value": a header, CSA keys mapped to KIF's. */
static int header_stmt(cst_t *st, const char *s, int column) {
    rec_kifu_t *k = st->k;
    const char *c = strchr(s, ':');
    if (!c) {
        rec_kifu_warn(k, st->lno, column, "header without ':' ignored");
        return REC_KIFU_OK;
    }
    char key[64];
    size_t kl = (size_t)(c - s - 1) < sizeof key - 1 ? (size_t)(c - s - 1) : sizeof key - 1;
    memcpy(key, s + 1, kl);
    key[kl] = 0;
    for (size_t i = 0; i < sizeof hmap / sizeof hmap[0]; i++)
        if (!strcmp(key, hmap[i].csa))
            return rec_kifu_header_set(k, hmap[i].kif, c + 1);
    return rec_kifu_header_set(k, key, c + 1);
}

/* "PI" and the pieces it removes (a handicap: each must be on its square). */
static int pi_stmt(cst_t *st, const char *s, int column, rec_kifu_error_t *err) {
    rul_pos_from_sfen(&st->pos, RUL_SFEN_STARTPOS, NULL);
    for (const char *p = s + 2; *p && *p != ' ';) {
        int sq = sq_of(p);
        if (sq < 0 || strlen(p) < 4) {
            rec_kx_err(err, st->lno, column + (int)(p - s), "bad PI piece");
            return REC_KIFU_EPARSE;
        }
        /* the piece removed for a handicap must be the one on that square */
        rul_type_t t = rec_kx_csa_piece_parse(p + 2);
        rul_piece_t pc = rul_pos_piece_at(&st->pos, sq);
        if (!t) {
            rec_kx_err(err, st->lno, column + (int)(p - s) + 2, "PI: unknown piece '%.2s'", p + 2);
            return REC_KIFU_EPARSE;
        }
        if (pc == RUL_PIECE_NONE || RUL_PIECE_TYPE(pc) != t) {
            rec_kx_err(err, st->lno, column + (int)(p - s), "PI: no %s on %.2s to remove (%s)",
                       rec_kx_csa_piece[t], p,
                       pc == RUL_PIECE_NONE ? "the square is empty" : rec_kx_csa_piece[RUL_PIECE_TYPE(pc)]);
            return REC_KIFU_EPARSE;
        }
        rul_pos_set_piece(&st->pos, sq, RUL_PIECE_NONE);
        p += 4;
    }
    st->board_given = 1;
    return REC_KIFU_OK;
}

/* "P1".."P9": one board row of nine cells, read leniently (with a warning) when sloppy. */
static int row_stmt(cst_t *st, const char *s, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int rank = s[1] - '0';
    size_t n = strlen(s);
    int sloppy = 0;
    if (!st->board_given) {
        rul_pos_clear(&st->pos);
        st->board_given = 1;
    }
    for (int i = 0; i < 9; i++) {
        int file = 9 - i;
        size_t o = 2 + (size_t)i * 3;
        char cell[4] = {' ', '*', ' ', 0};
        for (int j = 0; j < 3; j++)
            cell[j] = o + (size_t)j < n ? s[o + (size_t)j] : ' ';
        if (o >= n)
            sloppy = 1;
        if (cell[1] == '*' || (cell[0] == ' ' && cell[1] == ' ')) {
            if (cell[0] != ' ' || cell[2] != ' ')
                sloppy = 1;
            rul_pos_set_piece(&st->pos, RUL_SQ(file, rank), RUL_PIECE_NONE);
            continue;
        }
        rul_type_t t = rec_kx_csa_piece_parse(cell + 1);
        if ((cell[0] != '+' && cell[0] != '-') || !t) {
            rec_kx_err(err, st->lno, (int)o + 1, "bad board cell '%s'", cell);
            return REC_KIFU_EPARSE;
        }
        rul_pos_set_piece(&st->pos, RUL_SQ(file, rank), RUL_PIECE(cell[0] == '-', t));
    }
    if (n > 29)
        sloppy = 1;
    if (sloppy)
        rec_kifu_warn(k, st->lno, 1, "sloppy board row P%d read leniently", rank);
    return REC_KIFU_OK;
}

/* "+" / "-" alone: the side to move of the start position. */
static int side_stmt(cst_t *st, const char *s, int column) {
    rec_kifu_t *k = st->k;
    if (st->started) {
        rec_kifu_warn(k, st->lno, column, "side to move after the first move ignored");
        return REC_KIFU_OK;
    }
    if (!st->board_given) {
        rul_pos_from_sfen(&st->pos, k->start_sfen, NULL);
        st->board_given = 1;
    }
    st->pos.side = (uint8_t)(s[0] == '-');
    st->side_given = 1;
    return REC_KIFU_OK;
}

/* "+7776FU": a move, kept with REC_MOVE_ILLEGAL when it is not legal. */
static int move_stmt(cst_t *st, const char *s, int column, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int rc = fix_start(st, err);
    if (rc)
        return rc;
    if (st->ended) {
        rec_kifu_warn(k, st->lno, column, "move after the terminal ignored");
        return REC_KIFU_OK;
    }
    int c = s[0] == '-';
    if (c != st->pos.side) {
        if (st->any_move || st->side_given) {
            /* the same side twice: playing it would move the other side's piece */
            rec_kx_err(err, st->lno, column, "'%.7s' is a move by %s, but it is %s's turn", s,
                       c ? "gote (-)" : "sente (+)", st->pos.side ? "gote" : "sente");
            return REC_KIFU_EMOVE;
        }
        rec_kifu_warn(k, st->lno, column, "no side to move given: %s moves first", c ? "gote" : "sente");
        st->pos.side = (uint8_t)c;
        rul_pos_rehash(&st->pos);
        char sfen[160];
        rul_pos_to_sfen(&st->pos, sfen, sizeof sfen);
        if (rec_kifu_set_start(k, sfen)) {
            rec_kx_err(err, st->lno, column, "the position lines give no valid position");
            return REC_KIFU_EPARSE;
        }
    }
    int to = sq_of(s + 3);
    rul_type_t t = rec_kx_csa_piece_parse(s + 5);
    if (to < 0 || !t) {
        rec_kx_err(err, st->lno, column, "bad move '%.7s'", s);
        return REC_KIFU_EPARSE;
    }
    rul_move_t m;
    if (s[1] == '0' && s[2] == '0') {
        if (t > RUL_GOLD) {
            rec_kx_err(err, st->lno, column, "drop of a piece that cannot be in hand");
            return REC_KIFU_EPARSE;
        }
        m = RUL_MOVE_DROP(t, to);
    } else {
        int from = sq_of(s + 1);
        if (from < 0) {
            rec_kx_err(err, st->lno, column + 1, "bad origin square");
            return REC_KIFU_EPARSE;
        }
        char msg[160];
        if (rec_kx_check_origin(&st->pos, from, t, msg, sizeof msg)) { /* CSA names the piece after it */
            rec_kx_err(err, st->lno, column, "'%.7s': %s", s, msg);
            return REC_KIFU_EMOVE;
        }
        rul_type_t ft = RUL_PIECE_TYPE(rul_pos_piece_at(&st->pos, from));
        m = RUL_MOVE_MAKE((unsigned)from, (unsigned)to, ft != t && (int)ft + RUL_PROMOTED == (int)t);
    }
    if (!rec_kx_move_playable(&st->pos, m)) {
        rec_kx_err(err, st->lno, column, "impossible move '%.7s': no such piece", s);
        return REC_KIFU_EMOVE;
    }
    int legal = rul_is_legal(&st->pos, m);
    if (!legal && rec_kx_note_illegal(k, 0, 0, &st->pos, m, st->lno, column, s, 7) != 0)
        return REC_KIFU_ENOMEM;
    if (rec_kx_push_play(k, 0, &st->pos, m, legal, REC_TIME_NONE, REC_TIME_NONE) != 0)
        return REC_KIFU_ENOMEM;
    st->any_move = 1;
    return REC_KIFU_OK;
}

/* "T12": the time of the last move (or of the terminal), in seconds. */
static int time_stmt(cst_t *st, const char *s, int column) {
    rec_kifu_t *k = st->k;
    char *end = NULL;
    double sec = strtod(s + 1, &end);
    if (end == s + 1 || *end != '\0' || !(sec >= 0 && sec < 1e9)) {
        /* "Tx8", "T-3": the time is unknown, not 0 (CSA standard v3.0: T<seconds>) */
        rec_kifu_warn(k, st->lno, column, "bad time '%s' ignored", s);
        return REC_KIFU_OK;
    }
    int64_t ms = (int64_t)(sec * 1000 + 0.5);
    rec_kifu_line_t *L = &k->lines[0];
    if (st->ended) {
        L->end_time_ms = ms;
        return REC_KIFU_OK;
    }
    if (L->nmoves == 0) {
        rec_kifu_warn(k, st->lno, column, "time without a preceding move ignored");
        return REC_KIFU_OK;
    }
    rec_kifu_move_t *mv = &L->moves[L->nmoves - 1];
    mv->time_ms = ms;
    /* cumulative: the mover's previous total + this */
    int64_t prev = L->nmoves >= 3 ? L->moves[L->nmoves - 3].total_ms : 0;
    mv->total_ms = prev == REC_TIME_NONE ? REC_TIME_NONE : prev + ms;
    return REC_KIFU_OK;
}

/* "%TORYO", "%+ILLEGAL_ACTION", ...: the terminal. */
static int end_stmt(cst_t *st, const char *s, int column, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int rc = fix_start(st, err);
    if (rc)
        return rc;
    rec_end_t e = REC_END_NONE;
    const char *w = s + 1;
    if (starts(w, "+ILLEGAL_ACTION") || starts(w, "-ILLEGAL_ACTION")) {
        int actor = w[0] == '-';
        e = actor == st->pos.side ? REC_END_ILLEGAL_LOSS : REC_END_ILLEGAL_WIN;
    } else {
        for (size_t i = 0; i < sizeof csa_ends / sizeof csa_ends[0]; i++)
            if (!strcmp(w, csa_ends[i].word))
                e = csa_ends[i].end;
    }
    if (e == REC_END_NONE) {
        rec_kifu_warn(k, st->lno, column, "unknown special move '%s'", s);
        e = REC_END_ERROR;
    }
    if (!st->ended) {
        k->lines[0].end = e;
        rec_kifu_set_result(k, e, s);
        st->ended = 1;
    }
    return REC_KIFU_OK;
}

static int statement(cst_t *st, const char *s, const char *line, rec_kifu_error_t *err) {
    rec_kifu_t *k = st->k;
    int column = (int)(s - line) + 1;
    if (!*s)
        return REC_KIFU_OK;
    if (s[0] == 'V')
        return REC_KIFU_OK; /* version */
    if (s[0] == 'N' && (s[1] == '+' || s[1] == '-'))
        return rec_kifu_header_set(k, s[1] == '+' ? "先手" : "後手", s + 2);
    if (s[0] == '$')
        return header_stmt(st, s, column);
    if (s[0] == 'P' && !st->started) {
        if (s[1] == 'I')
            return pi_stmt(st, s, column, err);
        if (s[1] >= '1' && s[1] <= '9')
            return row_stmt(st, s, err);
        if (s[1] == '+' || s[1] == '-') {
            if (!st->board_given) {
                rul_pos_clear(&st->pos);
                st->board_given = 1;
            }
            return parse_pieces(st, s + 2, s[1] == '-', err);
        }
    }
    if ((s[0] == '+' || s[0] == '-') && s[1] == 0)
        return side_stmt(st, s, column);
    if ((s[0] == '+' || s[0] == '-') && strlen(s) >= 7)
        return move_stmt(st, s, column, err);
    if ((s[0] == '+' || s[0] == '-') && s[1] >= '0' && s[1] <= '9') {
        rec_kx_err(err, st->lno, column, "truncated move '%s'", s);
        return REC_KIFU_EPARSE;
    }
    if (s[0] == 'T')
        return time_stmt(st, s, column);
    if (s[0] == '%')
        return end_stmt(st, s, column, err);
    rec_kifu_warn(k, st->lno, column, "unknown statement ignored");
    return REC_KIFU_OK;
}

int rec_kx_read_csa(rec_kifu_t *k, const rec_kx_lines_t *l, rec_kifu_error_t *err) {
    cst_t st;
    memset(&st, 0, sizeof st);
    st.k = k;
    rul_pos_from_sfen(&st.pos, k->start_sfen, NULL);
    int rc = REC_KIFU_OK;
    for (int i = 0; i < l->n && rc == REC_KIFU_OK; i++) {
        st.lno = i + 1;
        char *line = l->line[i];
        if (line[0] == '\'') {
            if (line[1] == '*')
                add_comment(&st, line + 2);
            else if (!st.any_move && !st.started) {
                /* "'KEY：VALUE" keeps a header CSA has no field for */
                char *c = strstr(line + 1, "：");
                if (c && c != line + 1 && !starts(line, "'CSA")) {
                    *c = 0;
                    rc = rec_kifu_header_set(k, line + 1, c + 3);
                    *c = (char)0xEF;
                }
            }
            continue;
        }
        /* statements separated by ',' (not inside P lines and headers) */
        if (line[0] == 'P' || line[0] == '$' || line[0] == 'N') {
            size_t n = strlen(line);
            if (line[0] != 'P')
                while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
                    line[--n] = 0;
            rc = statement(&st, line, line, err);
            continue;
        }
        char *p = line;
        while (rc == REC_KIFU_OK) {
            char *c = strchr(p, ',');
            if (c)
                *c = 0;
            char *q = p;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '\'') { /* "%KACHI,'* comment": the rest of the line is a comment */
                if (c)
                    *c = ',';
                if (q[1] == '*')
                    add_comment(&st, q + 2);
                break;
            }
            size_t n = strlen(q);
            while (n && (q[n - 1] == ' ' || q[n - 1] == '\t'))
                q[--n] = 0;
            rc = statement(&st, q, line, err);
            if (!c)
                break;
            *c = ',';
            p = c + 1;
        }
    }
    if (rc == REC_KIFU_OK && !st.board_given) {
        /* CSA v3.0: the position part (PI, P1..P9, P+/P-, and the side to move) is mandatory */
        if (!st.any_move) {
            rec_kx_err(err, l->n ? l->n : 1, 1, "no starting position (PI or P1..P9 lines) and no moves");
            rc = REC_KIFU_EPARSE;
        } else {
            rec_kifu_warn(k, 0, 0, "no position lines (PI or P1..P9): the normal start assumed");
        }
    }
    if (rc == REC_KIFU_OK)
        rc = fix_start(&st, err);
    return rc;
}

/* ---------------------------------------------------------------- writing (v3.0) */
/* Comment text as "'*" lines, one per line of text; NULL writes nothing. */
static void write_comment(rec_kx_sb_t *sb, const char *text) {
    for (const char *c = text; c;) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        rec_kx_sb_puts(sb, "'*");
        rec_kx_sb_putn(sb, c, n);
        rec_kx_sb_puts(sb, "\n");
        c = nl ? nl + 1 : NULL;
    }
}

/* The players (N+, N-) and the headers: CSA's own keys as "$KEY:", any other as a comment. */
static void write_headers(const rec_kifu_t *k, rec_kx_sb_t *sb) {
    const char *b = rec_kifu_header_get(k, "先手"), *w = rec_kifu_header_get(k, "後手");
    if (!b)
        b = rec_kifu_header_get(k, "下手");
    if (!w)
        w = rec_kifu_header_get(k, "上手");
    if (b)
        rec_kx_sb_printf(sb, "N+%s\n", b);
    if (w)
        rec_kx_sb_printf(sb, "N-%s\n", w);
    for (int i = 0; i < k->nheaders; i++) {
        const char *key = k->headers[i].key, *v = k->headers[i].value;
        if (!strcmp(key, "先手") || !strcmp(key, "後手") || !strcmp(key, "下手") || !strcmp(key, "上手") ||
            !strcmp(key, "手合割"))
            continue;
        const char *csa = NULL;
        for (size_t j = 0; j < sizeof hmap / sizeof hmap[0]; j++)
            if (!strcmp(key, hmap[j].kif)) {
                csa = hmap[j].csa;
                break;
            }
        if (strchr(v, '\n'))
            continue;
        if (csa)
            rec_kx_sb_printf(sb, "$%s:%s\n", csa, v);
        else
            rec_kx_sb_printf(sb, "'%s：%s\n", key, v);
    }
}

/* The start position: "PI" for the even start, else the board rows, the hands and the side to move. */
static void write_start(const rec_kifu_t *k, const rul_pos_t *pos, rec_kx_sb_t *sb) {
    if (k->handicap == RUL_HC_EVEN) {
        rec_kx_sb_puts(sb, "PI\n+\n");
    } else {
        for (int r = 1; r <= 9; r++) {
            rec_kx_sb_printf(sb, "P%d", r);
            for (int f = 9; f >= 1; f--) {
                rul_piece_t pc = rul_pos_piece_at(pos, RUL_SQ(f, r));
                if (pc == RUL_PIECE_NONE)
                    rec_kx_sb_puts(sb, " * ");
                else
                    rec_kx_sb_printf(sb, "%c%s", RUL_PIECE_COLOR(pc) ? '-' : '+',
                                     rec_kx_csa_piece[RUL_PIECE_TYPE(pc)]);
            }
            rec_kx_sb_puts(sb, "\n");
        }
        for (int c = 0; c < 2; c++) {
            int any = 0;
            static const int order[7] = {RUL_ROOK,   RUL_BISHOP, RUL_GOLD, RUL_SILVER,
                                         RUL_KNIGHT, RUL_LANCE,  RUL_PAWN};
            for (int i = 0; i < 7; i++)
                for (int n = 0; n < rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)order[i]); n++) {
                    if (!any)
                        rec_kx_sb_printf(sb, "P%c", c ? '-' : '+');
                    any = 1;
                    rec_kx_sb_printf(sb, "00%s", rec_kx_csa_piece[order[i]]);
                }
            if (any)
                rec_kx_sb_puts(sb, "\n");
        }
        rec_kx_sb_puts(sb, pos->side ? "-\n" : "+\n");
    }
}

/* The main line's moves with their times and comments; pos is played to the line's end. */
static int write_moves(const rec_kifu_t *k, rul_pos_t *pos, rec_kx_sb_t *sb, rec_kifu_error_t *err) {
    const rec_kifu_line_t *L = &k->lines[0];
    for (int i = 0; i < L->nmoves; i++) {
        const rec_kifu_move_t *mv = &L->moves[i];
        rul_move_t m = mv->move;
        if (!rec_kx_move_playable(pos, m)) {
            rec_kx_err(err, 0, 0, "move %d cannot be written", L->start_ply + i);
            return REC_KIFU_EMOVE;
        }
        int to = RUL_MOVE_TO(m);
        rul_type_t t = rec_kx_move_type(pos, m);
        if (RUL_MOVE_IS_PROMO(m))
            t = (rul_type_t)(t + RUL_PROMOTED);
        int from = RUL_MOVE_IS_DROP(m) ? -1 : RUL_MOVE_FROM(m);
        rec_kx_sb_printf(sb, "%c%d%d%d%d%s", pos->side ? '-' : '+', from < 0 ? 0 : RUL_SQ_FILE(from),
                         from < 0 ? 0 : RUL_SQ_RANK(from), RUL_SQ_FILE(to), RUL_SQ_RANK(to),
                         rec_kx_csa_piece[t]);
        if (mv->time_ms != REC_TIME_NONE) {
            if (mv->time_ms % 1000)
                rec_kx_sb_printf(sb, ",T%lld.%03lld", (long long)(mv->time_ms / 1000),
                                 (long long)(mv->time_ms % 1000));
            else
                rec_kx_sb_printf(sb, ",T%lld", (long long)(mv->time_ms / 1000));
        }
        rec_kx_sb_puts(sb, "\n");
        write_comment(sb, mv->comment);
        rul_undo_t u;
        rul_pos_do_move(pos, m, &u);
    }
    return REC_KIFU_OK;
}

/* The main line's terminal: "%TORYO", "%+ILLEGAL_ACTION" (relative to pos's side to move), ... or a
 * comment for an ending CSA has no word for. */
static void write_end(const rec_kifu_line_t *L, const rul_pos_t *pos, rec_kx_sb_t *sb) {
    const char *word = NULL;
    char ia[20];
    switch (L->end) {
    case REC_END_NONE: break;
    case REC_END_ILLEGAL_WIN:
        snprintf(ia, sizeof ia, "%cILLEGAL_ACTION", pos->side ? '+' : '-');
        word = ia;
        break;
    case REC_END_ILLEGAL_LOSS:
        snprintf(ia, sizeof ia, "%cILLEGAL_ACTION", pos->side ? '-' : '+');
        word = ia;
        break;
    default:
        for (size_t i = 0; i < sizeof csa_ends / sizeof csa_ends[0]; i++)
            if (csa_ends[i].end == L->end && csa_ends[i].end != REC_END_ILLEGAL_WIN) {
                word = csa_ends[i].word;
                break;
            }
    }
    if (word) {
        rec_kx_sb_printf(sb, "%%%s", word);
        if (L->end_time_ms != REC_TIME_NONE)
            rec_kx_sb_printf(sb, ",T%lld", (long long)(L->end_time_ms / 1000));
        rec_kx_sb_puts(sb, "\n");
    } else if (L->end != REC_END_NONE) {
        rec_kx_sb_printf(sb, "'%s\n", rec_kx_end_to_kif(L->end) ? rec_kx_end_to_kif(L->end) : "");
    }
}

int rec_kx_write_csa(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err) {
    rul_pos_t pos;
    rul_error_t e;
    if (rul_pos_from_sfen(&pos, k->start_sfen, &e)) {
        rec_kx_err(err, 0, 0, "bad start position: %s", e.msg);
        return REC_KIFU_EPARSE;
    }
    rec_kx_sb_puts(sb, "'CSA encoding=UTF-8\nV3.0\n");
    write_headers(k, sb);
    write_comment(sb, k->comment);
    write_start(k, &pos, sb);
    int rc = write_moves(k, &pos, sb, err);
    if (rc != REC_KIFU_OK)
        return rc;
    write_end(&k->lines[0], &pos, sb);
    return REC_KIFU_OK;
}
