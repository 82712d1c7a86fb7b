/* view.h - how a reading of the board fits a position: the record loop's orientation (which end is
 * sente's) and its observations. The record room's own header; nothing here keeps state. */
#ifndef KIFUCAM_RECORD_VIEW_H
#define KIFUCAM_RECORD_VIEW_H

#include "recorder/tracker/tracker.h"
#include "rules/rules.h"
#include "vision/vision.h"

/* Probability of observation class c (REC_OBS_CLASS) on square sq of rd, seen from the other end when
 * flip is 1 (the board turned by 180 degrees: square 80 - sq, owners swapped). */
float rec_view_prob_at(const vis_board_read_t *rd, int flip, int sq, int c);

/* Log likelihood (nats) of pos's classes under rd (flipped when flip is 1), each square's probability
 * floored at 1e-3. */
double rec_view_read_fit(const vis_board_read_t *rd, int flip, const rul_pos_t *pos);

/* Squares whose occupancy (a piece or none) rd gives against pos's with confidence (pos's occupancy
 * below 10 %), under the flip. */
int rec_view_occupancy_diffs(const vis_board_read_t *rd, int flip, const rul_pos_t *pos);

/* Best rec_view_read_fit over the positions after each legal move of pos (depth 1), or after each
 * reply too (depth 2). -1e300 when there is no legal move or no memory. */
double rec_view_best_move_fit(const vis_board_read_t *rd, int flip, const rul_pos_t *pos, int depth);

/* 1 if pos's board and hands are the same seen from the other end (turned by 180 degrees, owners
 * swapped), as the even start is: then no picture tells which end is sente's; else 0. */
int rec_view_looks_same_turned(const rul_pos_t *pos);

/* Largest distance, pixels, between the corners of two poses, under the rotation of b's corners that
 * makes it least. */
double rec_view_pose_shift(const vis_pose_t *a, const vis_pose_t *b);

#endif /* KIFUCAM_RECORD_VIEW_H */
