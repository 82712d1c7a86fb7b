/* stability.c - the cheap per-frame test (vis_stability_*): a grey thumbnail of the warped board and
 * the areas beside it (komadai), sampled through a lookup table made once from the pose, compared cell
 * by cell with the previous frame (motion) and with the last stable picture (a hand left in view).
 * Pure C, no allocation per frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vision/vis_internal.h"
#include "vision/vision.h"

struct vis_stability {
    vis_stability_params_t p;
    int frame_w, frame_h;
    int tw, th;          /* thumbnail size, pixels */
    int cw, ch;          /* cells across and down */
    int *lut;            /* tw*th pairs (x, y) of the frame pixel sampled, x = -1 outside the frame */
    unsigned char *cur;  /* this frame's thumbnail */
    unsigned char *prev; /* the previous frame's */
    unsigned char *ref;  /* the last stable picture */
    int have_prev, have_ref;
    int64_t still_since; /* timestamp of the first still frame of the current still run, -1 if moving */
};

void vis_stability_params_default(vis_stability_params_t *p) {
    p->cell_px = 10;
    p->komadai_squares = 3;
    p->motion_level = 14;
    p->change_level = 18;
    p->hand_cells = 3;
    p->stable_ms = 400;
    p->first_stable_ms = 500;
    p->ref_still_ms = 300;
    p->hand_still_ms = 1000;
}

void vis_stability_destroy(vis_stability_t *st) {
    if (st == NULL)
        return;
    free(st->lut);
    free(st->cur);
    free(st->prev);
    free(st->ref);
    free(st);
}

int vis_stability_create(const vis_pose_t *pose, const vis_stability_params_t *params, vis_stability_t **out,
                         char *err, size_t errlen) {
    const char *fn = "vis_stability_create";
    vis_stability_t *st;
    vis_stability_params_t p;

    if (out == NULL || pose == NULL || !pose->found || pose->frame_w < 1 || pose->frame_h < 1) {
        vis_set_err(err, errlen, fn, "%s", pose && !pose->found ? "no board in the pose" : "bad argument");
        return VIS_E_ARG;
    }
    *out = NULL;
    if (params)
        p = *params;
    else
        vis_stability_params_default(&p);
    if (p.cell_px < 4 || p.cell_px > 20 || !(p.komadai_squares >= 0 && p.komadai_squares <= 5) ||
        !(p.motion_level > 0) || !(p.change_level > 0) || p.hand_cells < 1 || p.stable_ms < 0 ||
        p.stable_ms > 10000 || p.first_stable_ms < 0 || p.first_stable_ms > 10000 || p.ref_still_ms < 0 ||
        p.ref_still_ms > 10000 || p.hand_still_ms < 0 || p.hand_still_ms > 60000) {
        vis_set_err(err, errlen, fn, "parameter out of range");
        return VIS_E_ARG;
    }
    st = calloc(1, sizeof *st);
    if (st == NULL) {
        vis_set_err(err, errlen, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    st->p = p;
    st->frame_w = pose->frame_w;
    st->frame_h = pose->frame_h;
    int k = (int)lround(p.komadai_squares);
    st->cw = 9 + 2 * k;
    st->ch = 9;
    st->tw = st->cw * p.cell_px;
    st->th = st->ch * p.cell_px;
    size_t n = (size_t)st->tw * st->th;
    st->lut = malloc(n * 2 * sizeof *st->lut);
    st->cur = malloc(n);
    st->prev = malloc(n);
    st->ref = malloc(n);
    if (!st->lut || !st->cur || !st->prev || !st->ref) {
        vis_stability_destroy(st);
        vis_set_err(err, errlen, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    for (int y = 0; y < st->th; y++)
        for (int x = 0; x < st->tw; x++) {
            double u = (x + 0.5) / p.cell_px - k, v = (y + 0.5) / p.cell_px, ix, iy;
            int *l = st->lut + 2 * ((size_t)y * st->tw + x);
            l[0] = -1;
            l[1] = 0;
            if (vis_hom_apply(pose->H, u, v, &ix, &iy) == 0 && ix >= 0 && iy >= 0 && ix < st->frame_w - 1 &&
                iy < st->frame_h - 1) {
                l[0] = (int)ix;
                l[1] = (int)iy;
            }
        }
    st->still_since = -1;
    *out = st;
    return VIS_OK;
}

/* Mean absolute difference of a and b over each cell after a change of the light over the whole view
 * is taken off (a lamp, the camera's auto-exposure: neither a move nor a hand): a is compared with
 * g b + o, g and o fitted by least squares to the cells' mean grey levels, then again without the
 * third of the cells that fit worst (a hand covers fewer); a gain outside 0.6..1.7 is no change of
 * light (a black frame, a covered lens: compared as they are). Returns the largest difference, counts the
 * cells above level in *n_over and those of them on the edge of the cell grid in *n_edge. */
static double cell_diff(const vis_stability_t *st, const unsigned char *a, const unsigned char *b,
                        double level, int *n_over, int *n_edge) {
    double worst = 0, ma[1024], mb[1024], g = 1, o = 0;
    int cp = st->p.cell_px, nc = st->ch * st->cw;
    unsigned char use[1024];
    *n_over = *n_edge = 0;
    if (nc <= 1024) {
        for (int c = 0; c < nc; c++) {
            int cy = c / st->cw, cx = c % st->cw, sa = 0, sb = 0;
            for (int y = cy * cp; y < (cy + 1) * cp; y++) {
                const unsigned char *pa = a + (size_t)y * st->tw + cx * cp,
                                    *pb = b + (size_t)y * st->tw + cx * cp;
                for (int x = 0; x < cp; x++)
                    sa += pa[x], sb += pb[x];
            }
            ma[c] = (double)sa / (cp * cp), mb[c] = (double)sb / (cp * cp), use[c] = 1;
        }
        for (int pass = 0; pass < 2; pass++) {
            double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (int c = 0; c < nc; c++)
                if (use[c])
                    n++, sx += mb[c], sy += ma[c], sxx += mb[c] * mb[c], sxy += mb[c] * ma[c];
            double den = n * sxx - sx * sx;
            if (n >= 3 && den > 1e-6) {
                g = (n * sxy - sx * sy) / den;
                o = (sy - g * sx) / n;
            }
            if (!(g >= 0.6 && g <= 1.7)) { /* no light does that: a black frame, a covered lens */
                g = 1, o = 0;
                break;
            }
            if (pass == 1)
                break;
            /* leave out the third of the cells that fit worst */
            double r[1024], sorted[1024];
            for (int c = 0; c < nc; c++)
                sorted[c] = r[c] = fabs(ma[c] - (g * mb[c] + o));
            for (int i = 1; i < nc; i++) { /* insertion sort: at most a few hundred cells */
                double v = sorted[i];
                int j = i;
                while (j > 0 && sorted[j - 1] > v)
                    sorted[j] = sorted[j - 1], j--;
                sorted[j] = v;
            }
            double cut = sorted[(2 * nc) / 3];
            for (int c = 0; c < nc; c++)
                use[c] = r[c] <= cut;
        }
    }
    int lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = (int)lround(g * v + o);
    for (int cy = 0; cy < st->ch; cy++)
        for (int cx = 0; cx < st->cw; cx++) {
            int sum = 0;
            for (int y = cy * cp; y < (cy + 1) * cp; y++) {
                const unsigned char *pa = a + (size_t)y * st->tw + cx * cp,
                                    *pb = b + (size_t)y * st->tw + cx * cp;
                for (int x = 0; x < cp; x++) {
                    int e = lut[pb[x]];
                    sum += abs(pa[x] - (e < 0 ? 0 : e > 255 ? 255 : e));
                }
            }
            double d = (double)sum / (cp * cp);
            if (d > worst)
                worst = d;
            if (d > level) {
                (*n_over)++;
                if (cx == 0 || cy == 0 || cx == st->cw - 1 || cy == st->ch - 1)
                    (*n_edge)++;
            }
        }
    return worst;
}

int vis_stability_update(vis_stability_t *st, const cap_image_t *frame, int64_t ts_us, vis_view_t *view) {
    if (st == NULL || frame == NULL || view == NULL || frame->data == NULL || frame->width != st->frame_w ||
        frame->height != st->frame_h || frame->stride < 3 * frame->width)
        return VIS_E_ARG;
    size_t n = (size_t)st->tw * st->th;
    /* thumbnail: grey (B + 2G + R) / 4 averaged over 2x2 frame pixels */
    for (size_t i = 0; i < n; i++) {
        const int *l = st->lut + 2 * i;
        if (l[0] < 0) {
            st->cur[i] = 0;
            continue;
        }
        const unsigned char *p0 = frame->data + (size_t)l[1] * frame->stride + (size_t)l[0] * 3;
        const unsigned char *p1 = p0 + frame->stride;
        int s = p0[0] + 2 * p0[1] + p0[2] + p0[3] + 2 * p0[4] + p0[5] + p1[0] + 2 * p1[1] + p1[2] + p1[3] +
                2 * p1[4] + p1[5];
        st->cur[i] = (unsigned char)(s >> 4);
    }
    memset(view, 0, sizeof *view);
    if (!st->have_prev) {
        memcpy(st->prev, st->cur, n);
        st->have_prev = 1;
        st->still_since = ts_us;
        view->state = VIS_VIEW_NONE;
        return VIS_OK;
    }
    int n_move, n_move_edge, n_chg = 0, n_chg_edge = 0;
    view->motion = cell_diff(st, st->cur, st->prev, st->p.motion_level, &n_move, &n_move_edge);
    view->moving_cells = n_move;
    if (st->have_ref)
        cell_diff(st, st->cur, st->ref, st->p.change_level, &n_chg, &n_chg_edge);
    view->changed_cells = n_chg;
    memcpy(st->prev, st->cur, n);
    if (n_move > 0) {
        st->still_since = -1;
        view->state = VIS_VIEW_MOVING;
        return VIS_OK;
    }
    if (st->still_since < 0)
        st->still_since = ts_us;
    view->still_us = ts_us - st->still_since;
    /* still, but something stays that was not in the last stable picture and reaches in from outside
     * (an arm), or covers much: a hand resting over the board. Still for hand_still_ms, it is the
     * stable picture that is stale (a hand since gone, pieces moved unseen): the view is taken as it is. */
    if (st->have_ref && (n_chg_edge >= st->p.hand_cells || n_chg >= 3 * st->p.hand_cells)) {
        if (st->p.hand_still_ms == 0 || view->still_us < (int64_t)st->p.hand_still_ms * 1000) {
            view->state = VIS_VIEW_HAND;
            return VIS_OK;
        }
        view->state = VIS_VIEW_STABLE;
        memcpy(st->ref, st->cur, n);
        return VIS_OK;
    }
    int need_ms =
        st->have_ref || st->p.first_stable_ms < st->p.stable_ms ? st->p.stable_ms : st->p.first_stable_ms;
    if (view->still_us >= (int64_t)need_ms * 1000) {
        view->state = VIS_VIEW_STABLE;
        /* the stable picture only from a view still for ref_still_ms (a first one: need_ms) */
        if (!st->have_ref || view->still_us >= (int64_t)st->p.ref_still_ms * 1000) {
            memcpy(st->ref, st->cur, n);
            st->have_ref = 1;
        }
    } else {
        view->state = VIS_VIEW_SETTLING;
    }
    return VIS_OK;
}
