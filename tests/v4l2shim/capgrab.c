/* capgrab.c - build/cap-grab: opens a capture URI with kifucam's capture module and prints one line
 * per read (frame, again, nodev, eof, error) and the counters at the end. The test program of the V4L2
 * code: run under the LD_PRELOAD shim by tests/capture/test_v4l2.c, and inside qemu against vivid by
 * scripts/test-v4l2.sh. Exit 0 when it ran, 1 when the source could not be opened (one line). */
#include "capture/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void) {
    fprintf(stderr, "usage: cap-grab [--frames N] [--reads N] [--timeout-ms T] [--scale S] "
                    "[--skip-first N] [--reopen-ms MIN] [--save FILE.jpg] [--list] URI\n");
}

/* Mean of the B, G, R values of the centre 4x4 pixels of the right half (the shim's frames are grey
 * there). */
static void centre(const cap_image_t *im, int *b, int *g, int *r) {
    long sb = 0, sg = 0, sr = 0, n = 0;
    int x0 = im->width * 3 / 4 - 2, y0 = im->height / 2 - 2, x, y;
    for (y = y0; y < y0 + 4; y++)
        for (x = x0; x < x0 + 4; x++) {
            const unsigned char *p;
            if (x < 0 || y < 0 || x >= im->width || y >= im->height)
                continue;
            p = im->data + (size_t)y * (size_t)im->stride + (size_t)x * 3;
            sb += p[0];
            sg += p[1];
            sr += p[2];
            n++;
        }
    *b = n ? (int)(sb / n) : 0;
    *g = n ? (int)(sg / n) : 0;
    *r = n ? (int)(sr / n) : 0;
}

int main(int argc, char **argv) {
    cap_params_t p;
    cap_source_t *src = NULL;
    cap_stats_t st;
    const char *uri = NULL, *save = NULL;
    long frames = 10, reads = 100, got = 0, i;
    int list = 0, rc, status = 0;

    cap_params_default(&p);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            list = 1;
            continue;
        }
        if (a[0] == '-' && a[1] == '-' && !v) {
            usage();
            return 1;
        }
        if (strcmp(a, "--frames") == 0)
            frames = atol(v);
        else if (strcmp(a, "--reads") == 0)
            reads = atol(v);
        else if (strcmp(a, "--timeout-ms") == 0)
            p.timeout_ms = atoi(v);
        else if (strcmp(a, "--scale") == 0)
            p.scale_denom = atoi(v);
        else if (strcmp(a, "--skip-first") == 0)
            p.skip_first = atoi(v);
        else if (strcmp(a, "--reopen-ms") == 0)
            p.reopen_min_ms = atoi(v);
        else if (strcmp(a, "--save") == 0)
            save = v;
        else if (a[0] == '-') {
            usage();
            return 1;
        } else {
            uri = a;
            continue;
        }
        i++;
    }
    if (!uri) {
        usage();
        return 1;
    }
    if (list) {
        char err[512];
        const char *path = strncmp(uri, "v4l2:", 5) == 0 ? uri + 5 : uri;
        if (cap_v4l2_list(path, stdout, err, sizeof err) != 0) {
            fprintf(stderr, "cap-grab: %s\n", err);
            return 1;
        }
        return 0;
    }
    rc = cap_source_open(uri, &p, &src);
    if (rc != 0) {
        fprintf(stderr, "cap-grab: %s\n", cap_errmsg(src));
        cap_source_close(src);
        return 1;
    }
    printf("open %s\n", cap_source_describe(src));
    for (i = 0; i < reads && got < frames; i++) {
        cap_frame_t f;
        rc = cap_source_read(src, &f);
        if (rc == 0) {
            int b, g, r;
            centre(&f.image, &b, &g, &r);
            printf("frame seq=%llu ts=%lld w=%d h=%d stride=%d dropped=%u flags=%u blind=%lld "
                   "bgr=%d,%d,%d\n",
                   (unsigned long long)f.seq, (long long)f.ts_us, f.image.width, f.image.height,
                   f.image.stride, f.dropped, f.flags, (long long)f.blind_us, b, g, r);
            if (save && got == 0) {
                cap_codec_t *c = NULL;
                if (cap_codec_create(&c) != 0 || cap_jpeg_write(c, &f.image, 90, save) != 0) {
                    fprintf(stderr, "cap-grab: %s\n", cap_codec_errmsg(c));
                    status = 1;
                }
                cap_codec_destroy(c);
            }
            got++;
        } else if (rc == CAP_AGAIN) {
            printf("again\n");
        } else if (rc == CAP_E_NODEV) {
            printf("nodev %s\n", cap_errmsg(src));
        } else if (rc == CAP_EOF) {
            printf("eof\n");
            break;
        } else {
            printf("error %s %s\n", cap_strerror(rc), cap_errmsg(src));
            status = 1;
            break;
        }
        fflush(stdout);
    }
    cap_source_stats(src, &st);
    printf("stats delivered=%llu dropped=%llu corrupt=%llu warnings=%llu reconnects=%llu blind=%lld\n",
           (unsigned long long)st.delivered, (unsigned long long)st.dropped, (unsigned long long)st.corrupt,
           (unsigned long long)st.warnings, (unsigned long long)st.reconnects, (long long)st.blind_us);
    cap_source_close(src);
    return status;
}
