/* shim.c - an LD_PRELOAD fake V4L2 camera for tests: intercepts open/close/ioctl/mmap/poll on one
 * device path and plays a script of MJPEG or YUYV frames with EAGAIN, EINTR, ENODEV, corrupt, empty,
 * truncated and Huffman-less frames, and sequence gaps. Built as build/libv4l2shim.so; never linked
 * into kifucam. Being an interposer it must keep its state in file-scope variables (one fake device
 * per process), which the project's rule against global state makes an exception for here.
 *
 * Environment:
 *   KIFUCAM_SHIM_DEV     device path to fake (default /dev/kifucam-shim0)
 *   KIFUCAM_SHIM_SCRIPT  comma-separated events, one consumed per DQBUF (or poll, for the poll ones):
 *       ok       a good frame            bad      a corrupt JPEG (garbage after the header)
 *       trunc    a JPEG cut in its data  empty    bytesused = 0
 *       err      V4L2_BUF_FLAG_ERROR     nohuff   a good MJPEG frame with its DHT segments removed
 *       eagain   DQBUF fails with EAGAIN
 *       eintr    poll and the next ioctl fail with EINTR once
 *       timeout  poll returns 0 (no frame within the timeout)
 *       drop:N   the driver sequence skips N frames, then a good frame
 *       gone:N   DQBUF fails with ENODEV, then the next N opens fail with ENOENT; then it is back
 *     After the last event poll returns 0 (timeout) for ever.
 *   KIFUCAM_SHIM_FORMATS  "mjpeg,yuyv" (default), "mjpeg" or "yuyv": what ENUM_FMT offers
 *   KIFUCAM_SHIM_NOTCAM   if set, QUERYCAP says "no video capture" (a device that is not a camera)
 * Frame pixels are grey, level = 20 + 10 * (sequence % 20), so a reader can check it got the frame the
 * sequence number says. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>

/* The next definition of a libc function (POSIX's way to store dlsym's result in a function
 * pointer without an object-to-function pointer cast). */
#define REAL(fn, name) (*(void **)(&(fn)) = dlsym(RTLD_NEXT, (name)))

#define NBUF_MAX 8
#define BUF_LEN (1u << 20)

static int g_fd = -1;    /* the fake device's fd (a /dev/null fd), -1 when closed */
static int g_gone;       /* 1 after gone:N until the device came back */
static int g_open_fails; /* opens still to fail */
static int g_eintr;      /* next ioctl fails with EINTR */
static size_t g_pos;     /* position in the script */
static uint32_t g_fmt = V4L2_PIX_FMT_MJPEG, g_w = 64, g_h = 48;
static uint32_t g_tpf_num = 1, g_tpf_den = 30;
static unsigned g_nbufs;
static void *g_addr[NBUF_MAX]; /* where the reader mapped each buffer */
static int g_queued[NBUF_MAX]; /* 1 when the reader queued it */
static unsigned g_qorder[NBUF_MAX], g_qhead, g_qn;
static int g_streaming;
static uint32_t g_seq;
static int64_t g_last_us; /* timestamp of the last frame, us */

static const char *dev_path(void) {
    const char *p = getenv("KIFUCAM_SHIM_DEV");
    return p && *p ? p : "/dev/kifucam-shim0";
}

/* The event at the current script position into ev (name) and *arg; 0 if the script is over. */
static int peek(char ev[16], int *arg) {
    const char *s = getenv("KIFUCAM_SHIM_SCRIPT");
    size_t i = 0, k = 0;
    if (!s)
        return 0;
    while (*s && i < g_pos) { /* skip g_pos events */
        if (*s == ',')
            i++;
        s++;
    }
    if (!*s)
        return 0;
    while (*s && *s != ',' && *s != ':' && k < 15)
        ev[k++] = *s++;
    ev[k] = 0;
    *arg = *s == ':' ? atoi(s + 1) : 0;
    return 1;
}

static int fmt_offered(uint32_t f) {
    const char *s = getenv("KIFUCAM_SHIM_FORMATS");
    if (!s || !*s)
        s = "mjpeg,yuyv";
    if (f == V4L2_PIX_FMT_MJPEG)
        return strstr(s, "mjpeg") != NULL;
    if (f == V4L2_PIX_FMT_YUYV)
        return strstr(s, "yuyv") != NULL;
    return 0;
}

/* ---- real functions ---- */

static int real_open(const char *path, int flags, mode_t mode) {
    int (*fn)(const char *, int, ...);
    REAL(fn, "open");
    return fn(path, flags, mode);
}

static int fake_open(const char *path, int flags, mode_t mode, int *handled) {
    *handled = 0;
    if (!path || strcmp(path, dev_path()) != 0)
        return -1;
    *handled = 1;
    if (g_open_fails > 0) {
        g_open_fails--;
        errno = ENOENT;
        return -1;
    }
    (void)flags;
    (void)mode;
    g_gone = 0;
    g_fd = real_open("/dev/null", O_RDWR | O_CLOEXEC, 0);
    g_streaming = 0;
    g_nbufs = 0;
    g_seq = 0;
    return g_fd;
}

int open(const char *path, int flags, ...) {
    mode_t mode = 0;
    int h, fd;
    if (flags & (O_CREAT | __O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    fd = fake_open(path, flags, mode, &h);
    return h ? fd : real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & (O_CREAT | __O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return open(path, flags, mode);
}

int __open_2(const char *path, int flags) { return open(path, flags); }

int __open64_2(const char *path, int flags) { return open(path, flags); }

int close(int fd) {
    int (*fn)(int);
    REAL(fn, "close");
    if (fd >= 0 && fd == g_fd) {
        g_fd = -1;
        g_streaming = 0;
    }
    return fn(fd);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    void *(*fn)(void *, size_t, int, int, int, off_t);
    REAL(fn, "mmap");
    if (fd >= 0 && fd == g_fd) {
        unsigned idx = (unsigned)(off / BUF_LEN);
        void *p;
        if (g_gone || idx >= g_nbufs || len > BUF_LEN) {
            errno = g_gone ? ENODEV : EINVAL;
            return MAP_FAILED;
        }
        p = fn(addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
            g_addr[idx] = p;
        return p;
    }
    return fn(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
    return mmap(addr, len, prot, flags, fd, off);
}

int poll(struct pollfd *fds, nfds_t n, int timeout) {
    int (*fn)(struct pollfd *, nfds_t, int);
    REAL(fn, "poll");
    char ev[16];
    int arg;
    if (n == 1 && fds && fds[0].fd >= 0 && fds[0].fd == g_fd) {
        fds[0].revents = 0;
        if (g_gone) {
            fds[0].revents = POLLERR;
            return 1;
        }
        if (!peek(ev, &arg))
            return 0; /* script over: nothing more comes */
        if (strcmp(ev, "eintr") == 0) {
            g_pos++;
            g_eintr = 1;
            errno = EINTR;
            return -1;
        }
        if (strcmp(ev, "timeout") == 0) {
            g_pos++;
            return 0;
        }
        if (strcmp(ev, "gone") == 0) {
            fds[0].revents = POLLERR | POLLIN;
            return 1;
        }
        fds[0].revents = POLLIN;
        return 1;
    }
    return fn(fds, n, timeout);
}

/* ---- frames ---- */

/* Writes frame number seq of the given kind into buffer idx; returns bytesused. */
static size_t make_frame(unsigned idx, uint32_t seq, const char *kind) {
    unsigned char *dst = g_addr[idx];
    int level = 20 + 10 * (int)(seq % 20);
    if (!dst)
        return 0;
    if (g_fmt == V4L2_PIX_FMT_YUYV) {
        size_t n = (size_t)g_w * 2 * g_h, i;
        unsigned char y = (unsigned char)(16 + level * 219 / 255);
        for (i = 0; i < n; i += 2) {
            dst[i] = y;
            dst[i + 1] = 128;
        }
        if (strcmp(kind, "bad") == 0 || strcmp(kind, "trunc") == 0)
            return n / 3; /* a short frame is what a broken YUYV transfer looks like */
        return n;
    } else {
        tjhandle tj = tjInitCompress();
        unsigned char *rgb = malloc((size_t)g_w * g_h * 3), *jpg = NULL;
        unsigned long len = 0;
        size_t out = 0;
        if (!tj || !rgb)
            goto done;
        memset(rgb, level, (size_t)g_w * g_h * 3);
        /* a darker left half gives the JPEG some real content */
        for (uint32_t y = 0; y < g_h; y++)
            memset(rgb + (size_t)y * g_w * 3, level / 2, g_w / 2 * 3);
        if (tjCompress2(tj, rgb, (int)g_w, 0, (int)g_h, TJPF_BGR, &jpg, &len, TJSAMP_422, 90, 0) != 0)
            goto done;
        if (len > BUF_LEN)
            goto done;
        if (strcmp(kind, "nohuff") == 0) { /* drop every DHT segment, as cheap webcams do */
            size_t i = 2, o = 2;
            dst[0] = jpg[0];
            dst[1] = jpg[1];
            while (i + 4 <= len && jpg[i] == 0xFF && jpg[i + 1] != 0xDA) {
                size_t seg = 2 + ((size_t)jpg[i + 2] << 8 | jpg[i + 3]);
                if (jpg[i + 1] != 0xC4) {
                    memcpy(dst + o, jpg + i, seg);
                    o += seg;
                }
                i += seg;
            }
            memcpy(dst + o, jpg + i, len - i);
            out = o + len - i;
        } else {
            memcpy(dst, jpg, len);
            out = len;
            if (strcmp(kind, "bad") == 0) {
                /* keep SOI, scramble everything after it */
                for (size_t i = 2; i < len; i++)
                    dst[i] = (unsigned char)(i * 131u + 7u);
            } else if (strcmp(kind, "trunc") == 0) {
                /* keep the headers and half of the entropy-coded data after SOS */
                size_t sos = 2;
                while (sos + 4 <= len && !(jpg[sos] == 0xFF && jpg[sos + 1] == 0xDA))
                    sos += 2 + ((size_t)jpg[sos + 2] << 8 | jpg[sos + 3]);
                out = sos + (len - sos) / 2;
            }
        }
    done:
        tjFree(jpg);
        free(rgb);
        if (tj)
            tjDestroy(tj);
        return out;
    }
}

static int dqbuf(struct v4l2_buffer *b) {
    char ev[16];
    int arg;
    unsigned idx;
    struct timespec ts;
    size_t used;

    if (!g_streaming || g_qn == 0) {
        errno = EINVAL;
        return -1;
    }
    if (!peek(ev, &arg)) {
        errno = EAGAIN;
        return -1;
    }
    if (strcmp(ev, "eagain") == 0 || strcmp(ev, "eintr") == 0 || strcmp(ev, "timeout") == 0) {
        g_pos++;
        errno = EAGAIN;
        return -1;
    }
    if (strcmp(ev, "gone") == 0) {
        g_pos++;
        g_gone = 1;
        g_open_fails = arg;
        errno = ENODEV;
        return -1;
    }
    g_pos++;
    if (strcmp(ev, "drop") == 0) {
        g_seq += (uint32_t)arg;
        strcpy(ev, "ok");
    }
    idx = g_qorder[g_qhead];
    g_qhead = (g_qhead + 1) % NBUF_MAX;
    g_qn--;
    g_queued[idx] = 0;
    used = strcmp(ev, "empty") == 0 ? 0 : make_frame(idx, g_seq, ev);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    /* a real camera's frames are at least a frame period apart: never give two the same microsecond */
    if ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 <= g_last_us) {
        ts.tv_sec = (time_t)((g_last_us + 1) / 1000000);
        ts.tv_nsec = (long)((g_last_us + 1) % 1000000) * 1000;
    }
    g_last_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    memset(b, 0, sizeof *b);
    b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    b->memory = V4L2_MEMORY_MMAP;
    b->index = idx;
    b->bytesused = (uint32_t)used;
    b->length = BUF_LEN;
    b->sequence = g_seq++;
    b->field = V4L2_FIELD_NONE;
    b->flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_MAPPED;
    if (strcmp(ev, "err") == 0)
        b->flags |= V4L2_BUF_FLAG_ERROR;
    b->timestamp.tv_sec = ts.tv_sec;
    b->timestamp.tv_usec = ts.tv_nsec / 1000;
    return 0;
}

static const struct { uint32_t w, h; } sizes[] = {{64, 48}, {160, 120}};

static int fake_ioctl(unsigned long req, void *arg) {
    if (g_gone) {
        errno = ENODEV;
        return -1;
    }
    if (g_eintr) {
        g_eintr = 0;
        errno = EINTR;
        return -1;
    }
    switch (req) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *c = arg;
        memset(c, 0, sizeof *c);
        strcpy((char *)c->driver, "kifucam-shim");
        strcpy((char *)c->card, "kifucam fake camera");
        strcpy((char *)c->bus_info, "platform:shim");
        c->version = 0x060100;
        c->device_caps = getenv("KIFUCAM_SHIM_NOTCAM") ? V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_STREAMING
                                                       : V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        c->capabilities = c->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *f = arg;
        uint32_t list[2], n = 0;
        if (fmt_offered(V4L2_PIX_FMT_MJPEG))
            list[n++] = V4L2_PIX_FMT_MJPEG;
        if (fmt_offered(V4L2_PIX_FMT_YUYV))
            list[n++] = V4L2_PIX_FMT_YUYV;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || f->index >= n) {
            errno = EINVAL;
            return -1;
        }
        f->pixelformat = list[f->index];
        f->flags = list[f->index] == V4L2_PIX_FMT_MJPEG ? V4L2_FMT_FLAG_COMPRESSED : 0;
        strcpy((char *)f->description, list[f->index] == V4L2_PIX_FMT_MJPEG ? "Motion-JPEG" : "YUYV 4:2:2");
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *fs = arg;
        if (!fmt_offered(fs->pixel_format) || fs->index >= 2) {
            errno = EINVAL;
            return -1;
        }
        fs->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        fs->discrete.width = sizes[fs->index].w;
        fs->discrete.height = sizes[fs->index].h;
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *fi = arg;
        if (fi->index >= 2) {
            errno = EINVAL;
            return -1;
        }
        fi->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        fi->discrete.numerator = 1;
        fi->discrete.denominator = fi->index == 0 ? 30 : 15;
        return 0;
    }
    case VIDIOC_G_FMT:
    case VIDIOC_S_FMT:
    case VIDIOC_TRY_FMT: {
        struct v4l2_format *f = arg;
        if (f->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) {
            errno = EINVAL;
            return -1;
        }
        if (req != VIDIOC_G_FMT) {
            if (g_streaming) {
                errno = EBUSY;
                return -1;
            }
            g_fmt = fmt_offered(f->fmt.pix.pixelformat) ? f->fmt.pix.pixelformat
                    : fmt_offered(V4L2_PIX_FMT_MJPEG)   ? V4L2_PIX_FMT_MJPEG
                                                        : V4L2_PIX_FMT_YUYV;
            /* nearest offered size: the larger one if asked for more than the small one */
            if (f->fmt.pix.width > sizes[0].w || f->fmt.pix.height > sizes[0].h) {
                g_w = sizes[1].w;
                g_h = sizes[1].h;
            } else {
                g_w = sizes[0].w;
                g_h = sizes[0].h;
            }
        }
        memset(&f->fmt.pix, 0, sizeof f->fmt.pix);
        f->fmt.pix.pixelformat = g_fmt;
        f->fmt.pix.width = g_w;
        f->fmt.pix.height = g_h;
        f->fmt.pix.field = V4L2_FIELD_NONE;
        f->fmt.pix.bytesperline = g_fmt == V4L2_PIX_FMT_YUYV ? g_w * 2 : 0;
        f->fmt.pix.sizeimage = g_fmt == V4L2_PIX_FMT_YUYV ? g_w * 2 * g_h : BUF_LEN;
        f->fmt.pix.colorspace = V4L2_COLORSPACE_SRGB;
        return 0;
    }
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: {
        struct v4l2_streamparm *p = arg;
        if (req == VIDIOC_S_PARM && p->parm.capture.timeperframe.numerator &&
            p->parm.capture.timeperframe.denominator) {
            double fps =
                (double)p->parm.capture.timeperframe.denominator / p->parm.capture.timeperframe.numerator;
            g_tpf_num = 1;
            g_tpf_den = fps > 22 ? 30 : 15;
        }
        memset(&p->parm, 0, sizeof p->parm);
        p->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        p->parm.capture.timeperframe.numerator = g_tpf_num;
        p->parm.capture.timeperframe.denominator = g_tpf_den;
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *r = arg;
        if (r->memory != V4L2_MEMORY_MMAP) {
            errno = EINVAL;
            return -1;
        }
        if (r->count > NBUF_MAX)
            r->count = NBUF_MAX;
        g_nbufs = r->count;
        g_qhead = g_qn = 0;
        memset(g_queued, 0, sizeof g_queued);
        memset(g_addr, 0, sizeof g_addr);
        return 0;
    }
    case VIDIOC_QUERYBUF: {
        struct v4l2_buffer *b = arg;
        if (b->index >= g_nbufs) {
            errno = EINVAL;
            return -1;
        }
        b->length = BUF_LEN;
        b->m.offset = b->index * BUF_LEN;
        b->flags = g_queued[b->index] ? V4L2_BUF_FLAG_QUEUED : 0;
        return 0;
    }
    case VIDIOC_QBUF: {
        struct v4l2_buffer *b = arg;
        if (b->index >= g_nbufs || g_queued[b->index]) {
            errno = EINVAL;
            return -1;
        }
        /* as the kernel does, QBUF writes the buffer's new state back into the caller's struct */
        b->sequence = 0;
        b->bytesused = 0;
        b->timestamp.tv_sec = 0;
        b->timestamp.tv_usec = 0;
        b->flags = V4L2_BUF_FLAG_QUEUED | V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
        g_queued[b->index] = 1;
        g_qorder[(g_qhead + g_qn) % NBUF_MAX] = b->index;
        g_qn++;
        return 0;
    }
    case VIDIOC_DQBUF: return dqbuf(arg);
    case VIDIOC_STREAMON: g_streaming = 1; return 0;
    case VIDIOC_STREAMOFF:
        g_streaming = 0;
        g_qhead = g_qn = 0;
        memset(g_queued, 0, sizeof g_queued);
        return 0;
    default: errno = ENOTTY; return -1;
    }
}

int ioctl(int fd, unsigned long req, ...) {
    int (*fn)(int, unsigned long, ...);
    REAL(fn, "ioctl");
    va_list ap;
    void *arg;
    va_start(ap, req);
    arg = va_arg(ap, void *);
    va_end(ap);
    if (fd >= 0 && fd == g_fd)
        return fake_ioctl(req, arg);
    return fn(fd, req, arg);
}
