/* view.c - observations and the view: the stable frames of one view averaged, and how well a
 * position fits it (log likelihood, deficit, the cost of a candidate). */
#include "recorder/tracker/tracker_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- observations */

void rec_obs_clear(rec_obs_t *obs) {
    memset(obs, 0, sizeof *obs);
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        obs->sq_prob[sq][0] = 1.0f;
}

void rec_obs_from_pos(rec_obs_t *obs, const rul_pos_t *pos) {
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        memset(obs->sq_prob[sq], 0, sizeof obs->sq_prob[sq]);
        obs->sq_prob[sq][REC_OBS_CLASS(rul_pos_piece_at(pos, sq))] = 1.0f;
        obs->sq_unknown[sq] = 0;
    }
    memset(obs->hand_prob, 0, sizeof obs->hand_prob);
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int n = pos->hand[c][k];
            obs->hand_prob[c][k][n < REC_OBS_COUNT_NB ? n : REC_OBS_COUNT_NB - 1] = 1.0f;
        }
        obs->hand_known[c] = 1;
    }
}

/* ---------------------------------------------------------------- the view */

/* A run too short to be read (a board seen for a frame or two between hands) says nothing of the
 * moves made around it: the time since the last view read goes on counting (gap_us), so moves made
 * while the board was hidden before it and after it are one hidden sequence. */
void rec_trk_run_reset(rec_trk_t *t) {
    if (t->run.frames > 0) {
        memcpy(t->run.ref_prev, t->run.ref_cur, sizeof t->run.ref_prev);
        if (!t->run.read)
            t->run.stable_end_ts = t->run.prev_end_ts;
    }
    t->run.frames = 0;
}

void rec_trk_run_add(rec_trk_t *t, const rec_obs_t *o) {
    if (t->run.frames == 0) {
        memset(t->run.acc, 0, sizeof t->run.acc);
        memset(t->run.acc_n, 0, sizeof t->run.acc_n);
        memset(t->run.hacc, 0, sizeof t->run.hacc);
        memset(t->run.hacc_n, 0, sizeof t->run.hacc_n);
        t->run.start_ts = o->ts_us;
        t->read.deep_next_ts = INT64_MIN;
        t->read.deep_hit = 0;
        t->run.gap_us = t->run.stable_end_ts >= 0 ? o->ts_us - t->run.stable_end_ts : INT64_MAX;
        t->run.prev_end_ts = t->run.stable_end_ts;
        t->run.read = 0;
    }
    t->run.stable_end_ts = o->ts_us;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (o->sq_unknown[sq])
            continue;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            t->run.acc[sq][c] += o->sq_prob[sq][c];
        t->run.acc_n[sq]++;
    }
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        if (!o->hand_known[c])
            continue;
        for (int k = 0; k < RUL_HAND_NB; k++)
            for (int n = 0; n < REC_OBS_COUNT_NB; n++)
                t->run.hacc[c][k][n] += o->hand_prob[c][k][n];
        t->run.hacc_n[c]++;
    }
    t->run.frames++;
    snprintf(t->run.ref_cur, sizeof t->run.ref_cur, "%s", o->evidence_ref ? o->evidence_ref : "");
}

/* 1 if o shows, with confidence, a class on some square that the run so far rules out: the view
 * changed without a non-stable frame in between (vision missed the hand), so a new run starts. */
int rec_trk_run_jump(const rec_trk_t *t, const rec_obs_t *o) {
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (o->sq_unknown[sq] || t->run.acc_n[sq] == 0)
            continue;
        int a = 0;
        for (int c = 1; c < REC_OBS_CLASS_NB; c++)
            if (o->sq_prob[sq][c] > o->sq_prob[sq][a])
                a = c;
        if (o->sq_prob[sq][a] > 0.8f && t->run.acc[sq][a] / (float)t->run.acc_n[sq] < 0.2f)
            return 1;
    }
    return 0;
}

void rec_trk_view_build(rec_trk_t *t) {
    view_t *v = &t->view;
    const float floor_p = (float)t->p.prob_floor;
    v->best = 0;
    v->hbest = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        v->known[sq] = t->run.acc_n[sq] > 0;
        if (!v->known[sq])
            continue;
        float mx = -1e30f, sum = 0;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            sum += t->run.acc[sq][c];
        if (sum <= 0)
            sum = 1;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++) {
            float p = t->run.acc[sq][c] / sum;
            v->avg[sq][c] = p;
            v->lp[sq][c] = logf(p > floor_p ? p : floor_p);
            if (v->lp[sq][c] > mx)
                mx = v->lp[sq][c];
        }
        v->best += mx;
    }
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        v->hknown[c] = t->run.hacc_n[c] > 0;
        if (!v->hknown[c])
            continue;
        for (int k = 0; k < RUL_HAND_NB; k++) {
            float mx = -1e30f, sum = 0;
            for (int n = 0; n < REC_OBS_COUNT_NB; n++)
                sum += t->run.hacc[c][k][n];
            if (sum <= 0)
                sum = 1;
            for (int n = 0; n < REC_OBS_COUNT_NB; n++) {
                float p = t->run.hacc[c][k][n] / sum;
                v->hlp[c][k][n] = logf(p > floor_p ? p : floor_p);
                if (v->hlp[c][k][n] > mx)
                    mx = v->hlp[c][k][n];
            }
            v->best += mx;
            v->hbest += mx;
        }
    }
}

/* Forgets the komadai of the view (as if they were not read). */
void rec_trk_view_drop_hands(view_t *v) {
    v->best -= v->hbest;
    v->hbest = 0;
    v->hknown[RUL_SENTE] = v->hknown[RUL_GOTE] = 0;
}

/* The most probable class of square sq in view v. */
int rec_trk_view_argmax(const view_t *v, int sq) {
    int seen = 0;
    for (int c = 1; c < REC_OBS_CLASS_NB; c++)
        if (v->avg[sq][c] > v->avg[sq][seen])
            seen = c;
    return seen;
}

/* The class under which square sq of pos is scored: pos's class, or, on a square of the start that the
 * classifier misreads (t->setup.mis_*) and still reads the same way with the start's piece on it, the class
 * it is read as. t may be NULL (no misreads). */
int rec_trk_scored_class(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos, int sq) {
    int c = REC_OBS_CLASS(rul_pos_piece_at(pos, sq));
    if (t && t->setup.mis_want[sq] >= 0 && c == t->setup.mis_want[sq] &&
        rec_trk_view_argmax(v, sq) == t->setup.mis_seen[sq])
        return t->setup.mis_seen[sq];
    return c;
}

/* The komadai's part of rec_trk_view_loglik: log p of pos's hand counts on the stands that were read. */
double rec_trk_hands_loglik(const view_t *v, const rul_pos_t *pos) {
    double s = 0;
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        if (!v->hknown[c])
            continue;
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int n = pos->hand[c][k];
            s += v->hlp[c][k][n < REC_OBS_COUNT_NB ? n : REC_OBS_COUNT_NB - 1];
        }
    }
    return s;
}

double rec_trk_view_loglik(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos) {
    double s = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        if (v->known[sq])
            s += v->lp[sq][rec_trk_scored_class(t, v, pos, sq)];
    return s + rec_trk_hands_loglik(v, pos);
}

float rec_trk_channel_prob(const view_t *v, int sq, int c) {
    int lo = c == 0 ? 0 : c <= 14 ? 1 : 15, hi = c == 0 ? 0 : c <= 14 ? 14 : 28;
    float p = 0;
    for (int k = lo; k <= hi; k++)
        p += v->avg[sq][k];
    return p;
}

int rec_trk_view_disagrees(const rec_trk_t *t, const view_t *v, const rul_pos_t *pos) {
    int n = 0;
    if (t->p.agree_min <= 0)
        return 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        if (v->known[sq] &&
            rec_trk_channel_prob(v, sq, rec_trk_scored_class(t, v, pos, sq)) < (float)t->p.agree_min)
            n++;
    return n;
}

/* Squares where pos's class has less than changed_prob in the view: in[sq] = 1. Returns how many. */
int rec_trk_changed_squares(const rec_trk_t *t, const rul_pos_t *pos, uint8_t in[RUL_SQ_NB]) {
    int n = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        in[sq] = 0;
        if (!t->view.known[sq])
            continue;
        if (t->view.avg[sq][rec_trk_scored_class(t, &t->view, pos, sq)] < (float)t->p.changed_prob) {
            in[sq] = 1;
            n++;
        }
    }
    return n;
}

/* 1 when the piece board move m moves from pos may or must promote there (FESA 3.2, 3.3: it starts or
 * ends in the mover's promotion zone, the far three ranks): only then does the kind its new square is
 * read as tell moves apart (a promotion, or its illegal omission). */
int rec_trk_promotion_choice(const rul_pos_t *pos, rul_move_t m) {
    if (RUL_MOVE_IS_DROP(m))
        return 0;
    rul_piece_t pc = rul_pos_piece_at(pos, RUL_MOVE_FROM(m));
    int ty = RUL_PIECE_TYPE(pc), gote = RUL_PIECE_COLOR(pc) == RUL_GOTE;
    if (pc == RUL_PIECE_NONE || ty >= RUL_GOLD)
        return 0;
    int rf = RUL_SQ_RANK(RUL_MOVE_FROM(m)), rt = RUL_SQ_RANK(RUL_MOVE_TO(m));
    return gote ? (rf >= 7 || rt >= 7) : (rf <= 3 || rt <= 3);
}

/* c's moves played from before, once: returns how many of them leave a pawn, bishop or rook that
 * could promote unpromoted; free_sq[sq] = 1 where a legal candidate's board move brings a piece that
 * could not promote (moved_kind_free), 0 elsewhere. */
static int walk_moves(const rec_trk_cand_t *c, const rul_pos_t *before, uint8_t free_sq[RUL_SQ_NB]) {
    memset(free_sq, 0, RUL_SQ_NB);
    if (before == NULL || c->nmoves == 0)
        return 0;
    rul_pos_t q = *before;
    int n = 0;
    for (int i = 0; i < c->nmoves; i++) {
        rul_move_t m = c->moves[i];
        int choice = rec_trk_promotion_choice(&q, m),
            ty = RUL_PIECE_TYPE(rul_pos_piece_at(&q, RUL_MOVE_FROM(m)));
        n += choice && !RUL_MOVE_IS_PROMO(m) && (ty == RUL_PAWN || ty == RUL_BISHOP || ty == RUL_ROOK);
        free_sq[RUL_MOVE_TO(m)] = c->kind == REC_CAND_LEGAL && !RUL_MOVE_IS_DROP(m) && !choice;
        if (i + 1 < c->nmoves) {
            rul_undo_t u;
            rul_pos_do_move(&q, m, &u);
        }
    }
    return n;
}

/* Kinds second: a piece moved on the board keeps its kind (or promotes), so on the square it moves
 * to the view's kind read tells nothing when it could not promote: each such square of after
 * (free_sq, walk_moves) is scored as the view's best reading of a piece of its side (its occupancy
 * and owner alone). Returns the log-likelihood to add. */
static double moved_kind_free(const rec_trk_t *t, const uint8_t free_sq[RUL_SQ_NB], const rul_pos_t *after) {
    double add = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!free_sq[sq] || !t->view.known[sq])
            continue;
        int cls = rec_trk_scored_class(t, &t->view, after, sq), lo = cls <= 14 ? 1 : 15;
        float best = t->view.lp[sq][cls];
        for (int k = lo; cls != 0 && k < lo + 14; k++)
            best = t->view.lp[sq][k] > best ? t->view.lp[sq][k] : best;
        add += best - t->view.lp[sq][cls];
    }
    return add;
}

/* Scores candidate c (moves played from before, NULL for "no move") on the position after it. */
void rec_trk_cand_score(const rec_trk_t *t, rec_trk_cand_t *c, const rul_pos_t *before,
                        const rul_pos_t *after) {
    uint8_t free_sq[RUL_SQ_NB];
    int forgone = walk_moves(c, before, free_sq);
    c->loglik = rec_trk_view_loglik(t, &t->view, after) + moved_kind_free(t, free_sq, after);
    c->deficit = t->view.best - c->loglik;
    if (c->deficit < 0)
        c->deficit = 0;
    /* precision first: a position the view contradicts in occupancy or owner never fits */
    c->deficit += rec_trk_view_disagrees(t, &t->view, after) * (t->p.fit_max + t->p.margin);
    c->cost =
        c->deficit + t->p.seq_penalty * (c->nmoves > 1 ? c->nmoves - 1 : 0) + t->p.nopromo_penalty * forgone;
    c->key = after->key;
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the 81 squares */
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        h = (h ^ rul_pos_piece_at(after, sq)) * 1099511628211ull;
    c->board_key = h;
}
