/* komadai.c - reads the two piece stands (vis_komadai_*): warps each stand's search area top-down,
 * finds inky windows, classifies them with the square classifier (one network call for both stands),
 * suppresses overlapping windows, classifies each piece kept again turned both ways (a second call) and
 * turns the pieces into per-kind count distributions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vision/cvseam.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

#define CROP 48 /* classifier input side, pixels */
#define CROP_PX (CROP * CROP * 3)
#define NEAR_SQ 0.3 /* windows this close (squares) to a kept piece vote for its kind */
#define MAX_PIECES VIS_KOMADAI_PIECES_MAX
#define NQ 9        /* folded classes: empty, P L N S B R G, king */
#define LINE_SQ 0.9 /* a straight stroke this long (squares) is an outline, not a piece's face */

void vis_komadai_params_default(vis_komadai_params_t *p) {
    p->gap = 0.3;
    p->width = 4.5;
    p->height = 5.5;
    p->below = 1.0;
    p->min_visible = 0.7;
    p->piece_size = 0.9;
    p->ink_level = 25;
    p->ink_density = 0.08;
    p->stride = 0.25;
    p->max_windows = 160;
    p->min_piece = 0.6;
    p->nms_radius = 0.7;
    p->turn_deg = 12;
    p->sharpness = 1;
    p->same_kind_radius = 0.7;
}

static int bad_params(const vis_komadai_params_t *p) {
    return !(p->gap >= 0 && p->gap <= 3) || !(p->width >= 1 && p->width <= 10) ||
           !(p->height >= 1 && p->height <= 12) || !(p->below >= -6 && p->below <= 6) ||
           !(p->min_visible >= 0 && p->min_visible <= 1) || !(p->piece_size >= 0.5 && p->piece_size <= 1.5) ||
           p->ink_level < 0 || p->ink_level > 255 || !(p->ink_density >= 0 && p->ink_density <= 1) ||
           !(p->stride >= 0.1 && p->stride <= 1) || p->max_windows < 1 || p->max_windows > 1000 ||
           !(p->min_piece >= 0 && p->min_piece <= 1) || !(p->nms_radius >= 0.1 && p->nms_radius <= 2) ||
           !(p->turn_deg >= 0 && p->turn_deg <= 45) || !(p->sharpness > 0 && p->sharpness <= 1) ||
           !(p->same_kind_radius >= 0.1 && p->same_kind_radius <= 2);
}

/* One window: where (warp pixels of its top-left corner), how inky, and what the classifier says,
 * folded: q[0] empty, q[1..7] P L N S B R G, q[8] king (never in hand). */
typedef struct {
    int x, y;
    double ink;
    float q[NQ];
    int taken;
} window_t;

/* A piece kept after suppression: its window's centre (warp pixels) and evidence. */
typedef struct {
    double cx, cy;
    double present;  /* 1 - p(empty) of its window */
    double kind[NQ]; /* summed folded probabilities of the windows that vote for it */
} piece_t;

/* Warp pixels per canonical square: a window of 1.3 x piece_size squares is one 48-pixel crop, so that a
 * piece on the stand fills a crop as a piece on the board fills its square's crop. */
static double px_per_sq(const vis_komadai_params_t *p) { return CROP / (1.3 * p->piece_size); }

/* The stand of player s: warp pixel (x, y, 1) -> canonical (u, v, 1) in a[9]. */
static void area_map(const vis_komadai_params_t *p, int s, double a[9]) {
    double u0 = 9 + p->gap, v0 = 9 + p->below - p->height, px = px_per_sq(p);
    double sg = s == 0 ? 1 : -1, ou = s == 0 ? u0 : 9 - u0, ov = s == 0 ? v0 : 9 - v0;
    double m[9] = {sg / px, 0, ou, 0, sg / px, ov, 0, 0, 1};
    memcpy(a, m, sizeof m);
}

/* Share of an 11 x 13 grid of points of the area (warp size ww x wh, warp -> image hw) in the frame. */
static double visible_share(const vis_pose_t *pose, const double hw[9], int ww, int wh) {
    int in = 0, n = 0;
    for (int i = 0; i <= 10; i++)
        for (int j = 0; j <= 12; j++) {
            double x, y;
            n++;
            if (vis_hom_apply(hw, ww * i / 10.0, wh * j / 12.0, &x, &y) == 0 && x >= 0 && y >= 0 &&
                x <= pose->frame_w - 1 && y <= pose->frame_h - 1)
                in++;
        }
    return (double)in / n;
}

/* Clears the stroke pixels (above level) that lie on a horizontal or vertical run of at least len
 * stroke pixels: the straight outline of a stand, the edge of a board or a table, which would otherwise
 * draw windows (a stand's corner reads as a piece); a piece's strokes are shorter. */
static void clear_long_runs(unsigned char *ink, int w, int h, int level, int len) {
    for (int y = 0; y < h; y++) {
        unsigned char *r = ink + (size_t)y * w;
        for (int x = 0; x < w;) {
            int e = x;
            while (e < w && r[e] > level)
                e++;
            if (e - x >= len)
                for (int i = x; i < e; i++)
                    r[i] = 255; /* marked: cleared once the columns are looked at too */
            x = e > x ? e : x + 1;
        }
    }
    for (int x = 0; x < w; x++)
        for (int y = 0; y < h;) {
            int e = y;
            while (e < h && ink[(size_t)e * w + x] > level)
                e++;
            if (e - y >= len)
                for (int i = y; i < e; i++)
                    ink[(size_t)i * w + x] = 0;
            y = e > y ? e : y + 1;
        }
    for (size_t i = 0; i < (size_t)w * h; i++)
        if (ink[i] == 255)
            ink[i] = 0;
}

static int cmp_ink(const void *a, const void *b) {
    double d = ((const window_t *)b)->ink - ((const window_t *)a)->ink;
    return d > 0 ? 1 : d < 0 ? -1 : 0;
}

/* Softmax of 29 logits folded to NQ values: a piece in hand is unpromoted and belongs to the stand, so
 * both owners and the promoted form count for the kind (models/README.md gives the class order). */
static void fold(const float *l, float q[NQ]) {
    float mx = l[0], sum = 0, pr[VIS_CLASS_NB];
    for (int k = 1; k < VIS_CLASS_NB; k++)
        if (l[k] > mx)
            mx = l[k];
    for (int k = 0; k < VIS_CLASS_NB; k++)
        sum += pr[k] = expf(l[k] - mx);
    memset(q, 0, NQ * sizeof *q);
    q[0] = pr[0] / sum;
    for (int k = 1; k < VIS_CLASS_NB; k++) {
        int kind = (k - 1) % 14; /* P L N S B R G K +P +L +N +S +B +R */
        int h = kind < 7 ? kind : kind == 7 ? -1 : kind - 8;
        q[h < 0 ? NQ - 1 : 1 + h] += pr[k] / sum;
    }
}

/* Windows of one stand's warp: the grid of `stride` whose centre (0.8 piece) square has at least
 * ink_density stroke pixels, the inkiest max_windows of them. ii is the (ww+1) x (wh+1) integral image
 * of the stroke mask. Returns how many were written to w (room for max_windows); tmp has room for the
 * whole grid. */
static int pick_windows(const vis_komadai_params_t *p, const unsigned *ii, int ww, int wh, window_t *w,
                        window_t *tmp) {
    double px = px_per_sq(p);
    int st = (int)lround(p->stride * px), k = (int)lround(0.8 * p->piece_size * px), n = 0;
    if (st < 1)
        st = 1;
    for (int y = 0; y + CROP <= wh; y += st)
        for (int x = 0; x + CROP <= ww; x += st) {
            int x0 = x + (CROP - k) / 2, y0 = y + (CROP - k) / 2, x1 = x0 + k, y1 = y0 + k;
            unsigned s = ii[(size_t)y1 * (ww + 1) + x1] - ii[(size_t)y0 * (ww + 1) + x1] -
                         ii[(size_t)y1 * (ww + 1) + x0] + ii[(size_t)y0 * (ww + 1) + x0];
            double ink = (double)s / ((double)k * k);
            if (ink >= p->ink_density) {
                window_t t = {x, y, ink, {0}, 0};
                tmp[n++] = t;
            }
        }
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_ink);
    if (n > p->max_windows)
        n = p->max_windows;
    memcpy(w, tmp, (size_t)n * sizeof *w);
    return n;
}

/* The most probable hand kind of a window's folded classes (1..7). */
static int top_kind(const float q[NQ]) {
    int b = 1;
    for (int k = 2; k < NQ - 1; k++)
        if (q[k] > q[b])
            b = k;
    return b;
}

/* Greedy suppression over one stand's classified windows: the window most likely to hold a hand piece
 * is kept, every window within nms_radius of it is taken, and the windows within NEAR_SQ that hold a
 * piece vote for its kind. Returns the number of pieces written to pc (at most MAX_PIECES). */
static int suppress(const vis_komadai_params_t *p, window_t *w, int n, piece_t *pc) {
    double px = px_per_sq(p), r2 = p->nms_radius * p->nms_radius * px * px, n2 = NEAR_SQ * NEAR_SQ * px * px;
    double s2 = p->same_kind_radius * p->same_kind_radius * px * px;
    int np = 0;
    while (np < MAX_PIECES) {
        int best = -1;
        double bs = 0;
        for (int i = 0; i < n; i++) {
            double ph = 1 - w[i].q[0] - w[i].q[NQ - 1];
            if (!w[i].taken && 1 - w[i].q[0] >= p->min_piece && ph > bs) {
                bs = ph;
                best = i;
            }
        }
        if (best < 0)
            break;
        piece_t *q = &pc[np++];
        memset(q, 0, sizeof *q);
        q->cx = w[best].x + CROP / 2.0;
        q->cy = w[best].y + CROP / 2.0;
        q->present = 1 - w[best].q[0];
        int bx = w[best].x, by = w[best].y, bk = top_kind(w[best].q);
        for (int i = 0; i < n; i++) {
            double dx = w[i].x - bx, dy = w[i].y - by, d2 = dx * dx + dy * dy;
            if (d2 <= n2 && 1 - w[i].q[0] >= p->min_piece)
                for (int k = 0; k < NQ; k++)
                    q->kind[k] += w[i].q[k];
            if (d2 < r2 || (d2 < s2 && top_kind(w[i].q) == bk))
                w[i].taken = 1;
        }
    }
    return np;
}

/* How many pieces one detection stands for: pieces of a kind are often stacked on a stand so that the
 * top one hides most of the others, and the windows cannot tell them apart (neither the width of the
 * strokes nor the run of windows reading the kind separated stacks from single pieces on rendered
 * stands). A fixed prior, not fitted: the count read takes each detection as one piece; the
 * distributions leave room for a stack so that a consumer (the tracker) is not misled into ruling it
 * out. */
const double vis_stack_prior[VIS_STACK_NB] = {0.70, 0.18, 0.07, 0.03, 0.02};

/* Per-kind count distributions of one stand from its pieces: detection i is a hand piece of kind k with
 * probability present_i x kind_i[k] / (sum of its hand kinds), standing for m pieces with vis_stack_prior;
 * the detections are independent (a convolution: Poisson-binomial when every detection is one piece). */
static void count_stand(const piece_t *pc, int np, double sharpness, vis_komadai_read_t *out, int s) {
    double dist[VIS_HAND_KIND_NB][VIS_HAND_COUNT_NB];
    for (int k = 0; k < VIS_HAND_KIND_NB; k++)
        for (int c = 0; c < VIS_HAND_COUNT_NB; c++)
            dist[k][c] = c == 0;
    out->pieces[s] = np;
    for (int i = 0; i < np; i++) {
        double tot = 0;
        for (int k = 0; k < VIS_HAND_KIND_NB; k++)
            tot += pc[i].kind[1 + k];
        if (tot <= 0)
            continue;
        out->piece_present[s][i] = (float)pc[i].present;
        for (int k = 0; k < VIS_HAND_KIND_NB; k++)
            out->piece_kind[s][i][k] = (float)(pc[i].kind[1 + k] / tot);
        for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
            double pk = pc[i].present * pc[i].kind[1 + k] / tot, nd[VIS_HAND_COUNT_NB];
            for (int c = 0; c < VIS_HAND_COUNT_NB; c++)
                nd[c] = dist[k][c] * (1 - pk);
            for (int c = 0; c < VIS_HAND_COUNT_NB; c++)
                for (int m = 1; m <= VIS_STACK_NB; m++) {
                    int to =
                        c + m < VIS_HAND_COUNT_NB ? c + m : VIS_HAND_COUNT_NB - 1; /* past 18 stays at 18 */
                    nd[to] += dist[k][c] * pk * vis_stack_prior[m - 1];
                }
            memcpy(dist[k], nd, sizeof nd);
        }
    }
    /* the counts: each piece likely present goes to its most probable kind (the argmax of each kind's
     * distribution alone would drop a piece whose kind is split between two) */
    int cnt[VIS_HAND_KIND_NB] = {0};
    for (int i = 0; i < np; i++) {
        int bk = 0;
        for (int k = 1; k < VIS_HAND_KIND_NB; k++)
            if (pc[i].kind[1 + k] > pc[i].kind[1 + bk])
                bk = k;
        if (pc[i].present >= 0.5 && pc[i].kind[1 + bk] > 0 && cnt[bk] < VIS_HAND_COUNT_NB - 1)
            cnt[bk]++;
    }
    out->min_conf[s] = 1;
    for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
        double z = 0;
        for (int c = 0; c < VIS_HAND_COUNT_NB; c++)
            z += dist[k][c] = pow(dist[k][c], sharpness);
        for (int c = 0; c < VIS_HAND_COUNT_NB; c++)
            out->prob[s][k][c] = (float)(dist[k][c] / z);
        out->count[s][k] = cnt[k];
        out->conf[s][k] = out->prob[s][k][cnt[k]];
        if (out->conf[s][k] < out->min_conf[s])
            out->min_conf[s] = out->conf[s][k];
    }
}

/* Copies a 48x48 BGR8 crop (stride bytes a row) into blob as 3 x 48 x 48 floats / 255. */
static void to_blob(const unsigned char *src, size_t stride, float *b) {
    for (int y = 0; y < CROP; y++)
        for (int x = 0; x < CROP; x++)
            for (int ch = 0; ch < 3; ch++)
                b[(size_t)ch * CROP * CROP + y * CROP + x] =
                    src[(size_t)y * stride + (size_t)x * 3 + ch] / 255.0f;
}

/* The buffers and state of one vis_komadai_read. */
typedef struct {
    vis_komadai_params_t p;
    double px;                 /* warp pixels a square */
    int ww, wh;                /* a stand's warp, pixels */
    unsigned char *warp[2];    /* per stand: the area warped top-down, BGR8 */
    unsigned char *grey, *ink; /* the grey warp and its black-hat */
    unsigned *ii;              /* integral image of the inky pixels, (ww + 1) x (wh + 1) */
    window_t *win[2], *tmp;    /* per stand: the inky windows; pick_windows' scratch */
    float *blob, *logits;      /* the network's input and output */
    double hw[2][9];           /* per stand: warp pixel -> image pixel */
    int nw[2], np[2];          /* windows and pieces per stand */
    piece_t pc[2][MAX_PIECES]; /* the pieces kept per stand */
} kread_t;

static void kread_free(kread_t *k) {
    free(k->grey);
    free(k->ink);
    free(k->ii);
    free(k->tmp);
    free(k->blob);
    free(k->logits);
    for (int s = 0; s < 2; s++) {
        free(k->warp[s]);
        free(k->win[s]);
    }
}

/* Sizes and allocates k's buffers for k->p. Returns 0 or -1 (out of memory). */
static int kread_alloc(kread_t *k) {
    const vis_komadai_params_t *p = &k->p;
    k->px = px_per_sq(p);
    k->ww = (int)lround(p->width * k->px);
    k->wh = (int)lround(p->height * k->px);
    int st = (int)lround(p->stride * k->px), ww = k->ww, wh = k->wh;
    if (st < 1)
        st = 1;
    size_t grid = (size_t)((ww - CROP) / st + 1) * (size_t)((wh - CROP) / st + 1);
    size_t nmax = (size_t)2 * p->max_windows + 4 * MAX_PIECES;
    k->grey = malloc((size_t)ww * wh);
    k->ink = malloc((size_t)ww * wh);
    k->ii = malloc(sizeof *k->ii * (size_t)(ww + 1) * (wh + 1));
    k->tmp = malloc(sizeof *k->tmp * grid);
    k->blob = malloc(sizeof *k->blob * nmax * CROP_PX);
    k->logits = malloc(sizeof *k->logits * nmax * VIS_CLASS_NB);
    for (int s = 0; s < 2; s++) {
        k->warp[s] = malloc((size_t)ww * wh * 3);
        k->win[s] = malloc(sizeof *k->win[s] * (size_t)p->max_windows);
    }
    return k->grey && k->ink && k->ii && k->tmp && k->blob && k->logits && k->warp[0] && k->warp[1] &&
                   k->win[0] && k->win[1]
               ? 0
               : -1;
}

/* Step 1 for stand s, when its area is in view: warp, strokes, inky windows (k->nw[s]); out->known[s]
 * set. Returns VIS_OK or VIS_E_CV (message in c). */
static int find_windows(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose, kread_t *k,
                        int s, vis_komadai_read_t *out) {
    const vis_komadai_params_t *p = &k->p;
    int ww = k->ww, wh = k->wh;
    char err[300];
    double a[9];
    area_map(p, s, a);
    vis_mat3_mul(pose->H, a, k->hw[s]);
    if (visible_share(pose, k->hw[s], ww, wh) < p->min_visible)
        return VIS_OK; /* unknown */
    if (vis_cv_warp(img->data, img->width, img->height, img->stride, 3, k->hw[s], k->warp[s], ww, wh, 3 * ww,
                    err, sizeof err) != VIS_CV_OK ||
        vis_cv_bgr_to_grey(k->warp[s], ww, wh, 3 * ww, k->grey, ww, wh, ww, err, sizeof err) != VIS_CV_OK ||
        vis_cv_blackhat(k->grey, ww, wh, ww, 7, k->ink, ww, err, sizeof err) != VIS_CV_OK) {
        vis_classifier_set_err(c, "vis_komadai_read", "%s", err);
        return VIS_E_CV;
    }
    clear_long_runs(k->ink, ww, wh, p->ink_level, (int)lround(LINE_SQ * k->px));
    memset(k->ii, 0, sizeof *k->ii * (size_t)(ww + 1));
    for (int y = 0; y < wh; y++) {
        unsigned row = 0;
        k->ii[(size_t)(y + 1) * (ww + 1)] = 0;
        for (int x = 0; x < ww; x++) {
            row += k->ink[(size_t)y * ww + x] > p->ink_level;
            k->ii[(size_t)(y + 1) * (ww + 1) + x + 1] = k->ii[(size_t)y * (ww + 1) + x + 1] + row;
        }
    }
    k->nw[s] = pick_windows(p, k->ii, ww, wh, k->win[s], k->tmp);
    out->known[s] = 1;
    return VIS_OK;
}

/* Step 2: one network call for the windows of both stands. */
static int classify_windows(vis_classifier_t *c, kread_t *k, vis_komadai_read_t *out) {
    int total = 0, rc;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < k->nw[s]; i++, total++)
            to_blob(k->warp[s] + ((size_t)k->win[s][i].y * k->ww + k->win[s][i].x) * 3, (size_t)3 * k->ww,
                    k->blob + (size_t)total * CROP_PX);
    out->windows = total;
    if (total == 0)
        return VIS_OK;
    if ((rc = vis_classifier_run(c, k->blob, total, k->logits)) != VIS_OK)
        return rc;
    for (int s = 0, n = 0; s < 2; s++)
        for (int i = 0; i < k->nw[s]; i++, n++)
            fold(k->logits + (size_t)n * VIS_CLASS_NB, k->win[s][i].q);
    return VIS_OK;
}

/* Piece i of stand s cropped again turned by -turn_deg and +turn_deg into the blob at *total (two
 * crops). Returns VIS_OK or VIS_E_CV (message in c). */
static int crop_turned(vis_classifier_t *c, const cap_image_t *img, kread_t *k, int s, int i, int *total) {
    unsigned char crop[CROP_PX];
    char err[300];
    for (int t = -1; t <= 1; t += 2) {
        double th = t * k->p.turn_deg * 3.14159265358979323846 / 180, cs = cos(th), sn = sin(th);
        double cx = k->pc[s][i].cx, cy = k->pc[s][i].cy, h[9];
        /* crop pixel (x, y) -> warp pixel: turn by th about the piece's centre */
        double r[9] = {cs, -sn, cx - cs * CROP / 2.0 + sn * CROP / 2.0,
                       sn, cs,  cy - sn * CROP / 2.0 - cs * CROP / 2.0,
                       0,  0,   1};
        vis_mat3_mul(k->hw[s], r, h);
        if (vis_cv_warp(img->data, img->width, img->height, img->stride, 3, h, crop, CROP, CROP, 3 * CROP,
                        err, sizeof err) != VIS_CV_OK) {
            vis_classifier_set_err(c, "vis_komadai_read", "%s", err);
            return VIS_E_CV;
        }
        to_blob(crop, 3 * CROP, k->blob + (size_t)(*total)++ * CROP_PX);
    }
    return VIS_OK;
}

/* Step 3: suppression, then each piece again turned by -turn_deg and +turn_deg (pieces on a stand lie at
 * angles; the classifier was trained on pieces within a few degrees of straight): a second call. The
 * turned crops weigh as much as the straight windows' vote together. */
static int classify_turned(vis_classifier_t *c, const cap_image_t *img, kread_t *k, vis_komadai_read_t *out) {
    int total = 0, rc;
    for (int s = 0; s < 2; s++) {
        if (!out->known[s])
            continue;
        k->np[s] = suppress(&k->p, k->win[s], k->nw[s], k->pc[s]);
        for (int i = 0; i < k->np[s] && k->p.turn_deg > 0; i++)
            if ((rc = crop_turned(c, img, k, s, i, &total)) != VIS_OK)
                return rc;
    }
    if (total == 0)
        return VIS_OK;
    if ((rc = vis_classifier_run(c, k->blob, total, k->logits)) != VIS_OK)
        return rc;
    out->windows += total;
    for (int s = 0, n = 0; s < 2; s++)
        for (int i = 0; i < k->np[s]; i++) {
            piece_t *pc = &k->pc[s][i];
            double tot = 0, kq[NQ];
            float q[NQ];
            for (int j = 0; j < NQ; j++)
                tot += pc->kind[j];
            for (int j = 0; j < NQ; j++)
                kq[j] = tot > 0 ? pc->kind[j] / tot : 0;
            for (int t = 0; t < 2; t++, n++) {
                fold(k->logits + (size_t)n * VIS_CLASS_NB, q);
                for (int j = 0; j < NQ; j++)
                    kq[j] += q[j];
            }
            memcpy(pc->kind, kq, sizeof kq);
        }
    return VIS_OK;
}

/* The straight crop of every piece kept into crops (vis_komadai_read_crops). VIS_OK or VIS_E_CV. */
static int piece_crops(vis_classifier_t *c, const cap_image_t *img, kread_t *k, const vis_komadai_read_t *out,
                       unsigned char *crops) {
    char err[300];
    for (int s = 0; s < 2; s++)
        for (int i = 0; out->known[s] && i < k->np[s]; i++) {
            double t[9] = {1, 0, k->pc[s][i].cx - CROP / 2.0, 0, 1, k->pc[s][i].cy - CROP / 2.0, 0, 0, 1},
                   h[9];
            vis_mat3_mul(k->hw[s], t, h);
            if (vis_cv_warp(img->data, img->width, img->height, img->stride, 3, h,
                            crops + ((size_t)s * MAX_PIECES + (size_t)i) * CROP_PX, CROP, CROP, 3 * CROP, err,
                            sizeof err) != VIS_CV_OK) {
                vis_classifier_set_err(c, "vis_komadai_read_crops", "%s", err);
                return VIS_E_CV;
            }
        }
    return VIS_OK;
}

int vis_komadai_read(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                     const vis_komadai_params_t *params, vis_komadai_read_t *out) {
    return vis_komadai_read_crops(c, img, pose, params, out, NULL);
}

int vis_komadai_read_crops(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                           const vis_komadai_params_t *params, vis_komadai_read_t *out,
                           unsigned char *crops) {
    const char *fn = "vis_komadai_read";
    kread_t *k;
    int rc = VIS_OK;

    if (c == NULL)
        return VIS_E_ARG;
    vis_komadai_params_t p;
    if (params)
        p = *params;
    else
        vis_komadai_params_default(&p);
    if (img == NULL || img->data == NULL || pose == NULL || out == NULL || !pose->found || bad_params(&p)) {
        vis_classifier_set_err(c, fn, "%s", pose && !pose->found ? "no board in the pose" : "bad argument");
        return VIS_E_ARG;
    }
    memset(out, 0, sizeof *out);
    if ((k = calloc(1, sizeof *k)) == NULL) {
        vis_classifier_set_err(c, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    k->p = p;
    if (kread_alloc(k) != 0) {
        vis_classifier_set_err(c, fn, "out of memory");
        rc = VIS_E_NOMEM;
        goto out;
    }
    for (int s = 0; s < 2 && rc == VIS_OK; s++)
        rc = find_windows(c, img, pose, k, s, out);
    if (rc != VIS_OK || (rc = classify_windows(c, k, out)) != VIS_OK ||
        (rc = classify_turned(c, img, k, out)) != VIS_OK)
        goto out;
    for (int s = 0; s < 2; s++)
        if (out->known[s])
            count_stand(k->pc[s], k->np[s], k->p.sharpness, out, s);
    if (crops != NULL)
        rc = piece_crops(c, img, k, out, crops);
out:
    kread_free(k);
    free(k);
    return rc;
}

int vis_komadai_sfen(const vis_komadai_read_t *read, char *buf, size_t size) {
    static const int order[VIS_HAND_KIND_NB] = {5, 4, 6, 3, 2, 1, 0}; /* R B G S N L P (SFEN order) */
    static const char letter[VIS_HAND_KIND_NB] = {'P', 'L', 'N', 'S', 'B', 'R', 'G'};
    size_t n = 0;
    if (read == NULL || buf == NULL || size < 2 || !read->known[0] || !read->known[1])
        return VIS_E_ARG;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < VIS_HAND_KIND_NB; i++) {
            int k = order[i], cnt = read->count[s][k];
            char t[8], l = (char)(letter[k] + (s ? 'a' - 'A' : 0));
            if (cnt <= 0)
                continue;
            int len = cnt > 1 ? snprintf(t, sizeof t, "%d%c", cnt, l) : snprintf(t, sizeof t, "%c", l);
            if (n + (size_t)len >= size)
                return VIS_E_ARG;
            memcpy(buf + n, t, (size_t)len);
            n += (size_t)len;
        }
    if (n == 0)
        buf[n++] = '-';
    buf[n] = '\0';
    return VIS_OK;
}
