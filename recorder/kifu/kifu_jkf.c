/* kifu_jkf.c - JSON kifu format (JKF) reader and writer, per json-kifu-format.schema.json; JSON parsing
 * and printing by jansson (Debian libjansson-dev). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu_internal.h"

static const char *const presets[RUL_HC_NB] = {"HIRATE", "KY", "KY_R", "KA", "HI",  "HIKY", "2", "3",
                                               "4",      "5",  "5_L",  "6",  "7_L", "7_R",  "8", "10"};

static const struct {
    const char *w;
    rec_end_t e;
} specials[] = {{"TORYO", REC_END_RESIGN},
                {"CHUDAN", REC_END_ABORT},
                {"SENNICHITE", REC_END_SENNICHITE},
                {"TIME_UP", REC_END_TIME_UP},
                {"ILLEGAL_MOVE", REC_END_ILLEGAL_LOSS},
                {"JISHOGI", REC_END_JISHOGI},
                {"KACHI", REC_END_KACHI},
                {"HIKIWAKE", REC_END_HIKIWAKE},
                {"MATTA", REC_END_MATTA},
                {"TSUMI", REC_END_MATE},
                {"FUZUMI", REC_END_NO_MATE},
                {"ERROR", REC_END_ERROR},
                {"MAX_MOVES", REC_END_MAX_MOVES}};

static int bad(rec_kifu_error_t *err, const char *what, int idx) {
    rec_kx_err(err, 0, 0, "jkf: %s (move entry %d)", what, idx);
    return REC_KIFU_EPARSE;
}

static int64_t hms(json_t *o) {
    if (!json_is_object(o))
        return REC_TIME_NONE;
    json_int_t h = json_integer_value(json_object_get(o, "h"));
    json_int_t m = json_integer_value(json_object_get(o, "m"));
    json_t *s = json_object_get(o, "s");
    double sec = json_is_number(s) ? json_number_value(s) : 0;
    return ((int64_t)h * 3600 + (int64_t)m * 60) * 1000 + (int64_t)(sec * 1000 + 0.5);
}

static int add_comments(char **dst, json_t *arr) {
    size_t i;
    json_t *c;
    json_array_foreach(arr, i, c) {
        if (json_is_string(c) && rec_kx_append_text(dst, json_string_value(c)))
            return REC_KIFU_ENOMEM;
    }
    return REC_KIFU_OK;
}

/* A "special" entry: the line's ending ("TORYO", "+ILLEGAL_ACTION", ...; relative to pos's side to
 * move), and the comment of a variation that is only its ending. */
static int read_special(rec_kifu_t *k, int line, json_t *e, const char *w, const rul_pos_t *pos) {
    rec_kifu_line_t *L = &k->lines[line];
    rec_end_t end = REC_END_ERROR;
    if (!strcmp(w, "+ILLEGAL_ACTION") || !strcmp(w, "-ILLEGAL_ACTION"))
        end = (w[0] == '-') == pos->side ? REC_END_ILLEGAL_LOSS : REC_END_ILLEGAL_WIN;
    for (size_t j = 0; j < sizeof specials / sizeof specials[0]; j++)
        if (!strcmp(w, specials[j].w))
            end = specials[j].e;
    L->end = end;
    json_t *tm = json_object_get(e, "time");
    L->end_time_ms = hms(json_object_get(tm, "now"));
    if (line == 0)
        rec_kifu_set_result(k, end, w);
    /* a variation that is only its ending (KI2's cut before an illegal first move): its comment */
    if (line > 0 && L->nmoves == 0 && add_comments(&L->comment, json_object_get(e, "comments")))
        return REC_KIFU_ENOMEM;
    return REC_KIFU_OK;
}

/* The relative notation of a move without origin ("LU", "H", ...) as REC_KX_REL_* bits. */
static int relative_of(const char *rel) {
    int bits = 0;
    for (const char *r = rel; r && *r; r++) {
        if (*r == 'L')
            bits |= REC_KX_REL_LEFT;
        if (*r == 'R')
            bits |= REC_KX_REL_RIGHT;
        if (*r == 'C')
            bits |= REC_KX_REL_STRAIGHT;
        if (*r == 'U')
            bits |= REC_KX_REL_UP;
        if (*r == 'M')
            bits |= REC_KX_REL_SIDE;
        if (*r == 'D')
            bits |= REC_KX_REL_DOWN;
    }
    return bits;
}

/* The move object mo of entry i, played in pos, as a move spec *s (squares, piece, relative notation,
 * promotion); its "color" must be the side to move. */
static int read_spec(json_t *mo, int i, const rul_pos_t *pos, rec_kx_spec_t *s, rec_kifu_error_t *err) {
    json_t *to = json_object_get(mo, "to"), *from = json_object_get(mo, "from");
    const char *piece = json_string_value(json_object_get(mo, "piece"));
    memset(s, 0, sizeof *s);
    s->from = -1;
    if (json_is_true(json_object_get(mo, "same")) && !json_is_object(to))
        s->to = -1;
    else {
        json_int_t x = json_integer_value(json_object_get(to, "x")),
                   y = json_integer_value(json_object_get(to, "y"));
        if (x < 1 || x > 9 || y < 1 || y > 9)
            return bad(err, "bad 'to' square", (int)i);
        s->to = RUL_SQ((int)x, (int)y);
    }
    if (!piece || !(s->type = rec_kx_csa_piece_parse(piece)) || strlen(piece) != 2)
        return bad(err, "bad piece", (int)i);
    if (json_is_object(from)) {
        json_int_t x = json_integer_value(json_object_get(from, "x")),
                   y = json_integer_value(json_object_get(from, "y"));
        if (x < 1 || x > 9 || y < 1 || y > 9)
            return bad(err, "bad 'from' square", (int)i);
        s->from = RUL_SQ((int)x, (int)y);
    } else {
        /* no origin: a drop, or a board move named by its relative notation (KI2 sources) */
        const char *rel = json_string_value(json_object_get(mo, "relative"));
        s->rel = relative_of(rel);
        /* the schema's drop has no origin; a board move without one must carry its relative */
        s->drop = !(s->rel && !strchr(rel, 'H'));
        if (s->drop)
            s->rel = 0;
    }
    /* the schema's "color" (0 sente, 1 gote) names the mover: a move by the side not to move
     * would be played as the other side's (CSA's "+" / "-" are checked the same way) */
    json_t *col = json_object_get(mo, "color");
    if (col) {
        json_int_t cv = json_is_integer(col) ? json_integer_value(col) : -1;
        if (cv != 0 && cv != 1)
            return bad(err, "bad 'color' (0 for sente, 1 for gote)", (int)i);
        if ((int)cv != pos->side) {
            char from_s[24], to_s[24];
            snprintf(from_s, sizeof from_s, "%s", "00");
            if (s->from >= 0)
                snprintf(from_s, sizeof from_s, "%d%d", RUL_SQ_FILE(s->from), RUL_SQ_RANK(s->from));
            snprintf(to_s, sizeof to_s, "%s", "same");
            if (s->to >= 0)
                snprintf(to_s, sizeof to_s, "%d%d", RUL_SQ_FILE(s->to), RUL_SQ_RANK(s->to));
            rec_kx_err(err, 0, 0,
                       "jkf: move entry %d (%s %s-%s) is a move by %s (color %d), but it is %s's turn",
                       (int)i, rec_kx_csa_piece[s->type], from_s, to_s, cv ? "gote" : "sente", (int)cv,
                       pos->side ? "gote" : "sente");
            return REC_KIFU_EMOVE;
        }
    }
    json_t *pr = json_object_get(mo, "promote");
    s->promo = json_is_true(pr) ? 1 : json_is_false(pr) ? -1 : 0;
    return REC_KIFU_OK;
}

/* Reads the move array `arr` into line `line` (whose position before its first move is pos). */
static int read_moves(rec_kifu_t *k, int line, json_t *arr, size_t first, rul_pos_t pos, int prev_to,
                      rec_kifu_error_t *err, int depth) {
    if (depth > 64)
        return bad(err, "forks nested too deep", 0);
    size_t n = json_array_size(arr);
    for (size_t i = first; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_object(e))
            return bad(err, "entry is not an object", (int)i);
        rec_kifu_line_t *L = &k->lines[line];
        /* forks: alternatives to this entry, from the position before it */
        json_t *forks = json_object_get(e, "forks");
        json_t *mo = json_object_get(e, "move");
        json_t *sp = json_object_get(e, "special");
        if (json_is_string(sp)) {
            int rc = read_special(k, line, e, json_string_value(sp), &pos);
            if (rc)
                return rc;
        } else if (json_is_object(mo)) {
            rec_kx_spec_t s;
            int rc = read_spec(mo, (int)i, &pos, &s, err);
            if (rc)
                return rc;
            rul_move_t m;
            int legal;
            char msg[160];
            rc = rec_kx_resolve(&pos, &s, prev_to, &m, &legal, msg, sizeof msg);
            if (rc)
                return bad(err, msg, (int)i);
            json_t *tm = json_object_get(e, "time");
            int64_t t = hms(json_object_get(tm, "now")), tot = hms(json_object_get(tm, "total"));
            int base = L->start_ply + L->nmoves; /* ply of this move */
            rec_kifu_move_t *mv = rec_kx_push_move(k, line, m, t, tot);
            if (!mv)
                return REC_KIFU_ENOMEM;
            if (!legal)
                mv->flags |= REC_MOVE_ILLEGAL;
            if (add_comments(&mv->comment, json_object_get(e, "comments")))
                return REC_KIFU_ENOMEM;
            /* forks replace this move */
            size_t fi;
            json_t *f;
            json_array_foreach(forks, fi, f) {
                int nl;
                rc = rec_kifu_add_line(k, line, base, &nl);
                if (rc)
                    return rc;
                rc = read_moves(k, nl, f, 0, pos, prev_to, err, depth + 1);
                if (rc)
                    return rc;
            }
            rul_undo_t u;
            rul_pos_do_move(&pos, m, &u);
            prev_to = RUL_MOVE_TO(m);
        } else if (i == 0 && line == 0) {
            if (add_comments(&k->comment, json_object_get(e, "comments")))
                return REC_KIFU_ENOMEM;
        }
    }
    return REC_KIFU_OK;
}

int rec_kx_read_jkf(rec_kifu_t *k, const char *text, size_t len, rec_kifu_error_t *err) {
    json_error_t je;
    size_t off = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    json_t *root = json_loadb(text + off, len - off, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        rec_kx_err(err, je.line, je.column, "jkf: %s", je.text);
        return REC_KIFU_EPARSE;
    }
    int rc = REC_KIFU_OK;
    if (!json_is_object(root)) {
        rec_kx_err(err, 1, 1, "jkf: top level is not an object");
        rc = REC_KIFU_EPARSE;
        goto out;
    }
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(root, "header"), key, v) {
        if (json_is_string(v) && (rc = rec_kifu_header_set(k, key, json_string_value(v))))
            goto out;
    }
    json_t *ini = json_object_get(root, "initial");
    if (json_is_object(ini)) {
        const char *preset = json_string_value(json_object_get(ini, "preset"));
        int found = 0;
        for (int h = 0; preset && h < RUL_HC_NB; h++)
            if (!strcmp(preset, presets[h])) {
                rul_handicap_info_t info;
                rul_handicap_info((rul_handicap_t)h, &info);
                rec_kifu_set_start(k, info.sfen);
                found = 1;
            }
        json_t *data = json_object_get(ini, "data");
        if (!found && json_is_object(data)) {
            rul_pos_t p;
            rul_pos_clear(&p);
            json_t *board = json_object_get(data, "board");
            if (json_array_size(board) != 9) {
                rec_kx_err(err, 0, 0, "jkf: initial board is not 9 columns");
                rc = REC_KIFU_EPARSE;
                goto out;
            }
            for (int x = 1; x <= 9; x++) {
                json_t *colv = json_array_get(board, (size_t)x - 1);
                for (int y = 1; y <= 9; y++) {
                    json_t *c = json_array_get(colv, (size_t)y - 1);
                    const char *kind = json_string_value(json_object_get(c, "kind"));
                    if (!kind)
                        continue;
                    rul_type_t t = rec_kx_csa_piece_parse(kind);
                    if (!t) {
                        rec_kx_err(err, 0, 0, "jkf: bad piece kind '%s' on the initial board", kind);
                        rc = REC_KIFU_EPARSE;
                        goto out;
                    }
                    rul_pos_set_piece(&p, RUL_SQ(x, y),
                                      RUL_PIECE(json_integer_value(json_object_get(c, "color")) != 0, t));
                }
            }
            json_t *hands = json_object_get(data, "hands");
            for (int c = 0; c < 2; c++) {
                json_object_foreach(json_array_get(hands, (size_t)c), key, v) {
                    rul_type_t t = rec_kx_csa_piece_parse(key);
                    json_int_t n = json_integer_value(v);
                    if (t >= RUL_PAWN && t <= RUL_GOLD && n >= 0 && n <= 18)
                        rul_pos_set_hand(&p, (rul_color_t)c, t, (int)n);
                }
            }
            p.side = (uint8_t)(json_integer_value(json_object_get(data, "color")) != 0);
            rul_pos_rehash(&p);
            char sfen[160];
            rul_pos_to_sfen(&p, sfen, sizeof sfen);
            if (rec_kifu_set_start(k, sfen)) {
                rec_kx_err(err, 0, 0, "jkf: bad initial position");
                rc = REC_KIFU_EPARSE;
                goto out;
            }
        } else if (!found && preset && strcmp(preset, "OTHER")) {
            rec_kifu_warn(k, 0, 0, "jkf: unknown preset '%s': normal start", preset);
        }
    }
    json_t *moves = json_object_get(root, "moves");
    if (!json_is_array(moves)) {
        rec_kx_err(err, 0, 0, "jkf: no moves array");
        rc = REC_KIFU_EPARSE;
        goto out;
    }
    rul_pos_t pos;
    rul_pos_from_sfen(&pos, k->start_sfen, NULL);
    rc = read_moves(k, 0, moves, 0, pos, -1, err, 0);
out:
    json_decref(root);
    return rc;
}

/* ---------------------------------------------------------------- writing */
static json_t *time_obj(int64_t ms, int with_h) {
    int64_t s = ms / 1000;
    json_t *o = json_object();
    if (with_h)
        json_object_set_new(o, "h", json_integer((json_int_t)(s / 3600)));
    json_object_set_new(o, "m", json_integer((json_int_t)(with_h ? (s / 60) % 60 : s / 60)));
    json_object_set_new(o, "s", json_integer((json_int_t)(s % 60)));
    return o;
}

static json_t *comments(const char *c) {
    json_t *a = json_array();
    while (c) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        json_array_append_new(a, json_stringn(c, n));
        c = nl ? nl + 1 : NULL;
    }
    return a;
}

static int write_moves(const rec_kifu_t *k, int l, json_t *arr, rec_kifu_error_t *err, int depth);

/* The destination of the move before ply `ply` of line l, from the parent chain; -1 if none. */
static int prev_dest(const rec_kifu_t *k, int l, int ply) {
    for (int line = l; line >= 0; line = k->lines[line].parent) {
        const rec_kifu_line_t *P = &k->lines[line];
        if (ply >= P->start_ply && ply < P->start_ply + P->nmoves)
            return RUL_MOVE_TO(P->moves[ply - P->start_ply].move);
    }
    return -1;
}

/* The "move" object of m, played in pos (prev_to: the previous move's destination, for "same"). */
static json_t *move_obj(const rul_pos_t *pos, rul_move_t m, int prev_to) {
    json_t *mo = json_object();
    int to = RUL_MOVE_TO(m);
    rul_type_t t = rec_kx_move_type(pos, m);
    json_object_set_new(mo, "color", json_integer(pos->side));
    if (!RUL_MOVE_IS_DROP(m)) {
        int f = RUL_MOVE_FROM(m);
        json_object_set_new(mo, "from", json_pack("{s:i,s:i}", "x", RUL_SQ_FILE(f), "y", RUL_SQ_RANK(f)));
    }
    json_object_set_new(mo, "to", json_pack("{s:i,s:i}", "x", RUL_SQ_FILE(to), "y", RUL_SQ_RANK(to)));
    json_object_set_new(mo, "piece", json_string(rec_kx_csa_piece[t]));
    if (to == prev_to)
        json_object_set_new(mo, "same", json_true());
    if (!RUL_MOVE_IS_DROP(m)) {
        rul_piece_t cap = rul_pos_piece_at(pos, to);
        if (cap != RUL_PIECE_NONE)
            json_object_set_new(mo, "capture", json_string(rec_kx_csa_piece[RUL_PIECE_TYPE(cap)]));
        if (RUL_MOVE_IS_PROMO(m))
            json_object_set_new(mo, "promote", json_true());
        else if (t <= RUL_ROOK && t != RUL_GOLD && rul_is_legal(pos, RUL_MOVE_MAKE(RUL_MOVE_FROM(m), to, 1)))
            json_object_set_new(mo, "promote", json_false());
    }
    return mo;
}

/* The line's ending as a "special" entry appended to arr (pos: the position it ends in). */
static void write_special(const rec_kifu_line_t *L, int l, const rul_pos_t *pos, json_t *arr) {
    const char *w = NULL;
    char ia[20];
    if (L->end == REC_END_ILLEGAL_WIN || L->end == REC_END_ILLEGAL_LOSS) {
        int actor = L->end == REC_END_ILLEGAL_WIN ? !pos->side : pos->side;
        snprintf(ia, sizeof ia, "%cILLEGAL_ACTION", actor ? '-' : '+');
        w = ia;
    } else
        for (size_t j = 0; j < sizeof specials / sizeof specials[0]; j++)
            if (specials[j].e == L->end) {
                w = specials[j].w;
                break;
            }
    if (w) {
        json_t *e = json_pack("{s:s}", "special", w);
        if (l > 0 && L->nmoves == 0 && L->comment)
            json_object_set_new(e, "comments", comments(L->comment));
        if (L->end_time_ms != REC_TIME_NONE) {
            json_t *tm = json_object();
            json_object_set_new(tm, "now", time_obj(L->end_time_ms, 0));
            json_object_set_new(e, "time", tm);
        }
        json_array_append_new(arr, e);
    }
}

/* The forks at ply `ply` of line l (the lines branching there) as the "forks" of entry e. */
static int write_forks(const rec_kifu_t *k, int l, int ply, json_t *e, rec_kifu_error_t *err, int depth) {
    json_t *forks = NULL;
    for (int c = 1; c < k->nlines; c++) {
        if (k->lines[c].parent != l || k->lines[c].start_ply != ply)
            continue;
        if (!forks)
            forks = json_array();
        json_t *fa = json_array();
        int rc = write_moves(k, c, fa, err, depth + 1);
        json_array_append_new(forks, fa);
        if (rc) {
            json_decref(forks);
            return rc;
        }
    }
    if (forks)
        json_object_set_new(e, "forks", forks);
    return REC_KIFU_OK;
}

static int write_moves(const rec_kifu_t *k, int l, json_t *arr, rec_kifu_error_t *err, int depth) {
    const rec_kifu_line_t *L = &k->lines[l];
    rul_pos_t pos;
    if (depth > 64 || rec_kifu_position_at(k, l, L->start_ply, &pos)) {
        rec_kx_err(err, 0, 0, "jkf: line %d: cannot rebuild its position", l);
        return REC_KIFU_EMOVE;
    }
    int prev_to = L->start_ply > 1 ? prev_dest(k, l, L->start_ply - 1) : -1;
    for (int i = 0; i < L->nmoves; i++) {
        const rec_kifu_move_t *mv = &L->moves[i];
        rul_move_t m = mv->move;
        if (!rec_kx_move_playable(&pos, m)) {
            rec_kx_err(err, 0, 0, "jkf: move %d cannot be written", L->start_ply + i);
            return REC_KIFU_EMOVE;
        }
        json_t *e = json_object();
        json_object_set_new(e, "move", move_obj(&pos, m, prev_to));
        if (mv->time_ms != REC_TIME_NONE) {
            json_t *tm = json_object();
            json_object_set_new(tm, "now", time_obj(mv->time_ms, 0));
            json_object_set_new(tm, "total", time_obj(mv->total_ms == REC_TIME_NONE ? 0 : mv->total_ms, 1));
            json_object_set_new(e, "time", tm);
        }
        if (mv->comment)
            json_object_set_new(e, "comments", comments(mv->comment));
        int rc = write_forks(k, l, L->start_ply + i, e, err, depth);
        if (rc) {
            json_decref(e);
            return rc;
        }
        json_array_append_new(arr, e);
        rul_undo_t u;
        rul_pos_do_move(&pos, m, &u);
        prev_to = RUL_MOVE_TO(m);
    }
    if (L->end != REC_END_NONE)
        write_special(L, l, &pos, arr);
    return REC_KIFU_OK;
}

int rec_kx_write_jkf(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err) {
    rul_pos_t pos;
    rul_error_t e;
    if (rul_pos_from_sfen(&pos, k->start_sfen, &e)) {
        rec_kx_err(err, 0, 0, "bad start position: %s", e.msg);
        return REC_KIFU_EPARSE;
    }
    json_t *root = json_object(), *hdr = json_object(), *moves = json_array();
    for (int i = 0; i < k->nheaders; i++)
        json_object_set_new(hdr, k->headers[i].key, json_string(k->headers[i].value));
    json_object_set_new(root, "header", hdr);
    json_t *ini = json_object();
    if (k->handicap >= 0) {
        json_object_set_new(ini, "preset", json_string(presets[k->handicap]));
    } else {
        json_object_set_new(ini, "preset", json_string("OTHER"));
        json_t *data = json_object(), *board = json_array(), *hands = json_array();
        json_object_set_new(data, "color", json_integer(pos.side));
        for (int x = 1; x <= 9; x++) {
            json_t *colv = json_array();
            for (int y = 1; y <= 9; y++) {
                rul_piece_t pc = rul_pos_piece_at(&pos, RUL_SQ(x, y));
                if (pc == RUL_PIECE_NONE)
                    json_array_append_new(colv, json_object());
                else
                    json_array_append_new(colv, json_pack("{s:i,s:s}", "color", RUL_PIECE_COLOR(pc), "kind",
                                                          rec_kx_csa_piece[RUL_PIECE_TYPE(pc)]));
            }
            json_array_append_new(board, colv);
        }
        for (int c = 0; c < 2; c++) {
            json_t *h = json_object();
            for (int t = RUL_PAWN; t <= RUL_GOLD; t++)
                json_object_set_new(h, rec_kx_csa_piece[t],
                                    json_integer(rul_pos_hand(&pos, (rul_color_t)c, (rul_type_t)t)));
            json_array_append_new(hands, h);
        }
        json_object_set_new(data, "board", board);
        json_object_set_new(data, "hands", hands);
        json_object_set_new(ini, "data", data);
    }
    json_object_set_new(root, "initial", ini);
    json_t *first = json_object();
    if (k->comment)
        json_object_set_new(first, "comments", comments(k->comment));
    json_array_append_new(moves, first);
    int rc = write_moves(k, 0, moves, err, 0);
    json_object_set_new(root, "moves", moves);
    if (rc == REC_KIFU_OK) {
        char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII * 0);
        if (!s)
            rc = REC_KIFU_ENOMEM;
        else {
            rec_kx_sb_puts(sb, s);
            rec_kx_sb_puts(sb, "\n");
            free(s);
        }
    }
    json_decref(root);
    return rc;
}
