/* bench_capture.c - build/bench-capture: frames per second of kifucam's per-frame capture path on one
 * core: a 1080p webcam-like MJPEG frame (4:2:2, quality 85) decoded to BGR at full and half scale with
 * cap_jpeg_decode, and a 1080p YUYV frame converted to BGR. Writes the JPEG it used to OUT.jpg so that
 * bench/bench_capture.sh can time OpenCV's imdecode on the very same bytes.
 * usage: bench-capture OUT.jpg [SECONDS] [PHOTO.jpg]   (PHOTO: real content for the frame, optional) */
#define _GNU_SOURCE
#include "capture/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A 1920x1080 frame: the photo scaled by nearest neighbour if given, else a gradient with noise. */
static int make_frame(const char *photo, cap_image_t *out) {
    cap_image_t src = {0, 0, 0, NULL};
    char err[256];
    unsigned seed = 12345;
    int x, y;
    out->width = 1920;
    out->height = 1080;
    out->stride = 1920 * 3;
    out->data = malloc((size_t)out->stride * 1080);
    if (!out->data)
        return -1;
    if (photo && cap_image_load(photo, &src, err, sizeof err) != 0) {
        fprintf(stderr, "bench-capture: %s (using a synthetic frame)\n", err);
        src.data = NULL;
    }
    for (y = 0; y < 1080; y++)
        for (x = 0; x < 1920; x++) {
            unsigned char *p = out->data + (size_t)y * (size_t)out->stride + (size_t)x * 3;
            if (src.data) {
                /* the middle of the photo at about its own scale, as a camera sees a board */
                int sx = src.width / 2 - 960 * src.width / 2992 + x * src.width / 2992;
                int sy = src.height / 2 - 540 * src.height / 2992 + y * src.height / 2992;
                const unsigned char *q;
                sx = sx < 0 ? 0 : sx >= src.width ? src.width - 1 : sx;
                sy = sy < 0 ? 0 : sy >= src.height ? src.height - 1 : sy;
                q = src.data + (size_t)sy * (size_t)src.stride + (size_t)sx * 3;
                memcpy(p, q, 3);
            } else {
                seed = seed * 1103515245u + 12345u;
                p[0] = (unsigned char)(x / 8 + (seed >> 28));
                p[1] = (unsigned char)(y / 5 + (seed >> 27 & 7));
                p[2] = (unsigned char)((x + y) / 12);
            }
        }
    cap_image_free(&src);
    return 0;
}

/* Runs decode at 1/scale for about `secs` seconds; returns frames per second. */
static double bench_decode(cap_codec_t *c, const unsigned char *jpg, size_t len, int scale, double secs,
                           int *w, int *h) {
    double t0 = now_s(), t;
    long n = 0;
    cap_image_t im;
    do {
        if (cap_jpeg_decode(c, jpg, len, scale, &im, NULL) != 0) {
            fprintf(stderr, "bench-capture: %s\n", cap_codec_errmsg(c));
            exit(2);
        }
        n++;
        t = now_s() - t0;
    } while (t < secs);
    *w = im.width;
    *h = im.height;
    return (double)n / t;
}

int main(int argc, char **argv) {
    cap_codec_t *c = NULL;
    cap_image_t frame;
    const unsigned char *jpg;
    unsigned char *copy, *yuyv, *bgr;
    size_t len;
    double secs = argc > 2 ? atof(argv[2]) : 2.0, fps, t0, t;
    int w, h;
    long n;
    FILE *f;

    if (argc < 2) {
        fprintf(stderr, "usage: bench-capture OUT.jpg [SECONDS] [PHOTO.jpg]\n");
        return 2;
    }
    if (make_frame(argc > 3 ? argv[3] : NULL, &frame) != 0 || cap_codec_create(&c) != 0)
        return 2;
    /* webcams send 4:2:2; cap_jpeg_encode makes 4:2:0, so encode 4:2:2 through TurboJPEG here */
    {
        tjhandle tj = tjInitCompress();
        unsigned char *buf = NULL;
        unsigned long l = 0;
        if (!tj ||
            tjCompress2(tj, frame.data, 1920, frame.stride, 1080, TJPF_BGR, &buf, &l, TJSAMP_422, 85, 0) != 0)
            return 2;
        copy = malloc(l);
        memcpy(copy, buf, l);
        len = l;
        tjFree(buf);
        tjDestroy(tj);
    }
    jpg = copy;
    f = fopen(argv[1], "wb");
    if (!f || fwrite(jpg, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "bench-capture: cannot write %s\n", argv[1]);
        return 2;
    }
    printf("frame: 1920x1080 MJPEG 4:2:2 q85, %zu bytes (%s)\n", len, argc > 3 ? argv[3] : "synthetic");
    fps = bench_decode(c, jpg, len, 1, secs, &w, &h);
    printf("kifucam mjpeg full %dx%d: %.1f fps\n", w, h, fps);
    fps = bench_decode(c, jpg, len, 2, secs, &w, &h);
    printf("kifucam mjpeg half %dx%d: %.1f fps\n", w, h, fps);
    fps = bench_decode(c, jpg, len, 4, secs, &w, &h);
    printf("kifucam mjpeg quarter %dx%d: %.1f fps\n", w, h, fps);

    yuyv = malloc((size_t)1920 * 2 * 1080);
    bgr = malloc((size_t)1920 * 3 * 1080);
    if (!yuyv || !bgr)
        return 2;
    for (n = 0; n < 1920L * 2 * 1080; n++)
        yuyv[n] = (unsigned char)(n * 7 + (n >> 11));
    t0 = now_s();
    n = 0;
    do {
        cap_yuyv_to_bgr(yuyv, 1920 * 2, 1920, 1080, bgr, 1920 * 3);
        n++;
        t = now_s() - t0;
    } while (t < secs);
    printf("kifucam yuyv full 1920x1080: %.1f fps\n", (double)n / t);
    free(yuyv);
    free(bgr);
    free(copy);
    free(frame.data);
    cap_codec_destroy(c);
    return 0;
}
