/* record.c - the vision steps of the recording loop (record_internal.h): the board's pose searched and
 * re-checked, its orientation, the komadai. The readings' fits are in view.c; the photo pipeline the
 * loop shares with `recognize` is vision/photo.c and vision/grid.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/record/record_internal.h"
#include "recorder/record/view.h"

/* ---------------------------------------------------------------- vision */

/* Finds the turn of the found board that the network reads best (vis_classifier_orient: pieces
 * upright in the picture), then which end is sente's: by the tracker's current position when a game
 * is in progress (or the given start); for the even start that is decided by the first move
 * (resolve_orientation). */
static int orient(rec_loop_t *L, const cap_image_t *img) {
    const rul_pos_t *want = NULL;
    vis_grid_shift_t gs;
    int moved;
    if ((moved = vis_board_orient_shift(L->clf, img, &L->pose, L->rd, &gs)) < 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", vis_classifier_errmsg(L->clf));
    if (moved)
        logline(L,
                "grid moved: the grid found (pose confidence %.2f) reads no possible position; moved %s it "
                "reads one, with %d pieces on the board (%d before)",
                L->pose.confidence, gs.towards, gs.pieces, gs.pieces_before);
    int known = L->flip; /* the end sente sat at before the board was lost */
    L->flip = 0;
    L->orient_decided = 0;
    if (rec_trk_state(L->trk) != REC_TRK_SETUP && rec_trk_game(L->trk) != NULL)
        want = &rec_trk_game(L->trk)->pos;
    else if (L->o->start)
        want = L->o->start;
    double fit0 = want ? rec_view_read_fit(L->rd, 0, want) : 0,
           fit1 = want ? rec_view_read_fit(L->rd, 1, want) : 0;
    L->flip = fit1 > fit0;
    /* the even start set up again during a game reads the same from both ends: the game's position
     * cannot tell them (it chose one by the pieces that differ, and the next game's moves were read
     * turned round); the camera has not turned, so the end known before stays */
    rul_pos_t even;
    if (want && rul_pos_from_sfen(&even, RUL_SFEN_STARTPOS, NULL) == RUL_OK &&
        rec_view_read_fit(L->rd, 0, &even) > (fit0 > fit1 ? fit0 : fit1) + L->o->trk.margin)
        L->flip = known;
    if (L->o->verbose)
        logline(L, "orientation: turn %d, %s (%s: fit %.1f as found, %.1f flipped)", L->rd->orientation,
                L->flip ? "flipped" : "as found",
                want && !rec_view_looks_same_turned(want)
                    ? "the game's position or the given start decides"
                    : "the position looks the same from both ends: a move will decide",
                fit0, fit1);
    return REC_OK;
}

/* Feeds a "not readable" view to the tracker (ends its stable view). */
int feed_view(rec_loop_t *L, int view, const cap_image_t *img) {
    L->obs->ts_us = L->ts;
    L->obs->view = view;
    L->obs->image = img;
    L->obs->evidence_ref = NULL;
    int rc = rec_trk_feed(L->trk, L->obs, NULL);
    if (rc != REC_OK)
        return set_err(L->err, sizeof L->err, rc, "rec_trk_feed: error %d", rc);
    return flush_out(L, L->obs);
}

void drop_pose(rec_loop_t *L) {
    L->orient_decided = 0;
    vis_stability_destroy(L->stab);
    L->stab = NULL;
    L->have_pose = 0;
    L->have_read = 0;
    L->reads_this_view = 0;
    L->since_search = 0;
}

/* Searches the board in img; on success orients it and starts the stability test. *found = 1 then. */
int search_pose(rec_loop_t *L, const cap_image_t *img, int *found) {
    char verr[256];
    vis_pose_t p;
    *found = 0;
    L->st->pose_searches++;
    L->since_search = 1;
    if (vis_pose_find(img, &L->o->pose, &p, verr, sizeof verr) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", verr);
    if (!p.found) {
        /* a grid just under the threshold in the same place twice running is the board (a faint
           printed grid scores 0.55-0.60; sub-grids and half boards do not stay put at that score) */
        double side = hypot(p.corners[1][0] - p.corners[0][0], p.corners[1][1] - p.corners[0][1]);
        int same = L->have_cand && p.score >= L->o->pose.min_score - L->o->pose_relax &&
                   rec_view_pose_shift(&L->cand, &p) < side / 9 * 0.15;
        if (L->o->verbose)
            logline(L, "pose search: no board (best grid score %.2f)%s", p.score,
                    same ? ", taken: same grid again" : "");
        L->have_cand = p.score >= L->o->pose.min_score - L->o->pose_relax;
        L->cand = p;
        if (!same)
            return REC_OK;
        p.found = 1;
    }
    L->have_cand = 0;
    L->pose = p;
    L->start_grid_ts = -1; /* a new pose: start_grid.c may check it at once */
    L->start_grid_n = 0;
    int rc = orient(L, img);
    if (rc != REC_OK)
        return rc;
    if (vis_stability_create(&L->pose, &L->o->stab, &L->stab, verr, sizeof verr) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", verr);
    L->have_pose = 1;
    L->have_read = 0;
    L->reads_this_view = 0;
    L->last_stable_ts = L->ts;
    L->last_recheck_ts = L->ts;
    *found = 1;
    L->st->board_found++;
    char d[200];
    snprintf(d, sizeof d, "grid score %.2f, corners (%.0f,%.0f) (%.0f,%.0f) (%.0f,%.0f) (%.0f,%.0f), turn %d",
             p.score, L->pose.corners[0][0], L->pose.corners[0][1], L->pose.corners[1][0],
             L->pose.corners[1][1], L->pose.corners[2][0], L->pose.corners[2][1], L->pose.corners[3][0],
             L->pose.corners[3][1], L->pose.rotation);
    source_event(L, "board_found", d);
    return REC_OK;
}

/* The view has not been stable for a while: is the board still where the pose says? Keeps the pose
 * (restarting the stability test's reference: what changed was pieces, not the board), or declares
 * the board lost (moved or gone) and searches again. */
int recheck_pose(rec_loop_t *L, const cap_image_t *img) {
    char verr[256];
    vis_pose_t p;
    L->last_recheck_ts = L->ts;
    L->st->pose_searches++;
    if (vis_pose_find(img, &L->o->pose, &p, verr, sizeof verr) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", verr);
    double side = sqrt(
        (L->pose.corners[1][0] - L->pose.corners[0][0]) * (L->pose.corners[1][0] - L->pose.corners[0][0]) +
        (L->pose.corners[1][1] - L->pose.corners[0][1]) * (L->pose.corners[1][1] - L->pose.corners[0][1]));
    if (p.found && rec_view_pose_shift(&L->pose, &p) < side / 9 * 0.25) {
        char e2[256];
        vis_stability_t *s2 = NULL;
        if (vis_stability_create(&L->pose, &L->o->stab, &s2, e2, sizeof e2) != 0)
            return set_err(L->err, sizeof L->err, REC_EVISION, "%s", e2);
        vis_stability_destroy(L->stab);
        L->stab = s2;
        return REC_OK;
    }
    char d[160];
    if (p.found)
        snprintf(d, sizeof d, "the board moved by %.0f px; searching again",
                 rec_view_pose_shift(&L->pose, &p));
    else
        snprintf(d, sizeof d, "no board in view (best grid score %.2f); searching again", p.score);
    L->st->board_lost++;
    drop_pose(L);
    source_event(L, "board_lost", d);
    int rc = feed_view(L, REC_VIEW_LOST, NULL);
    if (rc != REC_OK)
        return rc;
    if (p.found) {
        int found;
        return search_pose(L, img, &found);
    }
    return REC_OK;
}

/* The even start is the same from both ends of the board (turned by 180 degrees, with the owners
 * swapped, it is itself), so which end is sente's is known only after sente's first move; so is any
 * game position that looks the same from both ends (a symmetric opening, met by --resume or when the
 * board is found again: the sample game's move 30), decided by the next move. Until then each fresh reading
 * is explained by the even start and by the start after each of sente's legal first moves, once as read and
 * once flipped: a first move that improves on the start by the tracker's margin for one end and not for the
 * other decides. Returns 1 when the view may go to the tracker, 0 when it is withheld: two moves from the
 * start (a sente and a gote move) look the same from both ends; after `uncertain_after_us` x 3 of withheld
 * views the end as found is kept. */
int resolve_orientation(rec_loop_t *L) {
    const rul_game_t *g = rec_trk_game(L->trk);
    rul_pos_t even, start;
    double m = L->o->trk.margin;
    if (L->orient_decided)
        return 1;
    if (rul_pos_from_sfen(&even, RUL_SFEN_STARTPOS, NULL) != RUL_OK)
        return 1;
    /* in a game, its position (after --resume, or the board found again mid-game): a position that
     * looks the same from both ends (a symmetric opening) is decided by the next move like the start */
    int playing = g != NULL && rec_trk_state(L->trk) != REC_TRK_SETUP;
    start = playing ? g->pos : L->o->start ? *L->o->start : even;
    if (!rec_view_looks_same_turned(&start)) {
        L->orient_decided = 1; /* a handicap start, any other position: orient() chose the end */
        return 1;
    }
    /* A board that differs from the start in occupancy on more squares than two moves can change
     * (REC_TRK_MIDGAME_OCC: a game already under way, a board set wrongly) is no first move and tells
     * nothing about the ends. The tracker sees it at once (its setup check says how it differs from
     * the start); the ends are still decided by a first move, if one comes. */
    if (rec_view_occupancy_diffs(L->rd, 0, &start) > REC_TRK_MIDGAME_OCC) {
        L->withheld_since = -1;
        return 1;
    }
    /* a start that looks the same from both ends (the even start, whichever side is to move): the
     * first move of the side to move tells which end is whose */
    double still = rec_view_read_fit(L->rd, 0, &start),
           gain0 = rec_view_best_move_fit(L->rd, 0, &start, 1) - still;
    double gain1 = rec_view_best_move_fit(L->rd, 1, &start, 1) - still; /* the start reads the same flipped */
    if (L->o->verbose)
        logline(L, "orientation: a first move gains %.1f nats as found, %.1f flipped", gain0, gain1);
    if ((gain0 > m && gain1 <= m / 2) || (gain1 > m && gain0 <= m / 2)) {
        L->orient_decided = 1;
        L->withheld_since = -1;
        if (L->flip != (gain1 > gain0))
            rec_trk_turn_board(L->trk); /* squares of the start taken as misread turn with the board */
        L->flip = gain1 > gain0;
        if (playing && g->nply > 0)
            logline(L,
                    "orientation: sente sits at the %s end of the picture (the position looks the same "
                    "from both ends; %s's move, as the game says, was made at the %s end)",
                    L->flip ? "far" : "near", start.side == RUL_SENTE ? "sente" : "gote",
                    (start.side == RUL_SENTE) == L->flip ? "far" : "near");
        else if (L->flip)
            logline(L,
                    "orientation: sente sits at the far end of the picture (the first move, %s's as the "
                    "start says, was made at the %s end)",
                    start.side == RUL_SENTE ? "sente" : "gote", start.side == RUL_SENTE ? "far" : "near");
        else if (start.side != RUL_SENTE)
            logline(L,
                    "orientation: sente sits at the near end of the picture (the first move, gote's as the "
                    "start says, was made at the far end)");
        return 1;
    }
    if (gain0 <= m && gain1 <= m && rec_view_best_move_fit(L->rd, 0, &start, 2) - still <= m) {
        L->withheld_since = -1;
        return 1; /* the start as it was (or a view no move explains: the tracker waits) */
    }
    if (L->withheld_since < 0)
        L->withheld_since = L->ts;
    if (L->ts - L->withheld_since < 3 * L->o->trk.uncertain_after_us)
        return 0;
    L->orient_decided = 1;
    logline(L, "orientation: not told by a first move; keeping the end as found");
    return 1;
}

#define REC_FULL_READ_EVERY 16 /* readings between two full ones when only changed squares are read */
#define REC_STILL_REREAD_US                                                                                  \
    1000000                  /* a still view is read again this often (µs) after its first readings         \
                              */
#define REC_KTHUMB_PX 6      /* stands_changed: thumbnail pixels a square */
#define REC_KTHUMB_LEVEL 6.0 /* ... and the mean grey difference of one square's cell that is a change */

/* 1 if either stand's area looks different from when the komadai were last read (or never read, or
 * the pose changed): both areas are warped into a small grey thumbnail (REC_KTHUMB_PX pixels a square)
 * and compared cell by cell (one square a cell) with the thumbnail of the last reading; a piece put
 * on or taken off a stand changes a cell by tens of grey levels, video noise by 1-3. The new
 * thumbnail becomes the reference when it differs. */
/* Mean absolute difference (grey levels) between two W x W BGR thumbnails over the REC_KTHUMB_PX-pixel
 * cell whose top-left pixel is (x0, y0), clipped to the picture; 0 for a cell outside it. */
static double cell_diff(const unsigned char *a, const unsigned char *b, int W, int x0, int y0) {
    long sum = 0, n = 0;
    for (int y = y0 < 0 ? 0 : y0; y < y0 + REC_KTHUMB_PX && y < W; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x0 + REC_KTHUMB_PX && x < W; x++)
            for (int ch = 0; ch < 3; ch++, n++) {
                size_t i = ((size_t)y * W + x) * 3 + ch;
                sum += abs((int)a[i] - (int)b[i]);
            }
    return n > 0 ? (double)sum / n : 0;
}

static int stands_changed(rec_loop_t *L, const cap_image_t *img, const vis_komadai_params_t *kp) {
    const double M = kp->gap + kp->width + 0.5;
    const int W = (int)lround((9 + 2 * M) * REC_KTHUMB_PX);
    unsigned char *cur = malloc((size_t)W * W * 3);
    char err[300];
    int changed = 1;
    if (cur == NULL)
        return 1;
    cap_image_t dst = {W, W, 3 * W, cur};
    if (vis_pose_warp(img, &L->pose, M, &dst, err, sizeof err) != VIS_OK) {
        free(cur);
        return 1;
    }
    if (L->kthumb && L->kthumb_w == W && memcmp(L->kthumb_H, L->pose.H, sizeof L->kthumb_H) == 0 &&
        L->have_hands_last) {
        changed = 0;
        for (int side = 0; side < 2 && !changed; side++)
            for (double v = 9 + kp->below - kp->height; v < 9 + kp->below - 0.5 && !changed; v += 1)
                for (double u = 9 + kp->gap; u < 9 + kp->gap + kp->width - 0.5 && !changed; u += 1) {
                    double cu = side ? 9 - u - 1 : u, cv = side ? 9 - v - 1 : v; /* gote's: turned */
                    int x0 = (int)lround((cu + M) * REC_KTHUMB_PX),
                        y0 = (int)lround((cv + M) * REC_KTHUMB_PX);
                    changed = cell_diff(cur, L->kthumb, W, x0, y0) > REC_KTHUMB_LEVEL;
                }
    }
    if (changed) {
        free(L->kthumb);
        L->kthumb = cur;
        L->kthumb_w = W;
        memcpy(L->kthumb_H, L->pose.H, sizeof L->kthumb_H);
    } else {
        free(cur);
    }
    return changed;
}

/* Reads both komadai (vis_komadai_read) into the observation's hands: sente's stand is the one at the
 * far end of the picture when the view is flipped; a stand out of view (or a failed read) is unknown.
 * The counts are flattened (sharpness 0.3): the tracker adds their log-probabilities to the board's
 * within one fit budget (fit_max, 3 nats), and a stack read as one piece must not use it up (on the
 * sample clip's views the truth then costs at most 1.6 nats, 0.07 at the median, against 5.5 unflattened). */
void read_komadai(rec_loop_t *L, const cap_image_t *img, int force) {
    vis_komadai_read_t kr;
    vis_komadai_params_t kp;
    vis_komadai_params_default(&kp);
    kp.sharpness = 0.3;
    if (!force && !stands_changed(L, img, &kp)) { /* the last reading still holds */
        memcpy(L->obs->hand_known, L->hand_known_last, sizeof L->hand_known_last);
        memcpy(L->obs->hand_prob, L->hand_prob_last, sizeof L->hand_prob_last);
        return;
    }
    L->st->komadai_reads++;
    L->obs->hand_known[RUL_SENTE] = L->obs->hand_known[RUL_GOTE] = 0;
    L->have_hands_last = 0;
    if (vis_komadai_read(L->clf, img, &L->pose, &kp, &kr) != 0)
        return;
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        int s = L->flip ? 1 - c : c;
        L->obs->hand_known[c] = (uint8_t)kr.known[s];
        for (int k = 0; k < RUL_HAND_NB; k++) /* P L N S B R G in both */
            for (int n = 0; n < REC_OBS_COUNT_NB; n++)
                L->obs->hand_prob[c][k][n] = n < VIS_HAND_COUNT_NB ? kr.prob[s][k][n] : 0;
    }
    memcpy(L->hand_known_last, L->obs->hand_known, sizeof L->hand_known_last);
    memcpy(L->hand_prob_last, L->obs->hand_prob, sizeof L->hand_prob_last);
    L->have_hands_last = 1;
}
