/* capture_internal.h - the capture module's private parts: the source vtable, the handle, helpers
 * shared by the backends (v4l2.c, image.c, avfile.c, jpeg.c). Not for use outside capture/. */
#ifndef KIFUCAM_CAPTURE_INTERNAL_H
#define KIFUCAM_CAPTURE_INTERNAL_H

#include "capture/capture.h"

#include <stdarg.h>

#define CAPI_ERRLEN 4608
#define CAPI_DESCLEN 768

/* One kind of source. open() sets src->impl (or leaves an error message and returns < 0; close is
 * called anyway); read() fills a frame as cap_source_read documents; close() frees src->impl
 * (which may be NULL after a failed open). */
typedef struct capi_backend {
    const char *name;
    int (*open)(cap_source_t *src, const char *path);
    int (*read)(cap_source_t *src, cap_frame_t *frame);
    void (*close)(cap_source_t *src);
} capi_backend_t;

struct cap_source {
    const capi_backend_t *ops; /* NULL until a backend was chosen */
    void *impl;                /* the backend's state, owned by it */
    cap_params_t params;       /* after URI overrides */
    cap_stats_t stats;         /* counters (backends update corrupt/reconnects/blind_us) */
    char err[CAPI_ERRLEN];     /* last error, "function: reason" */
    char desc[CAPI_DESCLEN];   /* what cap_source_describe returns */
};

extern const capi_backend_t capi_backend_v4l2;
extern const capi_backend_t capi_backend_image;
extern const capi_backend_t capi_backend_folder;
extern const capi_backend_t capi_backend_video;

/* Writes "fn: message" into buf (len bytes). */
void capi_fmt_err(char *buf, size_t len, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The most pixels a picture may have to be decoded (JPEG, PNG, ...): libavcodec's own limit
 * (av_image_check_size: (w + 128) * (h + 128) under INT_MAX / 8), about 268 million (a 16384 x 16384
 * picture; a 108-megapixel phone photo is 12000 x 9000), applied to JPEG too so that a header of a few
 * bytes stating 65000 x 65000 cannot make the decoder take 12 GB. */
#define CAPI_MAX_PIXELS 268435455LL

/* Checks a camera URI's query (the text after '?': "width=640&fps=30") as cap_source_open would, without
 * opening anything. Returns 0, or CAP_E_ARG with "cap_source_open: bad width 'abc'" in err (errlen bytes,
 * may be NULL). */
int capi_check_query(const char *query, char *err, size_t errlen);

/* Sets src's error message to "fn: message" and returns rc (for `return capi_err(...)`). */
int capi_err(cap_source_t *src, int rc, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Loads an image file other than JPEG (PNG, BMP, PPM, TIFF, WebP...) through libavformat/libavcodec
 * into a new malloc'd BGR8 buffer (stride 3*width) that the caller frees. Errors as cap_image_load. */
int capi_av_load_still(const char *path, cap_image_t *img, char *err, size_t errlen);

/* Copies src into a new malloc'd BGR8 image turned by EXIF orientation o (1..8; 1 = plain copy).
 * Returns 0 or CAP_E_NOMEM. */
int capi_orient(const cap_image_t *src, int o, cap_image_t *dst);

/* EXIF orientation (1..8) of a JPEG file's bytes, 1 when absent or unreadable. */
int capi_exif_orientation(const unsigned char *jpeg, size_t len);

/* Reads a whole file into a new malloc'd buffer. Returns 0, CAP_E_NOTFOUND, CAP_E_IO, CAP_E_NOMEM. */
int capi_read_file(const char *path, unsigned char **data, size_t *len, char *err, size_t errlen);

/* 1 if the file name ends with an image extension this module reads, else 0. */
int capi_has_image_ext(const char *name);

/* 1 if the bytes start like a JPEG (FF D8 FF). */
int capi_is_jpeg(const unsigned char *d, size_t len);

/* Microseconds of CLOCK_MONOTONIC. */
int64_t capi_now_us(void);

#endif /* KIFUCAM_CAPTURE_INTERNAL_H */
