/* capture_internal.h - the capture module's private parts: the source vtable, the handle, helpers
 * shared by the backends (v4l2.c, image.c, avfile.c, jpeg.c, probe.c, source.c). Not for use outside
 * capture/. Return codes and pixel layout as in capture.h; err buffers get one line, "function: reason",
 * cut to fit and NUL-terminated when their length is > 0. */
#ifndef KIFUCAM_CAPTURE_INTERNAL_H
#define KIFUCAM_CAPTURE_INTERNAL_H

#include "capture/capture.h"

#include <stdarg.h>

#define CAPI_ERRLEN 4608 /* bytes of cap_source_t.err, a path of PATH_MAX and its reason */
#define CAPI_DESCLEN 768 /* bytes of cap_source_t.desc */

/* One kind of source. name: for messages ("v4l2", "image", "folder", "video"). open(src, path): path
 * without the "v4l2:" prefix and the query (src->params already holds them); sets src->impl and
 * src->desc, or sets src->err (capi_err) and returns < 0; close is called anyway. read(): fills a
 * frame as cap_source_read documents, pixels owned by src->impl. close(): frees src->impl, which may
 * be NULL after a failed open. */
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
    cap_stats_t stats;         /* counters (backends update corrupt, corrupt_ts_us, reconnects, blind_us) */
    char err[CAPI_ERRLEN];     /* last error, "function: reason" */
    char desc[CAPI_DESCLEN];   /* what cap_source_describe returns */
};

extern const capi_backend_t capi_backend_v4l2;   /* /dev/videoN, v4l2:... (v4l2.c) */
extern const capi_backend_t capi_backend_image;  /* one image file (image.c) */
extern const capi_backend_t capi_backend_folder; /* a folder of numbered images (image.c) */
extern const capi_backend_t capi_backend_video;  /* a video file through libavformat (avfile.c) */

/* Writes "fn: message" into buf (len bytes, cut to fit); buf NULL or len 0: nothing. */
void capi_fmt_err(char *buf, size_t len, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The most pixels a picture may have to be decoded (JPEG, PNG, ...): libavcodec's own limit
 * (av_image_check_size: (w + 128) * (h + 128) under INT_MAX / 8), about 268 million (16384 x 16384; a
 * 108-megapixel phone photo is 12000 x 9000). Applied to JPEG too, so that a header stating
 * 65000 x 65000 is refused before anything is allocated. */
#define CAPI_MAX_PIXELS 268435455LL
/* The most pixels a byte of JPEG data can describe: one bit per 8x8 block (cap_jpeg_decode). */
#define CAPI_JPEG_PIXELS_PER_BYTE 512LL

/* Checks a camera URI's query (the text after '?': "width=640&fps=30") as cap_source_open would, without
 * opening anything. Returns 0, CAP_E_ARG with "cap_source_open: bad width 'abc'" in err (errlen bytes,
 * may be NULL), or CAP_E_NOMEM. */
int capi_check_query(const char *query, char *err, size_t errlen);

/* Sets src's error message (src not NULL) to "fn: message", cut to CAPI_ERRLEN, and returns rc (for
 * `return capi_err(...)`). */
int capi_err(cap_source_t *src, int rc, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Loads an image file other than JPEG (PNG, BMP, PPM, TIFF, WebP...) through libavformat/libavcodec
 * into a new malloc'd BGR8 buffer (stride 3*width) that the caller frees (cap_image_free). Errors as
 * cap_image_load. */
int capi_av_load_still(const char *path, cap_image_t *img, char *err, size_t errlen);

/* Copies src into a new malloc'd BGR8 image *dst (stride 3 * its width; the caller frees it with
 * cap_image_free) turned by EXIF orientation o (EXIF 2.3 tag 0x0112: 1..8; 1 or out of range: a plain
 * copy; 5..8 swap width and height). Returns 0, or CAP_E_NOMEM with *dst zeroed. */
int capi_orient(const cap_image_t *src, int o, cap_image_t *dst);

/* EXIF orientation (1..8) of a JPEG file's bytes, 1 when absent or unreadable. */
int capi_exif_orientation(const unsigned char *jpeg, size_t len);

/* Reads a whole regular file into a new malloc'd buffer *data of *len bytes, which the caller frees.
 * A FIFO or device is refused without being opened, a folder too (CAP_E_IO). Returns 0, CAP_E_NOTFOUND,
 * CAP_E_IO or CAP_E_NOMEM, with the reason in err (errlen bytes, may be NULL); *data NULL on error. */
int capi_read_file(const char *path, unsigned char **data, size_t *len, char *err, size_t errlen);

/* 1 if the file name ends with an image extension this module reads (.jpg .jpeg .png .bmp .ppm .pgm
 * .pnm .tif .tiff .webp, any case), else 0. */
int capi_has_image_ext(const char *name);

/* 1 if the bytes start like a JPEG (FF D8 FF), else 0. */
int capi_is_jpeg(const unsigned char *d, size_t len);

/* Microseconds of CLOCK_MONOTONIC. */
int64_t capi_now_us(void);

#endif /* KIFUCAM_CAPTURE_INTERNAL_H */
