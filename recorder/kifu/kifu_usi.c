/* kifu_usi.c - USI "position ... moves ..." lines and Western (Hodges) notation: readers and writers. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu_internal.h"

/* ---------------------------------------------------------------- USI */

/* Why move m cannot be made at all in pos (rec_kx_move_playable is 0), in words for the error line. */
static void unplayable_why(const rul_pos_t *pos, rul_move_t m, char *buf, size_t size) {
    const char *side = pos->side ? "gote" : "sente";
    int to = RUL_MOVE_TO(m);
    rul_piece_t dst = rul_pos_piece_at(pos, to);
    if (RUL_MOVE_IS_DROP(m)) {
        int t = RUL_MOVE_DROP_TYPE(m);
        if (t >= 1 && t <= RUL_HAND_NB && rul_pos_hand(pos, (rul_color_t)pos->side, (rul_type_t)t) == 0)
            snprintf(buf, size, "%s has no %s in hand", side, rec_kx_en_piece_name((rul_type_t)t));
        else
            snprintf(buf, size, "%d%c is not empty", RUL_SQ_FILE(to), 'a' + RUL_SQ_RANK(to) - 1);
        return;
    }
    int from = RUL_MOVE_FROM(m);
    rul_piece_t pc = rul_pos_piece_at(pos, from);
    if (pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != pos->side)
        snprintf(buf, size, "%s has no piece on %d%c", side, RUL_SQ_FILE(from), 'a' + RUL_SQ_RANK(from) - 1);
    else if (dst != RUL_PIECE_NONE && RUL_PIECE_COLOR(dst) == pos->side)
        snprintf(buf, size, "%s's own piece is on %d%c", side, RUL_SQ_FILE(to), 'a' + RUL_SQ_RANK(to) - 1);
    else if (dst != RUL_PIECE_NONE)
        snprintf(buf, size, "it takes the king");
    else
        snprintf(buf, size, "that piece cannot promote");
}

/* The engine's SFEN message without its own "sfen: column N: " (a column of the SFEN alone): the caller
 * gives the column in the line. */
static const char *sfen_msg(const char *msg) {
    const char *p = msg;
    if (strncmp(p, "sfen: column ", 13))
        return msg;
    p += 13;
    while (*p >= '0' && *p <= '9')
        p++;
    return p[0] == ':' && p[1] == ' ' ? p + 2 : msg;
}

/* The start of a USI line, s ("startpos" or "[sfen] BOARD SIDE HANDS [PLY]", cut before "moves"), into
 * k. line is the whole input line and lno its number, for the error's column. */
static int read_start(rec_kifu_t *k, char *s, const char *line, int lno, rec_kifu_error_t *err) {
    if (!strncmp(s, "startpos", 8) && (s[8] == ' ' || s[8] == '\t' || !s[8])) {
        char *rest = s + 8;
        while (*rest == ' ' || *rest == '\t')
            rest++;
        if (*rest) { /* "position startpos foo" */
            char *q = rest;
            while (*q && *q != ' ' && *q != '\t')
                q++;
            *q = 0;
            rec_kx_err(err, lno, (int)(rest - line) + 1, "usi: expected 'moves', got '%.24s'", rest);
            return REC_KIFU_EPARSE;
        }
        rec_kifu_set_start(k, RUL_SFEN_STARTPOS);
        return REC_KIFU_OK;
    }
    if (!strncmp(s, "sfen", 4) && (s[4] == ' ' || s[4] == '\t')) {
        s += 4;
        while (*s == ' ' || *s == '\t')
            s++;
    }
    if (rec_kifu_set_start(k, s)) {
        rul_pos_t p;
        rul_error_t e;
        memset(&e, 0, sizeof e);
        rul_pos_from_sfen(&p, s, &e);
        /* the engine's column counts from the SFEN's first character: a column of the line here */
        int column = (int)(s - line) + (e.column > 0 ? e.column : 1);
        rec_kx_err(err, lno, column, "usi: bad SFEN: %s", e.msg[0] ? sfen_msg(e.msg) : "bad position");
        return REC_KIFU_EPARSE;
    }
    return REC_KIFU_OK;
}

/* The USI words that end a record, with the ending they stand for. */
static const struct {
    const char *w;
    rec_end_t e;
} usi_ends[] = {{"resign", REC_END_RESIGN},
                {"win", REC_END_KACHI},
                {"draw", REC_END_HIKIWAKE},
                {"rep_draw", REC_END_SENNICHITE},
                {"timeout", REC_END_TIME_UP}};

/* Appends the USI move tok, played in *pos, to k's main line (flagged when illegal) and plays it. A move
 * that cannot be made at all is an error: no record format can hold it. */
static int add_move(rec_kifu_t *k, rul_pos_t *pos, const char *tok, int first, int lno, int column,
                    rec_kifu_error_t *err) {
    rul_move_t m;
    rul_error_t e;
    memset(&e, 0, sizeof e);
    if (rul_move_from_usi(tok, &m, &e) != RUL_OK) {
        rec_kx_err(err, lno, column, "usi: bad move '%s'%s%s", tok, e.msg[0] ? ": " : "", e.msg);
        return REC_KIFU_EPARSE;
    }
    if (!rec_kx_move_playable(pos, m)) {
        /* as replay says it: an illegal move, by its number; this one cannot even be made, so no
           record format can hold it (a legal-looking but illegal move is kept, flagged) */
        char why[80];
        unplayable_why(pos, m, why, sizeof why);
        rec_kx_err(err, lno, column,
                   "move %d (%s) is illegal: %s (%s), and a move that cannot be made "
                   "has no form in any record",
                   first + k->lines[0].nmoves, tok, rul_why_name(rul_why_illegal(pos, m)), why);
        return REC_KIFU_EMOVE;
    }
    int nrc = rec_kx_number_check(k, 0, first - 1, err, lno, column);
    if (nrc)
        return nrc;
    rec_kifu_move_t *mv = rec_kx_push_move(k, 0, m, REC_TIME_NONE, REC_TIME_NONE);
    if (!mv)
        return REC_KIFU_ENOMEM;
    if (!rul_is_legal(pos, m))
        mv->flags |= REC_MOVE_ILLEGAL;
    rul_undo_t u;
    rul_pos_do_move(pos, m, &u);
    return REC_KIFU_OK;
}

/* The tokens after "moves" (p), each a move or, last, an ending word, into k's main line. */
static int read_moves(rec_kifu_t *k, const char *p, const char *line, int lno, rec_kifu_error_t *err) {
    rul_pos_t pos;
    rul_pos_from_sfen(&pos, k->start_sfen, NULL);
    const int first = rec_kifu_start_number(k);
    char end_tok[16] = "";
    int end_col = 0;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t')
            q++;
        char tok[16];
        size_t n = (size_t)(q - p);
        int column = (int)(p - line) + 1;
        if (end_tok[0]) {
            rec_kx_err(err, lno, end_col, "usi: '%s' must be the last token ('%.*s' follows it)", end_tok,
                       (int)(q - p > 24 ? 24 : q - p), p);
            return REC_KIFU_EPARSE;
        }
        if (n >= sizeof tok) {
            rec_kx_err(err, lno, column,
                       "usi: bad move '%.*s%s': a USI move is 4 or 5 characters (7g7f, "
                       "P*5e, 8h2b+)",
                       (int)(n > 24 ? 24 : n), p, n > 24 ? "..." : "");
            return REC_KIFU_EPARSE;
        }
        memcpy(tok, p, n);
        tok[n] = 0;
        p = q;
        int is_end = 0;
        for (size_t j = 0; j < sizeof usi_ends / sizeof usi_ends[0]; j++)
            if (!strcmp(tok, usi_ends[j].w)) {
                rec_kifu_set_result(k, usi_ends[j].e, tok);
                snprintf(end_tok, sizeof end_tok, "%s", tok);
                end_col = column;
                is_end = 1;
            }
        if (is_end)
            continue; /* nothing may follow it: a move after it would be lost */
        int rc = add_move(k, &pos, tok, first, lno, column, err);
        if (rc)
            return rc;
    }
    return REC_KIFU_OK;
}

int rec_kx_read_usi(rec_kifu_t *k, const rec_kx_lines_t *l, rec_kifu_error_t *err) {
    for (int i = 0; i < l->n; i++) {
        char *s = l->line[i];
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#') { /* "# KEY：VALUE" (kifucam record's game.usi) is read back as a header */
            char *c = strstr(s, "：");
            const char *key = s + 1 + strspn(s + 1, " \t");
            if (c && c > key) {
                *c = '\0';
                int rc = rec_kifu_header_set(k, key, c + 3);
                *c = "："[0];
                if (rc)
                    return rc;
            }
            continue;
        }
        if (!*s)
            continue;
        if (!strncmp(s, "position", 8) && (s[8] == ' ' || s[8] == '\t' || !s[8])) {
            s += 8;
            while (*s == ' ' || *s == '\t')
                s++;
        }
        /* "moves" as a word; what comes before it is the start position */
        char *moves = NULL;
        for (char *q = s; (q = strstr(q, "moves")) != NULL; q += 5)
            if (q > s && (q[-1] == ' ' || q[-1] == '\t') && (!q[5] || q[5] == ' ' || q[5] == '\t')) {
                moves = q;
                break;
            }
        if (moves) {
            char *e = moves;
            while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            *e = 0;
        }
        int rc = read_start(k, s, l->line[i], i + 1, err);
        if (rc || !moves)
            return rc;
        return read_moves(k, moves + 5, l->line[i], i + 1, err);
    }
    return REC_KIFU_OK;
}

int rec_kx_write_usi(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err) {
    (void)err;
    if (!strcmp(k->start_sfen, RUL_SFEN_STARTPOS))
        rec_kx_sb_puts(sb, "position startpos");
    else
        rec_kx_sb_printf(sb, "position sfen %s", k->start_sfen);
    const rec_kifu_line_t *L = &k->lines[0];
    /* the endings kifucam's USI line can carry (recorder/kifu/replay.c takes them as the last token) */
    const char *end = L->end == REC_END_RESIGN    ? "resign"
                      : L->end == REC_END_KACHI   ? "win"
                      : L->end == REC_END_TIME_UP ? "timeout"
                                                  : NULL;
    if (L->nmoves || end)
        rec_kx_sb_puts(sb, " moves");
    for (int i = 0; i < L->nmoves; i++) {
        char b[8];
        rul_move_to_usi(L->moves[i].move, b);
        rec_kx_sb_printf(sb, " %s", b);
    }
    if (end)
        rec_kx_sb_printf(sb, " %s", end);
    rec_kx_sb_puts(sb, "\n");
    return REC_KIFU_OK;
}

/* ---------------------------------------------------------------- Western */
static const char *const end_en[REC_END_NB] = {NULL,
                                               "resigns",
                                               "abandoned",
                                               "sennichite",
                                               "impasse draw",
                                               "checkmate",
                                               "no mate",
                                               "loses on time",
                                               "wins by illegal move",
                                               "loses by illegal move",
                                               "declares impasse win",
                                               "wins by default",
                                               "loses by default",
                                               "move limit draw",
                                               "draw",
                                               "takes back",
                                               "error"};

int rec_kx_write_western(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err) {
    rul_pos_t pos;
    rul_error_t e;
    if (rul_pos_from_sfen(&pos, k->start_sfen, &e)) {
        rec_kx_err(err, 0, 0, "bad start position: %s", e.msg);
        return REC_KIFU_EPARSE;
    }
    const char *b = rec_kifu_header_get(k, "先手"), *w = rec_kifu_header_get(k, "後手");
    if (!b)
        b = rec_kifu_header_get(k, "下手");
    if (!w)
        w = rec_kifu_header_get(k, "上手");
    if (b)
        rec_kx_sb_printf(sb, "[Sente \"%s\"]\n", b);
    if (w)
        rec_kx_sb_printf(sb, "[Gote \"%s\"]\n", w);
    const char *ev = rec_kifu_header_get(k, "棋戦"), *dt = rec_kifu_header_get(k, "開始日時");
    if (ev)
        rec_kx_sb_printf(sb, "[Event \"%s\"]\n", ev);
    if (dt)
        rec_kx_sb_printf(sb, "[Date \"%s\"]\n", dt);
    if (strcmp(k->start_sfen, RUL_SFEN_STARTPOS))
        rec_kx_sb_printf(sb, "[SFEN \"%s\"]\n", k->start_sfen);
    const rec_kifu_line_t *L = &k->lines[0];
    int off =
        pos.ply - 1; /* a game taken up at move off+1 (the [SFEN] tag's move number): numbered from it */
    for (int i = 0; i < L->nmoves; i++) {
        char buf[32];
        if (rec_kifu_move_to_western(&pos, L->moves[i].move, buf, sizeof buf)) {
            rec_kx_err(err, 0, 0, "move %d cannot be written", L->start_ply + i + off);
            return REC_KIFU_EMOVE;
        }
        rec_kx_sb_printf(sb, "%d. %s\n", L->start_ply + i + off, buf);
        rul_undo_t u;
        rul_pos_do_move(&pos, L->moves[i].move, &u);
    }
    if (L->end != REC_END_NONE && end_en[L->end])
        rec_kx_sb_printf(sb, "%d. %s %s\n", L->start_ply + L->nmoves + off, pos.side ? "Gote" : "Sente",
                         end_en[L->end]);
    return REC_KIFU_OK;
}

static rul_type_t western_piece(const char **p) {
    int promoted = 0;
    if (**p == '+')
        promoted = 1, (*p)++;
    static const char letters[] = "PLNSBRGK";
    const char *c = strchr(letters, **p);
    if (!**p || !c)
        return RUL_NO_TYPE;
    (*p)++;
    rul_type_t t = (rul_type_t)(c - letters + 1);
    if (promoted) {
        if (t > RUL_ROOK)
            return RUL_NO_TYPE;
        t = (rul_type_t)(t + RUL_PROMOTED);
    }
    return t;
}

static int western_sq(const char **p) {
    const char *s = *p;
    if (s[0] < '1' || s[0] > '9' || s[1] < 'a' || s[1] > 'i')
        return -1;
    *p += 2;
    return RUL_SQ(s[0] - '0', s[1] - 'a' + 1);
}

int rec_kx_read_western(rec_kifu_t *k, const rec_kx_lines_t *l, rec_kifu_error_t *err) {
    rul_pos_t pos;
    int started = 0;
    for (int i = 0; i < l->n; i++) {
        char *s = l->line[i];
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            continue;
        if (*s == '[') {
            char key[64], val[256];
            if (sscanf(s, "[%63s \"%255[^\"]\"]", key, val) == 2) {
                if (!strcmp(key, "SFEN")) {
                    if (rec_kifu_set_start(k, val)) {
                        rec_kx_err(err, i + 1, 1, "bad SFEN");
                        return REC_KIFU_EPARSE;
                    }
                } else {
                    const char *kk = !strcmp(key, "Sente")   ? "先手"
                                     : !strcmp(key, "Gote")  ? "後手"
                                     : !strcmp(key, "Event") ? "棋戦"
                                     : !strcmp(key, "Date")  ? "開始日時"
                                                             : key;
                    if (rec_kifu_header_set(k, kk, val))
                        return REC_KIFU_ENOMEM;
                }
            }
            continue;
        }
        if (!started) {
            rul_pos_from_sfen(&pos, k->start_sfen, NULL);
            started = 1;
        }
        const char *p = s;
        while (isdigit((unsigned char)*p))
            p++;
        if (*p == '.')
            p++;
        while (*p == ' ')
            p++;
        if (!strncmp(p, "Sente ", 6) || !strncmp(p, "Gote ", 5)) {
            const char *w = strchr(p, ' ') + 1;
            for (int e = 1; e < REC_END_NB; e++)
                if (end_en[e] && !strcmp(w, end_en[e]))
                    rec_kifu_set_result(k, (rec_end_t)e, w);
            break;
        }
        const char *q = p;
        rul_type_t t = western_piece(&q);
        int from = -1, to, drop = 0, promo = 0;
        const char *save = q;
        from = western_sq(&q);
        if (from >= 0 && (*q == '-' || *q == 'x' || *q == '*')) {
        } else {
            q = save;
            from = -1;
        }
        if (*q == '*')
            drop = 1;
        else if (*q != '-' && *q != 'x')
            t = RUL_NO_TYPE;
        if (*q)
            q++;
        to = t ? western_sq(&q) : -1;
        if (*q == '+')
            promo = 1;
        if (!t || to < 0) {
            rec_kx_err(err, i + 1, (int)(p - l->line[i]) + 1, "bad Western move");
            return REC_KIFU_EPARSE;
        }
        rec_kx_spec_t sp = {to, t, from, drop, promo ? 1 : (*q == '=' ? -1 : 0), 0};
        rul_move_t m;
        int legal;
        char msg[160];
        if (rec_kx_resolve(&pos, &sp, -1, &m, &legal, msg, sizeof msg)) {
            rec_kx_err(err, i + 1, (int)(p - l->line[i]) + 1, "%s", msg);
            return REC_KIFU_EMOVE;
        }
        int nrc =
            rec_kx_number_check(k, 0, rec_kifu_start_number(k) - 1, err, i + 1, (int)(p - l->line[i]) + 1);
        if (nrc)
            return nrc;
        if (rec_kx_push_play(k, 0, &pos, m, legal, REC_TIME_NONE, REC_TIME_NONE) != 0)
            return REC_KIFU_ENOMEM;
    }
    return REC_KIFU_OK;
}
