/* kifu_record.c - the record model (headers, lines, moves, result, warnings), format detection, the
 * read / write dispatch, file I/O, and the replay of a record against the rules engine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/kifu/kifu_internal.h"

/* ---------------------------------------------------------------- names */
const char *rec_kifu_format_name(rec_format_t f) {
    static const char *const n[REC_FMT_NB] = {"unknown", "kif", "ki2", "csa", "jkf", "usi", "western"};
    return (unsigned)f < REC_FMT_NB ? n[f] : "unknown";
}

rec_format_t rec_kifu_format_from_name(const char *name) {
    static const struct {
        const char *n;
        rec_format_t f;
    } t[] = {{"kif", REC_FMT_KIF},     {"kifu", REC_FMT_KIF},       {"ki2", REC_FMT_KI2},
             {"ki2u", REC_FMT_KI2},    {"csa", REC_FMT_CSA},        {"jkf", REC_FMT_JKF},
             {"json", REC_FMT_JKF},    {"usi", REC_FMT_USI},        {"sfen", REC_FMT_USI},
             {"txt", REC_FMT_WESTERN}, {"western", REC_FMT_WESTERN}};
    if (!name)
        return REC_FMT_UNKNOWN;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(name, t[i].n))
            return t[i].f;
    return REC_FMT_UNKNOWN;
}

rec_format_t rec_kifu_format_from_path(const char *path) {
    if (!path)
        return REC_FMT_UNKNOWN;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return REC_FMT_UNKNOWN;
    return rec_kifu_format_from_name(dot + 1);
}

const char *rec_kifu_end_name(rec_end_t e) {
    static const char *const n[REC_END_NB] = {
        "none",         "resign",    "abort",       "sennichite",   "jishogi", "mate",
        "no_mate",      "time_up",   "illegal_win", "illegal_loss", "kachi",   "default_win",
        "default_loss", "max_moves", "hikiwake",    "matta",        "error"};
    return (unsigned)e < REC_END_NB ? n[e] : "none";
}

int rec_kifu_end_winner(rec_end_t e, rul_color_t stm) {
    int opp = stm == RUL_SENTE ? RUL_GOTE : RUL_SENTE;
    switch (e) {
    case REC_END_RESIGN:
    case REC_END_MATE:
    case REC_END_TIME_UP:
    case REC_END_ILLEGAL_LOSS:
    case REC_END_DEFAULT_LOSS: return opp;
    case REC_END_ILLEGAL_WIN:
    case REC_END_KACHI:
    case REC_END_DEFAULT_WIN: return (int)stm;
    default: return -1;
    }
}

/* ---------------------------------------------------------------- model */
rec_kifu_t *rec_kifu_new(void) {
    rec_kifu_t *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->lines = calloc(4, sizeof *k->lines);
    if (!k->lines) {
        free(k);
        return NULL;
    }
    k->cap_lines = 4;
    k->nlines = 1;
    k->lines[0].parent = -1;
    k->lines[0].start_ply = 1;
    k->lines[0].end_time_ms = REC_TIME_NONE;
    snprintf(k->start_sfen, sizeof k->start_sfen, "%s", RUL_SFEN_STARTPOS);
    k->handicap = RUL_HC_EVEN;
    k->result.winner = -1; /* no ending yet: no winner */
    return k;
}

void rec_kifu_free(rec_kifu_t *k) {
    if (!k)
        return;
    for (int i = 0; i < k->nheaders; i++) {
        free(k->headers[i].key);
        free(k->headers[i].value);
    }
    free(k->headers);
    for (int i = 0; i < k->nlines; i++) {
        for (int j = 0; j < k->lines[i].nmoves; j++) {
            free(k->lines[i].moves[j].comment);
            free(k->lines[i].moves[j].bookmark);
        }
        free(k->lines[i].moves);
        free(k->lines[i].comment);
    }
    free(k->lines);
    free(k->comment);
    free(k->warnings);
    free(k);
}

int rec_kifu_set_start(rec_kifu_t *k, const char *sfen) {
    rul_pos_t p;
    rul_error_t e;
    if (!k || !sfen || rul_pos_from_sfen(&p, sfen, &e) != RUL_OK)
        return REC_KIFU_EPARSE;
    rul_pos_to_sfen(&p, k->start_sfen, sizeof k->start_sfen); /* the move number kept: the first move's */
    k->handicap = -1;
    for (int h = 0; h < RUL_HC_NB; h++) {
        rul_pos_t q;
        if (rul_pos_set_handicap(&q, (rul_handicap_t)h) == RUL_OK && rul_pos_same(&p, &q)) {
            k->handicap = h;
            break;
        }
    }
    return REC_KIFU_OK;
}

int rec_kifu_start_number(const rec_kifu_t *k) {
    rul_pos_t p;
    rul_error_t e;
    if (!k || rul_pos_from_sfen(&p, k->start_sfen, &e) != RUL_OK || p.ply < 1)
        return 1;
    return p.ply;
}

int rec_kx_set_start_number(rec_kifu_t *k, int n) {
    rul_pos_t p;
    rul_error_t e;
    if (!k || n < 1 || n >= 100000000)
        return REC_KIFU_EARG;
    if (rul_pos_from_sfen(&p, k->start_sfen, &e) != RUL_OK)
        return REC_KIFU_EPARSE;
    p.ply = n;
    rul_pos_to_sfen(&p, k->start_sfen, sizeof k->start_sfen);
    return REC_KIFU_OK;
}

const char *rec_kifu_header_get(const rec_kifu_t *k, const char *key) {
    for (int i = 0; k && key && i < k->nheaders; i++)
        if (!strcmp(k->headers[i].key, key))
            return k->headers[i].value;
    return NULL;
}

int rec_kifu_header_set(rec_kifu_t *k, const char *key, const char *value) {
    if (!k || !key || !value)
        return REC_KIFU_EARG;
    char *v = rec_kx_strdup(value);
    if (!v)
        return REC_KIFU_ENOMEM;
    for (int i = 0; i < k->nheaders; i++)
        if (!strcmp(k->headers[i].key, key)) {
            free(k->headers[i].value);
            k->headers[i].value = v;
            return REC_KIFU_OK;
        }
    if (k->nheaders == k->cap_headers) {
        int cap = k->cap_headers ? k->cap_headers * 2 : 8;
        rec_kifu_header_t *nh = realloc(k->headers, sizeof *nh * (size_t)cap);
        if (!nh) {
            free(v);
            return REC_KIFU_ENOMEM;
        }
        k->headers = nh;
        k->cap_headers = cap;
    }
    char *kk = rec_kx_strdup(key);
    if (!kk) {
        free(v);
        return REC_KIFU_ENOMEM;
    }
    k->headers[k->nheaders].key = kk;
    k->headers[k->nheaders].value = v;
    k->nheaders++;
    return REC_KIFU_OK;
}

/* Cumulative time of the mover of ply `ply` before it, searching back along line and its parents. */
static int64_t prev_total(const rec_kifu_t *k, int line, int ply) {
    int want = ply - 2;
    while (want >= 1 && line >= 0) {
        const rec_kifu_line_t *L = &k->lines[line];
        if (want >= L->start_ply && want < L->start_ply + L->nmoves)
            return L->moves[want - L->start_ply].total_ms;
        if (want >= L->start_ply)
            return REC_TIME_NONE;
        line = L->parent;
    }
    return want < 1 ? 0 : REC_TIME_NONE;
}

rec_kifu_move_t *rec_kx_push_move(rec_kifu_t *k, int line, rul_move_t m, int64_t t, int64_t tot) {
    rec_kifu_line_t *L = &k->lines[line];
    if (L->nmoves == L->cap) {
        int cap = L->cap ? L->cap * 2 : 64;
        rec_kifu_move_t *nm = realloc(L->moves, sizeof *nm * (size_t)cap);
        if (!nm)
            return NULL;
        L->moves = nm;
        L->cap = cap;
    }
    rec_kifu_move_t *mv = &L->moves[L->nmoves];
    memset(mv, 0, sizeof *mv);
    mv->move = m;
    mv->time_ms = t;
    if (tot == REC_TIME_NONE && t != REC_TIME_NONE) {
        int64_t p = prev_total(k, line, L->start_ply + L->nmoves);
        tot = p == REC_TIME_NONE ? REC_TIME_NONE : p + t;
    }
    mv->total_ms = tot;
    L->nmoves++;
    return mv;
}

int rec_kx_push_play(rec_kifu_t *k, int line, rul_pos_t *pos, rul_move_t m, int legal, int64_t t,
                     int64_t tot) {
    rec_kifu_move_t *mv = rec_kx_push_move(k, line, m, t, tot);
    rul_undo_t u;
    if (!mv)
        return REC_KIFU_ENOMEM;
    if (!legal)
        mv->flags |= REC_MOVE_ILLEGAL;
    rul_pos_do_move(pos, m, &u);
    return REC_KIFU_OK;
}

static const char NOT_LEGAL[] = ") is not legal: ";

int rec_kx_note_illegal(rec_kifu_t *k, int line, int off, const rul_pos_t *pos, rul_move_t m, int lno,
                        int column, const char *token, size_t toklen) {
    const rec_kifu_line_t *L = &k->lines[line];
    const char *why;
    switch (rul_why_illegal(pos, m)) {
    case RUL_WHY_NIFU: why = "nifu, a second unpromoted pawn on the file"; break;
    case RUL_WHY_PAWN_DROP_MATE: why = "uchifuzume, a pawn drop that mates"; break;
    case RUL_WHY_LEAVES_KING_IN_CHECK: why = "it leaves the king in check"; break;
    case RUL_WHY_NO_FURTHER_MOVE: why = "the piece could never move again there"; break;
    default: why = "the piece does not move so"; break;
    }
    if (toklen > 40)
        toklen = 40;
    while (toklen > 0 && ((unsigned char)token[toklen] & 0xC0) == 0x80) /* a whole UTF-8 character */
        toklen--;
    return rec_kifu_warn(k, lno, column, "move %ld (%.*s%s%s; kept as written",
                         (long)off + L->start_ply + L->nmoves, (int)toklen, token, NOT_LEGAL, why);
}

void rec_kx_blame_illegal(const rec_kifu_t *k, rec_kifu_error_t *err) {
    if (k == NULL || err == NULL || err->line <= 0)
        return;
    for (int i = 0; i < k->nwarnings; i++) {
        const rec_kifu_warning_t *w = &k->warnings[i];
        const char *nl = strstr(w->msg, NOT_LEGAL);
        if (w->line <= 0 || w->line >= err->line || strncmp(w->msg, "move ", 5) != 0 || nl == NULL)
            continue;
        char add[200];
        int n = snprintf(add, sizeof add, " (after %.*s) at line %d, which is not legal: a typo there?)",
                         (int)(nl - w->msg), w->msg, w->line);
        size_t len = strlen(err->msg);
        if (n > 0 && len + (size_t)n < sizeof err->msg)
            memcpy(err->msg + len, add, (size_t)n + 1);
        return;
    }
}

int rec_kx_number_check(const rec_kifu_t *k, int line, int off, rec_kifu_error_t *err, int lno, int column) {
    const rec_kifu_line_t *L = &k->lines[line];
    long number = (long)off + L->start_ply + L->nmoves; /* this move's number; the position after it: +1 */
    if (number + 1 <= RUL_SFEN_MAX_NUMBER)
        return REC_KIFU_OK;
    rec_kx_err(err, lno, column,
               "move %ld would leave a position numbered past %d, SFEN's last move number: a game "
               "from move %d has room for %ld moves",
               number, RUL_SFEN_MAX_NUMBER, off + 1, (long)RUL_SFEN_MAX_NUMBER - off - 1);
    return REC_KIFU_EPARSE;
}

int rec_kifu_add_move(rec_kifu_t *k, int line, rul_move_t m, int64_t time_ms) {
    if (!k || line < 0 || line >= k->nlines)
        return REC_KIFU_EARG;
    return rec_kx_push_move(k, line, m, time_ms, REC_TIME_NONE) ? REC_KIFU_OK : REC_KIFU_ENOMEM;
}

int rec_kifu_add_line(rec_kifu_t *k, int parent, int ply, int *out) {
    if (!k || parent < 0 || parent >= k->nlines)
        return REC_KIFU_EARG;
    const rec_kifu_line_t *P = &k->lines[parent];
    if (ply < P->start_ply || ply > P->start_ply + P->nmoves)
        return REC_KIFU_EARG;
    if (k->nlines == k->cap_lines) {
        int cap = k->cap_lines * 2;
        rec_kifu_line_t *nl = realloc(k->lines, sizeof *nl * (size_t)cap);
        if (!nl)
            return REC_KIFU_ENOMEM;
        k->lines = nl;
        k->cap_lines = cap;
    }
    rec_kifu_line_t *L = &k->lines[k->nlines];
    memset(L, 0, sizeof *L);
    L->parent = parent;
    L->start_ply = ply;
    L->end_time_ms = REC_TIME_NONE;
    if (out)
        *out = k->nlines;
    k->nlines++;
    return REC_KIFU_OK;
}

void rec_kifu_set_result(rec_kifu_t *k, rec_end_t end, const char *word) {
    if (!k)
        return;
    rec_kifu_line_t *L = &k->lines[0];
    L->end = end;
    k->result.end = end;
    k->result.ply = end == REC_END_NONE ? 0 : L->start_ply + L->nmoves;
    snprintf(k->result.word, sizeof k->result.word, "%s", word ? word : "");
    rul_pos_t p;
    rul_error_t e;
    k->result.winner = -1;
    if (rul_pos_from_sfen(&p, k->start_sfen, &e) == RUL_OK) {
        rul_color_t stm = (rul_color_t)((p.side + L->nmoves) & 1);
        k->result.winner = rec_kifu_end_winner(end, stm);
    }
}

int rec_kifu_warn(rec_kifu_t *k, int line, int column, const char *fmt, ...) {
    if (!k)
        return REC_KIFU_EARG;
    if (k->nwarnings == k->cap_warnings) {
        int cap = k->cap_warnings ? k->cap_warnings * 2 : 4;
        rec_kifu_warning_t *nw = realloc(k->warnings, sizeof *nw * (size_t)cap);
        if (!nw)
            return REC_KIFU_ENOMEM;
        k->warnings = nw;
        k->cap_warnings = cap;
    }
    rec_kifu_warning_t *w = &k->warnings[k->nwarnings++];
    w->line = line;
    w->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof w->msg, fmt, ap);
    va_end(ap);
    return REC_KIFU_OK;
}

int rec_kifu_position_at(const rec_kifu_t *k, int line, int ply, rul_pos_t *pos) {
    if (!k || !pos || line < 0 || line >= k->nlines)
        return REC_KIFU_EARG;
    const rec_kifu_line_t *L = &k->lines[line];
    if (ply < 1 || ply > L->start_ply + L->nmoves)
        return REC_KIFU_EARG;
    /* chain of lines from the main line down to `line` */
    int chain[64], n = 0;
    for (int l = line; l >= 0 && n < 64; l = k->lines[l].parent)
        chain[n++] = l;
    rul_error_t e;
    if (rul_pos_from_sfen(pos, k->start_sfen, &e) != RUL_OK)
        return REC_KIFU_EPARSE;
    int cur = 1; /* ply of the next move */
    for (int i = n - 1; i >= 0 && cur < ply; i--) {
        const rec_kifu_line_t *C = &k->lines[chain[i]];
        int stop = i > 0 ? k->lines[chain[i - 1]].start_ply : ply;
        if (stop > ply)
            stop = ply;
        while (cur < stop) {
            int idx = cur - C->start_ply;
            if (idx < 0 || idx >= C->nmoves)
                return REC_KIFU_EARG;
            rul_undo_t u;
            if (!rec_kx_move_playable(pos, C->moves[idx].move))
                return REC_KIFU_EARG;
            rul_pos_do_move(pos, C->moves[idx].move, &u);
            cur++;
        }
    }
    return REC_KIFU_OK;
}

/* ---------------------------------------------------------------- detection */
static int has(const char *s, size_t len, const char *w) {
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= len; i++)
        if (!memcmp(s + i, w, wl))
            return 1;
    return 0;
}

rec_format_t rec_kifu_detect(const char *data, size_t len) {
    if (!data)
        return REC_FMT_UNKNOWN;
    size_t i = 0;
    if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
        i = 3;
    for (;;) { /* blank lines, and '#' comment lines (a USI file's headers) */
        while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
            i++;
        size_t c = i;
        if (c < len && data[c] == '#')
            while (c < len && data[c] != '\n')
                c++;
        if (c == i)
            break;
        size_t r = c; /* a USI line must follow the comments; a KIF's "#KIF version" line is not skipped */
        while (r < len && (data[r] == ' ' || data[r] == '\t' || data[r] == '\r' || data[r] == '\n'))
            r++;
        if (len - r < 8 || (strncmp(data + r, "position", 8) && strncmp(data + r, "#", 1)))
            break;
        i = c;
    }
    if (i < len && data[i] == '{')
        return REC_FMT_JKF;
    const char *s = data + i;
    size_t n = len - i;
    if (n >= 8 && (!strncmp(s, "position", 8) || !strncmp(s, "startpos", 8)))
        return REC_FMT_USI;
    if (n >= 5 && !strncmp(s, "sfen ", 5))
        return REC_FMT_USI;
    /* Japanese notations: look in decoded text */
    rec_kx_lines_t l;
    rec_kifu_error_t e;
    size_t probe = len < 65536 ? len : 65536;
    while (probe < len && probe > 0 && data[probe - 1] != '\n')
        probe--; /* whole lines only */
    if (probe == 0)
        probe = len;
    if (rec_kx_lines_split(data, probe, &l, &e) != REC_KIFU_OK)
        return REC_FMT_UNKNOWN;
    rec_format_t f = REC_FMT_UNKNOWN;
    int csa = 0, kif = 0, ki2 = 0, west = 0;
    for (int j = 0; j < l.n && j < 400; j++) {
        const char *t = l.line[j];
        while (*t == ' ')
            t++;
        if (t[0] == '*' || t[0] == '#')
            continue; /* KIF comments say anything */
        if (t[0] == '[' && strstr(t, "\"]"))
            west++;
        if (!strncmp(t, "手数----", strlen("手数----"))) {
            kif += 1000;
            break;
        }
        if (t[0] == '\'' || t[0] == '$' || (t[0] == 'N' && (t[1] == '+' || t[1] == '-')) ||
            (t[0] == 'P' && ((t[1] >= '1' && t[1] <= '9') || t[1] == 'I' || t[1] == '+' || t[1] == '-')) ||
            (t[0] == 'V' && t[1] == '2') || (t[0] == '%' && t[1] >= 'A' && t[1] <= 'Z'))
            csa++;
        if ((t[0] == '+' || t[0] == '-') && strlen(t) >= 7 && t[1] >= '0' && t[1] <= '9')
            csa += 2;
        if (t[0] >= '0' && t[0] <= '9') {
            const char *u = t;
            while (*u >= '0' && *u <= '9')
                u++;
            if (*u == ' ' || has(u, strlen(u), "(")) {
                if (has(t, strlen(t), "(") &&
                    (rec_kx_ja_digit(&(const char *){u + strspn(u, " ")}) || has(t, strlen(t), "同")))
                    kif += 2;
                else if (has(t, strlen(t), "投了") || has(t, strlen(t), "打"))
                    kif++;
            }
            if (*u == '.' && (has(u, strlen(u), "-") || has(u, strlen(u), "*") || has(u, strlen(u), "x")))
                west += 2;
        }
        if (!strncmp(t, "▲", 3) || !strncmp(t, "△", 3) || !strncmp(t, "☗", 3) || !strncmp(t, "☖", 3))
            ki2 += 2;
    }
    if (kif && kif >= ki2 && kif >= csa)
        f = REC_FMT_KIF;
    else if (ki2 && ki2 >= csa)
        f = REC_FMT_KI2;
    else if (csa >= 2)
        f = REC_FMT_CSA;
    else if (west)
        f = REC_FMT_WESTERN;
    else if (kif)
        f = REC_FMT_KIF;
    else if (has(l.text, strlen(l.text), "："))
        f = REC_FMT_KIF; /* headers only */
    rec_kx_lines_free(&l);
    return f;
}

/* ---------------------------------------------------------------- read / write dispatch */
/* 1 if the reader found nothing at all in the text: no move, header, ending, comment or position. */
static int nothing_read(const rec_kifu_t *k) {
    return k->nlines == 1 && k->lines[0].nmoves == 0 && k->nheaders == 0 && k->result.end == REC_END_NONE &&
           !k->comment && !strcmp(k->start_sfen, RUL_SFEN_STARTPOS);
}

/* An error on the last line of data when data does not end with a line end: the file was cut. */
static void cut_short(const char *data, size_t len, rec_kifu_error_t *err) {
    static const char CUT[] = " (the file ends on this line without a line end: cut short?)";
    if (err == NULL || err->line <= 0 || data == NULL || len == 0 || data[len - 1] == '\n' ||
        data[len - 1] == '\r')
        return;
    int lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += data[i] == '\n';
    size_t n = strlen(err->msg);
    if (err->line == lines && n + sizeof CUT <= sizeof err->msg)
        memcpy(err->msg + n, CUT, sizeof CUT);
}

int rec_kifu_read_keep(const char *data, size_t len, rec_format_t fmt, rec_kifu_t **out,
                       rec_kifu_error_t *err, rec_kifu_t **partial) {
    if (err)
        memset(err, 0, sizeof *err);
    if (partial)
        *partial = NULL;
    if (!out || (!data && len))
        return REC_KIFU_EARG;
    *out = NULL;
    rec_format_t named = fmt;
    if (fmt == REC_FMT_UNKNOWN)
        fmt = rec_kifu_detect(data ? data : "", len);
    if (fmt == REC_FMT_UNKNOWN) {
        const unsigned char *u = (const unsigned char *)data;
        rec_kx_err(err, 1, 1, "%s",
                   len == 0 ? "empty file: no game record"
                   : len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))
                       ? "UTF-16 text: records are read in UTF-8, Shift_JIS or EUC-JP"
                   : memchr(data, 0, len) ? "a binary file (NUL bytes), not a game record"
                                          : "unknown record format");
        return REC_KIFU_EPARSE;
    }
    rec_kifu_t *k = rec_kifu_new();
    if (!k)
        return REC_KIFU_ENOMEM;
    k->format = fmt;
    int rc;
    if (fmt == REC_FMT_JKF) {
        rc = rec_kx_read_jkf(k, data ? data : "", len, err);
    } else {
        rec_kx_lines_t l;
        rc = rec_kx_lines_split(data ? data : "", len, &l, err);
        if (rc == REC_KIFU_OK) {
            switch (fmt) {
            case REC_FMT_KIF: rc = rec_kx_read_kif(k, &l, 0, err); break;
            case REC_FMT_KI2: rc = rec_kx_read_kif(k, &l, 1, err); break;
            case REC_FMT_CSA: rc = rec_kx_read_csa(k, &l, err); break;
            case REC_FMT_USI: rc = rec_kx_read_usi(k, &l, err); break;
            case REC_FMT_WESTERN: rc = rec_kx_read_western(k, &l, err); break;
            default: rc = REC_KIFU_EARG;
            }
            rec_kx_lines_free(&l);
        }
    }
    if (rc == REC_KIFU_OK && named != REC_FMT_UNKNOWN) {
        /* a format named by the caller that the content contradicts: an error, not an empty record */
        rec_format_t d = rec_kifu_detect(data ? data : "", len);
        int kin = (d == REC_FMT_KIF || d == REC_FMT_KI2) && (named == REC_FMT_KIF || named == REC_FMT_KI2);
        if (d != named && (nothing_read(k) || (d != REC_FMT_UNKNOWN && !kin && k->lines[0].nmoves == 0))) {
            if (d != REC_FMT_UNKNOWN)
                rec_kx_err(err, 1, 1, "no %s record found (the content looks like %s)",
                           rec_kifu_format_name(named), rec_kifu_format_name(d));
            else
                rec_kx_err(err, 1, 1, "no %s record found", rec_kifu_format_name(named));
            rc = REC_KIFU_EPARSE;
        }
    }
    if (rc) {
        rec_kx_blame_illegal(k, err);
        cut_short(data, len, err);
        if (partial && rc != REC_KIFU_ENOMEM)
            *partial = k;
        else
            rec_kifu_free(k);
        return rc;
    }
    *out = k;
    return REC_KIFU_OK;
}

int rec_kifu_read(const char *data, size_t len, rec_format_t fmt, rec_kifu_t **out, rec_kifu_error_t *err) {
    return rec_kifu_read_keep(data, len, fmt, out, err, NULL);
}

int rec_kifu_slurp(const char *path, char **buf, size_t *len, rec_kifu_error_t *err) {
    if (err)
        memset(err, 0, sizeof *err);
    if (!path || !buf || !len)
        return REC_KIFU_EARG;
    *buf = NULL;
    *len = 0;
    int is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        rec_kx_err(err, 0, 0, "%s", strerror(errno));
        return REC_KIFU_EIO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        rec_kx_err(err, 0, 0, "is a directory, not a game record");
        if (!is_stdin)
            fclose(f);
        return REC_KIFU_EIO;
    }
    size_t cap = 65536, n = 0;
    char *b = malloc(cap + 1);
    int rc = REC_KIFU_OK;
    while (b) {
        errno = 0;
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n < cap)
            break;
        if (cap >= REC_KIFU_MAX_INPUT) { /* one byte more than the limit: too big */
            if (n > REC_KIFU_MAX_INPUT || fgetc(f) != EOF) {
                rec_kx_err(err, 0, 0, "larger than %d MiB: not a game record", REC_KIFU_MAX_INPUT >> 20);
                rc = REC_KIFU_EIO;
            }
            break;
        }
        cap *= 2;
        char *nb = realloc(b, cap + 1);
        if (!nb) {
            free(b);
            b = NULL;
        } else
            b = nb;
    }
    if (!b)
        rc = REC_KIFU_ENOMEM;
    else if (rc == REC_KIFU_OK && ferror(f)) {
        rec_kx_err(err, 0, 0, "%s",
                   errno == EISDIR ? "is a directory, not a game record"
                   : errno         ? strerror(errno)
                                   : "read error");
        rc = REC_KIFU_EIO;
    }
    if (!is_stdin)
        fclose(f);
    if (rc) {
        free(b);
        return rc;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    return REC_KIFU_OK;
}

int rec_kifu_read_file(const char *path, rec_format_t fmt, rec_kifu_t **out, rec_kifu_error_t *err) {
    if (err)
        memset(err, 0, sizeof *err);
    if (!path || !out)
        return REC_KIFU_EARG;
    *out = NULL;
    char *buf;
    size_t len;
    int rc = rec_kifu_slurp(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = rec_kifu_read(buf, len, fmt, out, err);
    free(buf);
    return rc;
}

int rec_kifu_write(const rec_kifu_t *k, rec_format_t fmt, char **out, size_t *len, rec_kifu_error_t *err) {
    if (err)
        memset(err, 0, sizeof *err);
    if (!k || !out)
        return REC_KIFU_EARG;
    *out = NULL;
    rec_kx_sb_t sb = {0};
    int rc;
    switch (fmt) {
    case REC_FMT_KIF: rc = rec_kx_write_kif(k, 0, &sb, err); break;
    case REC_FMT_KI2: rc = rec_kx_write_kif(k, 1, &sb, err); break;
    case REC_FMT_CSA: rc = rec_kx_write_csa(k, &sb, err); break;
    case REC_FMT_JKF: rc = rec_kx_write_jkf(k, &sb, err); break;
    case REC_FMT_USI: rc = rec_kx_write_usi(k, &sb, err); break;
    case REC_FMT_WESTERN: rc = rec_kx_write_western(k, &sb, err); break;
    default: rec_kx_err(err, 0, 0, "unknown output format"); rc = REC_KIFU_EARG;
    }
    if (rc == REC_KIFU_OK && sb.oom)
        rc = REC_KIFU_ENOMEM;
    if (rc == REC_KIFU_OK && !sb.buf)
        rec_kx_sb_puts(&sb, "");
    if (rc == REC_KIFU_OK && sb.oom)
        rc = REC_KIFU_ENOMEM;
    if (rc) {
        free(sb.buf);
        return rc;
    }
    *out = sb.buf;
    if (len)
        *len = sb.len;
    return REC_KIFU_OK;
}

/* The writer's UTF-8 text as Shift_JIS (CP932) in a new *enc, its "#KIF ... encoding=UTF-8" declaration
 * renamed (*text may be replaced). REC_KIFU_OK, ENOMEM or ENCODING (err says so). */
static int to_sjis(char **text, size_t *len, char **enc, size_t *elen, rec_kifu_error_t *err) {
    /* the declaration names the bytes written: Shift_JIS here, not the writer's UTF-8 */
    static const char decl[] = "#KIF version=2.0 encoding=UTF-8\n";
    if (*len >= sizeof decl - 1 && !memcmp(*text, decl, sizeof decl - 1)) {
        static const char sj[] = "#KIF version=2.0 encoding=Shift_JIS\n";
        char *t2 = malloc(*len - (sizeof decl - 1) + sizeof sj);
        if (!t2)
            return REC_KIFU_ENOMEM;
        memcpy(t2, sj, sizeof sj - 1);
        memcpy(t2 + sizeof sj - 1, *text + sizeof decl - 1, *len - (sizeof decl - 1) + 1);
        *len = *len - (sizeof decl - 1) + (sizeof sj - 1);
        free(*text);
        *text = t2;
    }
    int rc = rec_kx_utf8_to_cp932(*text, *len, enc, elen);
    if (rc)
        rec_kx_err(err, 0, 0, "text has no Shift_JIS form; use .kifu / .ki2u");
    return rc;
}

/* Writes data into what is at path (a device such as /dev/stdout, a FIFO, a symbolic link), never
 * replacing it. */
static int write_into(const char *path, const char *data, size_t dlen, rec_kifu_error_t *err) {
    int rc = REC_KIFU_OK;
    FILE *f = fopen(path, "wb");
    if (!f)
        rc = REC_KIFU_EIO;
    else {
        if (fwrite(data, 1, dlen, f) != dlen)
            rc = REC_KIFU_EIO;
        if (fclose(f))
            rc = REC_KIFU_EIO;
    }
    if (rc == REC_KIFU_EIO)
        rec_kx_err(err, 0, 0, "%s", strerror(errno));
    return rc;
}

/* Creates a new file beside path under a name no file has yet (PATH.tmp, PATH.tmp.1 .. PATH.tmp.9, or
 * DIR/.kifucam.tmp(.1..9) when PATH's name leaves no room: a file of the user's is never overwritten)
 * into tmp (size >= strlen(path) + 24). Returns its descriptor, or -1 with errno set. */
static int open_tmp(const char *path, char *tmp) {
    size_t pl = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0; /* the folder part, with its '/' */
    int fd = -1, short_name = 0;
    for (int i = 0; i < 10 && fd < 0; i++) {
        /* a name at the file system's limit has no room for ".tmp": then .kifucam.tmp beside it */
        size_t at = short_name ? dl : pl;
        memcpy(tmp, path, at);
        memcpy(tmp + at, short_name ? ".kifucam.tmp." : ".tmp.", short_name ? 13 : 5);
        at += short_name ? 13 : 5;
        tmp[at] = (char)('0' + i);
        tmp[at + 1] = 0;
        if (i == 0)
            tmp[at - 1] = 0;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno == ENAMETOOLONG && !short_name) {
            short_name = 1;
            i = -1;
            continue;
        }
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

/* Replaces the regular file at path (or creates it) atomically: written to a new name beside it, then
 * renamed. */
static int write_replace(const char *path, const char *data, size_t dlen, rec_kifu_error_t *err) {
    int rc = REC_KIFU_OK;
    char *tmp = malloc(strlen(path) + 24);
    if (!tmp)
        return REC_KIFU_ENOMEM;
    int fd = open_tmp(path, tmp);
    if (fd < 0) {
        rec_kx_err(err, 0, 0, "%s", strerror(errno));
        rc = REC_KIFU_EIO;
    } else {
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            close(fd);
            rc = REC_KIFU_EIO;
        } else {
            if (fwrite(data, 1, dlen, f) != dlen)
                rc = REC_KIFU_EIO;
            if (fclose(f))
                rc = REC_KIFU_EIO;
        }
        if (rc == REC_KIFU_OK && rename(tmp, path))
            rc = REC_KIFU_EIO;
        if (rc == REC_KIFU_EIO)
            rec_kx_err(err, 0, 0, "%s", strerror(errno));
        if (rc)
            remove(tmp);
    }
    free(tmp);
    return rc;
}

int rec_kifu_write_file(const rec_kifu_t *k, const char *path, rec_format_t fmt, rec_kifu_error_t *err) {
    if (!k || !path)
        return REC_KIFU_EARG;
    if (fmt == REC_FMT_UNKNOWN)
        fmt = rec_kifu_format_from_path(path);
    char *text = NULL, *enc = NULL;
    size_t len = 0, elen = 0;
    int rc = rec_kifu_write(k, fmt, &text, &len, err);
    if (rc)
        return rc;
    const char *dot = strrchr(path, '.');
    int sjis = dot && (!strcasecmp(dot, ".kif") || !strcasecmp(dot, ".ki2"));
    if (sjis && (rc = to_sjis(&text, &len, &enc, &elen, err)) != REC_KIFU_OK) {
        free(text);
        return rc;
    }
    const char *data = sjis ? enc : text;
    size_t dlen = sjis ? elen : len;
    struct stat st;
    int exists = strcmp(path, "-") && lstat(path, &st) == 0;
    if (!strcmp(path, "-")) {
        if (fwrite(data, 1, dlen, stdout) != dlen || fflush(stdout)) {
            rec_kx_err(err, 0, 0, "%s", strerror(errno));
            rc = REC_KIFU_EIO;
        }
    } else if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        rc = write_into(path, data, dlen, err);
    } else if (exists && S_ISDIR(st.st_mode)) {
        rec_kx_err(err, 0, 0, "%s", strerror(EISDIR));
        rc = REC_KIFU_EIO;
    } else if (exists && access(path, W_OK) != 0) {
        /* a read-only file stays as it is (a rename would replace it anyway) */
        rec_kx_err(err, 0, 0, "%s", strerror(errno));
        rc = REC_KIFU_EIO;
    } else {
        rc = write_replace(path, data, dlen, err);
    }
    free(text);
    free(enc);
    return rc;
}

/* ---------------------------------------------------------------- dates */
int rec_kifu_parse_datetime(const char *s, rec_kifu_datetime_t *dt) {
    if (!s || !dt)
        return REC_KIFU_EARG;
    dt->year = dt->month = dt->day = dt->hour = dt->minute = dt->second = -1;
    int v[6], n = 0;
    const char *p = s;
    while (*p == ' ')
        p++;
    while (n < 6) {
        if (*p < '0' || *p > '9')
            break;
        long x = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 6)
            x = x * 10 + (*p++ - '0'), digits++;
        v[n++] = (int)x;
        if (n < 3 && (*p == '/' || *p == '-')) {
            p++;
            continue;
        }
        if (n == 3) {
            /* optional weekday "(土)", then a space or 'T' */
            if (*p == '(') {
                const char *q = strchr(p, ')');
                if (!q)
                    break;
                p = q + 1;
            }
            while (*p == ' ' || *p == 'T')
                p++;
            continue;
        }
        if (n > 3 && *p == ':') {
            p++;
            continue;
        }
        break;
    }
    if (n < 3 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31)
        return REC_KIFU_EPARSE;
    dt->year = v[0], dt->month = v[1], dt->day = v[2];
    if (n >= 5) {
        if (v[3] > 23 || v[4] > 59)
            return REC_KIFU_EPARSE;
        dt->hour = v[3], dt->minute = v[4];
    }
    if (n >= 6) {
        if (v[5] > 60)
            return REC_KIFU_EPARSE;
        dt->second = v[5];
    }
    return REC_KIFU_OK;
}
