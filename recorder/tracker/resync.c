/* resync.c - the resync: a game lost track of taken up again from a view read with confidence
 * (params.resync_after_us). */
#include "recorder/tracker/tracker_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- taking a lost game up again */

#define GAP_MIN_US                                                                                           \
    2000000              /* a view after this long without a stable one is searched from the game (gap.c)    \
                          */
#define GAP_MAX_PLIES 16 /* longest sequence searched from the game's position to a view (gap.c) */
#define GAP_MAX_NODES 400000 /* positions that search may visit */
#define RESYNC_SQ_CONF 0.6f  /* every square of a view to take a game up from is read at least this sure */
#define RESYNC_CAPTURE                                                                                       \
    4.0 /* prior odds against each piece in hand that changed owner (was captured)                           \
         * since the game's last position, per piece */
#define RESYNC_HAND_RATIO                                                                                    \
    1.5 /* ... and the split of each kind's pieces in hand between the komadai this                          \
         * many times likelier than the next (recorder/record/record.c flattens the counts'                  \
         * distributions: sharpness 0.3) */

/* Pieces of each kind P L N S B R G (promoted ones as their kind) on pos's board, in board, and of
 * those sente's, in sente_board. Kings are left out. */
static void kind_on_board(const rul_pos_t *pos, int board[RUL_HAND_NB], int sente_board[RUL_HAND_NB]) {
    for (int k = 0; k < RUL_HAND_NB; k++)
        board[k] = sente_board[k] = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t pc = rul_pos_piece_at(pos, sq);
        int ty = RUL_PIECE_TYPE(pc);
        if (ty > RUL_PROMOTED)
            ty -= RUL_PROMOTED; /* +P..+R -> P..R */
        if (ty >= 1 && ty <= RUL_HAND_NB) {
            board[ty - 1]++;
            sente_board[ty - 1] += RUL_PIECE_COLOR(pc) == RUL_SENTE;
        }
    }
}

/* Notes the current view as a position to take the game up from (resync_after_us) when it is read
 * with confidence and can hold the game's pieces (a game never loses or gains one, FESA 1.1 and 3.1: a
 * captured piece goes to the captor's komadai): every square known at RESYNC_SQ_CONF, no kind more
 * often on the board than in the game, the rest of each kind split between the komadai as their
 * readings in the run say, alone and with a prior against changes of owner, the same split both ways
 * and RESYNC_HAND_RATIO times likelier than the next (no komadai needed for a kind all on the board);
 * and rul_pos_validate accepts it (with either side to move). Otherwise the view noted before, if
 * any, stays. */
static void resync_note(rec_trk_t *t) {
    const view_t *v = &t->view;
    rul_pos_t q;
    const rul_pos_t *g = &t->game->pos;
    int gboard[RUL_HAND_NB], gsente[RUL_HAND_NB], qboard[RUL_HAND_NB], qsente[RUL_HAND_NB];
    rul_piece_t want[RUL_SQ_NB];
    rul_pos_clear(&q);
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        if (!v->known[sq])
            return;
        int c = rec_trk_view_argmax(v, sq);
        if (v->avg[sq][c] < RESYNC_SQ_CONF)
            return;
        want[sq] = c == 0 ? RUL_PIECE_NONE : RUL_PIECE(c > 14, c > 14 ? c - 14 : c);
        if (c != 0)
            rul_pos_set_piece(&q, sq, want[sq]);
    }
    /* the board reached by legal moves from the game's position: its hands and side to move follow
     * from them (once a run: the search is the costly part) */
    if (t->resync.searched_ts != t->run.start_ts && t->run.gap_us >= GAP_MIN_US) {
        rul_pos_t r;
        int plies;
        t->resync.searched_ts = t->run.start_ts;
        if (rec_trk_gap_reach(g, want, GAP_MAX_PLIES, GAP_MAX_NODES, &r, &plies) &&
            rul_pos_validate(&r, RUL_VALIDATE_BOTH_KINGS, NULL) == RUL_VALID) {
            t->resync.pos = r;
            t->resync.side = r.side;
            t->resync.have = 1;
            t->resync.run_ts = t->run.start_ts;
            snprintf(t->resync.ref, sizeof t->resync.ref, "%s", t->run.ref_cur);
            return;
        }
    } else if (t->resync.have && t->resync.run_ts == t->run.start_ts && t->resync.side >= 0) {
        return; /* this run's position, found by the search, stays */
    }
    kind_on_board(g, gboard, gsente);
    kind_on_board(&q, qboard, qsente);
    int komadai = t->run.hacc_n[RUL_SENTE] > 0 && t->run.hacc_n[RUL_GOTE] > 0;
    for (int k = 0; k < RUL_HAND_NB; k++) {
        /* the pieces of kind k off the board are in the hands (the game neither loses nor gains
         * one): split between the two komadai as the run's readings make likeliest (the view may
         * have been read again without them), by RESYNC_HAND_RATIO over the next split */
        int off = gboard[k] + g->hand[RUL_SENTE][k] + g->hand[RUL_GOTE][k] - qboard[k];
        if (off < 0 || off >= REC_OBS_COUNT_NB)
            return; /* more on the board than the game has: a piece misread */
        if (off == 0)
            continue;
        if (!komadai)
            return; /* pieces in hand, and no komadai read to say whose */
        /* prior: each piece that changed owner since the game's position (a capture) costs
         * RESYNC_CAPTURE; sente keeping the pieces of kind k it owned (board + hand) costs nothing */
        int keep = gsente[k] + g->hand[RUL_SENTE][k] - qsente[k];
        int bs = -1;
        for (int prior = 0; prior < 2; prior++) {
            /* the split the komadai make likeliest, on their own and with the prior: both must be
             * RESYNC_HAND_RATIO times likelier than the next, and the same (a pile read short on
             * one stand and long on the other is no evidence of whose the pieces are) */
            double best = -1, second = -1;
            int b = 0;
            for (int a = 0; a <= off; a++) {
                double l = (double)t->run.hacc[RUL_SENTE][k][a] * (double)t->run.hacc[RUL_GOTE][k][off - a] *
                           (prior ? pow(RESYNC_CAPTURE, -abs(a - keep)) : 1.0);
                if (l > best) {
                    second = best;
                    best = l;
                    b = a;
                } else if (l > second) {
                    second = l;
                }
            }
            if (!(best > 0) || best < RESYNC_HAND_RATIO * second || (bs >= 0 && b != bs))
                return;
            bs = b;
        }
        rul_pos_set_hand(&q, RUL_SENTE, (rul_type_t)(k + 1), bs);
        rul_pos_set_hand(&q, RUL_GOTE, (rul_type_t)(k + 1), off - bs);
    }
    rul_pos_rehash(&q);
    if (rul_pos_validate(&q, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID) {
        /* the side to move is not known yet: a king in check is fine either way round */
        q.side = RUL_GOTE;
        rul_pos_rehash(&q);
        if (rul_pos_validate(&q, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID)
            return;
    }
    t->resync.pos = q;
    t->resync.side = -1;
    t->resync.have = 1;
    t->resync.run_ts = t->run.start_ts;
    snprintf(t->resync.ref, sizeof t->resync.ref, "%s", t->run.ref_cur);
}

/* The current view is explained by no hypothesis of the game. Once that has lasted resync_after_us,
 * a noted earlier view (resync_note) one legal move from which explains this one, with the margin,
 * whichever side moved, takes the game up again: its record stops, the next game continues from
 * the noted position and the move is written (*done = 1). Else the view may be noted. */
int rec_trk_resync(rec_trk_t *t, int64_t ts, int *done) {
    *done = 0;
    if (t->p.resync_after_us <= 0 || t->state != REC_TRK_PLAYING || t->read.finishing)
        return REC_OK;
    /* a position reached by moves (gap.c) needs no wait: the moves say which it is, and this later view
     * one move from it, by the margin, confirms it */
    if (t->resync.have && t->resync.run_ts != t->run.start_ts && t->unexpl.since >= 0 &&
        (t->resync.side >= 0 || ts - t->unexpl.since >= t->p.resync_after_us)) {
        rec_trk_cand_t best[2], second[2];
        for (int side = 0; side < 2; side++) {
            rul_pos_t q = t->resync.pos;
            if (t->resync.side >= 0 && side != t->resync.side) {
                best[side].cost = second[side].cost = 1e9; /* the moves that reach it say who is to move */
                continue;
            }
            q.side = side;
            rul_pos_rehash(&q);
            rec_trk_stage_one(t, &q);
            best[side] = t->expl.cs.c[0];
            second[side] = t->expl.cs.n > 1 ? t->expl.cs.c[1] : t->expl.cs.c[0];
            if (t->expl.cs.n < 2)
                second[side].cost = 1e9;
        }
        int w = best[1].cost < best[0].cost ? 1 : 0;
        double runner = second[w].cost < best[!w].cost ? second[w].cost : best[!w].cost;
        double margin = runner - best[w].cost;
        const rec_trk_cand_t *b = &best[w];
        if (b->kind == REC_CAND_LEGAL && b->nmoves == 1 && b->deficit <= t->p.fit_max &&
            margin >= t->p.margin) {
            rul_pos_t start = t->resync.pos;
            int old = t->game_no, nply = t->game->nply, rc;
            char d[200];
            start.side = w;
            rul_pos_rehash(&start);
            snprintf(d, sizeof d,
                     "the record of game %d stops after move %d: the board showed no position the game could "
                     "reach for %.1f s (moves made out of view); game %d takes it up again",
                     old, nply, (ts - t->unexpl.since) / 1e6, old + 1);
            rc = rec_trk_end_game(t, REC_WINNER_NONE, RUL_REASON_NONE, t->resync.run_ts, d);
            if (rc == REC_OK)
                rc = rec_trk_start_game_at(t, &start, -1, 0, margin, t->resync.run_ts, old);
            if (rc != REC_OK)
                return rc;
            *done = 1;
            rec_trk_stage_one(t, &t->game->pos); /* the candidates from the position taken up */
            return rec_trk_accept(t, &t->expl.cs.c[0], margin, t->expl.cs.nalt[0], &t->expl.cs);
        }
    }
    resync_note(t);
    return REC_OK;
}
