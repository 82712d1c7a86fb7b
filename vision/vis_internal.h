/* vis_internal.h - what the files of vision/ share and nobody else sees: 3x3 homography algebra and the
 * error-message helper. Homographies are double[9], row-major, acting on column vectors (x, y, 1). */
#ifndef KIFUCAM_VISION_INTERNAL_H
#define KIFUCAM_VISION_INTERNAL_H

#include <stddef.h>

/* Writes "fn: message" into err (errlen bytes) when err is not NULL. */
void vis_set_err(char *err, size_t errlen, const char *fn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* c = a * b. c may alias neither. */
void vis_mat3_mul(const double a[9], const double b[9], double c[9]);

/* inv = m^-1. Returns 0, or -1 if m is singular (|det| tiny relative to its entries). */
int vis_mat3_inv(const double m[9], double inv[9]);

/* Applies h to (x, y): *ox, *oy. Returns 0, or -1 when the point maps to infinity (w <= 1e-12). */
int vis_hom_apply(const double h[9], double x, double y, double *ox, double *oy);

/* The homography mapping src[i] to dst[i] (i = 0..n-1, points as x,y pairs), least squares on the
 * normalised DLT (Hartley) with h[8] = 1, n >= 4. Returns 0, or -1 if degenerate. */
int vis_hom_fit(const double *src, const double *dst, int n, double h[9]);

/* Runs the square classifier's network once on n crops (blob: n x 3 x 48 x 48 floats, BGR / 255, NCHW, as
 * models/README.md says) and writes n x VIS_CLASS_NB logits into logits (the caller's). For readers
 * other than the 81 squares (komadai.c). Returns 0, VIS_E_ARG or VIS_E_CV (message in c). */
struct vis_classifier;
int vis_classifier_run(struct vis_classifier *c, const float *blob, int n, float *logits);

/* vis_classifier_run, with each crop's embedding (VIS_FEAT_NB values, vision.h's feat) into feat (n x
 * VIS_FEAT_NB, the caller's) too. VIS_E_MODEL when the model gives no embeddings (29 outputs). */
int vis_classifier_run_feat(struct vis_classifier *c, const float *blob, int n, float *logits, float *feat);

/* Keeps "fn: message" as c's last error (vis_classifier_errmsg), for readers that use c (komadai.c). */
void vis_classifier_set_err(struct vis_classifier *c, const char *fn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* How many pieces one stand detection stands for, 1..VIS_STACK_NB: a stack whose top piece hides the
 * others is seen as one piece. vis_stack_prior[m - 1] is the probability of m (a fixed prior, not
 * fitted; komadai.c's count distributions and decode.c's one-set reading). */
#define VIS_STACK_NB 5
extern const double vis_stack_prior[VIS_STACK_NB];

#endif /* KIFUCAM_VISION_INTERNAL_H */
