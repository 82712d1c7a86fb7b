/* view.c - how a reading of the board fits a position, for the record loop's orientation and its
 * observations (view.h). */
#include "recorder/record/view.h"

#include <math.h>
#include <stdlib.h>

/* Probability of class c on square sq of a reading, seen from the other end when flip is 1 (the
 * board turned by 180 degrees: square 80 - sq, owners swapped). The network reads a piece best the
 * way up it stands in the picture, so a board seen from gote's end is read as found and flipped here
 * rather than read again with a turned pose. */
float rec_view_prob_at(const vis_board_read_t *rd, int flip, int sq, int c) {
    return flip ? rd->prob[VIS_SQUARE_NB - 1 - sq][REC_OBS_SWAP(c)] : rd->prob[sq][c];
}

/* Log likelihood of pos's classes under a reading (flipped when flip is 1). */
double rec_view_read_fit(const vis_board_read_t *rd, int flip, const rul_pos_t *pos) {
    double s = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        float p = rec_view_prob_at(rd, flip, sq, REC_OBS_CLASS(rul_pos_piece_at(pos, sq)));
        s += log(p > 1e-3f ? p : 1e-3f);
    }
    return s;
}

/* Squares whose occupancy (a piece or none) the reading gives against pos's with confidence (pos's
 * occupancy below 10 %), under the flip; the occupancy of a square is read far more surely than the
 * piece's kind, and the even start is occupied the same from both ends. */
int rec_view_occupancy_diffs(const vis_board_read_t *rd, int flip, const rul_pos_t *pos) {
    int n = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        float empty = rec_view_prob_at(rd, flip, sq, 0);
        if ((rul_pos_piece_at(pos, sq) == RUL_PIECE_NONE ? empty : 1.0f - empty) < 0.1f)
            n++;
    }
    return n;
}

/* Largest distance, pixels, between the corners of two poses (any rotation of the second). */
double rec_view_pose_shift(const vis_pose_t *a, const vis_pose_t *b) {
    double best = 1e300;
    for (int r = 0; r < 4; r++) {
        double worst = 0;
        for (int i = 0; i < 4; i++) {
            double dx = a->corners[i][0] - b->corners[(i + r) % 4][0],
                   dy = a->corners[i][1] - b->corners[(i + r) % 4][1];
            double d = sqrt(dx * dx + dy * dy);
            if (d > worst)
                worst = d;
        }
        if (worst < best)
            best = worst;
    }
    return best;
}

/* Best log likelihood of a reading (flipped when flip is 1) over the positions after each legal move
 * of pos, and with depth 2 after each reply too. */
double rec_view_best_move_fit(const vis_board_read_t *rd, int flip, const rul_pos_t *pos, int depth) {
    rul_movelist_t *ml = malloc(sizeof *ml);
    double best = -1e300;
    if (ml == NULL)
        return best;
    rul_gen_legal(pos, ml);
    for (int i = 0; i < ml->count; i++) {
        rul_pos_t after = *pos;
        rul_undo_t u;
        rul_pos_do_move(&after, ml->moves[i], &u);
        double f = depth > 1 ? rec_view_best_move_fit(rd, flip, &after, depth - 1)
                             : rec_view_read_fit(rd, flip, &after);
        if (f > best)
            best = f;
    }
    free(ml);
    return best;
}

/* 1 if pos's board and hands are the same seen from the other end (turned by 180 degrees, owners
 * swapped), as the even start is: then no picture tells which end is sente's. */
int rec_view_looks_same_turned(const rul_pos_t *pos) {
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t here = rul_pos_piece_at(pos, sq), there = rul_pos_piece_at(pos, RUL_SQ_NB - 1 - sq);
        int turned = REC_OBS_CLASS(there);
        if (REC_OBS_CLASS(here) != REC_OBS_SWAP(turned))
            return 0;
    }
    for (int k = 0; k < RUL_HAND_NB; k++)
        if (pos->hand[RUL_SENTE][k] != pos->hand[RUL_GOTE][k])
            return 0;
    return 1;
}
