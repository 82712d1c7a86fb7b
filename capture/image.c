/* image.c - still images: loading (TurboJPEG for JPEG with its EXIF orientation read by libexif,
 * libav for other formats), orientation transforms, and the single-image and image-folder sources. */
#define _GNU_SOURCE
#include "capture/capture_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libexif/exif-data.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int capi_exif_orientation(const unsigned char *jpeg, size_t len) {
    ExifData *ed;
    ExifEntry *e;
    int o = 1;
    if (len > (size_t)0x7fffffff)
        return 1;
    ed = exif_data_new_from_data(jpeg, (unsigned int)len);
    if (!ed)
        return 1;
    e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (e && e->format == EXIF_FORMAT_SHORT && e->components >= 1 && e->size >= 2) {
        o = exif_get_short(e->data, exif_data_get_byte_order(ed));
        if (o < 1 || o > 8)
            o = 1;
    }
    exif_data_unref(ed);
    return o;
}

int capi_orient(const cap_image_t *src, int o, cap_image_t *dst) {
    int W = src->width, H = src->height, swap = o >= 5 && o <= 8;
    int dw = swap ? H : W, dh = swap ? W : H, dx, dy;
    unsigned char *d;

    memset(dst, 0, sizeof *dst);
    d = malloc((size_t)dw * (size_t)dh * 3);
    if (!d)
        return CAP_E_NOMEM;
    for (dy = 0; dy < dh; dy++) {
        unsigned char *row = d + (size_t)dy * (size_t)dw * 3;
        if (o <= 1 || o > 8) {
            memcpy(row, src->data + (size_t)dy * (size_t)src->stride, (size_t)W * 3);
            continue;
        }
        for (dx = 0; dx < dw; dx++) {
            int sx, sy;
            /* Where the displayed pixel (dx, dy) is stored (EXIF 2.3, tag 0x0112). */
            switch (o) {
            case 2:
                sx = W - 1 - dx;
                sy = dy;
                break; /* mirrored left-right */
            case 3:
                sx = W - 1 - dx;
                sy = H - 1 - dy;
                break; /* turned 180 */
            case 4:
                sx = dx;
                sy = H - 1 - dy;
                break; /* mirrored top-bottom */
            case 5:
                sx = dy;
                sy = dx;
                break; /* transposed */
            case 6:
                sx = dy;
                sy = H - 1 - dx;
                break; /* needs 90 clockwise */
            case 7:
                sx = W - 1 - dy;
                sy = H - 1 - dx;
                break; /* transversed */
            default:
                sx = W - 1 - dy;
                sy = dx;
                break; /* 8: needs 90 counter-clockwise */
            }
            memcpy(row + (size_t)dx * 3, src->data + (size_t)sy * (size_t)src->stride + (size_t)sx * 3, 3);
        }
    }
    dst->width = dw;
    dst->height = dh;
    dst->stride = dw * 3;
    dst->data = d;
    return 0;
}

/* Loads path at 1/scale (JPEG only; other formats are full size) into a new buffer. */
static int load_scaled(cap_codec_t **codec, const char *path, int scale, cap_image_t *img, char *err,
                       size_t errlen) {
    unsigned char *data = NULL;
    size_t len = 0;
    cap_image_t dec;
    int rc, warn = 0;

    memset(img, 0, sizeof *img);
    if ((rc = capi_read_file(path, &data, &len, err, errlen)) != 0)
        goto out;
    if (!capi_is_jpeg(data, len)) {
        rc = capi_av_load_still(path, img, err, errlen);
        goto out;
    }
    if (!*codec && (rc = cap_codec_create(codec)) != 0) {
        capi_fmt_err(err, errlen, "cap_image_load", "out of memory");
        goto out;
    }
    if ((rc = cap_jpeg_decode(*codec, data, len, scale, &dec, &warn)) != 0) {
        capi_fmt_err(err, errlen, "cap_image_load", "%s: %s", path, cap_codec_errmsg(*codec));
        goto out;
    }
    if (warn) { /* a file is whole or it is damaged: a truncated photo would be read with made-up grey rows */
        capi_fmt_err(err, errlen, "cap_image_load", "%s: %s (truncated or corrupt file)", path,
                     cap_codec_errmsg(*codec));
        rc = CAP_E_DECODE;
        goto out;
    }
    if ((rc = capi_orient(&dec, capi_exif_orientation(data, len), img)) != 0)
        capi_fmt_err(err, errlen, "cap_image_load", "%s: out of memory", path);
out:
    free(data);
    return rc;
}

int cap_image_load(const char *path, cap_image_t *img, char *err, size_t errlen) {
    cap_codec_t *codec = NULL;
    int rc;
    if (!path || !img) {
        capi_fmt_err(err, errlen, "cap_image_load", "bad argument");
        return CAP_E_ARG;
    }
    rc = load_scaled(&codec, path, 1, img, err, errlen);
    cap_codec_destroy(codec);
    return rc;
}

void cap_image_free(cap_image_t *img) {
    if (!img)
        return;
    free(img->data);
    memset(img, 0, sizeof *img);
}

/* ---- single image source ---- */

typedef struct image_src {
    cap_image_t img; /* the loaded picture */
    int done;        /* 1 after it was read once */
} image_src_t;

static int image_open(cap_source_t *src, const char *path) {
    image_src_t *s = calloc(1, sizeof *s);
    cap_codec_t *codec = NULL;
    char err[CAPI_ERRLEN];
    int rc;
    if (!s)
        return capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
    src->impl = s;
    rc = load_scaled(&codec, path, src->params.scale_denom, &s->img, err, sizeof err);
    cap_codec_destroy(codec);
    if (rc != 0)
        return capi_err(src, rc, "cap_source_open", "%s", err);
    snprintf(src->desc, sizeof src->desc, "image %s %dx%d", path, s->img.width, s->img.height);
    return 0;
}

static int image_read(cap_source_t *src, cap_frame_t *frame) {
    image_src_t *s = src->impl;
    if (s->done)
        return CAP_EOF;
    s->done = 1;
    frame->image = s->img;
    return 0;
}

static void image_close(cap_source_t *src) {
    image_src_t *s = src->impl;
    if (!s)
        return;
    cap_image_free(&s->img);
    free(s);
    src->impl = NULL;
}

const capi_backend_t capi_backend_image = {"image", image_open, image_read, image_close};

/* ---- image folder source ---- */

typedef struct folder_src {
    char *dir;          /* folder path */
    char **names;       /* image file names in numeric order */
    long long *nums;    /* each name's last number, when use_nums */
    size_t n, next;     /* count, index of the next one to read */
    int use_nums;       /* 1: timestamps and drops from the numbers in the names */
    double fps;         /* frames per second turning numbers/indices into microseconds */
    long long prev;     /* number (or index) of the last frame delivered, -1 before the first */
    cap_codec_t *codec; /* JPEG decoder */
    cap_image_t img;    /* the frame handed out last */
} folder_src_t;

/* "img10.jpg" after "img9.jpg": compares digit runs by value, the rest byte by byte. */
static int natural_cmp(const char *a, const char *b) {
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *a0, *b0;
            size_t la, lb;
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            a0 = a;
            b0 = b;
            while (isdigit((unsigned char)*a))
                a++;
            while (isdigit((unsigned char)*b))
                b++;
            la = (size_t)(a - a0);
            lb = (size_t)(b - b0);
            if (la != lb)
                return la < lb ? -1 : 1;
            if (memcmp(a0, b0, la) != 0)
                return memcmp(a0, b0, la);
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int natural_qsort(const void *x, const void *y) {
    return natural_cmp(*(char *const *)x, *(char *const *)y);
}

/* The last run of digits in name (before the extension), or -1. */
static long long last_number(const char *name) {
    const char *dot = strrchr(name, '.'), *p, *end = dot ? dot : name + strlen(name);
    long long v = 0;
    for (p = end; p > name && !isdigit((unsigned char)p[-1]); p--)
        ;
    if (p == name)
        return -1;
    end = p;
    while (p > name && isdigit((unsigned char)p[-1]))
        p--;
    if (end - p > 15)
        return -1;
    for (; p < end; p++)
        v = v * 10 + (*p - '0');
    return v;
}

static int folder_open(cap_source_t *src, const char *path) {
    folder_src_t *s = calloc(1, sizeof *s);
    DIR *d = NULL;
    struct dirent *de;
    size_t cap = 0, i;
    int rc = 0;

    if (!s)
        return capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
    src->impl = s;
    s->prev = -1;
    s->fps = src->params.fps > 0 ? src->params.fps : 30.0;
    if (!(s->dir = strdup(path)))
        return capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
    if (!(d = opendir(path)))
        return capi_err(src, CAP_E_IO, "cap_source_open", "%s: %s", path, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !capi_has_image_ext(de->d_name))
            continue;
        if (s->n == cap) {
            char **nn;
            cap = cap ? cap * 2 : 64;
            if (!(nn = realloc(s->names, cap * sizeof *nn))) {
                rc = capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
                goto out;
            }
            s->names = nn;
        }
        if (!(s->names[s->n] = strdup(de->d_name))) {
            rc = capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
            goto out;
        }
        s->n++;
    }
    if (s->n == 0) {
        rc = capi_err(src, CAP_E_FORMAT, "cap_source_open",
                      "%s: no images in folder (.jpg .png .bmp .ppm .tif .webp)", path);
        goto out;
    }
    qsort(s->names, s->n, sizeof *s->names, natural_qsort);
    if (!(s->nums = calloc(s->n, sizeof *s->nums))) {
        rc = capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
        goto out;
    }
    s->use_nums = 1;
    for (i = 0; i < s->n; i++) {
        s->nums[i] = last_number(s->names[i]);
        if (s->nums[i] < 0 || (i > 0 && s->nums[i] <= s->nums[i - 1]))
            s->use_nums = 0;
    }
    snprintf(src->desc, sizeof src->desc, "folder %s: %zu images, %.3f fps%s", path, s->n, s->fps,
             s->use_nums ? ", timestamps from file numbers" : "");
out:
    closedir(d);
    return rc;
}

static int folder_read(cap_source_t *src, cap_frame_t *frame) {
    folder_src_t *s = src->impl;
    char err[CAPI_ERRLEN];
    while (s->next < s->n) {
        size_t i = s->next++;
        char *path = NULL;
        long long num;
        int rc;
        cap_image_free(&s->img);
        if (asprintf(&path, "%s/%s", s->dir, s->names[i]) < 0)
            return capi_err(src, CAP_E_NOMEM, "cap_source_read", "out of memory");
        rc = load_scaled(&s->codec, path, src->params.scale_denom, &s->img, err, sizeof err);
        free(path);
        if (rc == CAP_E_NOMEM)
            return capi_err(src, rc, "cap_source_read", "out of memory");
        if (rc != 0) { /* an unreadable file is counted and skipped, like a corrupt camera frame */
            src->stats.corrupt++;
            capi_err(src, 0, "cap_source_read", "skipped %s", err);
            continue;
        }
        num = s->use_nums ? s->nums[i] - s->nums[0] : (long long)i;
        frame->image = s->img;
        frame->seq = (uint64_t)num;
        frame->ts_us = (int64_t)((double)num * 1e6 / s->fps + 0.5);
        frame->dropped = s->prev >= 0 ? (uint32_t)(num - s->prev - 1) : 0;
        s->prev = num;
        return 0;
    }
    return CAP_EOF;
}

static void folder_close(cap_source_t *src) {
    folder_src_t *s = src->impl;
    size_t i;
    if (!s)
        return;
    for (i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->nums);
    free(s->dir);
    cap_codec_destroy(s->codec);
    cap_image_free(&s->img);
    free(s);
    src->impl = NULL;
}

const capi_backend_t capi_backend_folder = {"folder", folder_open, folder_read, folder_close};
