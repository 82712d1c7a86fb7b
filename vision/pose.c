/* pose.c - finds the 9x9 grid of a shogi board in a frame (vis_pose_find) and moves between image and
 * canonical board coordinates (vis_pose_rotate, vis_pose_to_image, vis_pose_warp).
 *
 * How: the frame is shrunk to a grey working image; a black-hat filter lights up thin dark lines (the
 * grid, also kanji strokes and clutter); the strongest Hough lines fall into direction families (the
 * angles' vote peaks, and across the strongest the angle with the most distinct lines, which finds the
 * converging lines of a board seen from an end);
 * every pair of lines of one family with every pair of the other makes a candidate quadrilateral,
 * i.e. a homography from the canonical 9x9 board. A candidate is scored by sampling where its 8 inner
 * lines of each direction must be (they must be dark) against the lines half a square away (they must
 * not), which only a real 9x9 grid passes; refined candidates are scored leaving out the lines between
 * squares that hold pieces (a piece's face stands over them in an oblique view). The best candidates are
 * refined by fitting each of the 20 grid lines to the black-hat peaks near it and the homography to their 100
 * crossings; the best refined score wins if it reaches min_score. OpenCV does the resize, the black-hat and
 * the Hough transform (cvseam.h); the rest is here. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vision/cvseam.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

#define PI 3.14159265358979323846
#define MAX_HOUGH 1500
#define MAX_FAMILY 64
#define TOP_CANDIDATES 24
#define PEAK_LINES 200 /* strongest Hough lines that vote for the grid's directions */

void vis_pose_params_default(vis_pose_params_t *p) {
    p->work_size = 1024;
    p->min_area = 0.03;
    p->min_score = 0.60;
    p->min_score_fill = 0.45;
    p->max_lines = 28;
    p->aspect = 1.09;
    p->min_level = 12;
    p->faint_level = 6;
    p->faint_blur = 0.7;
}

typedef struct line {
    double rho, theta, votes; /* x cos(theta) + y sin(theta) = rho, working pixels */
    double pos;               /* where the line crosses the family's normal through the image centre */
} line_t;

typedef struct cand {
    double h[9];  /* canonical -> working image */
    double score; /* grid score */
    double rms;   /* crossing rms after refinement, working pixels */
} cand_t;

typedef struct scratch { /* the two line families of one angle pairing and their crossings */
    line_t fam[2][MAX_FAMILY];
    double X[MAX_FAMILY][MAX_FAMILY][2];
    unsigned char xok[MAX_FAMILY][MAX_FAMILY];
} scratch_t;

typedef struct work {
    int w, h;
    unsigned char *grey; /* w x h */
    unsigned char *bh;   /* black-hat of grey */
    unsigned char *bin;  /* bh >= thr, dilated by one pixel (for scoring) */
    unsigned char *edge; /* bh >= thr, not dilated (for Hough) */
    unsigned char *bh2;  /* scratch for the dilation */
    unsigned char *bin3; /* bh >= thr dilated by one pixel only (for the final score) */
    unsigned char *sub;  /* bh >= sub_thr (<= thr) dilated by one pixel (grid_unbounded's lines inside and
                          * beyond a grid) */
    int thr;             /* black-hat level that counts as "on a line" */
} work_t;

/* ---------------------------------------------------------------- scoring */

/* The one-square moves of a grid tried against a candidate (du, dv): along u, then along v. */
static const double grid_moves[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

/* out = h moved by (du, dv) squares: out's line u = k is h's line u = k + du (v likewise). */
static void grid_shifted(const double h[9], double du, double dv, double out[9]) {
    double t[9] = {1, 0, du, 0, 1, dv, 0, 0, 1};
    vis_mat3_mul(h, t, out);
}

/* Samples the grid line at c (dir 0: u = c, 1: v = c; c may lie outside 0..9) of h over the binary map,
 * m samples per square along t = 0..9. Returns the samples hit; *n the samples counted (a sample on
 * the frame's edge, within 3 pixels of it, is neither seen nor missed: a straightened photo cut at the
 * outer lines; one beyond the frame counts as missed); *inside (may be NULL) those within the frame. */
static int seg_hits(const work_t *wk, const unsigned char *bin, const double h[9], int dir, double c,
                    double t0, double t1, int m, int *n, int *inside);

static int line_hits(const work_t *wk, const unsigned char *bin, const double h[9], int dir, double c, int m,
                     int *n, int *inside) {
    return seg_hits(wk, bin, h, dir, c, 0, 9, m, n, inside);
}

/* line_hits over the part t0..t1 of the line (grid units along it; t0 < t1, either may lie outside
 * 0..9), m samples per square. */
static int seg_hits(const work_t *wk, const unsigned char *bin, const double h[9], int dir, double c,
                    double t0, double t1, int m, int *n, int *inside) {
    const int w = wk->w, ht = wk->h;
    int hits = 0;
    /* the line as X(t) = X0 + t dX in homogeneous image coordinates, t = 0..9 */
    double X0[3], dX[3];
    for (int r = 0; r < 3; r++) {
        if (dir == 0) { /* u = c, v = t */
            X0[r] = h[3 * r] * c + h[3 * r + 2];
            dX[r] = h[3 * r + 1];
        } else { /* v = c, u = t */
            X0[r] = h[3 * r + 1] * c + h[3 * r + 2];
            dX[r] = h[3 * r];
        }
    }
    int in = 0;
    *n = 0;
    int ns = (int)lround((t1 - t0) * m);
    for (int j = 0; j < ns; j++) {
        double t = t0 + (j + 0.5) / m;
        double zw = X0[2] + t * dX[2];
        int hit = 0;
        if (zw > 1e-9) {
            double x = (X0[0] + t * dX[0]) / zw, y = (X0[1] + t * dX[1]) / zw;
            int xi = (int)lround(x), yi = (int)lround(y);
            if ((xi >= -3 && xi <= 2) || (xi >= w - 3 && xi <= w + 2) || (yi >= -3 && yi <= 2) ||
                (yi >= ht - 3 && yi <= ht + 2))
                continue;
            if (xi >= 0 && yi >= 0 && xi < w && yi < ht) {
                hit = bin[(size_t)yi * w + xi] != 0;
                in++;
            }
        }
        hits += hit;
        (*n)++;
    }
    if (inside)
        *inside = in;
    return hits;
}

/* Grid score of h over the binary map, for one direction (dir 0: the lines u = const, 1: v = const),
 * from the hit rate of each of the 10 grid lines 0..9 and of the 9 lines half a square off (0.5 ..
 * 8.5): the mean rate on the grid lines, less the mean rate on the half lines. The outer lines count:
 * without them the grid shifted by one square onto the board's edge would score as well. m samples
 * per square along each line. occ (may be NULL: every square counts): the squares that hold something
 * (occupied_squares, occ[9 u + v]); a grid line's square-long part between two such squares, and a
 * half line's part across one, are left out: pieces hide the line between them or, in an oblique
 * view, a face stands over it, and a piece's strokes fill the half line through it as densely as a
 * grid line, which says nothing about whether the grid is right. The outer lines' parts always count
 * (a grid a row over, its outer line on the board's printed border, must not fit as well). A line
 * with under two parts left is not counted.
 * Two corrections, both seen on a rendered oblique board whose pieces stand over the lines (a comb of
 * half the row height over ranks 3-7 scored 0.62, the whole board 0.54):
 *  - the two most-hit half lines are left out of their mean: a rank full of pieces (the starting
 *    position has four) fills its half line with kanji strokes and piece outlines as densely as a
 *    grid line, which says nothing about whether the grid is right;
 *  - a comb whose period is a fraction of the real one (every other line on the board's lines, the
 *    lines between on empty squares) is penalised: the gap between the mean hit rates of the even
 *    and the odd grid lines, beyond 0.2 that pieces hiding lines unevenly can give a real grid, is
 *    taken off. A real grid explains all its lines; such a comb only half of them. */
static double dir_score(const work_t *wk, const unsigned char *bin, const double h[9], int dir, int m,
                        const unsigned char *occ) {
    double on_sum[2] = {0, 0}, off_rate[9];
    int on_lines[2] = {0, 0}, noff = 0;

    for (int k2 = 0; k2 <= 18; k2++) { /* position k2/2: even = grid lines, odd = half lines */
        int n = 0, hits = 0;
        if (occ == NULL) {
            hits = line_hits(wk, bin, h, dir, k2 * 0.5, m, &n, NULL);
        } else {
            int parts = 0;
            for (int j = 0; j < 9; j++) {
                int a = k2 % 2 ? (k2 - 1) / 2 : k2 / 2 - 1, b = k2 % 2 ? a : k2 / 2, busy = 0, nj;
                for (int s = a; s <= b; s++) /* the squares beside (grid line) or under (half line) */
                    if (s >= 0 && s <= 8)
                        busy += occ[dir == 0 ? 9 * s + j : 9 * j + s];
                if (busy == (k2 % 2 ? 1 : 2)) /* a grid line between two occupied squares, or a half
                                               * line across one */
                    continue;
                hits += seg_hits(wk, bin, h, dir, k2 * 0.5, j, j + 1, m, &nj, NULL);
                n += nj;
                parts += nj > 0;
            }
            if (parts < 2)
                n = 0;
        }
        if (n == 0)
            continue;
        if (k2 % 2 == 0) {
            on_sum[(k2 / 2) % 2] += (double)hits / n;
            on_lines[(k2 / 2) % 2]++;
        } else {
            off_rate[noff++] = (double)hits / n;
        }
    }
    if (on_lines[0] + on_lines[1] == 0 || noff == 0)
        return -1;
    double on = (on_sum[0] + on_sum[1]) / (on_lines[0] + on_lines[1]);
    if (on_lines[0] > 0 && on_lines[1] > 0) {
        double gap = fabs(on_sum[0] / on_lines[0] - on_sum[1] / on_lines[1]) - 0.2;
        if (gap > 0)
            on -= gap;
    }
    /* the half lines' mean without the two most hit (when at least 5 are seen) */
    int drop = noff >= 5 ? 2 : 0;
    for (int d = 0; d < drop; d++) {
        int hi = 0;
        for (int i = 1; i < noff; i++)
            if (off_rate[i] > off_rate[hi])
                hi = i;
        off_rate[hi] = off_rate[--noff];
    }
    double off = 0;
    for (int i = 0; i < noff; i++)
        off += off_rate[i];
    return on - off / noff;
}

/* The grid score: the weaker of the two directions (a real grid is good in both; a family of
 * parallel lines alone, such as the rows of a straightened photo cut into a narrow quad, in one).
 * Returns early (below `enough`) when the first direction already fails. occ: as dir_score. */
static double grid_score(const work_t *wk, const unsigned char *bin, const double h[9], int m, double enough,
                         const unsigned char *occ) {
    double a = dir_score(wk, bin, h, 0, m, occ);
    if (a < enough)
        return a;
    double b = dir_score(wk, bin, h, 1, m, occ);
    return a < b ? a : b;
}

#define OCC_SAMPLES 4    /* per square and axis, over its middle half */
#define OCC_MIN_EMPTY 20 /* fewer empty squares: the occupancy says nothing (texture, clutter) */

/* The squares of h that hold something, occ[9 u + v] = 1: the share of OCC_SAMPLES^2 points over the
 * square's middle half (clear of its lines) that hit the binary map is at least 0.15 and over twice
 * the median square's plus 0.1 (a wooden board's grain lights the median square a little). Returns
 * the empty squares, 0 when the grid is not in the frame. */
static int occupied_squares(const work_t *wk, const unsigned char *bin, const double h[9],
                            unsigned char occ[VIS_SQUARE_NB]) {
    double rate[VIS_SQUARE_NB], sorted[VIS_SQUARE_NB];
    for (int u = 0; u < 9; u++)
        for (int v = 0; v < 9; v++) {
            int hits = 0, n = 0;
            for (int a = 0; a < OCC_SAMPLES; a++)
                for (int b = 0; b < OCC_SAMPLES; b++) {
                    double x, y, du = 0.25 + 0.5 * a / (OCC_SAMPLES - 1),
                                 dv = 0.25 + 0.5 * b / (OCC_SAMPLES - 1);
                    if (vis_hom_apply(h, u + du, v + dv, &x, &y) != 0)
                        continue;
                    int xi = (int)lround(x), yi = (int)lround(y);
                    if (xi < 0 || yi < 0 || xi >= wk->w || yi >= wk->h)
                        continue;
                    hits += bin[(size_t)yi * wk->w + xi] != 0;
                    n++;
                }
            rate[9 * u + v] = n ? (double)hits / n : -1;
            sorted[9 * u + v] = rate[9 * u + v];
        }
    for (int i = 1; i < VIS_SQUARE_NB; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    double med = sorted[VIS_SQUARE_NB / 2], need = 2 * med + 0.1;
    if (med < 0)
        return 0;
    if (need < 0.15)
        need = 0.15;
    int empty = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        occ[sq] = rate[sq] >= need;
        empty += rate[sq] >= 0 && !occ[sq];
    }
    return empty;
}

/* The dense grid score of h (5 samples a square over bin3), with its occupied squares left out when
 * enough are empty to judge it by (occupied_squares). */
static double dense_score(const work_t *wk, const double h[9]) {
    unsigned char occ[VIS_SQUARE_NB];
    int empty = occupied_squares(wk, wk->bin3, h, occ);
    return grid_score(wk, wk->bin3, h, 5, -1, empty >= OCC_MIN_EMPTY ? occ : NULL);
}

/* ---------------------------------------------------------------- refinement */

static double bilinear(const unsigned char *img, int w, int h, double x, double y) {
    if (!(x >= 0 && y >= 0 && x <= w - 1 && y <= h - 1))
        return 0;
    int x0 = (int)x, y0 = (int)y;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    double fx = x - x0, fy = y - y0;
    const unsigned char *r0 = img + (size_t)y0 * w, *r1 = img + (size_t)y1 * w;
    return (1 - fy) * ((1 - fx) * r0[x0] + fx * r0[x1]) + fy * ((1 - fx) * r1[x0] + fx * r1[x1]);
}

/* Total-least-squares line through pts (n points): a x + b y = c with a^2 + b^2 = 1. */
static int fit_line(const double *pts, const int *use, int n, double l[3]) {
    double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (use[i]) {
            mx += pts[2 * i];
            my += pts[2 * i + 1];
            k++;
        }
    if (k < 2)
        return -1;
    mx /= k;
    my /= k;
    for (int i = 0; i < n; i++)
        if (use[i]) {
            double dx = pts[2 * i] - mx, dy = pts[2 * i + 1] - my;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
    /* the normal is the eigenvector of the smaller eigenvalue of the scatter matrix */
    double ang = 0.5 * atan2(2 * sxy, sxx - syy); /* direction of the line */
    l[0] = -sin(ang);
    l[1] = cos(ang);
    l[2] = l[0] * mx + l[1] * my;
    return 0;
}

#define REF_SAMPLES 27 /* per line: t = j + 0.25, 0.5, 0.75 */

/* The line of the black-hat map near the grid point (u, v) of h, searched across the grid line running
 * along (du, dv) within radius squares: the sub-pixel peak into (*x, *y). Returns 1, or 0 when there is
 * no peak at least wk->thr (or the grid is too small there). */
static int line_peak(const work_t *wk, const double h[9], double u, double v, double du, double dv,
                     double radius, double *x, double *y) {
    double px, py, nx, ny;
    if (vis_hom_apply(h, u, v, &px, &py) != 0 || vis_hom_apply(h, u + du, v + dv, &nx, &ny) != 0)
        return 0;
    double sx = nx - px, sy = ny - py, s = hypot(sx, sy);
    if (s < 2)
        return 0;
    sx /= s;
    sy /= s;
    double r = radius * s, best = -1, step = 0.5;
    int nsteps = (int)(r / step);
    double vals[512];
    if (nsteps > 255)
        nsteps = 255;
    for (int i = -nsteps; i <= nsteps; i++)
        vals[i + nsteps] = bilinear(wk->bh, wk->w, wk->h, px + i * step * sx, py + i * step * sy);
    int bi = -1;
    for (int i = 1; i < 2 * nsteps; i++)
        if (vals[i] > best) {
            best = vals[i];
            bi = i;
        }
    if (bi < 0 || best < wk->thr)
        return 0;
    /* a peak, not a slope running out of the window */
    if (vals[bi - 1] > best || vals[bi + 1] > best)
        return 0;
    double den = vals[bi - 1] - 2 * best + vals[bi + 1];
    double off = den < 0 ? 0.5 * (vals[bi - 1] - vals[bi + 1]) / den : 0;
    double bestd = (bi - nsteps + off) * step;
    *x = px + bestd * sx;
    *y = py + bestd * sy;
    return 1;
}

/* Fits grid line k of direction dir (0: u = k, 1: v = k) of h to the black-hat map: 27 samples along it
 * (line_peak), a line fitted, one pass of outlier removal (kanji strokes and piece edges near the line),
 * fitted again. Returns 0 with l, or -1 (fewer than 6 samples kept). */
static int fit_grid_line(const work_t *wk, const double h[9], int dir, int k, double radius, double l[3]) {
    double pts[REF_SAMPLES * 2];
    int use[REF_SAMPLES];
    int n = 0;
    for (int j = 0; j < 9; j++)
        for (int q = 1; q <= 3; q++) {
            double t = j + q * 0.25;
            double u = dir == 0 ? k : t, v = dir == 0 ? t : k;
            if (line_peak(wk, h, u, v, dir == 0 ? 1 : 0, dir == 0 ? 0 : 1, radius, &pts[2 * n],
                          &pts[2 * n + 1])) {
                use[n] = 1;
                n++;
            }
        }
    if (n < 6 || fit_line(pts, use, n, l) != 0)
        return -1;
    double res[REF_SAMPLES], sorted[REF_SAMPLES];
    for (int i = 0; i < n; i++)
        sorted[i] = res[i] = fabs(l[0] * pts[2 * i] + l[1] * pts[2 * i + 1] - l[2]);
    for (int i = 1; i < n; i++) /* insertion sort, n <= 27 */
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    double lim = 2.5 * sorted[n / 2];
    if (lim < 1.0)
        lim = 1.0;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        use[i] = res[i] <= lim;
        kept += use[i];
    }
    if (kept < 6 || fit_line(pts, use, n, l) != 0)
        return -1;
    return 0;
}

/* The homography through the crossings of the fitted lines (lines[dir][k] where ok[dir][k]) into h, its
 * residual (pixels, RMS) into *rms. Returns 0, or -1 (fewer than 9 crossings, degenerate). */
static int fit_crossings(const double lines[2][10][3], const int ok[2][10], double h[9], double *rms) {
    double src[200], dst[200];
    int n = 0;
    for (int a = 0; a <= 9; a++)
        for (int b = 0; b <= 9; b++) {
            if (!ok[0][a] || !ok[1][b])
                continue;
            const double *l1 = lines[0][a], *l2 = lines[1][b];
            double det = l1[0] * l2[1] - l1[1] * l2[0];
            if (fabs(det) < 1e-9)
                continue;
            src[2 * n] = a;
            src[2 * n + 1] = b;
            dst[2 * n] = (l1[2] * l2[1] - l1[1] * l2[2]) / det;
            dst[2 * n + 1] = (l1[0] * l2[2] - l1[2] * l2[0]) / det;
            n++;
        }
    double hn[9];
    if (n < 9 || vis_hom_fit(src, dst, n, hn) != 0)
        return -1;
    double ss = 0;
    for (int i = 0; i < n; i++) {
        double x, y;
        if (vis_hom_apply(hn, src[2 * i], src[2 * i + 1], &x, &y) != 0)
            return -1;
        ss += (x - dst[2 * i]) * (x - dst[2 * i]) + (y - dst[2 * i + 1]) * (y - dst[2 * i + 1]);
    }
    memcpy(h, hn, sizeof hn);
    *rms = sqrt(ss / n);
    return 0;
}

/* Refits h to the grid lines near it. radius: search distance either side of a predicted line, in
 * squares. Returns 0 when h was updated (rms in working pixels), -1 when too little was found. */
static int refine_once(const work_t *wk, double h[9], double radius, double *rms) {
    double lines[2][10][3];
    int ok[2][10];
    int nfit[2] = {0, 0};
    for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k <= 9; k++) {
            ok[dir][k] = fit_grid_line(wk, h, dir, k, radius, lines[dir][k]) == 0;
            nfit[dir] += ok[dir][k];
        }
    if (nfit[0] < 3 || nfit[1] < 3)
        return -1;
    return fit_crossings((const double(*)[10][3])lines, (const int(*)[10])ok, h, rms);
}

/* ---------------------------------------------------------------- candidates */

static double ang_dist(double a, double b) { /* between two line angles, modulo pi */
    double d = fmod(fabs(a - b), PI);
    return d > PI / 2 ? PI - d : d;
}

static int cmp_votes(const void *a, const void *b) {
    const line_t *x = a, *y = b;
    return (x->votes < y->votes) - (x->votes > y->votes);
}

static int cmp_pos(const void *a, const void *b) {
    const line_t *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int cmp_cand(const void *a, const void *b) {
    const cand_t *x = a, *y = b;
    return (x->score < y->score) - (x->score > y->score);
}

static int intersect(const line_t *a, const line_t *b, double *x, double *y) {
    double ca = cos(a->theta), sa = sin(a->theta), cb = cos(b->theta), sb = sin(b->theta);
    double det = ca * sb - sa * cb;
    if (fabs(det) < 1e-6)
        return -1;
    *x = (a->rho * sb - sa * b->rho) / det;
    *y = (ca * b->rho - a->rho * cb) / det;
    return 0;
}

/* The homography taking canonical (0,0), (9,0), (9,9), (0,9) to q[0..3] (x,y pairs), closed form
 * (Heckbert's square-to-quadrilateral). Returns 0, or -1 if degenerate. */
static int square_to_quad(const double q[8], double h[9]) {
    double sx = q[0] - q[2] + q[4] - q[6], sy = q[1] - q[3] + q[5] - q[7];
    double g = 0, hh = 0;
    if (fabs(sx) > 1e-9 || fabs(sy) > 1e-9) {
        double dx1 = q[2] - q[4], dx2 = q[6] - q[4], dy1 = q[3] - q[5], dy2 = q[7] - q[5];
        double den = dx1 * dy2 - dx2 * dy1;
        if (fabs(den) < 1e-12)
            return -1;
        g = (sx * dy2 - dx2 * sy) / den;
        hh = (dx1 * sy - sx * dy1) / den;
    }
    h[0] = (q[2] - q[0] + g * q[2]) / 9;
    h[1] = (q[6] - q[0] + hh * q[6]) / 9;
    h[2] = q[0];
    h[3] = (q[3] - q[1] + g * q[3]) / 9;
    h[4] = (q[7] - q[1] + hh * q[7]) / 9;
    h[5] = q[1];
    h[6] = g / 9;
    h[7] = hh / 9;
    h[8] = 1;
    return 0;
}

/* The homography of the quadrilateral with corners p[0..3] (in the order a1b1, a1b2, a2b2, a2b1), with
 * canonical (0,0) at the corner nearest the top-left and (9,0) next clockwise on screen. Returns 0, or
 * -1 if it is not a plausible board (outside the image, too small, not convex, too thin). */
static int quad_homography(const work_t *wk, double p[4][2], double min_area, double h[9]) {
    double mx = 0.03 * wk->w, my = 0.03 * wk->h;
    double q[8], area = 0, lmin = 1e30, lmax = 0;
    for (int i = 0; i < 4; i++)
        if (p[i][0] < -mx || p[i][1] < -my || p[i][0] > wk->w - 1 + mx || p[i][1] > wk->h - 1 + my)
            return -1;
    /* p runs around the quadrilateral; make it clockwise on screen (y down: positive cross products) */
    double cr = (p[1][0] - p[0][0]) * (p[2][1] - p[1][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[1][0]);
    int order[4] = {0, 1, 2, 3};
    if (cr < 0) {
        order[1] = 3;
        order[3] = 1;
    }
    int first = 0;
    for (int i = 1; i < 4; i++)
        if (p[order[i]][0] + p[order[i]][1] < p[order[first]][0] + p[order[first]][1])
            first = i;
    for (int i = 0; i < 4; i++) {
        q[2 * i] = p[order[(first + i) % 4]][0];
        q[2 * i + 1] = p[order[(first + i) % 4]][1];
    }
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) % 4, k = (i + 2) % 4;
        double ex = q[2 * j] - q[2 * i], ey = q[2 * j + 1] - q[2 * i + 1];
        double fx = q[2 * k] - q[2 * j], fy = q[2 * k + 1] - q[2 * j + 1];
        if (ex * fy - ey * fx <= 0) /* every turn the same way: convex */
            return -1;
        area += q[2 * i] * q[2 * j + 1] - q[2 * j] * q[2 * i + 1];
        double len = sqrt(ex * ex + ey * ey);
        if (len < lmin)
            lmin = len;
        if (len > lmax)
            lmax = len;
    }
    area = fabs(area) / 2;
    if (area < min_area * wk->w * wk->h || lmin < 0.3 * lmax)
        return -1;
    return square_to_quad(q, h);
}

#define PEAK_SPREAD 15 /* degrees: the spread of converging lines angle_peaks looks for */

/* Smoothed vote histogram of line angles (1-degree bins, +-6 degrees), and up to 3 of its peaks at
 * least 20 degrees apart, strongest first; with spread, when no two are 40 degrees apart, the last is
 * the peak over +-PEAK_SPREAD degrees at least 40 degrees from the first (see below). Returns the
 * number of peaks. */
static int angle_peaks(const line_t *lines, int n, int spread, double peaks[3]) {
    double hist[180] = {0}, sm[180], wide[180];
    int np = 0, used[180] = {0};
    /* the strongest lines only (lines come sorted by votes): a textured table or cloth gives hundreds
     * of weaker lines at every angle, whose summed votes can bury the grid's two directions */
    if (n > PEAK_LINES)
        n = PEAK_LINES;
    for (int i = 0; i < n; i++)
        hist[(int)(lines[i].theta * 180 / PI) % 180] += lines[i].votes;
    for (int b = 0; b < 180; b++) {
        sm[b] = 0;
        for (int d = -6; d <= 6; d++)
            sm[b] += hist[(b + d + 180) % 180];
    }
    while (np < 3) {
        int best = -1;
        for (int b = 0; b < 180; b++)
            if (!used[b] && sm[b] > 0 && (best < 0 || sm[b] > sm[best]))
                best = b;
        if (best < 0 || (np > 0 && sm[best] < 0.15 * sm[(int)(peaks[0] * 180 / PI)]))
            break;
        peaks[np++] = (best + 0.5) * PI / 180;
        for (int d = -20; d <= 20; d++)
            used[(best + d + 180) % 180] = 1;
    }
    for (int k = 1; k < np; k++)
        if (ang_dist(peaks[0], peaks[k]) >= 40 * PI / 180)
            return np;
    if (np == 0 || !spread)
        return np;
    /* no two directions apart: seen obliquely from an end, the lines towards the camera converge over
     * 30 degrees or more with no narrow peak; their peak over +-PEAK_SPREAD degrees is taken */
    int first = (int)(peaks[0] * 180 / PI), best = -1;
    for (int b = 0; b < 180; b++) {
        wide[b] = 0;
        for (int d = -PEAK_SPREAD; d <= PEAK_SPREAD; d++)
            wide[b] += hist[(b + d + 180) % 180];
    }
    for (int b = 0; b < 180; b++)
        if (ang_dist((b + 0.5) * PI / 180, peaks[0]) >= 40 * PI / 180 && (best < 0 || wide[b] > wide[best]))
            best = b;
    if (best < 0 || wide[best] < 0.15 * wide[first])
        return np;
    if (np == 3)
        np = 2;
    peaks[np++] = (best + 0.5) * PI / 180;
    return np;
}

/* The lines within 25 degrees of phi (lines sorted by votes), at most max_per, skipping a line whose
 * position (along phi's normal through the image centre) is within merge of a kept one. */
static int family(const line_t *lines, int n, double phi, double cx, double cy, double merge, int max_per,
                  line_t *fam) {
    double nx = cos(phi), ny = sin(phi);
    int nf = 0;
    for (int i = 0; i < n && nf < max_per; i++) {
        if (ang_dist(lines[i].theta, phi) >= 25 * PI / 180)
            continue;
        double c = cos(lines[i].theta), s = sin(lines[i].theta);
        double den = nx * c + ny * s;
        if (fabs(den) < 1e-6)
            continue;
        line_t l = lines[i];
        l.pos = (l.rho - (cx * c + cy * s)) / den;
        int dup = 0;
        for (int j = 0; j < nf && !dup; j++)
            dup = fabs(fam[j].pos - l.pos) < merge && ang_dist(fam[j].theta, l.theta) < 3 * PI / 180;
        if (!dup)
            fam[nf++] = l;
    }
    return nf;
}

#define ACROSS_STEP 3 /* degrees between the directions across_peak tries */
#define ACROSS_MIN 6  /* distinct lines a direction across needs (a board has 10) */

/* The direction across the first peak phi0 with the most distinct lines (family, positions merge
 * apart), at least 40 degrees from phi0; -1 when none has ACROSS_MIN. Seen obliquely from an end, the
 * board's lines towards the camera converge over 30 degrees or more with no narrow vote peak of their
 * own (angle_peaks finds one at the spread's edge, or none: every line along phi0 outvotes them),
 * while clutter that outvotes them (a dense patch gives many lines at one angle) is few lines apart.
 * Where several neighbouring directions have as many, the middle of the longest such run (directions
 * modulo 180 degrees): a direction at the run's edge keeps one of the board's outer lines out of its
 * window for a stray line on the other side. */
static double across_peak(const line_t *lines, int n, double phi0, double cx, double cy, double merge,
                          line_t *tmp) {
    enum { N = 180 / ACROSS_STEP };
    int count[N], most = ACROSS_MIN - 1;
    for (int b = 0; b < N; b++) {
        double phi = (b * ACROSS_STEP + 0.5) * PI / 180;
        count[b] =
            ang_dist(phi, phi0) < 40 * PI / 180 ? -1 : family(lines, n, phi, cx, cy, merge, MAX_FAMILY, tmp);
        if (count[b] > most)
            most = count[b];
    }
    if (most < ACROSS_MIN)
        return -1;
    int best = -1, best_len = 0;
    for (int b = 0; b < N; b++) {
        if (count[b] != most || count[(b + N - 1) % N] == most)
            continue; /* not the start of a run (the directions near phi0 end every run) */
        int len = 1;
        while (len < N && count[(b + len) % N] == most)
            len++;
        if (len > best_len) {
            best_len = len;
            best = b;
        }
    }
    double deg = fmod(best * ACROSS_STEP + 0.5 * (best_len - 1) * ACROSS_STEP, 180.0) + 0.5;
    return deg * PI / 180;
}

static void set_positions(line_t *fam, int n, double phi, double cx, double cy) {
    double nx = cos(phi), ny = sin(phi);
    for (int i = 0; i < n; i++) {
        double c = cos(fam[i].theta), s = sin(fam[i].theta);
        double den = nx * c + ny * s;
        fam[i].pos = (fabs(den) < 1e-6) ? 0 : (fam[i].rho - (cx * c + cy * s)) / den;
    }
}

/* Adds the image border lines to a family that runs along an image axis (a board that fills a
 * straightened photo has its outer grid lines on the border, where no Hough line is found). */
static void add_borders(const work_t *wk, line_t *fam, int *n, double phi) {
    double a = fmod(phi, PI);
    if (*n + 2 > MAX_FAMILY)
        return;
    if (ang_dist(a, 0) < 8 * PI / 180) { /* near-vertical lines: x = const */
        fam[(*n)++] = (line_t){0.0, 0.0, 0.0, 0.0};
        fam[(*n)++] = (line_t){wk->w - 1.0, 0.0, 0.0, 0.0};
    } else if (ang_dist(a, PI / 2) < 8 * PI / 180) {
        fam[(*n)++] = (line_t){0.0, PI / 2, 0.0, 0.0};
        fam[(*n)++] = (line_t){wk->h - 1.0, PI / 2, 0.0, 0.0};
    }
}

/* Refines candidate c (three rounds of refine_once, narrowing) and scores it densely; c->rms is the
 * refinement's (-1 if it failed). Refinement follows the strokes of pieces where they hide most of a
 * line: the candidate as proposed is kept when that scores better (rms stays the refinement's, as a
 * measure of the fit). */
static void refine_scored(const work_t *wk, cand_t *c) {
    static const double radius[3] = {0.3, 0.15, 0.1};
    cand_t c0 = *c;
    double rms = -1;
    for (int it = 0; it < 3; it++) {
        double hh[9], r;
        memcpy(hh, c->h, sizeof hh);
        if (refine_once(wk, hh, radius[it], &r) != 0)
            break;
        memcpy(c->h, hh, sizeof hh);
        rms = r;
    }
    c->rms = rms;
    c->score = dense_score(wk, c->h);
    c0.score = dense_score(wk, c0.h);
    if (rms >= 0 && c0.score > c->score) {
        memcpy(c->h, c0.h, sizeof c->h);
        c->score = c0.score;
    }
}

/* Hit rate of the grid line at c (see line_hits), -1 when none of its samples can be seen; with
 * in_frame, also -1 when fewer than half of them lie within the frame. */
static double line_rate(const work_t *wk, const double h[9], int dir, double c, int in_frame) {
    int n, in, hits = line_hits(wk, wk->bin3, h, dir, c, 5, &n, &in);
    return n > 0 && (!in_frame || 2 * in >= n) ? (double)hits / n : -1;
}

/* line_rate (in_frame) of the line at c or 0.05 square to either side of it, the best: the lines beyond
 * a grid are extrapolated from it, and a pitch off by half a percent misses a thin line one square out
 * (graph paper). */
static double near_line_rate(const work_t *wk, const double h[9], int dir, double c) {
    double best = line_rate(wk, h, dir, c, 1);
    for (int s = -1; s <= 1; s += 2) {
        double r = line_rate(wk, h, dir, c + 0.05 * s, 1);
        if (r > best)
            best = r;
    }
    return best;
}

/* 1 if the inner lines across the grid's outer line at side (dir 0: u = 9 for side 1, u = 0 for side 0;
 * dir 1 likewise in v) go on over the square beyond it: the 8 inner lines of the other direction,
 * sampled over the middle 0.6 of that square (clear of both lines that bound it), hit at least `need`
 * of their samples more than the 9 half lines between them do (texture or a dark band hits both), at
 * least half of them in the frame. A board's lines stop at its outer line
 * (its margin is plain, or holds coordinates between the lines); a Go board's or graph paper's do not. */
static int crossed_beyond(const work_t *wk, const double h[9], int dir, int side, double need) {
    int hits[2] = {0, 0}, n[2] = {0, 0}, in = 0;
    double t0 = side ? 9.2 : -0.8;
    for (int k = 1; k <= 17; k++) { /* c = k / 2: even k the lines 1..8, odd k the half lines 0.5..8.5 */
        int nk, ink, line = k % 2 == 0;
        hits[line] += seg_hits(wk, wk->bin3, h, 1 - dir, 0.5 * k, t0, t0 + 0.6, 5, &nk, &ink);
        n[line] += nk;
        in += ink;
    }
    return n[0] > 0 && n[1] > 0 && 2 * in >= n[0] + n[1] &&
           (double)hits[1] / n[1] - (double)hits[0] / n[0] >= need;
}

/* Mean line_rate (with in_frame) of the grid lines 0..9 of h in direction dir that can be seen; *lines
 * gets how many could (0: the mean is 0). */
static double mean_line_rate(const work_t *wk, const double h[9], int dir, int in_frame, int *lines) {
    double on = 0;
    *lines = 0;
    for (int k = 0; k <= 9; k++) {
        double r = line_rate(wk, h, dir, k, in_frame);
        if (r >= 0) {
            on += r;
            (*lines)++;
        }
    }
    return *lines ? on / *lines : 0;
}

#define SUBDIV_THIN 5 /* hundredths of a square beside a line inside the squares where it must be gone */

/* 1 if the squares of h hold lines of their own, in direction dir: at some offset f inside the squares
 * (0.15 .. 0.85 of a square, in steps of 0.01 so that a thin line is not stepped over; 0.45 .. 0.55 left
 * out: a piece's face is centred there),
 * the lines k + f (k = 0..8, in the frame) are hit at least 0.5 of the grid lines' mean rate and 0.3
 * of their samples, and thin: SUBDIV_THIN hundredths of a square to either side they are hit at most
 * 0.6 as often: a coarser grid laid over graph paper's thin lines, or over a Go board's lines every
 * second one. A board's squares hold pieces, whose strokes do not line up across the board; a set of
 * dark pieces is solid in the line map, and its full ranks are hit at every offset alike. */
static int grid_subdivided(const work_t *wk, const double h[9], int dir) {
    int lines;
    double on = mean_line_rate(wk, h, dir, 1, &lines);
    if (lines < 3)
        return 0;
    double need = 0.5 * on > 0.3 ? 0.5 * on : 0.3, rate[91];
    for (int i = 15 - SUBDIV_THIN; i <= 85 + SUBDIV_THIN; i++) {
        double sum = 0;
        int cnt = 0;
        for (int k = 0; k <= 8; k++) {
            double r = line_rate(wk, h, dir, k + 0.01 * i, 1);
            if (r >= 0) {
                sum += r;
                cnt++;
            }
        }
        rate[i] = cnt >= 3 ? sum / cnt : 0;
    }
    for (int i = 15; i <= 85; i++) {
        if (i >= 45 && i <= 55)
            continue;
        double beside =
            rate[i - SUBDIV_THIN] > rate[i + SUBDIV_THIN] ? rate[i - SUBDIV_THIN] : rate[i + SUBDIV_THIN];
        if (rate[i] >= need && beside <= 0.6 * rate[i])
            return 1;
    }
    return 0;
}

/* 1 if the grid of h is not a board's, though its lines score well: in one direction,
 *  - its squares hold lines of their own (grid_subdivided): a coarser grid over graph paper's thin lines;
 *  - one outer line lies on the frame's edge (unseen) while the frame goes on half a square beyond the
 *    opposite one: a drawn grid of 8 squares whose margin is one square wide reads as 9 with the
 *    frame's edge as its tenth line (a straightened photo cut at the outer lines has both on the edge,
 *    or just beyond it);
 *  - or the lines go on beyond the grid: on every side where the line one square outside the outer line
 *    can be seen (at least half of it within the frame, off its edge; at least one side), it and the
 *    line two squares outside (unless that one cannot be seen) are hit at least 0.3 of their samples
 *    and 0.6 of the grid lines' mean rate. A board's grid ends at its outer lines; graph paper, a tiled
 *    floor or a larger drawn grid does not;
 *  - or, on any one side, the line one or two squares outside is hit so (a thin line one square out
 *    can be lost to the working scale) and the inner lines cross the outer line into the square beyond
 *    it (crossed_beyond): a 9x9 part at the edge or corner of a Go board (19 lines) or of a larger
 *    grid, whose lines go on on one or two sides only.
 * Measured with 5 samples a square over wk->sub, whose level is down to half the black-hat's 97th
 * percentile in a clean frame (prepare; the line map's elsewhere): a thin line drawn between two working
 * pixels is about half as dark there as a bold one, under the line map's level (graph paper of
 * 20-pixel squares, 1000 pixels wide, was read as an empty board: its thin lines inside the squares and
 * beyond the grid were not in the map). */
static int grid_unbounded(const work_t *judge, const double h[9]) {
    work_t sub = *judge;
    sub.bin3 = judge->sub;
    const work_t *wk = &sub;
    for (int dir = 0; dir < 2; dir++) {
        for (int side = 0; side < 2; side++) {
            int n, in;
            line_hits(wk, wk->bin3, h, dir, side ? -0.5 : 9.5, 5, &n, &in);
            if (line_rate(wk, h, dir, side ? 9 : 0, 0) < 0 && in == 45)
                return 1; /* all 45 samples of the half line beyond the opposite outer line in the frame */
        }
        int lines;
        double on = mean_line_rate(wk, h, dir, 0, &lines);
        if (lines == 0)
            continue;
        double need = 0.6 * on > 0.3 ? 0.6 * on : 0.3;
        int seen = 0, goes_on = 0;
        for (int side = 0; side < 2; side++) {
            double r1 = near_line_rate(wk, h, dir, side ? 10 : -1),
                   r2 = near_line_rate(wk, h, dir, side ? 11 : -2);
            if (r1 < 0)
                continue;
            seen++;
            goes_on += r1 >= need && (r2 >= need || r2 < 0);
            if ((r1 >= need || r2 >= need) && crossed_beyond(wk, h, dir, side, need))
                return 1;
        }
        if (seen > 0 && goes_on == seen)
            return 1;
    }
    /* last, as the dearest test (61 offsets of 9 lines a direction); a direction with no line in view
     * has none inside its squares either */
    return grid_subdivided(wk, h, 0) || grid_subdivided(wk, h, 1);
}

/* A grid one to three squares in from a board cut by the frame's edge: the board runs past the frame on
 * one side, so the best grid in view takes the board's margin (or the table) beyond the other side for
 * its last squares. Its signature, on the side away from the cut: the m outer lines 0..m-1 are not
 * there (each in the frame, 0.6 of its samples or more, and hit on under 0.25 of them; or mostly off the
 * frame; at least one in it), line m is (hit on 0.5 or more, in the frame), the lines m..9 in the frame
 * average 0.7 or more, and the m lines beyond the opposite outer line lie mostly off the frame. Moves h
 * by m squares towards the cut side in place (once per direction). Measured over bin3, 5 samples a
 * square. */
static void move_off_cut(const work_t *wk, double h[9]) {
    enum { S = 45 }; /* samples of a line */
    for (int dir = 0; dir < 2; dir++) {
        double rate[10];
        int in[10];
        for (int k = 0; k <= 9; k++) {
            int n, hits = line_hits(wk, wk->bin3, h, dir, k, 5, &n, &in[k]);
            rate[k] = n ? (double)hits / n : -1; /* -1: on the frame's edge */
        }
        for (int side = 0, moved = 0; side < 2 && !moved;
             side++) { /* side 0: lines 0.. missing, the cut beyond 9 */
            int absent_in = 0;
            for (int m = 1; m <= 3; m++) {
                int k = side ? 10 - m : m - 1;          /* the m-th line from this side: absent? */
                if (in[k] >= 0.6 * S && rate[k] < 0.25) /* rate is -1 only with no sample in the frame */
                    absent_in++;
                else if (2 * in[k] >= S)
                    break; /* in the frame and there (or on its edge): the board reaches it */
                int next = side ? 9 - m : m;
                if (!absent_in || in[next] < 0.6 * S || rate[next] < 0.5)
                    continue;
                double sum = 0;
                int cnt = 0, off = 1;
                for (int j = m; j <= 9; j++) {
                    int kk = side ? 9 - j : j;
                    if (2 * in[kk] >= S) {
                        sum += rate[kk];
                        cnt++;
                    }
                }
                for (int j = 1; j <= m && off; j++) { /* the lines beyond the opposite side: off the frame */
                    int n, inb;
                    line_hits(wk, wk->bin3, h, dir, side ? -j : 9 + j, 5, &n, &inb);
                    off = 2 * inb < S;
                }
                if (cnt == 0 || sum / cnt < 0.7 || !off)
                    break;
                double d = side ? -m : m, g[9]; /* new line k = old line k + d */
                grid_shifted(h, dir == 0 ? d : 0, dir == 1 ? d : 0, g);
                memcpy(h, g, sizeof g);
                moved = 1;
                break;
            }
        }
    }
}

/* Keeps the best `max` candidates in top (sorted by score, *ntop entries), skipping near-duplicates. */
static void keep_top(cand_t *top, int *ntop, int max, const cand_t *c, double tol) {
    for (int i = 0; i < *ntop; i++) {
        double d = 0;
        static const double pts[4][2] = {{0, 0}, {9, 0}, {9, 9}, {0, 9}};
        for (int k = 0; k < 4; k++) {
            double x1, y1, x2, y2;
            if (vis_hom_apply(top[i].h, pts[k][0], pts[k][1], &x1, &y1) != 0 ||
                vis_hom_apply(c->h, pts[k][0], pts[k][1], &x2, &y2) != 0)
                return;
            double e = hypot(x1 - x2, y1 - y2);
            if (e > d)
                d = e;
        }
        if (d < tol) {
            if (c->score > top[i].score) {
                top[i] = *c;
                qsort(top, (size_t)*ntop, sizeof *top, cmp_cand);
            }
            return;
        }
    }
    if (*ntop < max) {
        top[(*ntop)++] = *c;
    } else if (c->score > top[max - 1].score) {
        top[max - 1] = *c;
    } else {
        return;
    }
    qsort(top, (size_t)*ntop, sizeof *top, cmp_cand);
}

/* The best comb of 10 equally spaced lines across one axis of the edge map (axis 0: columns, the lines
 * x = const; 1: rows), for a picture that is already a straightened board, possibly cut a little
 * inside its outer lines (no Hough line is there to be found). *first and *pitch in working pixels.
 * Returns the comb's contrast: mean edge density on its lines minus half a pitch off them. */
static double axis_comb(const work_t *wk, int axis, double *first, double *pitch) {
    int n = axis == 0 ? wk->w : wk->h, other = axis == 0 ? wk->h : wk->w;
    double *prof = calloc((size_t)n, sizeof *prof), best = -1;
    if (prof == NULL)
        return -1;
    for (int y = 0; y < wk->h; y++)
        for (int x = 0; x < wk->w; x++)
            if (wk->edge[(size_t)y * wk->w + x])
                prof[axis == 0 ? x : y] += 1.0 / other;
    for (double p = 0.85 * n / 9; p <= 1.2 * n / 9; p += 0.25)
        for (double o = -0.5 * p; o <= 0.5 * p; o += 0.5) {
            double on = 0, off = 0;
            int non = 0, noff = 0;
            for (int k = 0; k <= 18; k++) {
                double c = o + k * 0.5 * p;
                int ci = (int)lround(c);
                double v = 0;
                if (ci < 0 || ci >= n)
                    continue;
                for (int d = -1; d <= 1; d++)
                    if (ci + d >= 0 && ci + d < n && prof[ci + d] > v)
                        v = prof[ci + d];
                if (k % 2 == 0) {
                    on += v;
                    non++;
                } else {
                    off += v;
                    noff++;
                }
            }
            if (non < 8 || noff < 8)
                continue;
            double sc = on / non - off / noff;
            if (sc > best) {
                best = sc;
                *first = o;
                *pitch = p;
            }
        }
    /* then fit the inner lines exactly: each one's profile peak within a sixth of a pitch of the comb's,
     * and a least-squares line through (k, peak) for k = 1..8 */
    if (best > 0) {
        double sk = 0, skk = 0, sp = 0, skp = 0;
        int m = 0;
        for (int k = 1; k <= 8; k++) {
            double c = *first + k * *pitch, r = *pitch / 6, bv = -1;
            int bi = -1;
            for (int i = (int)floor(c - r); i <= (int)ceil(c + r); i++)
                if (i >= 0 && i < n && prof[i] > bv) {
                    bv = prof[i];
                    bi = i;
                }
            if (bi < 0)
                continue;
            sk += k;
            skk += (double)k * k;
            sp += bi;
            skp += (double)k * bi;
            m++;
        }
        double den = m * skk - sk * sk;
        if (m >= 6 && fabs(den) > 1e-9) {
            double pf = (m * skp - sk * sp) / den, of = (sp - pf * sk) / m;
            if (fabs(pf - *pitch) < 0.05 * *pitch) {
                *pitch = pf;
                *first = of;
            }
        }
    }
    free(prof);
    return best;
}

/* ---------------------------------------------------------------- vis_pose_find */

/* 1 if the grid of h (canonical -> working pixels) fills the working image: each grid corner within a
 * fifth of a square of the matching image corner. That is a photo already straightened and cut at the
 * outer lines, where the outer lines are not seen and pieces hide much of the rest; a board cut off by
 * the frame's edge does not fit it, since its visible lines then do not fall on the comb of ninths. */
static int fills_frame(const work_t *wk, const double h[9]) {
    static const double uv[4][2] = {{0, 0}, {9, 0}, {9, 9}, {0, 9}};
    const double img[4][2] = {{0, 0}, {wk->w - 1.0, 0}, {wk->w - 1.0, wk->h - 1.0}, {0, wk->h - 1.0}};
    double tol_x = 0.2 * wk->w / 9, tol_y = 0.2 * wk->h / 9;
    for (int k = 0; k < 4; k++) {
        double x, y;
        if (vis_hom_apply(h, uv[k][0], uv[k][1], &x, &y) != 0)
            return 0;
        if (fabs(x - img[k][0]) > tol_x || fabs(y - img[k][1]) > tol_y)
            return 0;
    }
    return 1;
}

/* The score the grid of h needs to be a board: min_score_fill when it fills the frame, else min_score. */
static double grid_need(const work_t *wk, const vis_pose_params_t *p, const double h[9]) {
    return fills_frame(wk, h) ? p->min_score_fill : p->min_score;
}

/* dst = src (0 or not) dilated by a (2r+1) square, as 0/1; tmp is scratch of the same size. */
static void dilate(const unsigned char *src, unsigned char *tmp, unsigned char *dst, int w, int h, int r) {
    for (int y = 0; y < h; y++) {
        const unsigned char *e = src + (size_t)y * w;
        unsigned char *o = tmp + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            unsigned char v = 0;
            for (int dx = -r; dx <= r && !v; dx++)
                v = (x + dx >= 0 && x + dx < w) ? e[x + dx] : 0;
            o[x] = v ? 1 : 0;
        }
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned char v = 0;
            for (int dy = -r; dy <= r && !v; dy++)
                v = (y + dy >= 0 && y + dy < h) ? tmp[(size_t)(y + dy) * w + x] : 0;
            dst[(size_t)y * w + x] = v;
        }
}

/* The working images of one search: grey at work_size, its black-hat and line maps. faint 1: the faint-line
 * search (vis_pose_params_t.faint_level): grey smoothed first, and the least level faint_level; faint 2:
 * the blurred-line search, as 1 with WIDE_BLUR times the smoothing and a black-hat square WIDE_KERNEL
 * times wider (a line blurred by focus or motion is wider than the first square: a held-out render's
 * rank lines 7 source pixels wide and 6 grey levels deep were not in the map); faint 3 (THIN_PASS): the
 * first search with thick parts of the line map left out of the Hough lines (thin_lines). */
#define WIDE_BLUR 1.43  /* faint pass 2: smoothing, times faint_blur */
#define WIDE_KERNEL 1.6 /* faint pass 2: black-hat square, times the first passes' */
#define THIN_PASS 3     /* the search whose Hough lines come from the thin parts of the line map only */

/* Leaves out of map (w x h, 0 or 255) every pixel of a part at least 3 pixels thick: the pixels that the
 * map's opening by a 3x3 square keeps. Dark pieces whose faces carry light strokes (black pieces with
 * white characters) are such blobs in the black-hat, whose rows make stronger Hough lines than the grid
 * they stand on; the grid's lines, a pixel or two wide, stay. tmp, tmp2: w x h scratch. */
static void thin_lines(unsigned char *map, unsigned char *tmp, unsigned char *tmp2, int w, int h) {
    for (int y = 0; y < h; y++) /* erosion by a 3x3 square */
        for (int x = 0; x < w; x++) {
            int on = x > 0 && y > 0 && x < w - 1 && y < h - 1;
            for (int dy = -1; dy <= 1 && on; dy++)
                for (int dx = -1; dx <= 1 && on; dx++)
                    on = map[(size_t)(y + dy) * w + x + dx] != 0;
            tmp[(size_t)y * w + x] = on ? 255 : 0;
        }
    dilate(tmp, tmp2, tmp, w, h, 1); /* the opening: the thick parts */
    for (size_t i = 0; i < (size_t)w * h; i++)
        if (tmp[i])
            map[i] = 0;
}

static int prepare(const cap_image_t *img, const vis_pose_params_t *p, int faint, work_t *wk, double *sx,
                   double *sy, char *err, size_t errlen) {
    const char *fn = "vis_pose_find";
    double s = (double)p->work_size / (img->width > img->height ? img->width : img->height);
    wk->w = (int)lround(img->width * s);
    wk->h = (int)lround(img->height * s);
    if (wk->w < 16 || wk->h < 16) {
        vis_set_err(err, errlen, fn, "image too small (%dx%d)", img->width, img->height);
        return VIS_E_ARG;
    }
    *sx = (double)wk->w / img->width;
    *sy = (double)wk->h / img->height;
    size_t n = (size_t)wk->w * wk->h;
    wk->grey = malloc(n);
    wk->bh = malloc(n);
    wk->bin = malloc(n);
    wk->edge = malloc(n);
    wk->bh2 = malloc(n);
    wk->bin3 = malloc(n);
    wk->sub = malloc(n);
    if (!wk->grey || !wk->bh || !wk->bin || !wk->edge || !wk->bh2 || !wk->bin3 || !wk->sub) {
        vis_set_err(err, errlen, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    char cverr[300];
    if (vis_cv_bgr_to_grey(img->data, img->width, img->height, img->stride, wk->grey, wk->w, wk->h, wk->w,
                           cverr, sizeof cverr) != 0) {
        vis_set_err(err, errlen, fn, "%s", cverr);
        return VIS_E_CV;
    }
    if (faint && faint != THIN_PASS) {
        double up =
            wk->w > img->width ? (double)wk->w / img->width : 1.0; /* source pixels -> working pixels */
        /* at most 8 working pixels: a thumbnail enlarged 100 times is no board */
        double sigma = p->faint_blur * up * (faint == 2 ? WIDE_BLUR : 1);
        if (vis_cv_blur_grey(wk->grey, wk->w, wk->h, wk->w, sigma < 8 ? sigma : 8, cverr, sizeof cverr) !=
            0) {
            vis_set_err(err, errlen, fn, "%s", cverr);
            return VIS_E_CV;
        }
    }
    int k = (int)(p->work_size / 110.0 * (faint == 2 ? WIDE_KERNEL : 1)) | 1;
    if (k < 5)
        k = 5;
    if (vis_cv_blackhat(wk->grey, wk->w, wk->h, wk->w, k, wk->bh, wk->w, cverr, sizeof cverr) != 0) {
        vis_set_err(err, errlen, fn, "%s", cverr);
        return VIS_E_CV;
    }
    /* threshold: the 90th percentile of the black-hat, at least min_level (faint_level) grey levels */
    size_t hist[256] = {0}, acc = 0;
    for (size_t i = 0; i < n; i++)
        hist[wk->bh[i]]++;
    int thr = 255;
    for (int v = 255; v >= 0; v--) {
        acc += hist[v];
        if (acc >= n / 10) {
            thr = v;
            break;
        }
    }
    int least = faint && faint != THIN_PASS ? p->faint_level : p->min_level;
    if (thr < least)
        thr = least;
    wk->thr = thr;
    for (size_t i = 0; i < n; i++)
        wk->edge[i] = wk->bh[i] >= thr ? 255 : 0;
    /* dilations of the line map: 5x5 for the first scoring (a candidate from two Hough lines may be a
     * pixel or two off), 3x3 for the final score of refined candidates; separable maxima */
    dilate(wk->edge, wk->bh2, wk->bin, wk->w, wk->h, 2);
    dilate(wk->edge, wk->bh2, wk->bin3, wk->w, wk->h, 1);
    /* grid_unbounded's map: half the 97th percentile (the darkest lines' level), but never under the
     * least level nor 4 times the median (noise: in a noisy frame the percentiles lie close together,
     * and half of the 97th would be the noise's), nor over the line map's level */
    int p97 = -1, p50 = 0;
    acc = 0;
    for (int v = 255; v >= 0; v--) {
        acc += hist[v];
        if (p97 < 0 && acc >= (size_t)(0.03 * n))
            p97 = v;
        if (acc >= n / 2) {
            p50 = v;
            break;
        }
    }
    int sub_thr = p97 / 2 > least ? p97 / 2 : least;
    if (sub_thr < 4 * p50)
        sub_thr = 4 * p50;
    if (sub_thr > thr)
        sub_thr = thr;
    for (size_t i = 0; i < n; i++)
        wk->edge[i] = wk->bh[i] >= sub_thr ? 255 : 0;
    dilate(wk->edge, wk->bh2, wk->sub, wk->w, wk->h, 1);
    for (size_t i = 0; i < n; i++)
        wk->edge[i] = wk->bh[i] >= thr ? 255 : 0;
    if (faint == THIN_PASS)
        thin_lines(wk->edge, wk->bh2, wk->grey, wk->w, wk->h); /* grey is not used after this */
    return VIS_OK;
}

static void fill_pose(vis_pose_t *pose, const double hw[9], double sx, double sy) {
    /* working pixel centres -> frame pixel centres: x = (xw + 0.5) / sx - 0.5 */
    double a[9] = {1 / sx, 0, 0.5 / sx - 0.5, 0, 1 / sy, 0.5 / sy - 0.5, 0, 0, 1};
    vis_mat3_mul(a, hw, pose->H);
    double s = pose->H[8];
    for (int i = 0; i < 9; i++)
        pose->H[i] /= s;
    if (vis_mat3_inv(pose->H, pose->Hinv) != 0)
        memset(pose->Hinv, 0, sizeof pose->Hinv);
    static const double c[4][2] = {{0, 0}, {9, 0}, {9, 9}, {0, 9}};
    for (int i = 0; i < 4; i++)
        vis_hom_apply(pose->H, c[i][0], c[i][1], &pose->corners[i][0], &pose->corners[i][1]);
}

static int find_pass(const cap_image_t *img, const vis_pose_params_t *p, int faint, int across,
                     vis_pose_t *pose, char *err, size_t errlen);

/* 1 if the four grid corners of pose lie in its frame, or within 0.15 of a square (the side from corner
 * to corner over 9) past its edge: the whole board seen, its outer lines in view or on the image's edge
 * (a straightened photo). */
static int corners_in_frame(const vis_pose_t *pose) {
    for (int k = 0; k < 4; k++) {
        const double *a = pose->corners[k], *b = pose->corners[(k + 1) % 4];
        double tol = 0.15 * hypot(b[0] - a[0], b[1] - a[1]) / 9;
        if (!(a[0] >= -tol && a[1] >= -tol && a[0] <= pose->frame_w - 1 + tol &&
              a[1] <= pose->frame_h - 1 + tol))
            return 0;
    }
    return 1;
}

int vis_pose_find(const cap_image_t *img, const vis_pose_params_t *params, vis_pose_t *pose, char *err,
                  size_t errlen) {
    const char *fn = "vis_pose_find";
    vis_pose_params_t p;
    vis_pose_t faint;
    if (img == NULL || pose == NULL || img->data == NULL || img->width < 1 || img->height < 1 ||
        img->stride < 3 * img->width) {
        vis_set_err(err, errlen, fn, "bad image or NULL pose");
        return VIS_E_ARG;
    }
    if (params)
        p = *params;
    else
        vis_pose_params_default(&p);
    if (p.work_size < 256 || p.work_size > 2048 || p.max_lines < 8 || p.max_lines > MAX_FAMILY - 2 ||
        !(p.min_area >= 0 && p.min_area <= 1) || !(p.min_score >= 0 && p.min_score <= 1) ||
        !(p.min_score_fill >= 0 && p.min_score_fill <= 1) || !(p.aspect >= 0.8 && p.aspect <= 1.4) ||
        p.min_level < 1 || p.min_level > 255 || p.faint_level < 0 || p.faint_level > 255 ||
        !(p.faint_blur >= 0.3 && p.faint_blur <= 3)) {
        vis_set_err(err, errlen, fn, "parameter out of range");
        return VIS_E_ARG;
    }
    int rc = find_pass(img, &p, 0, 0, pose, err, errlen);
    if (rc != VIS_OK || pose->found || p.faint_level == 0)
        return rc;
    /* no board: once more for faint lines; its result replaces the first when it finds one, or when its
     * best grid scores higher (a caller may still judge a grid under min_score by its pieces); then, if
     * still none, once more for blurred lines, taken only for a whole board in view: with an outer line
     * past the image's edge, which of lines this faint are the board's own cannot be told (a render cut
     * at the bottom was found a rank over) */
    rc = find_pass(img, &p, 1, 0, &faint, err, errlen);
    if (rc == VIS_OK && (faint.found || faint.score > pose->score))
        *pose = faint;
    if (rc == VIS_OK && !pose->found) {
        rc = find_pass(img, &p, 2, 0, &faint, err, errlen);
        if (rc == VIS_OK && corners_in_frame(&faint) && (faint.found || faint.score > pose->score))
            *pose = faint;
    }
    /* still none: once more with the Hough lines of the thin lines only (thin_lines: dark pieces with
     * light characters make stronger lines than the grid) */
    if (rc == VIS_OK && !pose->found) {
        rc = find_pass(img, &p, THIN_PASS, 0, &faint, err, errlen);
        if (rc == VIS_OK && (faint.found || faint.score > pose->score))
            *pose = faint;
    }
    /* still none: the four line maps again, with the directions of converging lines (angle_peaks'
     * spread, across_peak: a board seen obliquely from an end; the thin lines for dark pieces in full
     * ranks seen so); only now, so that a board the passes above find keeps its grid */
    for (int pass = 0; pass <= THIN_PASS && rc == VIS_OK && !pose->found; pass++) {
        rc = find_pass(img, &p, pass, 1, &faint, err, errlen);
        if (rc == VIS_OK && faint.found && (pass < 2 || corners_in_frame(&faint)))
            *pose = faint;
    }
    return rc;
}

/* The best candidates found so far, best first (keep_top). */
typedef struct {
    cand_t c[TOP_CANDIDATES];
    int n;
} top_t;

static void work_free(work_t *w) {
    free(w->grey);
    free(w->bh);
    free(w->bin);
    free(w->edge);
    free(w->bh2);
    free(w->bin3);
    free(w->sub);
}

/* The Hough lines of wk's edge map into lines[0..*nh-1], strongest first (hl: room for 3 x MAX_HOUGH). */
static int hough_lines(const work_t *wk, const vis_pose_params_t *p, double *hl, line_t *lines, int *nh,
                       char *err, size_t errlen) {
    char cverr[300];
    int vote_min = (int)(0.08 * p->work_size);
    *nh = 0;
    if (vis_cv_hough_lines(wk->edge, wk->w, wk->h, wk->w, 1.0, PI / 360, vote_min, hl, MAX_HOUGH, nh, cverr,
                           sizeof cverr) != 0) {
        vis_set_err(err, errlen, "vis_pose_find", "%s", cverr);
        return VIS_E_CV;
    }
    for (int i = 0; i < *nh; i++)
        lines[i] = (line_t){hl[3 * i], hl[3 * i + 1], hl[3 * i + 2], 0};
    qsort(lines, (size_t)*nh, sizeof *lines, cmp_votes);
    return VIS_OK;
}

/* Scores the quads between lines i1 < i2 of the first family and every pair of the second (stage 1: 2
 * samples per square), keeping the best in *top. */
static void score_quads(const work_t *wk, const vis_pose_params_t *p, const scratch_t *sc, const int nf[2],
                        int i1, int i2, double min_side, top_t *top) {
    const line_t(*fam)[MAX_FAMILY] = sc->fam;
    const double(*X)[MAX_FAMILY][2] = sc->X;
    const unsigned char(*xok)[MAX_FAMILY] = sc->xok;
    for (int j1 = 0; j1 < nf[1]; j1++)
        for (int j2 = j1 + 1; j2 < nf[1]; j2++) {
            cand_t c;
            if (fam[1][j2].pos - fam[1][j1].pos < min_side || !xok[i1][j1] || !xok[i1][j2] || !xok[i2][j2] ||
                !xok[i2][j1])
                continue;
            double q[4][2] = {{X[i1][j1][0], X[i1][j1][1]},
                              {X[i1][j2][0], X[i1][j2][1]},
                              {X[i2][j2][0], X[i2][j2][1]},
                              {X[i2][j1][0], X[i2][j1][1]}};
            if (quad_homography(wk, q, p->min_area, c.h) != 0)
                continue;
            double floor = top->n == TOP_CANDIDATES ? top->c[top->n - 1].score : 0.1;
            c.score = grid_score(wk, wk->bin, c.h, 2, floor, NULL);
            c.rms = -1;
            if (c.score > floor)
                keep_top(top->c, &top->n, TOP_CANDIDATES, &c, 0.01 * p->work_size);
        }
}

/* The two line families at angles phi[0], phi[1] (sorted by position), all their crossings, and every
 * quad of two lines of each scored (score_quads). */
static void score_family_pair(const work_t *wk, const vis_pose_params_t *p, const line_t *lines, int nh,
                              const double phi[2], scratch_t *sc, top_t *top) {
    double min_side = 0.5 * sqrt(p->min_area * wk->w * wk->h);
    double merge = 0.012 * p->work_size;
    int nf[2];
    line_t(*fam)[MAX_FAMILY] = sc->fam;
    for (int f = 0; f < 2; f++) {
        nf[f] = family(lines, nh, phi[f], wk->w / 2.0, wk->h / 2.0, merge, p->max_lines, fam[f]);
        add_borders(wk, fam[f], &nf[f], phi[f]);
        set_positions(fam[f], nf[f], phi[f], wk->w / 2.0, wk->h / 2.0);
        qsort(fam[f], (size_t)nf[f], sizeof fam[f][0], cmp_pos);
    }
    for (int i = 0; i < nf[0]; i++) /* all crossings once */
        for (int j = 0; j < nf[1]; j++)
            sc->xok[i][j] = intersect(&fam[0][i], &fam[1][j], &sc->X[i][j][0], &sc->X[i][j][1]) == 0;
    for (int i1 = 0; i1 < nf[0]; i1++)
        for (int i2 = i1 + 1; i2 < nf[0]; i2++)
            if (fam[0][i2].pos - fam[0][i1].pos >= min_side)
                score_quads(wk, p, sc, nf, i1, i2, min_side, top);
}

/* A straightened board: the image axes are the grid's. Always refined, even when pieces hide so much of
 * the grid that it scores below the Hough candidates: it is judged against min_score_fill. */
static void add_axis_candidate(const work_t *wk, const vis_pose_params_t *p, top_t *top) {
    double ox, px, oy, py;
    if (axis_comb(wk, 0, &ox, &px) <= 0 || axis_comb(wk, 1, &oy, &py) <= 0)
        return;
    cand_t c = {{px, 0, ox, 0, py, oy, 0, 0, 1}, 0, -1};
    c.score = grid_score(wk, wk->bin, c.h, 2, -1, NULL);
    if (top->n == TOP_CANDIDATES && c.score <= top->c[top->n - 1].score)
        top->c[top->n - 1] = c;
    else
        keep_top(top->c, &top->n, TOP_CANDIDATES, &c, 0.01 * p->work_size);
}

/* A grid one square off (its outer line on the board's edge or a table's) can be all the search proposed
 * when the real grid's lines were not among the Hough lines: the grid moved by one square each way is
 * scored too, and a better one taken (up to 4 moves), judged by the margin over each grid's own
 * threshold (grid_need). */
static void move_to_better(const work_t *wk, const vis_pose_params_t *p, cand_t *c) {
    for (int moves = 0; moves < 4; moves++) {
        int moved = 0;
        double c_need = grid_need(wk, p, c->h);
        for (int d = 0; d < 4 && !moved; d++) {
            cand_t m = *c;
            grid_shifted(c->h, grid_moves[d][0], grid_moves[d][1], m.h);
            refine_scored(wk, &m);
            if (m.score - grid_need(wk, p, m.h) > c->score - c_need + 0.02) {
                *c = m;
                moved = 1;
            }
        }
        if (!moved)
            break;
    }
}

/* Refines candidate *c densely (refine_scored, move_to_better). A grid that is no board's
 * (grid_unbounded on judge's map) is replaced by the best bounded grid one square away. Returns 0, or
 * -1 when there is none (the candidate is dropped). */
static int refine_candidate(const work_t *wk, const work_t *judge, const vis_pose_params_t *p, cand_t *c) {
    refine_scored(wk, c);
    move_to_better(wk, p, c);
    if (!grid_unbounded(judge, c->h))
        return 0;
    cand_t moved = {{0}, -1, -1};
    for (int d = 0; d < 4; d++) {
        cand_t m = *c;
        grid_shifted(c->h, grid_moves[d][0], grid_moves[d][1], m.h);
        refine_scored(wk, &m);
        if (m.score > moved.score && !grid_unbounded(judge, m.h))
            moved = m;
    }
    if (moved.score < 0)
        return -1;
    *c = moved;
    return 0;
}

/* The candidates of one search pass: the Hough quads of each pair of angle peaks far enough apart, and
 * the image axes' grid. */
static int collect_candidates(const work_t *wk, const vis_pose_params_t *p, int across, top_t *top, char *err,
                              size_t errlen) {
    double *hl = malloc(sizeof *hl * 3 * MAX_HOUGH);
    line_t *lines = malloc(sizeof *lines * MAX_HOUGH);
    scratch_t *sc = malloc(sizeof *sc);
    int nh = 0, rc = VIS_OK;
    if (!hl || !lines || !sc) {
        vis_set_err(err, errlen, "vis_pose_find", "out of memory");
        rc = VIS_E_NOMEM;
        goto out;
    }
    if ((rc = hough_lines(wk, p, hl, lines, &nh, err, errlen)) != VIS_OK)
        goto out;
    double peaks[4];
    int npk = angle_peaks(lines, nh, across, peaks);
    if (across && npk > 0) { /* the direction across the strongest, unless a peak is already it (a
                              * peak a few degrees off may leave an outer line of the board out) */
        double phi =
            across_peak(lines, nh, peaks[0], wk->w / 2.0, wk->h / 2.0, 0.012 * p->work_size, sc->fam[0]);
        int near = phi < 0;
        for (int k = 0; k < npk && !near; k++)
            near = ang_dist(peaks[k], phi) < 2 * PI / 180;
        if (!near)
            peaks[npk++] = phi;
    }
    for (int pa = 0; pa < npk; pa++)
        for (int pb = pa + 1; pb < npk; pb++)
            if (ang_dist(peaks[pa], peaks[pb]) >= 40 * PI / 180)
                score_family_pair(wk, p, lines, nh, (const double[2]){peaks[pa], peaks[pb]}, sc, top);
    add_axis_candidate(wk, p, top);
out:
    free(sc);
    free(hl);
    free(lines);
    return rc;
}

#define MARGIN_FULL 0.06 /* registration margin of a sure grid (vis_pose_t.confidence) */

/* The registration margin of the grid of h (dense score `score`): its margin over its own threshold
 * (grid_need) less the best such margin of the grid moved one square along either axis (the rivals: a
 * grid a row or a file off has all but one of its lines on the board's). */
static double registration_margin(const work_t *wk, const vis_pose_params_t *p, const double h[9],
                                  double score) {
    double best = -2;
    for (int d = 0; d < 4; d++) {
        double g[9], m;
        grid_shifted(h, grid_moves[d][0], grid_moves[d][1], g);
        m = dense_score(wk, g) - grid_need(wk, p, g);
        if (m > best)
            best = m;
    }
    return score - grid_need(wk, p, h) - best;
}

/* One search (vis_pose_find's first, or with faint its faint-line one), with img and p checked by it. */
static int find_pass(const cap_image_t *img, const vis_pose_params_t *p, int faint, int across,
                     vis_pose_t *pose, char *err, size_t errlen) {
    work_t wk = {0}, fine = {0};
    double sx = 1, sy = 1;
    top_t top = {.n = 0};
    int rc;

    memset(pose, 0, sizeof *pose);
    pose->frame_w = img->width;
    pose->frame_h = img->height;
    rc = prepare(img, p, faint, &wk, &sx, &sy, err, errlen);
    if (rc != VIS_OK)
        goto out;
    /* the blurred-line search judges whether a grid is a board's (grid_unbounded) on the faint search's
     * finer map: its own wide square merges the thin lines of graph paper, whose bold lines then make a
     * grid that is all it sees */
    if (faint == 2 && (rc = prepare(img, p, 1, &fine, &sx, &sy, err, errlen)) != VIS_OK)
        goto out;
    const work_t *judge = faint == 2 ? &fine : &wk;
    if ((rc = collect_candidates(&wk, p, across, &top, err, errlen)) != VIS_OK)
        goto out;

    /* refine the best and rescore densely */
    cand_t best = {{0}, -1, -1};
    double best_need = p->min_score, best_margin = -2;
    for (int i = 0; i < top.n; i++) {
        cand_t c = top.c[i];
        if (refine_candidate(&wk, judge, p, &c) != 0)
            continue;
        double need = grid_need(&wk, p, c.h);
        if (c.score - need > best_margin) {
            best = c;
            best_need = need;
            best_margin = c.score - need;
        }
    }
    if (best.score < 0) {
        pose->found = 0;
        goto out;
    }
    if (best.score >= best_need && best.rms >= 0)
        move_off_cut(&wk, best.h);
    fill_pose(pose, best.h, sx, sy);
    pose->score = best.score;
    pose->rms_px = best.rms < 0 ? -1 : best.rms / (0.5 * (sx + sy));
    pose->found = best.score >= best_need && best.rms >= 0;
    if (pose->found) {
        double c = 0.5 + 0.5 * (best.score - best_need) / (1.0 - best_need + 1e-9) * 2.5,
               r = registration_margin(&wk, p, best.h, best.score) / MARGIN_FULL;
        c = r < c ? r : c;
        pose->confidence = c > 1 ? 1 : c < 0 ? 0 : c;
    }
out:
    work_free(&wk);
    work_free(&fine);
    return rc;
}

/* ---------------------------------------------------------------- using a pose */

/* pose->H = H * m (m takes the new canonical frame to the old); Hinv and corners follow. */
static void pose_compose(vis_pose_t *pose, const double m[9]) {
    double h2[9];
    vis_mat3_mul(pose->H, m, h2);
    memcpy(pose->H, h2, sizeof h2);
    if (vis_mat3_inv(pose->H, pose->Hinv) != 0)
        memset(pose->Hinv, 0, sizeof pose->Hinv);
    static const double c[4][2] = {{0, 0}, {9, 0}, {9, 9}, {0, 9}};
    for (int i = 0; i < 4; i++)
        vis_hom_apply(pose->H, c[i][0], c[i][1], &pose->corners[i][0], &pose->corners[i][1]);
}

void vis_pose_rotate(vis_pose_t *pose, int quarter_turns) {
    int t = ((quarter_turns % 4) + 4) % 4;
    /* One quarter turn: old (u, v) = (9 - v', u') for the new (u', v'), so the old left column u = 0
     * becomes the new bottom row v' = 9. As a matrix R taking new to old: H' = H * R. */
    static const double r1[9] = {0, -1, 9, 1, 0, 0, 0, 0, 1};
    for (int i = 0; i < t; i++)
        pose_compose(pose, r1);
    pose->rotation = (pose->rotation + t) % 4;
}

void vis_pose_shift(vis_pose_t *pose, int du, int dv) {
    /* new (u', v') shows old (u' + du, v' + dv): H' = H * T(du, dv) */
    const double t[9] = {1, 0, du, 0, 1, dv, 0, 0, 1};
    pose_compose(pose, t);
}

int vis_pose_to_image(const vis_pose_t *pose, double u, double v, double *x, double *y) {
    if (pose == NULL || x == NULL || y == NULL)
        return VIS_E_ARG;
    return vis_hom_apply(pose->H, u, v, x, y) == 0 ? VIS_OK : VIS_E_ARG;
}

int vis_pose_square_seen(const vis_pose_t *pose, int w, int h, int u0, int v0) {
    for (int k = 0; k < 4; k++) {
        double x, y;
        if (vis_pose_to_image(pose, u0 + (k & 1 ? 0.8 : 0.2), v0 + (k & 2 ? 0.8 : 0.2), &x, &y) != VIS_OK ||
            x < 0 || y < 0 || x >= w || y >= h)
            return 0;
    }
    return 1;
}

int vis_pose_warp(const cap_image_t *img, const vis_pose_t *pose, double margin, cap_image_t *dst, char *err,
                  size_t errlen) {
    const char *fn = "vis_pose_warp";
    char cverr[300];
    if (img == NULL || pose == NULL || dst == NULL || img->data == NULL || dst->data == NULL ||
        dst->width < 1 || dst->height < 1 || !(margin >= 0 && margin <= 9)) {
        vis_set_err(err, errlen, fn, "bad argument");
        return VIS_E_ARG;
    }
    /* dst pixel centre (x, y) -> canonical: u = (x + 0.5) * span / W - margin */
    double span = 9 + 2 * margin;
    double ax = span / dst->width, ay = span / dst->height;
    double d2c[9] = {ax, 0, 0.5 * ax - margin, 0, ay, 0.5 * ay - margin, 0, 0, 1};
    double m[9];
    vis_mat3_mul(pose->H, d2c, m);
    if (vis_cv_warp(img->data, img->width, img->height, img->stride, 3, m, dst->data, dst->width, dst->height,
                    dst->stride, cverr, sizeof cverr) != 0) {
        vis_set_err(err, errlen, fn, "%s", cverr);
        return VIS_E_CV;
    }
    return VIS_OK;
}
