/* v4l2.c - the camera source: plain V4L2 (open/ioctl/mmap/poll, no libv4l2), MJPEG through
 * TurboJPEG and YUYV converted, driver timestamps, drops from sequence gaps, and a camera that went
 * away (ENODEV/EIO) reopened with backoff. Also the device listing used by `kifucam probe`.
 * The shape follows the kernel's V4L2 capture.c example: open, configure and read back, stream. */
#define _GNU_SOURCE
#include "capture/capture_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_BUFS 32

typedef struct v4l2_src {
    char path[256]; /* device node */
    int fd;         /* -1 while closed */
    int streaming;  /* 1 after STREAMON */
    struct {
        void *start;   /* mmap'd buffer */
        size_t length; /* its size in bytes */
    } bufs[MAX_BUFS];
    unsigned nbufs;            /* buffers mapped */
    uint32_t pixfmt;           /* V4L2_PIX_FMT_MJPEG or V4L2_PIX_FMT_YUYV, as the driver set it */
    int width, height;         /* frame size the driver set, pixels */
    int bytesperline;          /* row stride of YUYV buffers, bytes */
    double fps;                /* frame rate the driver set (0 if it does not say) */
    char driver[32], card[32]; /* from QUERYCAP */
    cap_codec_t *codec;        /* MJPEG decoder */
    unsigned char *bgr;        /* YUYV conversion output */
    size_t bgrcap;             /* bytes at bgr */
    int have_seq;              /* 1 once a frame was seen since the stream started */
    uint32_t last_seq;         /* driver sequence of the last frame seen */
    int skip;                  /* frames still to discard after stream start */
    int gone;                  /* 1 while the camera is away */
    int64_t last_frame_us;     /* timestamp of the last frame delivered (monotonic), 0 = none */
    int64_t gone_since_us;     /* when frames stopped (last frame, or when the loss was seen) */
    int64_t next_try_us;       /* next reopen attempt, monotonic us */
    int backoff_ms;            /* current delay between attempts */
    int resumed;               /* 1: the next frame delivered carries CAP_FRAME_RESUMED */
} v4l2_src_t;

/* ioctl retried while interrupted by a signal. */
static int xioctl(int fd, unsigned long req, void *arg) {
    int r;
    do
        r = ioctl(fd, req, arg);
    while (r == -1 && errno == EINTR);
    return r;
}

static const char *fourcc_str(uint32_t f, char out[5]) {
    int i;
    for (i = 0; i < 4; i++) {
        char ch = (char)((f >> (8 * i)) & 0xff);
        out[i] = ch >= 32 && ch < 127 ? ch : '?';
    }
    out[4] = 0;
    return out;
}

static int is_gone_errno(int e) { return e == ENODEV || e == EIO || e == ENXIO; }

/* Unmaps, stops and closes; the state can be started again. */
static void dev_stop(v4l2_src_t *s) {
    unsigned i;
    if (s->fd >= 0 && s->streaming) {
        enum v4l2_buf_type t = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(s->fd, VIDIOC_STREAMOFF, &t);
    }
    s->streaming = 0;
    for (i = 0; i < s->nbufs; i++)
        if (s->bufs[i].start && s->bufs[i].start != MAP_FAILED)
            munmap(s->bufs[i].start, s->bufs[i].length);
    memset(s->bufs, 0, sizeof s->bufs);
    s->nbufs = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* Opens the device and checks that it is a streaming capture device. */
static int dev_open_check(cap_source_t *src, v4l2_src_t *s, const char *fn) {
    struct v4l2_capability cap;
    uint32_t caps;
    s->fd = open(s->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (s->fd < 0) {
        int e = errno;
        return capi_err(src,
                        e == ENOENT                 ? CAP_E_NOTFOUND
                        : is_gone_errno(e)          ? CAP_E_NODEV
                        : e == ENOTTY               ? CAP_E_FORMAT
                        : e == EACCES || e == EPERM ? CAP_E_ARG
                                                    : CAP_E_IO,
                        fn, "%s: %s", s->path, strerror(e));
    }
    memset(&cap, 0, sizeof cap);
    if (xioctl(s->fd, VIDIOC_QUERYCAP, &cap) != 0) {
        int e = errno;
        if (is_gone_errno(e))
            return capi_err(src, CAP_E_NODEV, fn, "%s: %s", s->path, strerror(e));
        return capi_err(src, CAP_E_FORMAT, fn, "%s: not a V4L2 camera (%s)", s->path, strerror(e));
    }
    caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    snprintf(s->driver, sizeof s->driver, "%.31s", (const char *)cap.driver);
    snprintf(s->card, sizeof s->card, "%.31s", (const char *)cap.card);
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE))
        return capi_err(src, CAP_E_FORMAT, fn, "%s: %s is not a video capture device", s->path, s->card);
    if (!(caps & V4L2_CAP_STREAMING))
        return capi_err(src, CAP_E_UNSUPPORTED, fn, "%s: %s cannot stream (no mmap I/O)", s->path, s->card);
    return 0;
}

/* Picks the pixel format: what was asked for, or MJPEG, else YUYV. */
static int choose_format(cap_source_t *src, v4l2_src_t *s, const char *fn, uint32_t *out) {
    struct v4l2_fmtdesc fd;
    int has_mjpeg = 0, has_yuyv = 0;
    memset(&fd, 0, sizeof fd);
    fd.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    for (fd.index = 0; xioctl(s->fd, VIDIOC_ENUM_FMT, &fd) == 0 && fd.index < 256; fd.index++) {
        if (fd.pixelformat == V4L2_PIX_FMT_MJPEG || fd.pixelformat == V4L2_PIX_FMT_JPEG)
            has_mjpeg = 1;
        if (fd.pixelformat == V4L2_PIX_FMT_YUYV)
            has_yuyv = 1;
    }
    if (is_gone_errno(errno) && fd.index == 0)
        return capi_err(src, CAP_E_NODEV, fn, "%s: %s", s->path, strerror(errno));
    switch (src->params.format) {
    case CAP_FMT_MJPEG:
        if (!has_mjpeg)
            return capi_err(src, CAP_E_UNSUPPORTED, fn, "%s: camera has no MJPEG format", s->path);
        *out = V4L2_PIX_FMT_MJPEG;
        return 0;
    case CAP_FMT_YUYV:
        if (!has_yuyv)
            return capi_err(src, CAP_E_UNSUPPORTED, fn, "%s: camera has no YUYV format", s->path);
        *out = V4L2_PIX_FMT_YUYV;
        return 0;
    default:
        if (!has_mjpeg && !has_yuyv)
            return capi_err(src, CAP_E_UNSUPPORTED, fn, "%s: camera offers neither MJPEG nor YUYV", s->path);
        *out = has_mjpeg ? V4L2_PIX_FMT_MJPEG : V4L2_PIX_FMT_YUYV;
        return 0;
    }
}

/* Sets format, size and rate, reading back what the driver chose. */
static int dev_configure(cap_source_t *src, v4l2_src_t *s, const char *fn) {
    struct v4l2_format f;
    struct v4l2_streamparm parm;
    uint32_t want = 0;
    char a[5], b[5];
    int rc;

    if ((rc = choose_format(src, s, fn, &want)) != 0)
        return rc;
    memset(&f, 0, sizeof f);
    f.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(s->fd, VIDIOC_G_FMT, &f) != 0)
        return capi_err(src, is_gone_errno(errno) ? CAP_E_NODEV : CAP_E_IO, fn, "%s: VIDIOC_G_FMT: %s",
                        s->path, strerror(errno));
    f.fmt.pix.pixelformat = want;
    if (src->params.width > 0)
        f.fmt.pix.width = (uint32_t)src->params.width;
    if (src->params.height > 0)
        f.fmt.pix.height = (uint32_t)src->params.height;
    f.fmt.pix.field = V4L2_FIELD_ANY;
    f.fmt.pix.bytesperline = 0;
    if (xioctl(s->fd, VIDIOC_S_FMT, &f) != 0)
        return capi_err(src, is_gone_errno(errno) ? CAP_E_NODEV : CAP_E_UNSUPPORTED, fn,
                        "%s: VIDIOC_S_FMT %s %ux%u: %s", s->path, fourcc_str(want, a), f.fmt.pix.width,
                        f.fmt.pix.height, strerror(errno));
    /* Read back: the driver may have changed anything. */
    if (xioctl(s->fd, VIDIOC_G_FMT, &f) != 0)
        return capi_err(src, is_gone_errno(errno) ? CAP_E_NODEV : CAP_E_IO, fn, "%s: VIDIOC_G_FMT: %s",
                        s->path, strerror(errno));
    if (f.fmt.pix.pixelformat != want &&
        !(want == V4L2_PIX_FMT_MJPEG && f.fmt.pix.pixelformat == V4L2_PIX_FMT_JPEG))
        return capi_err(src, CAP_E_UNSUPPORTED, fn, "%s: asked for %s, driver set %s", s->path,
                        fourcc_str(want, a), fourcc_str(f.fmt.pix.pixelformat, b));
    if (f.fmt.pix.width < 1 || f.fmt.pix.height < 1 || f.fmt.pix.width > 16384 || f.fmt.pix.height > 16384)
        return capi_err(src, CAP_E_UNSUPPORTED, fn, "%s: driver set size %ux%u", s->path, f.fmt.pix.width,
                        f.fmt.pix.height);
    s->pixfmt = f.fmt.pix.pixelformat;
    s->width = (int)f.fmt.pix.width;
    s->height = (int)f.fmt.pix.height;
    s->bytesperline = (int)f.fmt.pix.bytesperline;
    if (s->pixfmt == V4L2_PIX_FMT_YUYV && s->bytesperline < 2 * s->width)
        s->bytesperline = 2 * s->width;

    memset(&parm, 0, sizeof parm);
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (src->params.fps > 0 && xioctl(s->fd, VIDIOC_G_PARM, &parm) == 0 &&
        (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME)) {
        parm.parm.capture.timeperframe.numerator = 1000;
        parm.parm.capture.timeperframe.denominator = (uint32_t)(src->params.fps * 1000 + 0.5);
        xioctl(s->fd, VIDIOC_S_PARM, &parm); /* a refusal leaves the driver's rate: read below */
    }
    memset(&parm, 0, sizeof parm);
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    s->fps = 0;
    if (xioctl(s->fd, VIDIOC_G_PARM, &parm) == 0 && parm.parm.capture.timeperframe.numerator > 0)
        s->fps =
            (double)parm.parm.capture.timeperframe.denominator / parm.parm.capture.timeperframe.numerator;
    return 0;
}

/* Requests, maps and queues the buffers, then starts streaming. */
static int dev_stream(cap_source_t *src, v4l2_src_t *s, const char *fn) {
    struct v4l2_requestbuffers req;
    enum v4l2_buf_type t = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    unsigned i;

    memset(&req, 0, sizeof req);
    req.count = (uint32_t)src->params.nbuffers;
    req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    req.memory = V4L2_MEMORY_MMAP;
    if (xioctl(s->fd, VIDIOC_REQBUFS, &req) != 0)
        return capi_err(src, is_gone_errno(errno) ? CAP_E_NODEV : CAP_E_UNSUPPORTED, fn,
                        "%s: VIDIOC_REQBUFS: %s", s->path, strerror(errno));
    if (req.count < 2)
        return capi_err(src, CAP_E_UNSUPPORTED, fn, "%s: driver gave %u buffers", s->path, req.count);
    if (req.count > MAX_BUFS)
        req.count = MAX_BUFS;
    for (i = 0; i < req.count; i++) {
        struct v4l2_buffer b;
        memset(&b, 0, sizeof b);
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        b.index = i;
        if (xioctl(s->fd, VIDIOC_QUERYBUF, &b) != 0)
            return capi_err(src, is_gone_errno(errno) ? CAP_E_NODEV : CAP_E_IO, fn, "%s: VIDIOC_QUERYBUF: %s",
                            s->path, strerror(errno));
        s->bufs[i].length = b.length;
        s->bufs[i].start = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)b.m.offset);
        if (s->bufs[i].start == MAP_FAILED) {
            s->bufs[i].start = NULL;
            return capi_err(src, CAP_E_IO, fn, "%s: mmap: %s", s->path, strerror(errno));
        }
        s->nbufs = i + 1;
        if (xioctl(s->fd, VIDIOC_QBUF, &b) != 0)
            return capi_err(src, is_gone_errno(errno) ? CAP_E_NODEV : CAP_E_IO, fn, "%s: VIDIOC_QBUF: %s",
                            s->path, strerror(errno));
    }
    if (xioctl(s->fd, VIDIOC_STREAMON, &t) != 0)
        return capi_err(src, is_gone_errno(errno) ? CAP_E_NODEV : CAP_E_IO, fn, "%s: VIDIOC_STREAMON: %s",
                        s->path, strerror(errno));
    s->streaming = 1;
    s->have_seq = 0;
    s->skip = src->params.skip_first;
    return 0;
}

static int dev_start(cap_source_t *src, v4l2_src_t *s, const char *fn) {
    int rc;
    char a[5];
    if ((rc = dev_open_check(src, s, fn)) != 0 || (rc = dev_configure(src, s, fn)) != 0 ||
        (rc = dev_stream(src, s, fn)) != 0) {
        dev_stop(s);
        return rc;
    }
    snprintf(src->desc, sizeof src->desc, "v4l2 %s (%s, %s) %s %dx%d @ %.3f fps, %u buffers", s->path,
             s->card, s->driver, fourcc_str(s->pixfmt, a), s->width, s->height, s->fps, s->nbufs);
    return 0;
}

static int v4l2_open(cap_source_t *src, const char *path) {
    v4l2_src_t *s = calloc(1, sizeof *s);
    int rc;
    if (!s)
        return capi_err(src, CAP_E_NOMEM, "cap_source_open", "out of memory");
    s->fd = -1;
    src->impl = s;
    if (strlen(path) >= sizeof s->path)
        return capi_err(src, CAP_E_ARG, "cap_source_open", "device path too long");
    snprintf(s->path, sizeof s->path, "%s", path);
    if ((rc = cap_codec_create(&s->codec)) != 0)
        return capi_err(src, rc, "cap_source_open", "out of memory");
    s->backoff_ms = src->params.reopen_min_ms;
    rc = dev_start(src, s, "cap_source_open");
    /* At open, a missing camera is an error for the user, not something to wait for. */
    if (rc == CAP_E_NODEV)
        rc = CAP_E_NOTFOUND;
    return rc;
}

/* Marks the camera as gone: frees the device, schedules the first reopen. Returns CAP_E_NODEV. */
static int mark_gone(cap_source_t *src, v4l2_src_t *s, int e) {
    int64_t now = capi_now_us();
    dev_stop(s);
    s->gone = 1;
    s->gone_since_us = s->last_frame_us ? s->last_frame_us : now;
    s->backoff_ms = src->params.reopen_min_ms;
    s->next_try_us = now + (int64_t)s->backoff_ms * 1000;
    return capi_err(src, CAP_E_NODEV, "cap_source_read", "%s: camera gone (%s); reopening", s->path,
                    strerror(e));
}

/* Waits up to the deadline for the next reopen attempt, then tries once. 0 when streaming again. */
static int try_reopen(cap_source_t *src, v4l2_src_t *s, int64_t deadline) {
    int64_t now = capi_now_us();
    char why[CAPI_ERRLEN];
    int rc;
    if (now < s->next_try_us) {
        int64_t wait = (s->next_try_us < deadline ? s->next_try_us : deadline) - now;
        if (wait > 0)
            poll(NULL, 0, (int)((wait + 999) / 1000));
        now = capi_now_us();
        if (now < s->next_try_us)
            return capi_err(src, CAP_AGAIN, "cap_source_read",
                            "%s: camera gone for %.1f s; next try in %d ms", s->path,
                            (double)(now - s->gone_since_us) / 1e6, (int)((s->next_try_us - now) / 1000));
    }
    rc = dev_start(src, s, "cap_source_read");
    if (rc == 0) {
        s->gone = 0;
        s->resumed = 1;
        src->stats.reconnects++;
        return 0;
    }
    snprintf(why, sizeof why, "%s", src->err);
    s->backoff_ms =
        s->backoff_ms * 2 > src->params.reopen_max_ms ? src->params.reopen_max_ms : s->backoff_ms * 2;
    s->next_try_us = capi_now_us() + (int64_t)s->backoff_ms * 1000;
    return capi_err(src, CAP_AGAIN, "cap_source_read", "%s: camera gone for %.1f s, retrying (%s)", s->path,
                    (double)(capi_now_us() - s->gone_since_us) / 1e6, why);
}

static int requeue(cap_source_t *src, v4l2_src_t *s, struct v4l2_buffer *b) {
    if (xioctl(s->fd, VIDIOC_QBUF, b) != 0) {
        int e = errno;
        if (is_gone_errno(e))
            return mark_gone(src, s, e);
        return capi_err(src, CAP_E_IO, "cap_source_read", "%s: VIDIOC_QBUF: %s", s->path, strerror(e));
    }
    return 0;
}

static void yuyv_to_bgr_px(int y, int u, int v, unsigned char *q);

/* YUYV to BGR keeping every n-th pixel of every n-th row: out is w x h, stride 3*w. */
static void yuyv_subsample(const unsigned char *src, int src_stride, int width, int n, int w, int h,
                           unsigned char *out) {
    int x, y;
    for (y = 0; y < h; y++) {
        const unsigned char *row = src + (size_t)y * (size_t)n * (size_t)src_stride;
        unsigned char *q = out + (size_t)y * (size_t)w * 3;
        for (x = 0; x < w; x++, q += 3) {
            int sx = x * n < width ? x * n : width - 1;
            const unsigned char *pair = row + (size_t)(sx & ~1) * 2;
            yuyv_to_bgr_px(row[(size_t)sx * 2], pair[1], pair[3], q);
        }
    }
}

/* Turns the dequeued buffer into BGR pixels in *img. 0, or CAP_E_DECODE for a bad frame. */
static int convert(cap_source_t *src, v4l2_src_t *s, const struct v4l2_buffer *b, cap_image_t *img,
                   uint32_t *flags) {
    const unsigned char *data = s->bufs[b->index].start;
    size_t used = b->bytesused;
    if (used > s->bufs[b->index].length)
        used = s->bufs[b->index].length;
    if (s->pixfmt == V4L2_PIX_FMT_YUYV) {
        size_t need = (size_t)s->bytesperline * (size_t)(s->height - 1) + (size_t)s->width * 2;
        size_t out = (size_t)s->width * 3 * (size_t)s->height;
        if (used < need)
            return capi_err(src, CAP_E_DECODE, "cap_source_read", "%s: short YUYV frame (%zu of %zu bytes)",
                            s->path, used, need);
        if (out > s->bgrcap) {
            unsigned char *p = realloc(s->bgr, out);
            if (!p)
                return capi_err(src, CAP_E_NOMEM, "cap_source_read", "out of memory");
            s->bgr = p;
            s->bgrcap = out;
        }
        if (src->params.scale_denom > 1) {
            /* the cheap path: every n-th pixel of every n-th row, as scaled JPEG decoding gives */
            int n = src->params.scale_denom, w = (s->width + n - 1) / n, h = (s->height + n - 1) / n;
            yuyv_subsample(data, s->bytesperline, s->width, n, w, h, s->bgr);
            img->width = w;
            img->height = h;
        } else {
            cap_yuyv_to_bgr(data, s->bytesperline, s->width, s->height, s->bgr, s->width * 3);
            img->width = s->width;
            img->height = s->height;
        }
        img->stride = img->width * 3;
        img->data = s->bgr;
        return 0;
    } else {
        int warn = 0, rc = cap_jpeg_decode(s->codec, data, used, src->params.scale_denom, img, &warn);
        if (rc == CAP_E_NOMEM)
            return capi_err(src, rc, "cap_source_read", "out of memory");
        if (rc != 0)
            return capi_err(src, CAP_E_DECODE, "cap_source_read", "%s: %s", s->path,
                            cap_codec_errmsg(s->codec));
        if (warn)
            *flags |= CAP_FRAME_WARNING;
        return 0;
    }
}

static int v4l2_read(cap_source_t *src, cap_frame_t *frame) {
    v4l2_src_t *s = src->impl;
    int64_t deadline = capi_now_us() + (int64_t)src->params.timeout_ms * 1000;
    int rc;

    for (;;) {
        struct v4l2_buffer b;
        struct pollfd pfd;
        int64_t now = capi_now_us(), ts;
        uint32_t dropped = 0, flags = 0;
        int r;

        if (s->gone) {
            if ((rc = try_reopen(src, s, deadline)) != 0)
                return rc;
            continue;
        }
        pfd.fd = s->fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        r = poll(&pfd, 1, now >= deadline ? 0 : (int)((deadline - now + 999) / 1000));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return capi_err(src, CAP_E_IO, "cap_source_read", "%s: poll: %s", s->path, strerror(errno));
        }
        if (r == 0)
            return capi_err(src, CAP_AGAIN, "cap_source_read", "%s: no frame within %d ms", s->path,
                            src->params.timeout_ms);
        /* POLLERR/POLLHUP as well as POLLIN: DQBUF tells what happened. */
        memset(&b, 0, sizeof b);
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        b.memory = V4L2_MEMORY_MMAP;
        if (xioctl(s->fd, VIDIOC_DQBUF, &b) != 0) {
            int e = errno;
            if (e == EAGAIN) { /* poll said ready but no buffer: wait again until the deadline */
                if (capi_now_us() >= deadline)
                    return capi_err(src, CAP_AGAIN, "cap_source_read", "%s: no frame within %d ms", s->path,
                                    src->params.timeout_ms);
                continue;
            }
            if (is_gone_errno(e) || (pfd.revents & (POLLERR | POLLHUP)))
                return mark_gone(src, s, e);
            return capi_err(src, CAP_E_IO, "cap_source_read", "%s: VIDIOC_DQBUF: %s", s->path, strerror(e));
        }
        if (b.index >= s->nbufs)
            return capi_err(src, CAP_E_IO, "cap_source_read", "%s: driver returned buffer %u of %u", s->path,
                            b.index, s->nbufs);
        if (s->have_seq && b.sequence != s->last_seq + 1)
            dropped = b.sequence - s->last_seq - 1; /* unsigned: wraps correctly */
        if (s->have_seq && b.sequence <= s->last_seq)
            dropped = 0; /* the driver restarted its count */
        s->have_seq = 1;
        s->last_seq = b.sequence;
        if ((b.flags & V4L2_BUF_FLAG_ERROR) || b.bytesused == 0 || s->skip > 0) {
            if (s->skip > 0)
                s->skip--;
            else
                src->stats.corrupt++;
            if ((rc = requeue(src, s, &b)) != 0)
                return rc;
            continue;
        }
        rc = convert(src, s, &b, &frame->image, &flags);
        if (rc == CAP_E_NOMEM)
            return rc;
        if (rc != 0) {
            src->stats.corrupt++;
            if ((rc = requeue(src, s, &b)) != 0)
                return rc;
            continue;
        }
        if ((b.flags & V4L2_BUF_FLAG_TIMESTAMP_MASK) == V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC &&
            (b.timestamp.tv_sec || b.timestamp.tv_usec))
            ts = (int64_t)b.timestamp.tv_sec * 1000000 + b.timestamp.tv_usec;
        else
            ts = capi_now_us();
        frame->seq = b.sequence;
        /* Pixels are in our own buffer now: the driver can have its buffer back at once. QBUF
         * rewrites b (sequence, timestamp), so everything needed from it was taken above. */
        if ((rc = requeue(src, s, &b)) != 0)
            return rc;
        frame->ts_us = ts;
        frame->dropped = dropped;
        frame->flags = flags;
        if (s->resumed) {
            frame->flags |= CAP_FRAME_RESUMED;
            frame->blind_us = ts > s->gone_since_us ? ts - s->gone_since_us : 0;
            src->stats.blind_us += frame->blind_us;
            frame->dropped = 0;
            s->resumed = 0;
        }
        s->last_frame_us = ts;
        return 0;
    }
}

static void v4l2_close(cap_source_t *src) {
    v4l2_src_t *s = src->impl;
    if (!s)
        return;
    dev_stop(s);
    cap_codec_destroy(s->codec);
    free(s->bgr);
    free(s);
    src->impl = NULL;
}

const capi_backend_t capi_backend_v4l2 = {"v4l2", v4l2_open, v4l2_read, v4l2_close};

/* BT.601 limited range, 16.16 fixed point: R = 1.164(Y-16) + 1.596(V-128), etc. */
static unsigned char clamp8(int v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

static void yuyv_to_bgr_px(int y, int u, int v, unsigned char *q) {
    int yy = 76309 * (y - 16);
    u -= 128;
    v -= 128;
    q[0] = clamp8((yy + 132201 * u + 32768) >> 16);
    q[1] = clamp8((yy - 25675 * u - 53279 * v + 32768) >> 16);
    q[2] = clamp8((yy + 104597 * v + 32768) >> 16);
}

void cap_yuyv_to_bgr(const unsigned char *src, int src_stride, int width, int height, unsigned char *dst,
                     int dst_stride) {
    int x, y;
    for (y = 0; y < height; y++) {
        const unsigned char *p = src + (size_t)y * (size_t)src_stride;
        unsigned char *q = dst + (size_t)y * (size_t)dst_stride;
        for (x = 0; x < width; x += 2) {
            int u = p[1] - 128, v = p[3] - 128;
            int rv = 104597 * v, guv = -25675 * u - 53279 * v, bu = 132201 * u;
            int y0 = 76309 * (p[0] - 16), y1 = 76309 * (p[2] - 16);
            q[0] = clamp8((y0 + bu + 32768) >> 16);
            q[1] = clamp8((y0 + guv + 32768) >> 16);
            q[2] = clamp8((y0 + rv + 32768) >> 16);
            if (x + 1 < width) {
                q[3] = clamp8((y1 + bu + 32768) >> 16);
                q[4] = clamp8((y1 + guv + 32768) >> 16);
                q[5] = clamp8((y1 + rv + 32768) >> 16);
            }
            p += 4;
            q += 6;
        }
    }
}

/* ---- listing ---- */

static void list_intervals(int fd, FILE *f, uint32_t pixfmt, uint32_t w, uint32_t h) {
    struct v4l2_frmivalenum fi;
    memset(&fi, 0, sizeof fi);
    fi.pixel_format = pixfmt;
    fi.width = w;
    fi.height = h;
    fprintf(f, "      %ux%u:", w, h);
    for (fi.index = 0; xioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &fi) == 0 && fi.index < 64; fi.index++) {
        if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
            if (fi.discrete.numerator)
                fprintf(f, " %.3f", (double)fi.discrete.denominator / fi.discrete.numerator);
        } else {
            if (fi.stepwise.min.numerator && fi.stepwise.max.numerator)
                fprintf(f, " %.3f-%.3f", (double)fi.stepwise.max.denominator / fi.stepwise.max.numerator,
                        (double)fi.stepwise.min.denominator / fi.stepwise.min.numerator);
            break;
        }
    }
    fprintf(f, " fps\n");
}

int cap_v4l2_list(const char *path, void *fp, char *err, size_t errlen) {
    FILE *f = fp;
    struct v4l2_capability cap;
    struct v4l2_fmtdesc fd;
    uint32_t caps;
    int fdv, rc = 0;
    char a[5];

    fdv = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fdv < 0) {
        int e = errno;
        /* A device node with no driver behind it (ENXIO, ENODEV) is not a camera; a refused open is the
         * user's to fix (permissions): both are user errors, not internal failures. */
        int notcam = e == ENXIO || e == ENODEV || e == ENOTTY;
        capi_fmt_err(err, errlen, "cap_v4l2_list", "%s: %s%s", path, notcam ? "not a camera: " : "",
                     strerror(e));
        return e == ENOENT                   ? CAP_E_NOTFOUND
               : notcam                      ? CAP_E_FORMAT
               : (e == EACCES || e == EPERM) ? CAP_E_ARG
                                             : CAP_E_IO;
    }
    memset(&cap, 0, sizeof cap);
    if (xioctl(fdv, VIDIOC_QUERYCAP, &cap) != 0) {
        capi_fmt_err(err, errlen, "cap_v4l2_list", "%s: not a V4L2 camera (%s)", path, strerror(errno));
        rc = CAP_E_FORMAT;
        goto out;
    }
    caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps : cap.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE)) {
        capi_fmt_err(err, errlen, "cap_v4l2_list", "%s: %.32s is not a video capture device", path,
                     (const char *)cap.card);
        rc = CAP_E_FORMAT;
        goto out;
    }
    fprintf(f, "%s: %.32s (driver %.16s, bus %.32s)%s\n", path, (const char *)cap.card,
            (const char *)cap.driver, (const char *)cap.bus_info,
            (caps & V4L2_CAP_STREAMING) ? "" : " [no streaming: unusable]");
    memset(&fd, 0, sizeof fd);
    fd.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    for (fd.index = 0; xioctl(fdv, VIDIOC_ENUM_FMT, &fd) == 0 && fd.index < 256; fd.index++) {
        struct v4l2_frmsizeenum fs;
        int usable = fd.pixelformat == V4L2_PIX_FMT_MJPEG || fd.pixelformat == V4L2_PIX_FMT_JPEG ||
                     fd.pixelformat == V4L2_PIX_FMT_YUYV;
        fprintf(f, "  %s (%.32s)%s\n", fourcc_str(fd.pixelformat, a), (const char *)fd.description,
                usable ? "" : " [not used by kifucam]");
        memset(&fs, 0, sizeof fs);
        fs.pixel_format = fd.pixelformat;
        for (fs.index = 0; xioctl(fdv, VIDIOC_ENUM_FRAMESIZES, &fs) == 0 && fs.index < 256; fs.index++) {
            if (fs.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
                list_intervals(fdv, f, fd.pixelformat, fs.discrete.width, fs.discrete.height);
            } else {
                fprintf(f, "      %ux%u to %ux%u, steps %ux%u\n", fs.stepwise.min_width,
                        fs.stepwise.min_height, fs.stepwise.max_width, fs.stepwise.max_height,
                        fs.stepwise.step_width, fs.stepwise.step_height);
                break;
            }
        }
    }
out:
    close(fdv);
    return rc;
}
