/* photo.c - one photo to a position (vis_photo_read): the grid found and checked, turned and moved,
 * the squares and the stands read and revised into one set, the reading judged. Every revision and
 * doubt is kept in the result as data; the caller says them. Design: docs/vision.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

/* A reading that is no possible position is also no board when its squares read as pieces are both more
 * than a set holds, by over PHOTO_NOT_PIECES_EXCESS (FESA 1.1: 18 pawns, 4 lances, knights, silvers and
 * golds, 2 bishops, rooks and kings; a promoted piece counts as its unpromoted kind), and mostly one class
 * (over PHOTO_NOT_PIECES_SHARE of them): one mark repeated over a ruled grid. */
#define PHOTO_NOT_PIECES_EXCESS 8
#define PHOTO_NOT_PIECES_SHARE 0.5

void vis_photo_params_default(vis_photo_params_t *p) {
    p->sente_side = -1;
    p->handicap = RUL_HC_EVEN;
    p->max_fix_cost = 12.0;
    p->reweigh = NULL;
    p->reweigh_user = NULL;
}

int vis_photo_fits(const cap_image_t *img) {
    return !((double)(img->width < img->height ? img->width : img->height) * 64 <
             (img->width > img->height ? img->width : img->height));
}

/* 1 if the grid point (u, v) (canonical grid units of pose) maps into img. */
static int grid_point_in_image(const vis_pose_t *pose, const cap_image_t *img, double u, double v) {
    double x, y;
    return vis_pose_to_image(pose, u, v, &x, &y) == VIS_OK && x >= 0 && y >= 0 && x < img->width &&
           y < img->height;
}

/* Where the grid's outer line on `side` lies (0: u = 0, the line beyond file 9; 1: u = 9, beyond file
 * 1; 2: v = 0, beyond rank 1; 3: v = 9, beyond rank 9), judged at 19 points along it: VIS_OUTER_IN (at
 * least half of them lie in the image with the image going on 0.15 square beyond them), VIS_OUTER_PAST
 * (at least half of the points a tenth of a square in from the line lie outside the image) or
 * VIS_OUTER_EDGE. */
static int outer_line_where(const vis_pose_t *pose, const cap_image_t *img, int side) {
    int in = 0, past = 0;
    double c = side % 2 ? 9 : 0, out = side % 2 ? 1 : -1; /* out: the direction away from the grid */
    for (int j = 0; j <= 18; j++) {
        double t = 0.5 * j, at[3] = {c, c + 0.15 * out, c - 0.1 * out};
        int inside[3];
        for (int k = 0; k < 3; k++)
            inside[k] = grid_point_in_image(pose, img, side < 2 ? at[k] : t, side < 2 ? t : at[k]);
        in += inside[0] && inside[1];
        past += !inside[2];
    }
    return 2 * in >= 19 ? VIS_OUTER_IN : 2 * past >= 19 ? VIS_OUTER_PAST : VIS_OUTER_EDGE;
}

/* Pieces on the board read rd beyond what one set holds, summed over the kinds (see
 * PHOTO_NOT_PIECES_EXCESS); *top gets how many squares the most frequent piece class holds. */
static int set_excess(const vis_board_read_t *rd, int *top) {
    static const int set[8] = {18, 4, 4, 4, 2, 2, 4, 2}; /* P L N S B R G K, the order of vis_class_sfen */
    int n[8] = {0}, per_class[VIS_CLASS_NB] = {0}, ex = 0;
    *top = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int c = rd->cls[sq];
        if (c <= 0 || c >= VIS_CLASS_NB)
            continue;
        int k = (c - 1) % 14; /* sente 1..14, gote 15..28: P L N S B R G K +P +L +N +S +B +R */
        n[k < 8 ? k : k - 8]++;
        if (++per_class[c] > *top)
            *top = per_class[c];
    }
    for (int k = 0; k < 8; k++)
        ex += n[k] > set[k] ? n[k] - set[k] : 0;
    return ex;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1] (sorted in place), 0 for n = 0. */
static double median_of(float *v, int n) {
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The pieces of each kind P L N S B R G that handicap h's game has in all (board and hands): those of
 * its starting position (rul_handicap_info), kings left out. Returns 0, -1 for an unknown h. */
static int handicap_set(rul_handicap_t h, int set[VIS_HAND_KIND_NB]) {
    rul_handicap_info_t info;
    if (rul_handicap_info(h, &info) != RUL_OK)
        return -1;
    memset(set, 0, sizeof(int) * VIS_HAND_KIND_NB);
    for (const char *p = info.sfen; *p && *p != ' '; p++) {
        const char *k = strchr("PLNSBRG", *p >= 'a' ? *p - 32 : *p);
        if (k)
            set[k - "PLNSBRG"]++;
    }
    return 0;
}

/* The side of the image (VIS_SIDE_*) where sente's edge of the board (canonical v = 9) lies once pose
 * is turned by q more quarter turns: the larger image coordinate of the board centre to that edge's
 * middle. */
static int pose_sente_side(const vis_pose_t *pose, int q) {
    vis_pose_t p = *pose;
    double cx, cy, ex, ey;
    vis_pose_rotate(&p, q);
    if (vis_pose_to_image(&p, 4.5, 4.5, &cx, &cy) != 0 || vis_pose_to_image(&p, 4.5, 9, &ex, &ey) != 0)
        return -1;
    ex -= cx;
    ey -= cy;
    return fabs(ey) >= fabs(ex) ? (ey > 0 ? 0 : 2) : (ex > 0 ? 1 : 3);
}

/* c's last error into err; returns VIS_E_CV. */
static int clf_err(vis_classifier_t *c, char *err, size_t errlen) {
    snprintf(err, errlen, "%s", vis_classifier_errmsg(c));
    return VIS_E_CV;
}

/* The grid: vis_pose_find, again at twice the work size for a large photo (a board small in a phone's
 * 4000 x 3000 has squares of a few pixels at the default), then by its pieces when it scores under the
 * threshold; oriented and moved a row or a file (vis_board_orient_shift). out->outcome is
 * VIS_PHOTO_NO_GRID when there is none. */
static int find_grid(vis_classifier_t *c, const cap_image_t *img, vis_photo_t *out, char *err,
                     size_t errlen) {
    vis_pose_t *pose = &out->pose;
    int rc;
    if (vis_pose_find(img, NULL, pose, err, errlen) != 0)
        return VIS_E_CV;
    if (!pose->found && (img->width > 1536 || img->height > 1536)) {
        vis_pose_params_t pp;
        vis_pose_t big;
        vis_pose_params_default(&pp);
        pp.work_size = 2048;
        if (vis_pose_find(img, &pp, &big, err, errlen) != 0)
            return VIS_E_CV;
        if (big.found || big.score > pose->score)
            *pose = big;
    }
    if (!pose->found && !(pose->score >= VIS_BY_PIECES_MIN_SCORE)) {
        out->outcome = VIS_PHOTO_NO_GRID;
        return VIS_OK;
    }
    out->by_pieces = !pose->found; /* read by vis_board_by_pieces: pose and board are oriented already */
    if (out->by_pieces) {
        if ((rc = vis_board_by_pieces(c, img, pose, &out->board, &out->npieces)) < 0)
            return clf_err(c, err, errlen);
        if (rc == 0) {
            out->outcome = VIS_PHOTO_NO_GRID;
            return VIS_OK;
        }
    }
    if (out->by_pieces)
        rc = vis_grid_shift(c, img, pose, &out->board, &out->shift);
    else
        rc = vis_board_orient_shift(c, img, pose, &out->board, &out->shift);
    if (rc < 0)
        return clf_err(c, err, errlen);
    out->shifted = rc;
    return VIS_OK;
}

/* Told where sente sits (sente_side): the pieces only give the axis (turned by 180 degrees the position
 * is the same game with the colours swapped), so the reading is turned, or read again across. */
static int turn_to_sente(vis_classifier_t *c, const cap_image_t *img, int sente_side, vis_photo_t *out,
                         char *err, size_t errlen) {
    vis_board_read_t *rd = &out->board;
    int q = 0;
    while (q < 4 && pose_sente_side(&out->pose, q) != sente_side)
        q++;
    if (q == 2) {
        vis_pose_rotate(&out->pose, 2);
        vis_board_read_turn(rd);
    } else if (q == 1 || q == 3) {
        int o = rd->orientation;
        vis_pose_rotate(&out->pose, q);
        if (vis_classifier_read(c, img, &out->pose, rd) != 0)
            return clf_err(c, err, errlen);
        rd->orientation = (o + q) % 4;
        out->read_across = 1;
    }
    return VIS_OK;
}

/* A grid one file or rank over with its outer line on the table or a border beyond the board: the strip
 * of squares past the board's edge is not the board's surface (vis_board_off_strips). Moved one square
 * away from that strip when the board runs past the image's edge on the other side; else only kept in
 * off_strip. Moved, the squares are read again where they are, merged with their turned reading. */
static int move_off_strips(vis_classifier_t *c, const cap_image_t *img, vis_photo_t *out, char *err,
                           size_t errlen) {
    static const char *const strip_name[4] = {"file 9", "file 1", "rank 1", "rank 9"};
    static const char *const away[4] = {"one file towards file 1", "one file towards file 9",
                                        "one row towards rank 9", "one row towards rank 1"};
    vis_board_read_t *rd = &out->board;
    int off[4];
    if (vis_board_off_strips(img, &out->pose, rd, off, err, errlen) != 0)
        return VIS_E_CV;
    for (int axis = 0; axis < 2; axis++) { /* files, then ranks: a photo cut at a corner can need both */
        int side = 2 * axis + (off[2 * axis] ? 0 : 1), opp = side ^ 1;
        if (!off[side])
            continue;
        out->off_strip[axis] = strip_name[side];
        vis_pose_t moved = out->pose;
        vis_pose_shift(&moved, side == 0 ? 1 : side == 1 ? -1 : 0, side == 2 ? 1 : side == 3 ? -1 : 0);
        if (!off[opp] && outer_line_where(&moved, img, opp) != VIS_OUTER_IN) {
            out->pose = moved;
            out->off_moved[axis] = away[side];
        }
    }
    if (!out->off_moved[0] && !out->off_moved[1])
        return VIS_OK;
    int o = rd->orientation;
    vis_pose_t turned_pose = out->pose;
    vis_board_read_t *turned = malloc(sizeof *turned);
    vis_pose_rotate(&turned_pose, 2);
    if (turned == NULL || vis_classifier_read(c, img, &out->pose, rd) != 0 ||
        vis_classifier_read(c, img, &turned_pose, turned) != 0) {
        snprintf(err, errlen, "%s", turned ? vis_classifier_errmsg(c) : "out of memory");
        free(turned);
        return turned ? VIS_E_CV : VIS_E_NOMEM;
    }
    vis_board_read_merge_turned(rd, turned);
    free(turned);
    rd->orientation = o;
    return VIS_OK;
}

/* One position, not 81 guesses. Both stands in view: the board and the stands must hold one set
 * (vis_position_decode). Otherwise, or when no set is near: a kind read more often than a set has it
 * gives up its least sure squares (vis_board_constrain, FESA 1.2). */
static void one_set(const vis_photo_params_t *params, vis_photo_t *out) {
    vis_board_read_t *rd = &out->board;
    vis_komadai_read_t *kr = &out->hands;
    int set[VIS_HAND_KIND_NB], done = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        out->was_cls[sq] = rd->cls[sq];
    memcpy(out->hands_read, kr->count, sizeof out->hands_read);
    if (kr->known[0] && kr->known[1]) {
        if (handicap_set(params->handicap, set) == 0 &&
            vis_position_decode(rd, kr, set, params->max_fix_cost, &out->fix) == VIS_OK && out->fix.applied)
            done = 1;
        out->decoded = 1;
    }
    out->handicap_unused = !(kr->known[0] && kr->known[1]) && params->handicap != RUL_HC_EVEN;
    if (!done && vis_board_constrain(rd, 0.08, out->constrained, &out->nconstrained) != VIS_OK)
        out->nconstrained = 0;
}

/* The SFEN fields: a stand out of view is unknown, never "no pieces": its part of the hands field stays
 * empty. */
static int sfen_fields(vis_photo_t *out, char *err, size_t errlen) {
    vis_komadai_read_t k2 = out->hands;
    if (vis_board_sfen(&out->board, out->sfen, sizeof out->sfen) != 0) {
        snprintf(err, errlen, "SFEN does not fit");
        return VIS_E_ARG;
    }
    for (int s = 0; s < 2; s++)
        k2.known[s] = 1; /* an unknown stand's counts are all 0: nothing is written for it */
    if (vis_komadai_sfen(&k2, out->hands_sfen, sizeof out->hands_sfen) != 0) {
        snprintf(err, errlen, "hands do not fit");
        return VIS_E_ARG;
    }
    return VIS_OK;
}

/* Judges the reading: the squares not seen, where the outer lines lie, whether board and hands are a
 * possible position (FESA 9.4); one that is not may be no board at all (ruled paper, a drawn grid with
 * letters: its "pieces" are one mark repeated, or read with little confidence). */
static void judge(const cap_image_t *img, vis_photo_t *out) {
    const vis_board_read_t *rd = &out->board;
    char full[256];
    rul_pos_t rp;
    rul_error_t re;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int file = sq / 9 + 1, rank = sq % 9 + 1; /* canonical: u = 9 - file, v = rank - 1 */
        out->unseen[sq] = !vis_pose_square_seen(&out->pose, img->width, img->height, 9 - file, rank - 1);
    }
    for (int side = 0; side < 4; side++)
        out->outer[side] = outer_line_where(&out->pose, img, side);
    snprintf(full, sizeof full, "%s b %s 1", out->sfen, out->hands_sfen);
    if (rul_pos_from_sfen(&rp, full, &re) == RUL_OK &&
        rul_pos_validate(&rp, RUL_VALIDATE_BOTH_KINGS, &re) == RUL_VALID)
        return;
    /* the SFEN is ours: its parser's "sfen: column N: " says nothing to the user */
    const char *why = re.msg, *after = strncmp(why, "sfen: column ", 13) == 0 ? strstr(why + 13, ": ") : NULL;
    if (after != NULL)
        why = after + 2;
    snprintf(out->impossible, sizeof out->impossible, "%s", why);
    float conf[VIS_SQUARE_NB];
    int npc = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        if (rd->cls[sq] != 0)
            conf[npc++] = rd->conf[sq];
    out->npieces_read = npc;
    out->median_conf = median_of(conf, npc);
    out->excess = set_excess(rd, &out->top);
    if (out->excess > PHOTO_NOT_PIECES_EXCESS && out->top > PHOTO_NOT_PIECES_SHARE * npc)
        out->outcome = VIS_PHOTO_ONE_MARK;
    else if (npc > 0 && out->median_conf < VIS_PHOTO_NOT_PIECES_CONF)
        out->outcome = VIS_PHOTO_NOT_PIECES;
}

/* vis_photo_read: vision.h. */
int vis_photo_read(vis_classifier_t *c, const cap_image_t *img, const vis_photo_params_t *params,
                   vis_photo_t *out, char *err, size_t errlen) {
    vis_photo_params_t def;
    int rc;
    if (c == NULL || img == NULL || img->data == NULL || out == NULL) {
        vis_set_err(err, errlen, "vis_photo_read", "bad argument");
        return VIS_E_ARG;
    }
    if (params == NULL) {
        vis_photo_params_default(&def);
        params = &def;
    }
    memset(out, 0, sizeof *out);
    out->outcome = VIS_PHOTO_BOARD;
    if (!vis_photo_fits(img)) {
        out->outcome = VIS_PHOTO_THIN;
        return VIS_OK;
    }
    if ((rc = find_grid(c, img, out, err, errlen)) != VIS_OK || out->outcome != VIS_PHOTO_BOARD)
        return rc;
    vis_pose_t at_shift = out->pose; /* the words of a move are said for the grid as finally turned */
    if (params->sente_side >= 0 &&
        (rc = turn_to_sente(c, img, params->sente_side, out, err, errlen)) != VIS_OK)
        return rc;
    if (out->shifted)
        out->shift.towards = vis_grid_shift_towards(&out->shift, &at_shift, &out->pose);
    if ((rc = move_off_strips(c, img, out, err, errlen)) != VIS_OK)
        return rc;
    /* one photo, no hurry: the squares read again at two more crop sizes (test-time scales) */
    if (vis_classifier_read_scales(c, img, &out->pose, &out->board) != 0 ||
        vis_komadai_read(c, img, &out->pose, NULL, &out->hands) != 0)
        return clf_err(c, err, errlen);
    if (params->reweigh != NULL) {
        params->reweigh(&out->board, params->reweigh_user);
        vis_board_read_argmax(&out->board);
    }
    one_set(params, out);
    if ((rc = sfen_fields(out, err, errlen)) != VIS_OK)
        return rc;
    judge(img, out);
    return VIS_OK;
}
