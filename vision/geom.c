/* geom.c - 3x3 homography algebra for vision/: product, inverse, mapping a point, least-squares fit
 * from point pairs; and the error-message helper. Pure C, no allocation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vision/vis_internal.h"
#include "vision/vision.h"

void vis_set_err(char *err, size_t errlen, const char *fn, const char *fmt, ...) {
    char msg[4400];
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, errlen, "%s: %s", fn, msg);
}

void vis_mat3_mul(const double a[9], const double b[9], double c[9]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

int vis_mat3_inv(const double m[9], double inv[9]) {
    double c0 = m[4] * m[8] - m[5] * m[7];
    double c1 = m[5] * m[6] - m[3] * m[8];
    double c2 = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    double scale = 0;

    for (int i = 0; i < 9; i++)
        if (fabs(m[i]) > scale)
            scale = fabs(m[i]);
    if (scale == 0 || fabs(det) < 1e-14 * scale * scale * scale)
        return -1;
    inv[0] = c0 / det;
    inv[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    inv[3] = c1 / det;
    inv[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    inv[6] = c2 / det;
    inv[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 0;
}

int vis_hom_apply(const double h[9], double x, double y, double *ox, double *oy) {
    double w = h[6] * x + h[7] * y + h[8];
    if (w <= 1e-12)
        return -1;
    *ox = (h[0] * x + h[1] * y + h[2]) / w;
    *oy = (h[3] * x + h[4] * y + h[5]) / w;
    return 0;
}

/* Hartley normalisation of n points: T moves their centroid to 0 and their mean distance to sqrt 2. */
static int normaliser(const double *p, int n, double t[9]) {
    double cx = 0, cy = 0, d = 0;
    for (int i = 0; i < n; i++) {
        cx += p[2 * i];
        cy += p[2 * i + 1];
    }
    cx /= n;
    cy /= n;
    for (int i = 0; i < n; i++)
        d += hypot(p[2 * i] - cx, p[2 * i + 1] - cy);
    d /= n;
    if (!(d > 1e-12))
        return -1;
    double s = sqrt(2.0) / d;
    memset(t, 0, 9 * sizeof *t);
    t[0] = s;
    t[2] = -s * cx;
    t[4] = s;
    t[5] = -s * cy;
    t[8] = 1;
    return 0;
}

/* Solves a x = b for 8x8 a (destroyed) by Gaussian elimination with partial pivoting. */
static int solve8(double a[8][8], double b[8], double x[8]) {
    for (int c = 0; c < 8; c++) {
        int piv = c;
        for (int r = c + 1; r < 8; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-12)
            return -1;
        if (piv != c) {
            for (int k = 0; k < 8; k++) {
                double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
            double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (int r = c + 1; r < 8; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 8; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = 7; c >= 0; c--) {
        double s = b[c];
        for (int k = c + 1; k < 8; k++)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return 0;
}

int vis_hom_fit(const double *src, const double *dst, int n, double h[9]) {
    double ts[9], td[9], tdi[9], hn[9], tmp[9];
    double ata[8][8], atb[8], x[8];

    if (n < 4 || normaliser(src, n, ts) != 0 || normaliser(dst, n, td) != 0)
        return -1;
    memset(ata, 0, sizeof ata);
    memset(atb, 0, sizeof atb);
    for (int i = 0; i < n; i++) {
        double sx = ts[0] * src[2 * i] + ts[2], sy = ts[4] * src[2 * i + 1] + ts[5];
        double dx = td[0] * dst[2 * i] + td[2], dy = td[4] * dst[2 * i + 1] + td[5];
        /* u = (h0 sx + h1 sy + h2) / (h6 sx + h7 sy + 1), likewise v: linear in h0..h7 */
        double r1[8] = {sx, sy, 1, 0, 0, 0, -sx * dx, -sy * dx};
        double r2[8] = {0, 0, 0, sx, sy, 1, -sx * dy, -sy * dy};
        for (int a = 0; a < 8; a++) {
            for (int b = 0; b < 8; b++)
                ata[a][b] += r1[a] * r1[b] + r2[a] * r2[b];
            atb[a] += r1[a] * dx + r2[a] * dy;
        }
    }
    if (solve8(ata, atb, x) != 0)
        return -1;
    for (int i = 0; i < 8; i++)
        hn[i] = x[i];
    hn[8] = 1;
    /* h = td^-1 * hn * ts */
    if (vis_mat3_inv(td, tdi) != 0)
        return -1;
    vis_mat3_mul(hn, ts, tmp);
    vis_mat3_mul(tdi, tmp, h);
    double s = h[8];
    if (fabs(s) < 1e-15)
        return -1;
    for (int i = 0; i < 9; i++)
        h[i] /= s;
    return 0;
}

/* vis_pose_from_corners: vision.h. */
int vis_pose_from_corners(const double corners[4][2], int frame_w, int frame_h, vis_pose_t *pose) {
    static const double grid[8] = {0, 0, 9, 0, 9, 9, 0, 9};
    double img[8];
    if (corners == NULL || pose == NULL || frame_w < 1 || frame_h < 1)
        return VIS_E_ARG;
    memset(pose, 0, sizeof *pose);
    for (int i = 0; i < 4; i++) {
        if (!isfinite(corners[i][0]) || !isfinite(corners[i][1]))
            return VIS_E_ARG;
        img[2 * i] = corners[i][0];
        img[2 * i + 1] = corners[i][1];
        pose->corners[i][0] = corners[i][0];
        pose->corners[i][1] = corners[i][1];
    }
    if (vis_hom_fit(grid, img, 4, pose->H) != 0 || vis_mat3_inv(pose->H, pose->Hinv) != 0)
        return VIS_E_ARG;
    /* the four corners must keep their order around the grid (no fold, no point at infinity) */
    for (int i = 0; i < 4; i++) {
        const double *a = corners[i], *b = corners[(i + 1) % 4], *c = corners[(i + 2) % 4];
        if ((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) <= 0)
            return VIS_E_ARG;
    }
    pose->found = 1;
    pose->frame_w = frame_w;
    pose->frame_h = frame_h;
    return VIS_OK;
}
