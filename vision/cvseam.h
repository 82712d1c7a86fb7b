/* cvseam.h - vision's private C interface to OpenCV 4.6 (the project's only C++ is cvseam.cpp behind it).
 * No cv:: type crosses this header: images are plain {data, width, height, stride} views, matrices are
 * double[9] row-major. Every function catches every C++ exception and returns VIS_CV_E_* with the
 * exception's text in err (errlen bytes, always NUL-terminated when errlen > 0, prefixed with the
 * function's name). Nothing here keeps state except the network handle. Private to vision/. */
#ifndef KIFUCAM_VISION_CVSEAM_H
#define KIFUCAM_VISION_CVSEAM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VIS_CV_OK = 0,
    VIS_CV_E_ARG = -1,       /* NULL pointer, size <= 0, stride too small */
    VIS_CV_E_EXCEPTION = -2, /* OpenCV (or the C++ library) raised; err holds what() */
    VIS_CV_E_IO = -3         /* a file could not be read or written */
};

/* Smooths a grey image in place with a Gaussian of the given sigma (pixels, > 0; cv::GaussianBlur, the
 * kernel sized by OpenCV from sigma, borders reflected). Errors: VIS_CV_E_ARG, VIS_CV_E_EXCEPTION. */
int vis_cv_blur_grey(unsigned char *img, int w, int h, int stride, double sigma, char *err, size_t errlen);

/* Sets the number of threads OpenCV may use (0 or 1: one thread, the caller's). Returns 0 or
 * VIS_CV_E_EXCEPTION. Affects the whole process (OpenCV's own setting). */
int vis_cv_set_threads(int n, char *err, size_t errlen);

/* BGR8 (3 bytes/pixel, stride bytes a row) -> 8-bit grey resized to dw x dh pixels (INTER_AREA when
 * shrinking, linear when growing). dst is the caller's, dstride >= dw bytes a row.
 * Errors: VIS_CV_E_ARG, VIS_CV_E_EXCEPTION. */
int vis_cv_bgr_to_grey(const unsigned char *src, int w, int h, int stride, unsigned char *dst, int dw, int dh,
                       int dstride, char *err, size_t errlen);

/* Morphological black-hat of an 8-bit grey image (closing minus image) with a ksize x ksize square
 * (ksize odd, 3..63): thin dark lines and strokes narrower than ksize light up, flat areas go to 0.
 * src and dst are w x h with their strides (may not overlap). Errors: VIS_CV_E_ARG, VIS_CV_E_EXCEPTION. */
int vis_cv_blackhat(const unsigned char *src, int w, int h, int stride, int ksize, unsigned char *dst,
                    int dstride, char *err, size_t errlen);

/* Standard Hough transform of a binary 8-bit image (nonzero = edge): lines rho = x cos(theta) +
 * y sin(theta), rho in pixels, theta in [0, pi) radians, with at least `threshold` votes, at resolution
 * rho_res pixels and theta_res radians. Writes up to max lines into out as triples (rho, theta, votes),
 * strongest first, and their count into *n. Errors: VIS_CV_E_ARG, VIS_CV_E_EXCEPTION. */
int vis_cv_hough_lines(const unsigned char *bin, int w, int h, int stride, double rho_res, double theta_res,
                       int threshold, double *out, int max, int *n, char *err, size_t errlen);

/* Perspective warp: for each pixel (x, y) of dst (dw x dh, channels 1 or 3, same as src), samples src
 * at H * (x, y, 1) (H row-major, maps dst pixel coordinates to src pixel coordinates), bilinear,
 * outside = 0. src is w x h. Errors: VIS_CV_E_ARG, VIS_CV_E_EXCEPTION. */
int vis_cv_warp(const unsigned char *src, int w, int h, int stride, int channels, const double H[9],
                unsigned char *dst, int dw, int dh, int dstride, char *err, size_t errlen);

/* Resizes a BGR8 picture (w x h) to dw x dh: INTER_AREA when shrinking, INTER_LINEAR when growing.
 * dst is the caller's (dstride >= 3 * dw). Errors: VIS_CV_E_ARG, VIS_CV_E_EXCEPTION. */
int vis_cv_resize_bgr(const unsigned char *src, int w, int h, int stride, unsigned char *dst, int dw, int dh,
                      int dstride, char *err, size_t errlen);

/* ---- drawing on a BGR8 picture (for overlays); colours are B, G, R 0..255 ---- */

/* Draws a line from (x0, y0) to (x1, y1) (pixels, anti-aliased), thickness in pixels >= 1. */
int vis_cv_draw_line(unsigned char *img, int w, int h, int stride, double x0, double y0, double x1, double y1,
                     const unsigned char bgr[3], int thickness, char *err, size_t errlen);

/* Draws ASCII text centred on (cx, cy) in the Hershey simplex font, `scale` times its 22-pixel height,
 * with a dark outline so it reads on any background. */
int vis_cv_draw_text(unsigned char *img, int w, int h, int stride, double cx, double cy, const char *text,
                     double scale, const unsigned char bgr[3], char *err, size_t errlen);

/* Writes a BGR8 picture as PNG (or any format OpenCV knows by the extension of path).
 * Errors: VIS_CV_E_ARG, VIS_CV_E_IO (not written), VIS_CV_E_EXCEPTION. */
int vis_cv_write_image(const char *path, const unsigned char *img, int w, int h, int stride, char *err,
                       size_t errlen);

/* ---- the dnn module ---- */

typedef struct vis_cv_net vis_cv_net_t; /* opaque: one loaded network */

/* Loads an ONNX network (cv::dnn::readNetFromONNX), CPU backend. On success *out is a new handle, freed
 * with vis_cv_net_free. Errors: VIS_CV_E_ARG, VIS_CV_E_IO (no such file), VIS_CV_E_EXCEPTION (not a
 * model OpenCV can run, an empty file). */
int vis_cv_net_load(const char *path, vis_cv_net_t **out, char *err, size_t errlen);

/* Frees a network. NULL is allowed. */
void vis_cv_net_free(vis_cv_net_t *net);

/* The ONNX file's bytes as vis_cv_net_load read them (*len of them): borrowed, valid until the net is
 * freed; NULL with *len 0 for NULL net. */
const unsigned char *vis_cv_net_bytes(const vis_cv_net_t *net, size_t *len);

/* Runs the network once on a batch: in holds n x c x h x w floats (NCHW, row-major), out receives
 * n x nout floats (the first output blob, flattened per sample). *got_nout is set to the number of
 * values per sample the network really gave; if it differs from nout nothing is copied and
 * VIS_CV_E_ARG is returned. OpenCV re-allocates every layer when a Net's input shape changes, which costs
 * more than the run for a large batch: the handle keeps one cv::dnn::Net for batches under 32 and one per
 * larger batch size (up to four, the least recently used re-planned); the first call at a new large size
 * loads and plans a Net (a few ms, about 1 MB of weights plus its buffers), later ones only run it. Not
 * thread-safe: one handle per thread. Errors: VIS_CV_E_ARG, VIS_CV_E_EXCEPTION. */
int vis_cv_net_forward(vis_cv_net_t *net, const float *in, int n, int c, int h, int w, float *out, int nout,
                       int *got_nout, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* KIFUCAM_VISION_CVSEAM_H */
