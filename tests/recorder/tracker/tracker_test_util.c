/* tracker_test_util.c - synthetic observation streams from real games (see tracker_test_util.h). */
#include "tests/recorder/tracker/tracker_test_util.h"

#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu.h"

/* ---------------------------------------------------------------- games */

static void count_legal(tt_game_t *g) {
    rul_pos_t p;
    rul_undo_t u;
    rul_pos_from_sfen(&p, g->start_sfen, NULL);
    g->nlegal = 0;
    while (g->nlegal < g->nmoves && rul_is_legal(&p, g->moves[g->nlegal])) {
        rul_pos_do_move(&p, g->moves[g->nlegal], &u);
        g->nlegal++;
    }
}

int tt_game_from_usi(tt_game_t *g, const char *usi) {
    const char *m = strstr(usi, " moves ");
    const char *s = strstr(usi, "startpos");
    memset(g, 0, sizeof *g);
    if (s && (!m || s < m)) {
        snprintf(g->start_sfen, sizeof g->start_sfen, "%s", RUL_SFEN_STARTPOS);
    } else {
        s = strstr(usi, "sfen ");
        if (!s)
            return -1;
        size_t n = m ? (size_t)(m - (s + 5)) : strlen(s + 5);
        if (n >= sizeof g->start_sfen)
            return -1;
        memcpy(g->start_sfen, s + 5, n);
        g->start_sfen[n] = '\0';
    }
    if (m) {
        char buf[8192], *save = NULL;
        snprintf(buf, sizeof buf, "%s", m + 7);
        for (char *w = strtok_r(buf, " \n", &save); w && g->nmoves < TT_MAX_MOVES;
             w = strtok_r(NULL, " \n", &save)) {
            if (rul_move_from_usi(w, &g->moves[g->nmoves], NULL) != RUL_OK)
                return -1;
            g->nmoves++;
        }
    }
    count_legal(g);
    return 0;
}

int tt_game_from_file(tt_game_t *g, const char *path) {
    rec_kifu_t *k = NULL;
    memset(g, 0, sizeof *g);
    if (rec_kifu_read_file(path, REC_FMT_UNKNOWN, &k, NULL) != REC_KIFU_OK)
        return -1;
    snprintf(g->start_sfen, sizeof g->start_sfen, "%s", k->start_sfen);
    for (int i = 0; i < k->lines[0].nmoves && g->nmoves < TT_MAX_MOVES; i++)
        g->moves[g->nmoves++] = k->lines[0].moves[i].move;
    rec_kifu_free(k);
    count_legal(g);
    return 0;
}

/* ---------------------------------------------------------------- randomness (xorshift64*) */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

static double rng_unit(rng_t *r) { return (double)(rng_next(r) >> 11) / 9007199254740992.0; }
static int rng_int(rng_t *r, int n) { return (int)(rng_unit(r) * n); }

/* ---------------------------------------------------------------- observations */

/* A class vision may confuse with cls: the same piece of the other side, its promoted or unpromoted
 * face, an empty square (a piece for an empty square). */
static int confusable(rng_t *r, int cls) {
    if (cls == 0)
        return 1 + rng_int(r, 28);
    int gote = cls > 14, ty = gote ? cls - 14 : cls;
    switch (rng_int(r, 3)) {
    case 0: return gote ? ty : ty + 14;
    case 1:
        if (ty <= RUL_ROOK)
            return cls + 8;
        if (ty >= RUL_PRO_PAWN)
            return cls - 8;
        return 0;
    default: return 0;
    }
}

static void square_probs(rng_t *r, float *row, int cls, int noise) {
    memset(row, 0, sizeof(float) * REC_OBS_CLASS_NB);
    if (!noise) {
        row[cls] = 1.0f;
        return;
    }
    double u = rng_unit(r), pt, pc;
    if (u < 0.02) { /* a hard square: the true class barely ahead */
        pt = 0.5;
        pc = 0.4;
    } else {
        pt = 0.75 + 0.2 * rng_unit(r);
        pc = 0.6 * (1 - pt);
    }
    double rest = (1 - pt - pc) / REC_OBS_CLASS_NB;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        row[c] = (float)rest;
    row[cls] += (float)pt;
    row[confusable(r, cls)] += (float)pc;
}

static void make_obs(rng_t *r, rec_obs_t *o, const rul_pos_t *pos, int noise) {
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        square_probs(r, o->sq_prob[sq], REC_OBS_CLASS(rul_pos_piece_at(pos, sq)), noise);
        o->sq_unknown[sq] = noise && rng_unit(r) < 0.01;
    }
    memset(o->hand_prob, 0, sizeof o->hand_prob);
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        o->hand_known[c] = !(noise && rng_unit(r) < 0.05);
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int n = pos->hand[c][k];
            if (!noise) {
                o->hand_prob[c][k][n] = 1.0f;
                continue;
            }
            o->hand_prob[c][k][n] = 0.85f;
            o->hand_prob[c][k][n > 0 ? n - 1 : n + 1] += 0.075f;
            o->hand_prob[c][k][n < REC_OBS_COUNT_NB - 1 ? n + 1 : n - 1] += 0.075f;
        }
    }
}

/* A square whose piece can be pushed half onto the next (empty) square of its file; -1 if none. */
static int pick_nudge(rng_t *r, const rul_pos_t *pos) {
    for (int tries = 0; tries < 200; tries++) {
        int sq = rng_int(r, RUL_SQ_NB);
        int nb = RUL_SQ_RANK(sq) < 9 ? sq + 1 : sq - 1;
        if (rul_pos_piece_at(pos, sq) != RUL_PIECE_NONE && rul_pos_piece_at(pos, nb) == RUL_PIECE_NONE)
            return sq;
    }
    return -1;
}

/* The piece on sq half pushed onto the next square: both squares unsure (FESA 9.2). */
static void nudge(rec_obs_t *o, const rul_pos_t *pos, int sq) {
    int nb = RUL_SQ_RANK(sq) < 9 ? sq + 1 : sq - 1;
    int cls = REC_OBS_CLASS(rul_pos_piece_at(pos, sq));
    memset(o->sq_prob[sq], 0, sizeof o->sq_prob[sq]);
    memset(o->sq_prob[nb], 0, sizeof o->sq_prob[nb]);
    o->sq_prob[sq][cls] = 0.55f;
    o->sq_prob[sq][0] = 0.45f;
    o->sq_prob[nb][cls] = 0.4f;
    o->sq_prob[nb][0] = 0.6f;
    o->sq_unknown[sq] = o->sq_unknown[nb] = 0;
}

/* ---------------------------------------------------------------- streams */

/* 1 if the k moves from move m on (position *pos before them) each start or end on a square that
 * differs between the views before and after them: the tracker can find them. A piece that goes and
 * comes back while the board is hidden leaves no trace, and no recorder can tell. */
static int detectable(const tt_game_t *g, int m, int k, const rul_pos_t *pos) {
    rul_pos_t q = *pos;
    rul_undo_t u;
    for (int i = 0; i < k; i++)
        rul_pos_do_move(&q, g->moves[m + i], &u);
    for (int i = 0; i < k; i++) {
        rul_move_t mv = g->moves[m + i];
        int to = RUL_MOVE_TO(mv), from = RUL_MOVE_IS_DROP(mv) ? to : RUL_MOVE_FROM(mv);
        if (rul_pos_piece_at(pos, to) == rul_pos_piece_at(&q, to) &&
            rul_pos_piece_at(pos, from) == rul_pos_piece_at(&q, from))
            return 0;
    }
    return 1;
}

void tt_stream_params_default(tt_stream_params_t *sp) {
    memset(sp, 0, sizeof *sp);
    sp->seed = 1;
    sp->noise = 1;
    sp->blackout_rate = 0.04;
    sp->blackout_min = 2;
    sp->blackout_max = 3;
    sp->nudge = 1;
    sp->stable_frames = 3;
    sp->think_frames = 2;
    sp->end_frames = 25;
}

void tt_result_add(tt_result_t *s, const tt_result_t *r) {
    s->right += r->right;
    s->wrong += r->wrong;
    s->skipped += r->skipped;
    s->missing += r->missing;
    s->uncertain += r->uncertain;
    s->illegal += r->illegal;
    s->blackouts += r->blackouts;
    s->hidden_moves += r->hidden_moves;
    s->nudges += r->nudges;
    s->frames += r->frames;
    s->game_starts += r->game_starts;
    s->setup_errors += r->setup_errors;
}

/* The first ply p >= from of g whose position (board, hands, side to move) is sfen's; -1 if none. */
static int game_ply_of(const tt_game_t *g, const char *sfen, int from) {
    rul_pos_t want, pos;
    rul_undo_t u;
    if (rul_pos_from_sfen(&want, sfen, NULL) != RUL_OK ||
        rul_pos_from_sfen(&pos, g->start_sfen, NULL) != RUL_OK)
        return -1;
    for (int p = 0; p <= g->nlegal; p++) {
        if (p >= from && rul_pos_same(&pos, &want))
            return p;
        if (p < g->nlegal)
            rul_pos_do_move(&pos, g->moves[p], &u);
    }
    return -1;
}

/* Game `game` and the games that take it up (game_start with `continues`), one after another: a
 * continuation's ply k is the game's ply base + k, base the ply of the game whose position it starts
 * from. The game's moves between a stop and its take-up are skipped; a take-up from no position of
 * the game makes each of its moves wrong. */
void tt_compare(const tt_game_t *g, const rec_trk_t *t, int game, tt_result_t *r) {
    int matched = 0, cur = game, base = 0, last = 0, due = g->nlegal;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type == REC_TEV_GAME_START && cur > 0 && e->continues == cur) {
            int from = base >= 0 ? base + last : 0, p = game_ply_of(g, e->sfen, from);
            r->skipped += p >= 0 ? p - from : 0;
            base = p;
            last = 0;
            cur = e->game;
            due = g->nlegal;
            continue;
        }
        if (e->game != cur)
            continue;
        switch (e->type) {
        case REC_TEV_MOVE:
            if (e->ply > last)
                last = e->ply;
            if (base >= 0 && e->ply >= 1 && base + e->ply <= g->nlegal &&
                e->move == g->moves[base + e->ply - 1]) {
                r->right++;
                matched++;
            } else {
                r->wrong++;
            }
            break;
        case REC_TEV_ILLEGAL: r->illegal++; break;
        case REC_TEV_UNCERTAIN: r->uncertain++; break;
        case REC_TEV_GAME_START: r->game_starts++; break;
        case REC_TEV_SETUP_ERROR: r->setup_errors++; break;
        /* moves after the tracker ended the game (a sennichite the record plays on from) are not due */
        case REC_TEV_GAME_END:
            if (base >= 0 && base + e->ply < due)
                due = base + e->ply;
            break;
        default: break;
        }
    }
    r->missing = due > matched + r->skipped ? due - matched - r->skipped : 0;
}

static void feed(const tt_stream_params_t *sp, rec_trk_t *t, rec_obs_t *o, int64_t *ts, int view,
                 tt_result_t *r) {
    o->ts_us = *ts;
    o->view = view;
    o->image = sp->image;
    *ts += 100000;
    rec_trk_feed(t, o, NULL);
    r->frames++;
    if (sp->after_feed)
        sp->after_feed(sp->user, t, o);
}

void tt_run(const tt_game_t *g, const tt_stream_params_t *sp, rec_trk_t **keep, tt_result_t *r) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rul_undo_t u;
    rng_t rng = {0x9E3779B97F4A7C15ull ^ ((uint64_t)sp->seed * 0xD1B54A32D192ED03ull)};
    rec_obs_t *o = calloc(1, sizeof *o);
    int64_t ts = 1000000;
    int standard = 0, hide = 0, shown_needed = 0, nudge_at = -1;

    memset(r, 0, sizeof *r);
    if (keep)
        *keep = NULL;
    rul_pos_from_sfen(&pos, g->start_sfen, NULL);
    for (int h = 0; h < RUL_HC_NB; h++) {
        rul_pos_t q;
        rul_pos_set_handicap(&q, (rul_handicap_t)h);
        standard |= rul_pos_same(&q, &pos);
    }
    if (rec_trk_create(sp->trk_params, standard ? NULL : &pos, &t) != REC_OK || o == NULL) {
        free(o);
        return;
    }
    if (sp->nudge && g->nmoves > 4)
        nudge_at = 2 + rng_int(&rng, g->nmoves - 4);
    for (int i = 0; i < sp->stable_frames; i++) {
        make_obs(&rng, o, &pos, sp->noise);
        feed(sp, t, o, &ts, REC_VIEW_STABLE, r);
    }
    for (int m = 0; m < g->nmoves; m++) {
        for (int i = 0; i < sp->think_frames; i++)
            feed(sp, t, o, &ts, REC_VIEW_HAND, r);
        /* a blackout hides moves m..m+k-1 (k = blackout_min..blackout_max) but never the last legal
         * moves, nor an illegal one */
        int k = sp->blackout_min + rng_int(&rng, sp->blackout_max - sp->blackout_min + 1); /* the next view
                                                                                           is k moves on */
        if (hide == 0 && !shown_needed && sp->blackout_rate > 0 && m + 4 < g->nlegal &&
            m + k + 1 < g->nlegal && rng_unit(&rng) < sp->blackout_rate && detectable(g, m, k, &pos)) {
            hide = k - 1; /* moves made blind, this one included */
            r->blackouts++;
            r->hidden_moves += k;
        }
        rul_pos_do_move(&pos, g->moves[m], &u);
        if (sp->lost_count > 0 && m >= sp->lost_from && m < sp->lost_from + sp->lost_count) {
            for (int i = 0; i < 10; i++)
                feed(sp, t, o, &ts, REC_VIEW_LOST, r);
            continue;
        }
        if (hide > 0) {
            hide--;
            shown_needed = hide == 0; /* the move after a blackout is seen */
            for (int i = 0; i < 10; i++)
                feed(sp, t, o, &ts, REC_VIEW_LOST, r);
            continue;
        }
        shown_needed = 0;
        int n = m == g->nmoves - 1 ? sp->end_frames : sp->stable_frames + (sp->noise ? rng_int(&rng, 3) : 0);
        int nsq = m == nudge_at ? pick_nudge(&rng, &pos) : -1;
        r->nudges += nsq >= 0;
        for (int i = 0; i < n; i++) {
            make_obs(&rng, o, &pos, sp->noise);
            if (nsq >= 0 && i >= 1)
                nudge(o, &pos, nsq);
            feed(sp, t, o, &ts, REC_VIEW_STABLE, r);
        }
    }
    if (g->nmoves == 0)
        for (int i = 0; i < sp->end_frames; i++) {
            make_obs(&rng, o, &pos, sp->noise);
            feed(sp, t, o, &ts, REC_VIEW_STABLE, r);
        }
    {
        tt_result_t c;
        memset(&c, 0, sizeof c);
        tt_compare(g, t, 1, &c);
        r->right = c.right;
        r->wrong = c.wrong;
        r->skipped = c.skipped;
        r->missing = c.missing;
        r->uncertain = c.uncertain;
        r->illegal = c.illegal;
        r->game_starts = c.game_starts;
        r->setup_errors = c.setup_errors;
    }
    free(o);
    if (keep)
        *keep = t;
    else
        rec_trk_destroy(t);
}
