/* beam.c - the beam of hypotheses: the candidates of a view over every hypothesis, ranked, the
 * rivals of the best, and the moves the hypotheses agree on written when a view ends. */
#include "recorder/tracker/tracker_internal.h"

#include <math.h>
#include <string.h>

/* Candidate i of the view over the beam as an event candidate: its first REC_TRK_MAX_SEQ moves since
 * the game's position, cost = total. */
void rec_trk_comb_cand(const rec_trk_t *t, const hyp_t *hs, int i, rec_trk_cand_t *out) {
    const comb_t *e = &t->expl.comb[i];
    const hyp_t *h = &hs[e->h];
    *out = e->c;
    out->nmoves = 0;
    for (int j = 0; j < h->n && out->nmoves < REC_TRK_MAX_SEQ; j++)
        out->moves[out->nmoves++] = h->st[j].move;
    for (int j = 0; j < e->c.nmoves && out->nmoves < REC_TRK_MAX_SEQ; j++)
        out->moves[out->nmoves++] = e->c.moves[j];
    out->cost = e->total;
}

/* Move k of hypothesis h followed by candidate c. */
static rul_move_t path_move(const hyp_t *h, const rec_trk_cand_t *c, int k) {
    return k < h->n ? h->st[k].move : c->moves[k - h->n];
}

/* First move (0-based) where the ways h then a and g then b differ, -1 when they are the same. */
static int path_diff(const hyp_t *h, const rec_trk_cand_t *a, const hyp_t *g, const rec_trk_cand_t *b) {
    int la = h->n + a->nmoves, lb = g->n + b->nmoves;
    for (int k = 0; k < la && k < lb; k++)
        if (path_move(h, a, k) != path_move(g, b, k))
            return k;
    return la == lb ? -1 : (la < lb ? la : lb);
}

/* Adds t->expl.cs, the candidates from hypothesis h (index hi), to the view's list with their totals. A
 * hypothesis seen again without a move is charged the worse of its last view's deficit and this
 * one's, not both: the same board seen twice is not twice the evidence. Two ways to the same position
 * keep the cheaper (nalt counts same-length others); when they come from two hypotheses within the
 * margin and differ in a move, amb_at says from which move on: no later view can tell them apart. */
void rec_trk_comb_add_cs(rec_trk_t *t, const hyp_t *hs, int hi, int ok) {
    const hyp_t *h = &hs[hi];
    for (int i = 0; i < t->expl.cs.n; i++) {
        const rec_trk_cand_t *c = &t->expl.cs.c[i];
        double total = c->kind == REC_CAND_NONE && h->stepped
                           ? h->cost - h->last_def + (c->deficit > h->last_def ? c->deficit : h->last_def)
                           : h->cost + c->cost;
        int len = h->n + c->nmoves, j;
        for (j = 0; j < t->expl.n; j++)
            if (t->expl.comb[j].c.key == c->key)
                break;
        int amb = -1;
        if (j < t->expl.n) {
            comb_t *o = &t->expl.comb[j];
            if (o->len == len && o->h != hi)
                o->nalt++;
            if (o->h != hi && fabs(total - o->total) < t->p.margin) {
                int d = path_diff(&hs[o->h], &o->c, h, c);
                if (d >= 0 && (o->amb_at < 0 || d < o->amb_at))
                    o->amb_at = d;
            }
            amb = o->amb_at;
            if (total >= o->total)
                continue;
        } else if (t->expl.n < COMB_CAP) {
            j = t->expl.n++;
            t->expl.comb[j].nalt = 0;
        } else {
            continue;
        }
        t->expl.comb[j].h = hi;
        t->expl.comb[j].ok = ok;
        t->expl.comb[j].len = len;
        t->expl.comb[j].total = total;
        t->expl.comb[j].c = *c;
        t->expl.comb[j].amb_at = amb;
        if (h->stepped == 0)
            t->expl.comb[j].nalt = t->expl.cs.nalt[i];
    }
}

void rec_trk_comb_sort(rec_trk_t *t) {
    for (int i = 1; i < t->expl.n; i++) {
        comb_t c = t->expl.comb[i];
        int j = i;
        while (j > 0 && (t->expl.comb[j - 1].total > c.total ||
                         (t->expl.comb[j - 1].total == c.total && t->expl.comb[j - 1].c.kind > c.c.kind))) {
            t->expl.comb[j] = t->expl.comb[j - 1];
            j--;
        }
        t->expl.comb[j] = c;
    }
}

/* 1 if candidate i of the view's list is as likely as the best one as far as the view can tell: within
 * the margin, or (a komadai not read) the very same board after a different number of moves, which
 * differs only in hands and turn (rec_trk_cs_margin_view says why), when it is behind only by what the extra
 * moves are charged (seq_penalty each): a lead won on earlier views is evidence, not a charge. */
int rec_trk_comb_rival(const rec_trk_t *t, int i) {
    const comb_t *b = &t->expl.comb[0], *e = &t->expl.comb[i];
    if (e->total - b->total < t->p.margin)
        return 1;
    int dlen = e->len > b->len ? e->len - b->len : b->len - e->len;
    return (!t->view.hknown[RUL_SENTE] || !t->view.hknown[RUL_GOTE]) && e->c.board_key == b->c.board_key &&
           dlen > 0 && e->c.kind == REC_CAND_LEGAL && b->c.kind == REC_CAND_LEGAL &&
           e->total - b->total < t->p.margin + t->p.seq_penalty * dlen;
}

/* hypothesis out = h followed by candidate c of the current view (cost total). 0, or -1 when it
 * would hold more than HYP_MAX moves. */
int rec_trk_hyp_extend(const rec_trk_t *t, const hyp_t *h, const comb_t *e, hyp_t *out) {
    if (e->len > HYP_MAX)
        return -1;
    *out = *h;
    const rec_trk_cand_t *c = &e->c;
    for (int i = 0; i < c->nmoves; i++) {
        rul_undo_t u;
        if (c->kind == REC_CAND_WRONG_SIDE) {
            out->pos.side ^= 1;
            rul_pos_rehash(&out->pos);
        }
        rul_pos_do_move(&out->pos, c->moves[i], &u);
    }
    rec_trk_cand_steps(t, c, e->nalt, &out->st[h->n]);
    for (int k = e->amb_at; k >= 0 && k < e->len; k++)
        out->st[k].merged = 1;
    out->n = e->len;
    out->last_def =
        c->kind == REC_CAND_NONE && h->stepped && h->last_def > c->deficit ? h->last_def : c->deficit;
    out->cost = e->total;
    out->stepped = 1;
    return 0;
}

/* The current view ends (a hand, a new view): when it was ambiguous, what it left becomes the beam,
 * costs counted from the best; the moves every hypothesis begins with are written (they are certain
 * whichever hypothesis is right). */
int rec_trk_beam_settle(rec_trk_t *t) {
    int rc = REC_OK, stop = 0, k;
    if (t->beam.npend == 0 || t->state != REC_TRK_PLAYING)
        return REC_OK;
    memcpy(t->beam.h, t->beam.pend, sizeof(hyp_t) * (size_t)t->beam.npend);
    t->beam.n = t->beam.npend;
    t->beam.npend = 0;
    double m = t->beam.h[0].cost;
    for (int i = 1; i < t->beam.n; i++)
        m = t->beam.h[i].cost < m ? t->beam.h[i].cost : m;
    for (int i = 0; i < t->beam.n; i++)
        t->beam.h[i].cost -= m;
    for (k = 0; k < t->beam.h[0].n; k++) {
        int same = 1;
        /* a step of a hidden sequence that other sequences also explain is only one way there:
         * the hypotheses agreeing on it say nothing of the others' */
        for (int i = 0; i < t->beam.n && same; i++)
            same = k < t->beam.h[i].n && t->beam.h[i].st[k].move == t->beam.h[0].st[k].move &&
                   t->beam.h[i].st[k].kind == t->beam.h[0].st[k].kind &&
                   !t->beam.h[i].st[k].order_ambiguous && !t->beam.h[i].st[k].merged;
        if (!same)
            break;
    }
    if (k == 0)
        return REC_OK;
    hyp_t *h0 = &t->beam.h[0];
    for (int i = 0; i < k && rc == REC_OK && !stop; i++)
        rc = rec_trk_commit_step(t, &h0->st[i], 0, NULL, 0, h0->st[i].ts != t->run.start_ts, t->run.ref_cur,
                                 &stop);
    if (t->state != REC_TRK_PLAYING || rc != REC_OK) {
        rec_trk_beam_clear(t);
        return rc;
    }
    for (int i = 0; i < t->beam.n; i++) {
        memmove(t->beam.h[i].st, t->beam.h[i].st + k, sizeof(step_t) * (size_t)(t->beam.h[i].n - k));
        t->beam.h[i].n -= k;
    }
    return REC_OK;
}
