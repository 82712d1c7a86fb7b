/* source.c - the source handle: URI parsing, choice of backend, the read wrapper that keeps the
 * counters, error and description strings, shared small helpers. */
#define _GNU_SOURCE
#include "capture/capture_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

void cap_params_default(cap_params_t *p) {
    memset(p, 0, sizeof *p);
    p->width = 0;
    p->height = 0;
    p->fps = 0;
    p->format = CAP_FMT_ANY;
    p->scale_denom = 1;
    p->timeout_ms = 1000;
    p->skip_first = 1;
    p->reopen_min_ms = 100;
    p->reopen_max_ms = 5000;
    p->nbuffers = 4;
}

void capi_fmt_err(char *buf, size_t len, const char *fn, const char *fmt, ...) {
    va_list ap;
    int n;
    if (!buf || len == 0)
        return;
    n = snprintf(buf, len, "%s: ", fn);
    if (n < 0 || (size_t)n >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - (size_t)n, fmt, ap);
    va_end(ap);
}

int capi_err(cap_source_t *src, int rc, const char *fn, const char *fmt, ...) {
    va_list ap;
    int n;
    n = snprintf(src->err, sizeof src->err, "%s: ", fn);
    if (n > 0 && (size_t)n < sizeof src->err) {
        va_start(ap, fmt);
        vsnprintf(src->err + n, sizeof src->err - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int64_t capi_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int capi_is_jpeg(const unsigned char *d, size_t len) {
    return len >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF;
}

int capi_has_image_ext(const char *name) {
    static const char *const exts[] = {".jpg", ".jpeg", ".png", ".bmp",  ".ppm",
                                       ".pgm", ".pnm",  ".tif", ".tiff", ".webp"};
    size_t n = strlen(name), i;
    for (i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcasecmp(name + n - e, exts[i]) == 0)
            return 1;
    }
    return 0;
}

int capi_read_file(const char *path, unsigned char **data, size_t *len, char *err, size_t errlen) {
    FILE *f = NULL;
    unsigned char *buf = NULL;
    long sz;
    int rc = 0;

    *data = NULL;
    *len = 0;
    struct stat sb;
    /* a FIFO or a device is refused before it is opened: opening a FIFO with no writer would block */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        capi_fmt_err(err, errlen, "cap_read_file", "%s: not a regular file", path);
        rc = CAP_E_IO;
        goto out;
    }
    f = fopen(path, "rb");
    if (!f) {
        capi_fmt_err(err, errlen, "cap_read_file", "%s: %s", path, strerror(errno));
        rc = errno == ENOENT ? CAP_E_NOTFOUND : CAP_E_IO;
        goto out;
    }
    if (fstat(fileno(f), &sb) == 0 && !S_ISREG(sb.st_mode)) {
        capi_fmt_err(err, errlen, "cap_read_file", "%s: %s", path,
                     S_ISDIR(sb.st_mode) ? "is a directory, not an image file" : "not a regular file");
        rc = CAP_E_IO;
        goto out;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        capi_fmt_err(err, errlen, "cap_read_file", "%s: cannot seek: %s", path, strerror(errno));
        rc = CAP_E_IO;
        goto out;
    }
    buf = malloc(sz > 0 ? (size_t)sz : 1);
    if (!buf) {
        capi_fmt_err(err, errlen, "cap_read_file", "%s: out of memory", path);
        rc = CAP_E_NOMEM;
        goto out;
    }
    if (sz > 0 && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        capi_fmt_err(err, errlen, "cap_read_file", "%s: short read", path);
        rc = CAP_E_IO;
        goto out;
    }
    *data = buf;
    *len = (size_t)sz;
    buf = NULL;
out:
    free(buf);
    if (f)
        fclose(f);
    return rc;
}

/* Parses "?width=..&height=..&fps=..&format=.." into p. Returns 0 or CAP_E_ARG with a message. */
static int parse_query(cap_source_t *src, const char *q, cap_params_t *p) {
    static const char *const keys[] = {"width", "height", "scale", "fps", "format"};
    char key[32], val[64];
    unsigned seen = 0;
    while (*q) {
        size_t kl = strcspn(q, "=&"), vl = 0;
        const char *v = q + kl;
        if (kl == 0 || kl >= sizeof key)
            return capi_err(src, CAP_E_ARG, "cap_source_open", "bad URI query near '%s'", q);
        memcpy(key, q, kl);
        key[kl] = 0;
        if (*v == '=') {
            v++;
            vl = strcspn(v, "&");
        }
        if (vl >= sizeof val)
            return capi_err(src, CAP_E_ARG, "cap_source_open", "URI value too long for '%s'", key);
        memcpy(val, v, vl);
        val[vl] = 0;
        q = v + vl;
        if (*q == '&')
            q++;
        for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (strcmp(key, keys[k]) == 0) {
                if (seen & (1u << k))
                    return capi_err(src, CAP_E_ARG, "cap_source_open", "URI parameter '%s' given twice", key);
                seen |= 1u << k;
            }
        if (strcmp(key, "width") == 0 || strcmp(key, "height") == 0 || strcmp(key, "scale") == 0) {
            char *end;
            long n = strtol(val, &end, 10);
            if (*val == 0 || *end || n < 0 || n > 16384)
                return capi_err(src, CAP_E_ARG, "cap_source_open", "bad %s '%s'", key, val);
            if (key[0] == 'w')
                p->width = (int)n;
            else if (key[0] == 'h')
                p->height = (int)n;
            else
                p->scale_denom = (int)n;
        } else if (strcmp(key, "fps") == 0) {
            char *end;
            double f = strtod(val, &end);
            if (*val == 0 || *end || !(f >= 0 && f <= 1000))
                return capi_err(src, CAP_E_ARG, "cap_source_open", "bad fps '%s'", val);
            p->fps = f;
        } else if (strcmp(key, "format") == 0) {
            if (strcasecmp(val, "mjpeg") == 0 || strcasecmp(val, "mjpg") == 0)
                p->format = CAP_FMT_MJPEG;
            else if (strcasecmp(val, "yuyv") == 0)
                p->format = CAP_FMT_YUYV;
            else if (strcasecmp(val, "any") == 0)
                p->format = CAP_FMT_ANY;
            else
                return capi_err(src, CAP_E_ARG, "cap_source_open", "bad format '%s' (mjpeg, yuyv or any)",
                                val);
        } else {
            return capi_err(src, CAP_E_ARG, "cap_source_open",
                            "unknown URI parameter '%s' (width, height, fps, format, scale)", key);
        }
    }
    return 0;
}

int capi_check_query(const char *query, char *err, size_t errlen) {
    cap_source_t *tmp = calloc(1, sizeof *tmp);
    int rc;
    if (!tmp) {
        capi_fmt_err(err, errlen, "cap_source_open", "out of memory");
        return CAP_E_NOMEM;
    }
    cap_params_default(&tmp->params);
    rc = parse_query(tmp, query, &tmp->params);
    if (rc && err && errlen)
        snprintf(err, errlen, "%s", tmp->err);
    free(tmp);
    return rc;
}

static int check_params(cap_source_t *src, const cap_params_t *p) {
    if (p->scale_denom != 1 && p->scale_denom != 2 && p->scale_denom != 4 && p->scale_denom != 8)
        return capi_err(src, CAP_E_ARG, "cap_source_open", "scale must be 1, 2, 4 or 8, not %d",
                        p->scale_denom);
    if (p->format < 0 || p->format >= CAP_FMT_NB || p->width < 0 || p->height < 0 || p->fps < 0 ||
        p->timeout_ms < 0 || p->skip_first < 0 || p->reopen_min_ms < 1 ||
        p->reopen_max_ms < p->reopen_min_ms || p->nbuffers < 2 || p->nbuffers > 32)
        return capi_err(src, CAP_E_ARG, "cap_source_open", "parameter out of range");
    return 0;
}

int cap_source_open(const char *uri, const cap_params_t *params, cap_source_t **out) {
    cap_source_t *src;
    char *path = NULL;
    const char *p, *q;
    struct stat st;
    int rc;

    *out = NULL;
    src = calloc(1, sizeof *src);
    if (!src)
        return CAP_E_NOMEM;
    *out = src;
    src->stats.corrupt_ts_us = -1;
    if (params)
        src->params = *params;
    else
        cap_params_default(&src->params);
    if (!uri || !*uri) {
        rc = capi_err(src, CAP_E_ARG, "cap_source_open", "empty source URI");
        goto out;
    }
    p = uri;
    if (strncmp(p, "v4l2:", 5) == 0) {
        p += 5;
        src->ops = &capi_backend_v4l2;
    }
    /* A query string is only parsed for cameras: file names may contain '?'. */
    q = strchr(p, '?');
    if (q && (src->ops || strncmp(p, "/dev/", 5) == 0)) {
        path = strndup(p, (size_t)(q - p));
        if (path && (rc = parse_query(src, q + 1, &src->params)) != 0)
            goto out;
    } else {
        path = strdup(p);
    }
    if (!path) {
        rc = capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
        goto out;
    }
    if (!*path) {
        rc = capi_err(src, CAP_E_ARG, "cap_source_open", "no device path in '%.80s' (v4l2:/dev/videoN)", uri);
        goto out;
    }
    if ((rc = check_params(src, &src->params)) != 0)
        goto out;
    if (!src->ops) {
        if (stat(path, &st) != 0) {
            rc = capi_err(src, errno == ENOENT ? CAP_E_NOTFOUND : CAP_E_IO, "cap_source_open", "%s: %s", path,
                          strerror(errno));
            goto out;
        }
        if (S_ISCHR(st.st_mode))
            src->ops = &capi_backend_v4l2;
        else if (S_ISDIR(st.st_mode))
            src->ops = &capi_backend_folder;
        else if (!S_ISREG(st.st_mode)) {
            rc = capi_err(src, CAP_E_FORMAT, "cap_source_open",
                          "%s: not a camera, image, video file or folder", path);
            goto out;
        } else if (capi_has_image_ext(path))
            src->ops = &capi_backend_image;
        else {
            /* No image extension: a JPEG by its bytes, otherwise try it as a video. */
            unsigned char head[3] = {0};
            FILE *f = fopen(path, "rb");
            size_t n = f ? fread(head, 1, sizeof head, f) : 0;
            if (f)
                fclose(f);
            src->ops = capi_is_jpeg(head, n) ? &capi_backend_image : &capi_backend_video;
        }
    }
    rc = src->ops->open(src, path);
out:
    free(path);
    return rc;
}

int cap_source_read(cap_source_t *src, cap_frame_t *frame) {
    int rc;
    if (!src || !frame)
        return CAP_E_ARG;
    memset(frame, 0, sizeof *frame);
    if (!src->ops || !src->impl)
        return capi_err(src, CAP_E_ARG, "cap_source_read", "source is not open");
    src->err[0] = 0; /* cap_errmsg speaks of this call only */
    rc = src->ops->read(src, frame);
    if (rc == 0) {
        src->stats.delivered++;
        src->stats.dropped += frame->dropped;
        if (frame->dropped)
            frame->flags |= CAP_FRAME_DROPPED;
        if (frame->flags & CAP_FRAME_WARNING)
            src->stats.warnings++;
    }
    return rc;
}

void cap_source_close(cap_source_t *src) {
    if (!src)
        return;
    if (src->ops && src->ops->close)
        src->ops->close(src);
    free(src);
}

const char *cap_errmsg(const cap_source_t *src) { return src ? src->err : "out of memory"; }

const char *cap_source_describe(const cap_source_t *src) { return src ? src->desc : ""; }

void cap_source_stats(const cap_source_t *src, cap_stats_t *stats) {
    if (src)
        *stats = src->stats;
    else {
        memset(stats, 0, sizeof *stats);
        stats->corrupt_ts_us = -1;
    }
}

const char *cap_strerror(int rc) {
    switch (rc) {
    case CAP_OK: return "CAP_OK";
    case CAP_AGAIN: return "CAP_AGAIN";
    case CAP_EOF: return "CAP_EOF";
    case CAP_E_ARG: return "CAP_E_ARG";
    case CAP_E_NOMEM: return "CAP_E_NOMEM";
    case CAP_E_NOTFOUND: return "CAP_E_NOTFOUND";
    case CAP_E_FORMAT: return "CAP_E_FORMAT";
    case CAP_E_IO: return "CAP_E_IO";
    case CAP_E_NODEV: return "CAP_E_NODEV";
    case CAP_E_DECODE: return "CAP_E_DECODE";
    case CAP_E_UNSUPPORTED: return "CAP_E_UNSUPPORTED";
    default: return "CAP_E_UNKNOWN";
    }
}
