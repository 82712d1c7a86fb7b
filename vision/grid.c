/* grid.c - the grid checked by its pieces: a grid scored under the threshold taken as a board when its
 * squares read as pieces (vis_board_by_pieces), and a grid a row or a file off moved to where its
 * reading is a possible position (vis_grid_shift). Shared by the photo pipeline (photo.c) and the
 * recorder's loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "vision/vision.h"

/* Whether the board read rd could be a game's position once a kind read more often than a set has it
 * gives up its least sure squares (vis_board_constrain, as the reading printed; FESA 1.2), judged by
 * rul_pos_validate with both kings (FESA 9.4, one king a side); rd is not changed. *pieces: the pieces
 * on the board so revised, *ll: the sum of log conf over the 81 squares before. */
static int board_possible(const vis_board_read_t *rd, int *pieces, double *ll) {
    char sfen[VIS_SFEN_BOARD_MAX], full[VIS_SFEN_BOARD_MAX + 64];
    rul_pos_t rp;
    rul_error_t re;
    int changed[VIS_SQUARE_NB], nch, ok = 0;
    vis_board_read_t *c = malloc(sizeof *c);
    *pieces = 0;
    *ll = 0;
    if (c == NULL)
        return 0;
    *c = *rd;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        *ll += log(rd->conf[sq] + 1e-6);
    if (vis_board_constrain(c, 0.01, changed, &nch) == VIS_OK &&
        vis_board_sfen(c, sfen, sizeof sfen) == VIS_OK) {
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            *pieces += c->cls[sq] != 0;
        snprintf(full, sizeof full, "%s b - 1", sfen);
        ok = rul_pos_from_sfen(&rp, full, &re) == RUL_OK &&
             rul_pos_validate(&rp, RUL_VALIDATE_BOTH_KINGS, &re) == RUL_VALID;
    }
    free(c);
    return ok;
}

/* vis_board_by_pieces: vision.h. */
int vis_board_by_pieces(vis_classifier_t *clf, const cap_image_t *img, vis_pose_t *pose, vis_board_read_t *rd,
                        int *npieces) {
    static const double c[4][2] = {{-0.15, -0.15}, {9.15, -0.15}, {9.15, 9.15}, {-0.15, 9.15}};
    *npieces = 0;
    if (pose->found || !(pose->score >= VIS_BY_PIECES_MIN_SCORE))
        return 0;
    for (int i = 0; i < 4; i++) { /* every crop inside the frame: nothing read from replicated borders */
        double x, y;
        if (vis_pose_to_image(pose, c[i][0], c[i][1], &x, &y) != VIS_OK || x < 0 || y < 0 ||
            x > img->width - 1 || y > img->height - 1)
            return 0;
    }
    vis_pose_t cand = *pose;
    cand.found = 1;
    if (vis_classifier_orient(clf, img, &cand, rd) != 0)
        return -1;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        *npieces += rd->cls[sq] != 0 && rd->conf[sq] >= (float)VIS_BY_PIECES_MIN_CONF;
    if (*npieces < VIS_BY_PIECES_MIN_PIECES)
        return 0;
    *pose = cand; /* found, turned as the reading was */
    return 1;
}

/* The grid moves vis_grid_shift tries, as (du, dv) for vis_pose_shift, and their words. */
static const int shift_d[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
static const char *const shift_words[8] = {
    "one file towards file 1", "one file towards file 9", "one row towards rank 9", "one row towards rank 1",
    "one square towards 1i",   "one square towards 9i",   "one square towards 1a",  "one square towards 9a"};

/* Image point of the centre of pose's grid (vis_pose_to_image of the board's centre), pixels. */
static void grid_centre(const vis_pose_t *p, double c[2]) {
    if (vis_pose_to_image(p, 4.5, 4.5, &c[0], &c[1]) != VIS_OK)
        c[0] = c[1] = 0;
}

/* vis_grid_shift_towards: vision.h. */
const char *vis_grid_shift_towards(const vis_grid_shift_t *gs, const vis_pose_t *at_shift,
                                   const vis_pose_t *now) {
    if (gs == NULL || at_shift == NULL || now == NULL || (gs->du == 0 && gs->dv == 0))
        return gs && gs->towards ? gs->towards : "";
    vis_pose_t before = *at_shift, p;
    double a[2], b[2], c[2], n[2], best = 1e300;
    int bi = 0;
    vis_pose_shift(&before, -gs->du, -gs->dv);
    grid_centre(at_shift, a);
    grid_centre(&before, b);
    grid_centre(now, n);
    for (int i = 0; i < 8; i++) {
        p = *now;
        vis_pose_shift(&p, shift_d[i][0], shift_d[i][1]);
        grid_centre(&p, c);
        double ex = (c[0] - n[0]) - (a[0] - b[0]), ey = (c[1] - n[1]) - (a[1] - b[1]);
        if (ex * ex + ey * ey < best) {
            best = ex * ex + ey * ey;
            bi = i;
        }
    }
    return shift_words[bi];
}

/* vis_grid_shift: vision.h. */
int vis_grid_shift(vis_classifier_t *clf, const cap_image_t *img, vis_pose_t *pose, vis_board_read_t *rd,
                   vis_grid_shift_t *out) {
    const int(*d)[2] = shift_d;
    int pieces, best = -1, best_n = -1, rc = 0;
    double ll, best_ll = -1e300;
    memset(out, 0, sizeof *out);
    if (pose->confidence >= 0.6 || board_possible(rd, &pieces, &ll))
        return 0;
    int base_pieces = pieces;
    vis_board_read_t *r2 = malloc(2 * sizeof *r2);
    if (r2 == NULL)
        return 0; /* the grid found is kept */
    for (int i = 0; i < 8 && rc == 0; i++) {
        vis_pose_t p2 = *pose, p3;
        int n2;
        double l2;
        vis_pose_shift(&p2, d[i][0], d[i][1]);
        p3 = p2;
        vis_pose_rotate(&p3, 2);
        if (vis_classifier_read(clf, img, &p2, &r2[0]) != 0 ||
            vis_classifier_read(clf, img, &p3, &r2[1]) != 0) {
            rc = -1;
            break;
        }
        vis_board_read_merge_turned(&r2[0], &r2[1]);
        if (board_possible(&r2[0], &n2, &l2) && n2 >= base_pieces &&
            (n2 > best_n || (n2 == best_n && l2 > best_ll))) {
            best = i;
            best_n = n2;
            best_ll = l2;
            r2[0].orientation = rd->orientation;
            *rd = r2[0];
        }
    }
    free(r2);
    if (rc != 0 || best < 0)
        return rc;
    vis_pose_shift(pose, d[best][0], d[best][1]);
    out->du = d[best][0];
    out->dv = d[best][1];
    out->towards = shift_words[best];
    out->pieces = best_n;
    out->pieces_before = base_pieces;
    return 1;
}

/* vis_board_orient_shift: vision.h. */
int vis_board_orient_shift(vis_classifier_t *c, const cap_image_t *img, vis_pose_t *pose,
                           vis_board_read_t *rd, vis_grid_shift_t *gs) {
    if (vis_classifier_orient(c, img, pose, rd) != 0)
        return -1;
    return vis_grid_shift(c, img, pose, rd, gs);
}
