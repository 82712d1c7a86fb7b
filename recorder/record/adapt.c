/* adapt.c - per-game prototypes of the piece set's classes (see adapt.h). */
#include "recorder/record/adapt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rec_adapt {
    rec_adapt_params_t p;
    double sum[REC_OBS_CLASS_NB][REC_FEAT_NB];  /* per class: sum of the unit embeddings learned */
    int count[REC_OBS_CLASS_NB];                /* per class: crops learned */
    double mem[REC_ADAPT_SQUARES][REC_FEAT_NB]; /* rec_adapt_remember: unit embedding per square */
    int mem_cls[REC_ADAPT_SQUARES];             /* ... and its class, -1: none */
    double red_sum[REC_OBS_CLASS_NB];           /* rec_adapt_learn_red: per class, the sum of red ink */
    int red_n[REC_OBS_CLASS_NB];                /* ... and the crops it sums */
};

void rec_adapt_params_default(rec_adapt_params_t *p) {
    if (p == NULL)
        return;
    p->tau = 0.05;
    p->novel_sim = 0.7;
    p->min_examples = 1;
    p->own_sim = 0.85;
}

int rec_adapt_create(const rec_adapt_params_t *params, rec_adapt_t **out) {
    rec_adapt_params_t p;
    if (out == NULL)
        return REC_ERANGE;
    *out = NULL;
    if (params)
        p = *params;
    else
        rec_adapt_params_default(&p);
    if (!(p.tau > 0) || !(p.novel_sim >= -1 && p.novel_sim <= 1) || p.min_examples < 1 ||
        !(p.own_sim >= -1 && p.own_sim <= 1))
        return REC_ERANGE;
    rec_adapt_t *a = calloc(1, sizeof *a);
    if (a == NULL)
        return REC_ENOMEM;
    a->p = p;
    for (int i = 0; i < REC_ADAPT_SQUARES; i++)
        a->mem_cls[i] = -1;
    *out = a;
    return REC_OK;
}

void rec_adapt_destroy(rec_adapt_t *a) { free(a); }

void rec_adapt_reset(rec_adapt_t *a) {
    if (a == NULL)
        return;
    memset(a->sum, 0, sizeof a->sum);
    memset(a->count, 0, sizeof a->count);
    memset(a->red_sum, 0, sizeof a->red_sum);
    memset(a->red_n, 0, sizeof a->red_n);
    for (int i = 0; i < REC_ADAPT_SQUARES; i++)
        a->mem_cls[i] = -1;
}

int rec_adapt_nclasses(const rec_adapt_t *a) {
    int n = 0;
    for (int c = 0; a && c < REC_OBS_CLASS_NB; c++)
        n += a->count[c] >= a->p.min_examples;
    return n;
}

/* 1 if every cls[0..n-1] is a class (0..28) or -1 (none). */
static int classes_ok(const int *cls, int n) {
    for (int i = 0; i < n; i++)
        if (cls[i] < -1 || cls[i] >= REC_OBS_CLASS_NB)
            return 0;
    return 1;
}

/* f / |f| into u; returns 0 for an all-zero (or non-finite) f. */
static int unit(const float *f, double *u) {
    double n2 = 0;
    for (int k = 0; k < REC_FEAT_NB; k++)
        n2 += (double)f[k] * f[k];
    if (!(n2 > 0) || !isfinite(n2))
        return 0;
    double s = 1 / sqrt(n2);
    for (int k = 0; k < REC_FEAT_NB; k++)
        u[k] = f[k] * s;
    return 1;
}

int rec_adapt_learn(rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], const int *cls, int n) {
    double u[REC_FEAT_NB];
    if (a == NULL || feat == NULL || cls == NULL || n < 0 || !classes_ok(cls, n))
        return REC_ERANGE;
    for (int i = 0; i < n; i++) {
        if (cls[i] < 0 || !unit(feat[i], u))
            continue;
        for (int k = 0; k < REC_FEAT_NB; k++)
            a->sum[cls[i]][k] += u[k];
        a->count[cls[i]]++;
    }
    return REC_OK;
}

int rec_adapt_apply(const rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], float (*prob)[REC_OBS_CLASS_NB],
                    int n, const int *own) {
    double u[REC_FEAT_NB], m[REC_FEAT_NB];
    if (a == NULL || feat == NULL || prob == NULL || n < 0 || (own && !classes_ok(own, n)))
        return REC_ERANGE;
    for (int i = 0; i < n; i++) {
        int seen[REC_OBS_CLASS_NB], nseen = 0, mine = own ? own[i] : -1;
        double z[REC_OBS_CLASS_NB], zn = a->p.novel_sim / a->p.tau, zmax = zn;
        /* leave-one-out with no other crop of its own class (a king, one of a kind): the supposed class
         * keeps the benefit of the doubt, a cosine of own_sim, unless the crop is clearly like another
         * class's crops */
        int lone = mine >= 0 && a->count[mine] - 1 < a->p.min_examples;
        double zown = a->p.own_sim / a->p.tau;
        if (lone && zown > zmax)
            zmax = zown;
        if (!unit(feat[i], u))
            continue;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++) {
            int cnt = a->count[c] - (c == mine);
            seen[c] = cnt >= a->p.min_examples;
            if (!seen[c])
                continue;
            double dot = 0, n2 = 0;
            for (int k = 0; k < REC_FEAT_NB; k++) {
                m[k] = a->sum[c][k] - (c == mine ? u[k] : 0);
                dot += u[k] * m[k];
                n2 += m[k] * m[k];
            }
            if (!(n2 > 1e-12)) {
                seen[c] = 0;
                continue;
            }
            z[c] = dot / sqrt(n2) / a->p.tau;
            zmax = z[c] > zmax ? z[c] : zmax;
            nseen++;
        }
        if (nseen == 0)
            continue;
        /* w(c) = exp(z(c) - zmax) / Z; Z cancels in the renormalisation below */
        double wn = exp(zn - zmax), total = 0;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++) {
            double w = seen[c] ? exp(z[c] - zmax) : lone && c == mine ? exp(zown - zmax) : wn;
            z[c] = prob[i][c] * w;
            total += z[c];
        }
        if (!(total > 0))
            continue; /* every class the network allows is ruled out by the prototypes: keep the network's */
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            prob[i][c] = (float)(z[c] / total);
    }
    return REC_OK;
}

int rec_adapt_remember(rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], const int *cls, int n) {
    if (a == NULL || feat == NULL || cls == NULL || n < 0 || n > REC_ADAPT_SQUARES || !classes_ok(cls, n))
        return REC_ERANGE;
    for (int i = 0; i < n; i++)
        a->mem_cls[i] = cls[i] >= 0 && unit(feat[i], a->mem[i]) ? cls[i] : -1;
    return REC_OK;
}

int rec_adapt_recall(const rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], float (*prob)[REC_OBS_CLASS_NB],
                     int n) {
    double u[REC_FEAT_NB];
    if (a == NULL || feat == NULL || prob == NULL || n < 0 || n > REC_ADAPT_SQUARES)
        return REC_ERANGE;
    for (int i = 0; i < n; i++) {
        if (a->mem_cls[i] < 0 || !unit(feat[i], u))
            continue;
        double dot = 0;
        for (int k = 0; k < REC_FEAT_NB; k++)
            dot += u[k] * a->mem[i][k];
        if (dot < REC_ADAPT_SAME)
            continue;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            prob[i][c] =
                (float)((1 - REC_ADAPT_RECALL) * prob[i][c] + (c == a->mem_cls[i] ? REC_ADAPT_RECALL : 0));
    }
    return REC_OK;
}

/* ---- red ink (adapt.h) */

/* 1 for the classes a start shows: empty and the eight unpromoted kinds of either side. */
static int unpromoted(int c) { return c == 0 || (c >= 1 && c <= 8) || (c >= 15 && c <= 22); }

int rec_adapt_learn_red(rec_adapt_t *a, const float *red, const int *cls, int n) {
    if (a == NULL || red == NULL || cls == NULL || n < 0 || !classes_ok(cls, n))
        return REC_ERANGE;
    for (int i = 0; i < n; i++)
        if (cls[i] >= 0 && isfinite(red[i])) {
            a->red_sum[cls[i]] += red[i];
            a->red_n[cls[i]]++;
        }
    return REC_OK;
}

/* The red-ink level of the set's unpromoted pieces: the largest mean over those learned; -1 while the
 * empty squares and fewer than six kinds are learned (no start seen yet). */
static double red_base(const rec_adapt_t *a) {
    double base = 0;
    int kinds = 0;
    if (a->red_n[0] == 0)
        return -1;
    for (int c = 1; c < REC_OBS_CLASS_NB; c++)
        if (unpromoted(c) && a->red_n[c] > 0) {
            double m = a->red_sum[c] / a->red_n[c];
            kinds++;
            if (m > base)
                base = m;
        }
    return kinds >= 6 ? base : -1;
}

int rec_adapt_apply_red(const rec_adapt_t *a, const float *red, float (*prob)[REC_OBS_CLASS_NB], int n) {
    if (a == NULL || red == NULL || prob == NULL || n < 0)
        return REC_ERANGE;
    double base = red_base(a), empty_now = 0;
    int nempty = 0, changed = 0;
    if (base < 0)
        return 0;
    for (int i = 0; i < n; i++) { /* the empty squares as red as when learned: the light is the same */
        int best = 0;
        for (int c = 1; c < REC_OBS_CLASS_NB; c++)
            if (prob[i][c] > prob[i][best])
                best = c;
        if (best == 0 && isfinite(red[i])) {
            empty_now += red[i];
            nempty++;
        }
    }
    if (nempty == 0 || empty_now / nempty > a->red_sum[0] / a->red_n[0] + REC_ADAPT_RED_LIGHT)
        return 0;
    double thr = fmax(REC_ADAPT_RED_MIN, 2 * base + REC_ADAPT_RED_MARGIN);
    for (int i = 0; i < n; i++) {
        if (!(red[i] >= thr))
            continue;
        float *p = prob[i];
        for (int side = 0; side < 2; side++) {
            int o = side * 14;
            for (int k = 1; k <= 6; k++) { /* P L N S B R: to their promoted class */
                float m = p[o + k] * (float)(1 - REC_ADAPT_RED_KEEP);
                p[o + k] -= m;
                p[o + k + 8] += m;
            }
            /* a gold-like face in red: one of the four promoted kinds that move as a gold */
            float m = p[o + 7] * (float)(1 - REC_ADAPT_RED_KEEP), g = 0;
            for (int k = 9; k <= 12; k++)
                g += p[o + k];
            p[o + 7] -= m;
            for (int k = 9; k <= 12; k++)
                p[o + k] += g > 0 ? m * p[o + k] / g : m / 4;
        }
        changed++;
    }
    return changed;
}
