/* start_grid.c - the setup decides the grid: a board seen obliquely shows each piece's face above the
 * square it stands on, so a tall piece can make the grid a row or a file off read as a possible
 * position (vis_grid_shift moves it there) while the setup then differs from every start. While the
 * tracker waits for the setup and the reading is no start in occupancy and owner, the eight grids a
 * square off and the grid turned by a quarter are read too; the one that is a start (within the
 * tracker's max_misread_occ squares, strictly nearer than every other placement) becomes the pose. */
#include <stdlib.h>
#include <string.h>

#include "recorder/record/record_internal.h"
#include "recorder/record/view.h"

/* Time between two checks of the same pose while the setup is not matched, us, and the most checks
 * of one pose (each reads 16 boards: a board that is no start, a game under way, costs no more). */
#define START_GRID_EVERY_US 2000000
#define START_GRID_MAX 3

/* Observation class (0 empty, 1..14 sente, 15..28 gote) to its channel: 0 empty, 1 sente, 2 gote. */
static int channel_of(int c) { return c == 0 ? 0 : c <= 14 ? 1 : 2; }

/* Squares whose occupancy or owner rd (flipped when flip is 1) reads otherwise than pos has them: the
 * probability of pos's channel (all the classes of its occupancy and owner together) under 0.5, as the
 * tracker's setup check counts them. occ_only: the occupancy alone (a piece of either side or none). */
static int chan_diffs(const vis_board_read_t *rd, int flip, const rul_pos_t *pos, int occ_only) {
    int n = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        int ch = channel_of(REC_OBS_CLASS(rul_pos_piece_at(pos, sq)));
        float p = 0;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            if (occ_only ? (channel_of(c) == 0) == (ch == 0) : channel_of(c) == ch)
                p += rec_view_prob_at(rd, flip, sq, c);
        n += p < 0.5f;
    }
    return n;
}

/* Fewest chan_diffs of rd over the starts (either end as sente's). */
static int nearest_start(const vis_board_read_t *rd, const rul_pos_t *starts, int nstarts, int occ_only) {
    int best = RUL_SQ_NB + 1;
    for (int i = 0; i < nstarts; i++)
        for (int flip = 0; flip < 2; flip++) {
            int n = chan_diffs(rd, flip, &starts[i], occ_only);
            if (n < best)
                best = n;
        }
    return best;
}

/* The placements tried: the grid shifts (du, dv) for vis_pose_shift, then the grid turned by a quarter
 * (QUARTER: which way the pieces point decided the axis, and on a set the network reads badly, seen
 * from the side, it can choose the wrong one; the start's ranks of pieces then lie along files). The
 * turn is judged by occupancy alone, which the owner of a badly read set does not blur: a start turned
 * by a quarter is 30 squares or more off every start, so the turn is taken when the grid as it is
 * reads at least QUARTER_FAR squares off in occupancy and turned at most QUARTER_NEAR. */
#define NPLACE 9
#define QUARTER 8
#define QUARTER_FAR 20
#define QUARTER_NEAR 3
static const int SHIFTS[NPLACE][2] = {{1, 0},  {-1, 0}, {0, 1},   {0, -1}, {1, 1},
                                      {-1, 1}, {1, -1}, {-1, -1}, {0, 0}};

/* Pose moved to placement i of SHIFTS. */
static void place(vis_pose_t *p, int i) {
    if (i == QUARTER)
        vis_pose_rotate(p, 1);
    else
        vis_pose_shift(p, SHIFTS[i][0], SHIFTS[i][1]);
}

int rec_loop_start_grid(rec_loop_t *L, const cap_image_t *img, int *moved) {
    rul_pos_t starts[RUL_HC_NB];
    int nstarts = 0, max_occ = L->o->trk.max_misread_occ;
    *moved = 0;
    if (rec_trk_state(L->trk) != REC_TRK_SETUP || L->start_grid_n >= START_GRID_MAX ||
        (L->start_grid_ts >= 0 && L->ts - L->start_grid_ts < START_GRID_EVERY_US))
        return REC_OK;
    L->start_grid_ts = L->ts;
    if (L->o->start)
        starts[nstarts++] = *L->o->start;
    else
        for (int h = 0; h < RUL_HC_NB; h++)
            if (rul_pos_set_handicap(&starts[nstarts], (rul_handicap_t)h) == RUL_OK)
                nstarts++;
    int here = nearest_start(L->rd, starts, nstarts, 0), here_occ = nearest_start(L->rd, starts, nstarts, 1);
    if (here <= max_occ)
        return REC_OK; /* a start, or one within what the setup check takes as misread */
    L->start_grid_n++;
    vis_board_read_t *r = malloc(3 * sizeof *r);
    if (r == NULL)
        return REC_OK; /* the grid is kept */
    int best = -1, best_n = here, ties = 0;
    for (int i = 0; i < NPLACE; i++) {
        vis_pose_t p2 = L->pose, p3;
        place(&p2, i);
        p3 = p2;
        vis_pose_rotate(&p3, 2);
        if (vis_classifier_read(L->clf, img, &p2, &r[0]) != 0 ||
            vis_classifier_read(L->clf, img, &p3, &r[1]) != 0) {
            free(r);
            return set_err(L->err, sizeof L->err, REC_EVISION, "%s", vis_classifier_errmsg(L->clf));
        }
        vis_board_read_merge_turned(&r[0], &r[1]);
        int n = nearest_start(&r[0], starts, nstarts, 0);
        if (i == QUARTER && here_occ >= QUARTER_FAR &&
            nearest_start(&r[0], starts, nstarts, 1) <= QUARTER_NEAR) {
            r[2] = r[0];
            best = i;
            best_n = n;
            ties = 0;
            break;
        }
        if (i == QUARTER)
            continue;
        if (n < best_n) {
            r[2] = r[0];
            best = i;
            best_n = n;
            ties = 0;
        } else if (n == best_n && best >= 0) {
            ties++;
        }
    }
    if (L->o->verbose)
        logline(L,
                "start grid: the setup is %d squares off every start in occupancy and owner; a square off or "
                "turned, %d%s",
                here, best_n, best >= 0 && ties == 0 ? "" : " (no one placement nearer)");
    if (best < 0 || (best != QUARTER && (ties > 0 || best_n > max_occ))) {
        free(r);
        return REC_OK;
    }
    /* which end is sente's, as orient() decides it for the found grid */
    L->flip =
        L->o->start && rec_view_read_fit(&r[2], 1, L->o->start) > rec_view_read_fit(&r[2], 0, L->o->start);
    L->orient_decided = 0;
    free(r);
    /* the start decides: the grid a square off is where the setup is */
    vis_pose_t p = L->pose;
    vis_stability_t *st = NULL;
    char verr[256], d[200];
    place(&p, best);
    if (vis_stability_create(&p, &L->o->stab, &st, verr, sizeof verr) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", verr);
    vis_stability_destroy(L->stab);
    L->stab = st;
    L->pose = p;
    L->have_read = 0;
    L->reads_this_view = 0;
    if (best == QUARTER)
        snprintf(d, sizeof d,
                 "grid turned by a quarter: the setup read so is a start (%d squares off in occupancy and "
                 "owner, %d as it was)",
                 best_n, here);
    else
        snprintf(d, sizeof d,
                 "grid moved by (%d, %d) squares: the setup read there is a start (%d squares off in "
                 "occupancy and owner, %d where it was)",
                 SHIFTS[best][0], SHIFTS[best][1], best_n, here);
    source_event(L, "grid_moved", d); /* also the log line */
    *moved = 1;
    return REC_OK;
}
