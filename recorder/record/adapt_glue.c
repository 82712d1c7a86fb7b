/* adapt_glue.c - the piece-set adaptation (adapt.h) in the loop: a fresh reading reweighed by the
 * supposed start or the game's prototypes, and the views the tracker accepts learned. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/record/record_internal.h"

_Static_assert(REC_FEAT_NB == VIS_FEAT_NB, "adapt.h and vision.h embeddings differ");
_Static_assert(REC_OBS_CLASS_NB == VIS_CLASS_NB, "tracker and vision classes differ");

#define REC_ADAPT_COARSE_MISS                                                                                \
    2 /* a supposed start is judged only when the reading's empty / sente /                                  \
         gote differs from it on at most this many squares */

/* The classes of pos in the network's frame (the reading's squares and owners: turned by 180 degrees
 * when flip is 1), into cls[81]. */
static void net_classes(const rul_pos_t *pos, int flip, int cls[VIS_SQUARE_NB]) {
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int c = REC_OBS_CLASS(rul_pos_piece_at(pos, sq));
        cls[flip ? VIS_SQUARE_NB - 1 - sq : sq] = flip ? REC_OBS_SWAP(c) : c;
    }
}

/* Squares where the reading's likeliest of empty / sente piece / gote piece differs from cls. */
static int coarse_misses(const vis_board_read_t *rd, const int cls[VIS_SQUARE_NB]) {
    int miss = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        double e = rd->prob[sq][0], s = 0, g = 0;
        for (int c = 1; c <= 14; c++) {
            s += rd->prob[sq][c];
            g += rd->prob[sq][c + 14];
        }
        int got = e >= s && e >= g ? 0 : s >= g ? 1 : 2, want = cls[sq] == 0 ? 0 : cls[sq] <= 14 ? 1 : 2;
        miss += got != want;
    }
    return miss;
}

/* Before the game's prototypes exist: the reading judged under the position the board is supposed to
 * show (the tracker's position in a game, e.g. after --resume; else the given start, else the even
 * start and the 15 handicaps, FESA 9.1). Each supposed position whose pieces the reading places (empty
 * / sente / gote, REC_ADAPT_COARSE_MISS) is taken as labels: the prototypes of its classes are built
 * from the reading's embeddings and each square is judged by the others (leave-one-out,
 * rec_adapt_apply's own). The supposed position the judged reading fits best replaces the reading's
 * probabilities; none: the reading stays. A supposition only reweighs evidence: a square whose crop
 * looks like another class's crops (a piece out of place) still reads as that class. */
static void adapt_setup(rec_loop_t *L) {
    rul_pos_t cand[RUL_HC_NB + 1];
    int ncand = 0, cls[VIS_SQUARE_NB];
    double best = -1e300;
    const rul_game_t *g = rec_trk_game(L->trk);
    if (rec_trk_state(L->trk) == REC_TRK_PLAYING && g != NULL)
        cand[ncand++] = g->pos;
    else if (L->o->start)
        cand[ncand++] = *L->o->start;
    else
        for (int h = 0; h < RUL_HC_NB; h++)
            if (rul_pos_set_handicap(&cand[ncand], (rul_handicap_t)h) == RUL_OK)
                ncand++;
    for (int i = 0; i < ncand; i++) {
        net_classes(&cand[i], L->flip, cls);
        if (coarse_misses(L->rd, cls) > REC_ADAPT_COARSE_MISS)
            continue;
        rec_adapt_reset(L->adapt.hyp);
        memcpy(L->adapt.rd2->prob, L->rd->prob, sizeof L->rd->prob);
        if (rec_adapt_learn(L->adapt.hyp, (const float(*)[REC_FEAT_NB])L->rd->feat, cls, VIS_SQUARE_NB) !=
                REC_OK ||
            rec_adapt_apply(L->adapt.hyp, (const float(*)[REC_FEAT_NB])L->rd->feat, L->adapt.rd2->prob,
                            VIS_SQUARE_NB, cls) != REC_OK)
            continue;
        double fit = 0;
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            fit += log(L->adapt.rd2->prob[sq][cls[sq]] > 1e-3f ? L->adapt.rd2->prob[sq][cls[sq]] : 1e-3f);
        if (fit > best) {
            best = fit;
            memcpy(L->adapt.hyp_prob, L->adapt.rd2->prob, sizeof L->rd->prob);
        }
    }
    if (best > -1e300)
        memcpy(L->rd->prob, L->adapt.hyp_prob, sizeof L->rd->prob);
}

/* Reweighs a fresh reading (L->rd, network frame) by the piece set: the game's prototypes and the
 * squares that look as they did at the last accepted position (rec_adapt_recall) once the tracker has
 * learned some, else the supposed start (adapt_setup). Keeps cls/conf/min_conf in step. */
void rec_loop_adapt_read(rec_loop_t *L) {
    if (L->adapt.set != NULL && !L->rd->has_feat && L->st->adapt_off == 0) {
        L->st->adapt_off = 2;
        logline(L, "piece-set adaptation off: %s gives no embeddings (29 outputs; exported before 7b85a79)",
                L->o->model);
    }
    if (L->adapt.set == NULL || !L->rd->has_feat)
        return;
    if (rec_adapt_nclasses(L->adapt.set) > 0) {
        rec_adapt_apply(L->adapt.set, (const float(*)[REC_FEAT_NB])L->rd->feat, L->rd->prob, VIS_SQUARE_NB,
                        NULL);
        rec_adapt_apply_red(L->adapt.set, L->rd->red, L->rd->prob, VIS_SQUARE_NB);
        rec_adapt_recall(L->adapt.set, (const float(*)[REC_FEAT_NB])L->rd->feat, L->rd->prob, VIS_SQUARE_NB);
    } else
        adapt_setup(L);
    vis_board_read_argmax(L->rd);
}

/* Learns the current reading labelled cls (prototypes, rec_adapt_learn, and each square's look,
 * rec_adapt_remember) and counts it. Returns 1 if learned. */
static int learn_view(rec_loop_t *L, const int cls[VIS_SQUARE_NB]) {
    if (rec_adapt_learn(L->adapt.set, (const float(*)[REC_FEAT_NB])L->rd->feat, cls, VIS_SQUARE_NB) !=
            REC_OK ||
        rec_adapt_remember(L->adapt.set, (const float(*)[REC_FEAT_NB])L->rd->feat, cls, VIS_SQUARE_NB) !=
            REC_OK ||
        rec_adapt_learn_red(L->adapt.set, L->rd->red, cls, VIS_SQUARE_NB) != REC_OK)
        return 0;
    L->st->adapt_learned++;
    return 1;
}

/* After --resume the piece set has no views to learn from (the log keeps moves, not looks), and a
 * held-out set the network alone misreads then stalls the game at its next move. The first reading
 * whose empty / sente / gote squares are the game position's (a move always changes them) is that
 * position as it was: it is learned like an accepted view. */
void rec_loop_adapt_resumed(rec_loop_t *L) {
    const rul_game_t *g = rec_trk_game(L->trk);
    int cls[VIS_SQUARE_NB];
    if (!L->adapt.pending || L->adapt.set == NULL || !L->rd->has_feat || g == NULL ||
        rec_trk_state(L->trk) != REC_TRK_PLAYING)
        return;
    if ((!L->orient_decided || L->withhold) && !rec_view_looks_same_turned(&g->pos))
        return; /* the ends undecided: the labels would depend on them (a symmetric position's do not) */
    net_classes(&g->pos, L->flip, cls);
    if (coarse_misses(L->rd, cls) != 0)
        return;
    L->adapt.pending = 0;
    if (learn_view(L, cls) && L->o->verbose)
        logline(L, "piece set: learned from the resumed game's position as seen");
}

/* After a stable view added nnew events: when one of them is the start or a move (legal or not) and the
 * tracker holds no other hypothesis, the reading of that view is labelled with the tracker's position
 * and learned (every square: the start's pieces, the moved piece, the empty squares), and each
 * square's look is remembered with its class (rec_adapt_remember). */
void rec_loop_adapt_learn(rec_loop_t *L, int nnew) {
    int n = rec_trk_nevents(L->trk), learn = 0, cls[VIS_SQUARE_NB];
    const rul_game_t *g = rec_trk_game(L->trk);
    if (L->adapt.set == NULL || !L->rd->has_feat || nnew <= 0 || g == NULL || rec_trk_hypotheses(L->trk) != 0)
        return;
    for (int i = n - nnew; i < n; i++) {
        int t = rec_trk_event(L->trk, i)->type;
        learn |= t == REC_TEV_GAME_START || t == REC_TEV_MOVE || t == REC_TEV_ILLEGAL;
    }
    if (!learn)
        return;
    net_classes(&g->pos, L->flip, cls);
    learn_view(L, cls);
}

/* rec_adapt_learn_start: record.h. */
int rec_adapt_learn_start(rec_adapt_t *a, const vis_board_read_t *rd, const rul_pos_t *start,
                          rec_ref_t *out) {
    int cls[2][VIS_SQUARE_NB], miss[2], own[VIS_SQUARE_NB];
    if (a == NULL || rd == NULL || start == NULL || out == NULL)
        return REC_ERANGE;
    memset(out, 0, sizeof *out);
    rec_adapt_reset(a);
    if (!rd->has_feat)
        return REC_ESTATE;
    for (int flip = 0; flip < 2; flip++) {
        net_classes(start, flip, cls[flip]);
        miss[flip] = coarse_misses(rd, cls[flip]);
    }
    out->turned = miss[1] < miss[0];
    out->misses = miss[out->turned];
    if (out->misses > REC_REF_MAX_MISS)
        return REC_EINVALID;
    const int *c = cls[out->turned];
    const float(*feat)[REC_FEAT_NB] = (const float(*)[REC_FEAT_NB])rd->feat;
    float(*prob)[VIS_CLASS_NB] = malloc(sizeof rd->prob);
    if (prob == NULL)
        return REC_ENOMEM;
    memcpy(prob, rd->prob, sizeof rd->prob);
    int rc = rec_adapt_learn(a, feat, c, VIS_SQUARE_NB);
    if (rc == REC_OK)
        rc = rec_adapt_apply(a, feat, prob, VIS_SQUARE_NB, c);
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int best = 0;
        for (int k = 1; k < VIS_CLASS_NB; k++)
            best = prob[sq][k] > prob[sq][best] ? k : best;
        own[sq] = best == c[sq] ? c[sq] : -1;
        out->learned += own[sq] >= 0;
    }
    free(prob);
    rec_adapt_reset(a);
    if (rc == REC_OK)
        rc = rec_adapt_learn(a, feat, own, VIS_SQUARE_NB);
    if (rc == REC_OK)
        rc = rec_adapt_learn_red(a, rd->red, own, VIS_SQUARE_NB);
    return rc;
}
