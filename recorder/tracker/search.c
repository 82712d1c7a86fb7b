/* search.c - explanations of a view from one position: candidate sets, one legal move (stage one),
 * hidden sequences, the deep reading and illegal actions (stage two). */
#include "recorder/tracker/tracker_internal.h"

#include <limits.h>
#include <string.h>

/* ---------------------------------------------------------------- candidate sets */

void rec_trk_cs_clear(candset_t *cs) { cs->n = 0; }

void rec_trk_cs_add(candset_t *cs, const rec_trk_cand_t *c) {
    for (int i = 0; i < cs->n; i++) {
        if (cs->c[i].key != c->key)
            continue;
        if (cs->c[i].nmoves == c->nmoves && cs->c[i].kind == c->kind)
            cs->nalt[i]++;
        if (c->cost < cs->c[i].cost)
            cs->c[i] = *c;
        return;
    }
    if (cs->n < CS_CAP) {
        cs->nalt[cs->n] = 0;
        cs->c[cs->n++] = *c;
        return;
    }
    int worst = 0;
    for (int i = 1; i < cs->n; i++)
        if (cs->c[i].cost > cs->c[worst].cost)
            worst = i;
    if (c->cost < cs->c[worst].cost) {
        cs->c[worst] = *c;
        cs->nalt[worst] = 0;
    }
}

/* Sorts by cost (best first; ties keep the simpler kind first). */
void rec_trk_cs_sort(candset_t *cs) {
    for (int i = 1; i < cs->n; i++) {
        rec_trk_cand_t c = cs->c[i];
        int a = cs->nalt[i], j = i;
        while (j > 0 &&
               (cs->c[j - 1].cost > c.cost || (cs->c[j - 1].cost == c.cost && cs->c[j - 1].kind > c.kind))) {
            cs->c[j] = cs->c[j - 1];
            cs->nalt[j] = cs->nalt[j - 1];
            j--;
        }
        cs->c[j] = c;
        cs->nalt[j] = a;
    }
}

/* Margin of the best candidate over the runner-up (which reaches another position: one entry per
 * position). Large when there is no runner-up. When a komadai was not read, another explanation that
 * leaves the very same board with a different number of moves (a drop taken back at once: P*8e 8f8e
 * against 8f8e alone) differs from the best only in hands and whose turn it is, which the view cannot
 * show: the margin is then 0, so the tracker waits and says "uncertain" rather than pick the shorter
 * one and lose the turn order (it would later have to invent moves to get it back). */
double rec_trk_cs_margin_view(const candset_t *cs, const view_t *v) {
    if (cs->n == 0)
        return 0;
    if (cs->n == 1)
        return 1e9;
    if (!v->hknown[RUL_SENTE] || !v->hknown[RUL_GOTE])
        for (int i = 1; i < cs->n; i++)
            if (cs->c[i].board_key == cs->c[0].board_key && cs->c[i].nmoves != cs->c[0].nmoves &&
                cs->c[i].kind == REC_CAND_LEGAL && cs->c[0].kind == REC_CAND_LEGAL)
                return 0;
    return cs->c[1].cost - cs->c[0].cost;
}

/* 1 if move m starts or ends on a changed square. */
static int touches(rul_move_t m, const uint8_t in[RUL_SQ_NB]) {
    if (in[RUL_MOVE_TO(m)])
        return 1;
    return !RUL_MOVE_IS_DROP(m) && in[RUL_MOVE_FROM(m)];
}

/* A lower bound of the deficit (nats) of any position that r more moves can reach from pos: each move
 * changes what stands on at most 2 squares, so the squares still read wrong beyond the 2r worst stay
 * wrong. The komadai are left out (their part of a deficit is >= 0): the bound stays a bound. */
static double deficit_bound(const rec_trk_t *t, const rul_pos_t *pos, int r) {
    double top[2 * REC_TRK_MAX_SEQ] = {0}, sum = 0;
    int ntop = 2 * r < 2 * REC_TRK_MAX_SEQ ? 2 * r : 2 * REC_TRK_MAX_SEQ;
    const view_t *v = &t->view;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!v->known[sq])
            continue;
        float mx = v->lp[sq][0];
        for (int c = 1; c < REC_OBS_CLASS_NB; c++)
            if (v->lp[sq][c] > mx)
                mx = v->lp[sq][c];
        double d = mx - v->lp[sq][rec_trk_scored_class(t, v, pos, sq)];
        if (d <= 0)
            continue;
        sum += d;
        for (int i = 0; i < ntop; i++) /* keep the ntop largest, largest first */
            if (d > top[i]) {
                double x = top[i];
                top[i] = d;
                d = x;
            }
    }
    for (int i = 0; i < ntop; i++)
        sum -= top[i];
    return sum;
}

/* 1 if each side that moves in a sequence of n >= 2 moves from root to end leaves a trace on the board:
 * a square whose piece of that side is not what it was (a piece gone from it, come to it or another).
 * A hidden move the board cannot show (a drop captured later in the sequence, a piece moved and
 * moved back) is a story nothing on the board confirms (precision first). */
static int each_side_seen(const rul_pos_t *root, const rul_pos_t *end) {
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        int seen = 0;
        for (int sq = 0; sq < RUL_SQ_NB && !seen; sq++) {
            rul_piece_t a = rul_pos_piece_at(root, sq), b = rul_pos_piece_at(end, sq);
            int ca = a != RUL_PIECE_NONE && (int)RUL_PIECE_COLOR(a) == c;
            int cb = b != RUL_PIECE_NONE && (int)RUL_PIECE_COLOR(b) == c;
            seen = ca != cb || (ca && a != b);
        }
        if (!seen)
            return 0;
    }
    return 1;
}

/* 1 if both komadai of v were read and each count's likeliest value is pos's. */
static int hands_read_as(const view_t *v, const rul_pos_t *pos) {
    if (!v->hknown[RUL_SENTE] || !v->hknown[RUL_GOTE])
        return 0;
    for (int c = 0; c < RUL_COLOR_NB; c++)
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int best = 0;
            for (int n = 1; n < REC_OBS_COUNT_NB; n++)
                if (v->hlp[c][k][n] > v->hlp[c][k][best])
                    best = n;
            if (best != rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)(k + 1)))
                return 0;
        }
    return 1;
}

/* Legal sequences of mind..maxd moves from pos (reached from root by seq[0..depth-1]), every move
 * touching a changed square, added to t->expl.cs. prune (the deep reading): a branch is left as soon as
 * deficit_bound says that no position at its end can fit the view (fit_max). *budget counts the
 * positions visited down to 0, where the search stops (a view with many changed squares and drops). */
static void search_seq(rec_trk_t *t, const rul_pos_t *root, const rul_pos_t *pos, rul_move_t *seq, int depth,
                       int mind, int maxd, const uint8_t in[RUL_SQ_NB], int prune, long *budget) {
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    for (int i = 0; i<list.count && * budget> 0; i++) {
        rul_move_t m = list.moves[i];
        if (!touches(m, in))
            continue;
        rul_pos_t q = *pos;
        rul_undo_t u;
        rul_pos_do_move(&q, m, &u);
        if (RUL_PIECE_TYPE(u.captured) == RUL_KING)
            continue; /* a king capture is never a legal move (FESA 9.5 is handled apart) */
        (*budget)--;
        seq[depth] = m;
        int left = maxd - depth - 1;
        if (prune && deficit_bound(t, &q, left) > t->p.fit_max)
            continue;
        if (depth + 1 >= mind) {
            rec_trk_cand_t c;
            memset(&c, 0, sizeof c);
            c.kind = REC_CAND_LEGAL;
            c.nmoves = depth + 1;
            memcpy(c.moves, seq, sizeof(rul_move_t) * (size_t)(depth + 1));
            /* the komadai, when both are read and their likeliest counts are the position's, show what
             * the board cannot: a piece dropped and captured changes both hands */
            c.unseen = depth > 0 && !each_side_seen(root, &q) && !hands_read_as(&t->view, &q);
            rec_trk_cand_score(t, &c, root, &q);
            rec_trk_cs_add(&t->expl.cs, &c);
        }
        if (left > 0)
            search_seq(t, root, &q, seq, depth + 1, mind, maxd, in, prune, budget);
    }
}

/* Adds the illegal action m by the side to move of pos as a candidate, scored on the position it
 * leaves, with its reason (FESA 9.4 via rul_why_illegal). */
static void add_illegal(rec_trk_t *t, const rul_pos_t *pos, rul_move_t m) {
    rec_trk_cand_t c;
    memset(&c, 0, sizeof c);
    c.kind = REC_CAND_ILLEGAL;
    c.nmoves = 1;
    c.moves[0] = m;
    c.why = (int)rul_why_illegal(pos, m);
    rul_pos_t q = *pos;
    rul_undo_t u;
    rul_pos_do_move(&q, m, &u);
    rec_trk_cand_score(t, &c, pos, &q);
    rec_trk_cs_add(&t->expl.cs, &c);
}

/* One illegal action by the side to move (a piece moved where it cannot go, a forbidden drop, a
 * move leaving the king in check, a missing compulsory promotion), or one legal move by the side
 * that just moved (two in a row), each touching changed squares. */
void rec_trk_search_illegal(rec_trk_t *t, const rul_pos_t *pos, const uint8_t in[RUL_SQ_NB]) {
    const int us = pos->side;
    for (int from = 0; from < RUL_SQ_NB; from++) {
        rul_piece_t pc = rul_pos_piece_at(pos, from);
        if (!in[from] || pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != us)
            continue;
        int ty = RUL_PIECE_TYPE(pc);
        for (int to = 0; to < RUL_SQ_NB; to++) {
            rul_piece_t tp = rul_pos_piece_at(pos, to);
            if (!in[to] || to == from || (tp != RUL_PIECE_NONE && RUL_PIECE_COLOR(tp) == us))
                continue;
            for (int promo = 0; promo < 2; promo++) {
                if (promo && !(ty >= RUL_PAWN && ty <= RUL_ROOK))
                    continue;
                rul_move_t m = RUL_MOVE_MAKE(from, to, promo);
                if (rul_is_legal(pos, m) && RUL_PIECE_TYPE(tp) != RUL_KING)
                    continue;
                add_illegal(t, pos, m);
            }
        }
    }
    for (int to = 0; to < RUL_SQ_NB; to++) {
        if (!in[to] || rul_pos_piece_at(pos, to) != RUL_PIECE_NONE)
            continue;
        for (int k = 1; k <= RUL_HAND_NB; k++) {
            if (pos->hand[us][k - 1] == 0)
                continue;
            rul_move_t m = RUL_MOVE_DROP(k, to);
            if (rul_is_legal(pos, m))
                continue;
            add_illegal(t, pos, m);
        }
    }
    /* two in a row: the side that just moved moves again */
    rul_pos_t w = *pos;
    w.side = (uint8_t)(us ^ 1);
    rul_pos_rehash(&w);
    rul_movelist_t list;
    rul_gen_legal(&w, &list);
    for (int i = 0; i < list.count; i++) {
        rul_move_t m = list.moves[i];
        if (!touches(m, in))
            continue;
        rec_trk_cand_t c;
        memset(&c, 0, sizeof c);
        c.kind = REC_CAND_WRONG_SIDE;
        c.nmoves = 1;
        c.moves[0] = m;
        c.why = REC_WHY_TWO_IN_A_ROW;
        rul_pos_t q = w;
        rul_undo_t u;
        rul_pos_do_move(&q, m, &u);
        rec_trk_cand_score(t, &c, &w, &q);
        rec_trk_cs_add(&t->expl.cs, &c);
    }
}

/* Candidates from pos: no move, then every legal move, into t->expl.cs (sorted). HS_SAME: the position as
 * it is explains the view outright (no move can do better); HS_FIT: the best candidate explains it;
 * HS_NOFIT: none does. */
int rec_trk_stage_one(rec_trk_t *t, const rul_pos_t *pos) {
    rec_trk_cand_t c;
    memset(&c, 0, sizeof c);
    c.kind = REC_CAND_NONE;
    rec_trk_cand_score(t, &c, NULL, pos);
    rec_trk_cs_clear(&t->expl.cs);
    rec_trk_cs_add(&t->expl.cs, &c);
    /* Every square and count at its likeliest value: no move can do better than no move. */
    if (c.deficit < 0.5 * t->p.margin && c.deficit < 0.5 * t->p.fit_max)
        return HS_SAME;
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    for (int i = 0; i < list.count; i++) {
        rul_pos_t q = *pos;
        rul_undo_t u;
        rul_pos_do_move(&q, list.moves[i], &u);
        memset(&c, 0, sizeof c);
        /* taking a king left in check is not a move but the end of the game (FESA 9.5) */
        c.kind = RUL_PIECE_TYPE(u.captured) == RUL_KING ? REC_CAND_ILLEGAL : REC_CAND_LEGAL;
        c.nmoves = 1;
        c.moves[0] = list.moves[i];
        rec_trk_cand_score(t, &c, pos, &q);
        rec_trk_cs_add(&t->expl.cs, &c);
    }
    rec_trk_cs_sort(&t->expl.cs);
    return t->expl.cs.c[0].deficit <= t->p.fit_max ? HS_FIT : HS_NOFIT;
}

/* 1 when the time the board went unseen before the current view (run.gap_us) is too short for
 * n moves (min_move_us each after the first); rec_trk_seq_gap_limited: for max_seq moves. */
static int seq_gap_limited_to(const rec_trk_t *t, int n) {
    return t->p.min_move_us > 0 && t->run.gap_us != INT64_MAX && 1 + t->run.gap_us / t->p.min_move_us < n;
}

int rec_trk_seq_gap_limited(const rec_trk_t *t) { return seq_gap_limited_to(t, t->p.max_seq); }

#define DEEP_BUDGET 300000L /* positions a deep reading of one hypothesis visits at most */

/* The deep reading of pos: pruned sequences of max_seq+1..deep moves into t->expl.cs. */
static void search_deep(rec_trk_t *t, const rul_pos_t *pos, int deep, const uint8_t in[RUL_SQ_NB]) {
    rul_move_t seq[REC_TRK_MAX_SEQ];
    long budget = DEEP_BUDGET;
    search_seq(t, pos, pos, seq, 0, t->p.max_seq + 1, deep, in, 1, &budget);
}

/* After rec_trk_stage_one found nothing that fits: sequences of 2-3 moves made while the board was hidden,
 * then, once the view has stayed long enough not to be a move being made, one illegal action (which
 * must also win by the margin). Adds to t->expl.cs (sorted). */
int rec_trk_stage_two(rec_trk_t *t, const rul_pos_t *pos, int64_t ts) {
    uint8_t in[RUL_SQ_NB];
    if (rec_trk_changed_squares(t, pos, in) > t->p.max_changed)
        return HS_NOFIT;
    int maxd = t->p.max_seq;
    if (!t->read.seq_unlimited && rec_trk_seq_gap_limited(t))
        maxd = (int)(1 + t->run.gap_us / t->p.min_move_us); /* no time for more moves while unseen */
    int deep =
        t->p.max_seq_deep; /* the deep reading's longest sequence: as many moves as the time unseen allows */
    if (seq_gap_limited_to(t, deep))
        deep = (int)(1 + t->run.gap_us / t->p.min_move_us);
    if (maxd >= 2) {
        rul_move_t seq[REC_TRK_MAX_SEQ];
        long all = LONG_MAX;
        search_seq(t, pos, pos, seq, 0, 2, maxd, in, 0, &all);
        rec_trk_cs_sort(&t->expl.cs);
        if (!t->read.seq_deep && t->expl.cs.c[0].deficit <= t->p.fit_max &&
            t->expl.cs.c[0].kind == REC_CAND_LEGAL) {
            /* a story as long as the search goes may be the start of a longer one that fits better (a
             * square the view misreads or does not see): those are its rivals */
            if (t->expl.cs.c[0].nmoves >= maxd && maxd == t->p.max_seq && deep > t->p.max_seq) {
                search_deep(t, pos, deep, in);
                rec_trk_cs_sort(&t->expl.cs);
            }
            return HS_FIT;
        }
    }
    if (t->read.seq_deep) {
        /* the deep reading (rec_trk_play_step): the longer sequences too; the shorter ones and the illegal
         * actions stay in the set as rivals */
        if (deep > t->p.max_seq)
            search_deep(t, pos, deep, in);
        if (ts - t->run.start_ts >= t->p.illegal_after_us)
            rec_trk_search_illegal(t, pos, in);
        rec_trk_cs_sort(&t->expl.cs);
        const rec_trk_cand_t *b = &t->expl.cs.c[0];
        return b->deficit <= t->p.fit_max && (b->kind == REC_CAND_LEGAL ||
                                              (b->kind != REC_CAND_NONE &&
                                               rec_trk_cs_margin_view(&t->expl.cs, &t->view) >= t->p.margin))
                   ? HS_FIT
                   : HS_NOFIT;
    }
    if (ts - t->run.start_ts >= t->p.illegal_after_us) {
        rec_trk_search_illegal(t, pos, in);
        rec_trk_cs_sort(&t->expl.cs);
        if (t->expl.cs.c[0].deficit <= t->p.fit_max &&
            rec_trk_cs_margin_view(&t->expl.cs, &t->view) >= t->p.margin &&
            t->expl.cs.c[0].kind != REC_CAND_NONE)
            return HS_FIT;
    }
    return HS_NOFIT;
}
