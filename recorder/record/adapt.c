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
