/* test_image.c - tests of capture/jpeg.c, capture/image.c, capture/avfile.c and the URI dispatch of
 * capture/source.c: JPEG round trip and scaled and Huffman-less decode, EXIF orientations, stills
 * through libav, image folders, a video clip written by ffmpeg, and the one-line errors for bad input. */
#define _GNU_SOURCE
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "tests/tests.h"

/* ---- helpers ---- */

/* A new empty temporary folder in buf; returns 0. */
static int make_tmpdir(char *buf, size_t len) {
    snprintf(buf, len, "/tmp/kifucam-cap-XXXXXX");
    return mkdtemp(buf) ? 0 : -1;
}

/* Removes the files in dir, then dir (one level). */
static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[1024];
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int write_bytes(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* A w x h BGR image with stride w*3 + pad: a colour gradient, so errors show. Caller frees data. */
static cap_image_t gradient(int w, int h, int pad) {
    cap_image_t im;
    int x, y;
    im.width = w;
    im.height = h;
    im.stride = w * 3 + pad;
    im.data = calloc((size_t)im.stride * (size_t)h, 1);
    for (y = 0; y < h && im.data; y++)
        for (x = 0; x < w; x++) {
            unsigned char *p = im.data + (size_t)y * (size_t)im.stride + (size_t)x * 3;
            p[0] = (unsigned char)(x * 255 / (w - 1));
            p[1] = (unsigned char)(y * 255 / (h - 1));
            p[2] = (unsigned char)(128 + (x - y) / 4);
        }
    return im;
}

/* Mean absolute difference per channel value of two images of the same size. */
static double mean_abs_diff(const cap_image_t *a, const cap_image_t *b) {
    double sum = 0;
    int x, y;
    for (y = 0; y < a->height; y++)
        for (x = 0; x < a->width * 3; x++)
            sum += abs((int)a->data[(size_t)y * (size_t)a->stride + (size_t)x] -
                       (int)b->data[(size_t)y * (size_t)b->stride + (size_t)x]);
    return sum / ((double)a->width * a->height * 3);
}

static const unsigned char *px(const cap_image_t *im, int x, int y) {
    return im->data + (size_t)y * (size_t)im->stride + (size_t)x * 3;
}

/* ---- JPEG codec ---- */

static void test_jpeg_roundtrip(void) {
    cap_codec_t *c = NULL;
    cap_image_t src = gradient(97, 61, 13), dec;
    const unsigned char *jpg;
    size_t len;
    int warn = -1;

    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src.data);
    CU_ASSERT_EQUAL(cap_jpeg_encode(c, &src, 95, &jpg, &len), 0);
    TESTS_CHECK(len > 100 && jpg[0] == 0xFF && jpg[1] == 0xD8, "encoded %zu bytes", len);
    CU_ASSERT_EQUAL(cap_jpeg_decode(c, jpg, len, 1, &dec, &warn), 0);
    CU_ASSERT_EQUAL(warn, 0);
    CU_ASSERT_EQUAL(dec.width, 97);
    CU_ASSERT_EQUAL(dec.height, 61);
    CU_ASSERT(dec.stride >= 97 * 3);
    TESTS_CHECK(mean_abs_diff(&src, &dec) < 3.0, "q95 round trip error %.2f", mean_abs_diff(&src, &dec));
    /* half and quarter scale, rounded up as libjpeg does */
    CU_ASSERT_EQUAL(cap_jpeg_decode(c, jpg, len, 2, &dec, NULL), 0);
    CU_ASSERT(dec.width == 49 && dec.height == 31);
    CU_ASSERT_EQUAL(cap_jpeg_decode(c, jpg, len, 4, &dec, NULL), 0);
    CU_ASSERT(dec.width == 25 && dec.height == 16);
    /* bad arguments and bad data: codes and a message, no crash */
    CU_ASSERT_EQUAL(cap_jpeg_decode(c, jpg, len, 3, &dec, NULL), CAP_E_ARG);
    CU_ASSERT_EQUAL(cap_jpeg_decode(c, (const unsigned char *)"hello world", 11, 1, &dec, NULL),
                    CAP_E_DECODE);
    TESTS_CHECK(strncmp(cap_codec_errmsg(c), "cap_jpeg_decode: ", 17) == 0, "message '%s'",
                cap_codec_errmsg(c));
    CU_ASSERT_EQUAL(cap_jpeg_encode(c, &src, 0, &jpg, &len), CAP_E_ARG);
    free(src.data);
    cap_codec_destroy(c);
    cap_codec_destroy(NULL);
}

/* Copies a JPEG without its DHT segments, as many webcams send MJPEG. Returns the new length. */
static size_t strip_dht(const unsigned char *in, size_t len, unsigned char *out) {
    size_t i = 2, o = 2;
    out[0] = in[0];
    out[1] = in[1];
    while (i + 4 <= len && in[i] == 0xFF && in[i + 1] != 0xDA) {
        size_t seg = 2 + ((size_t)in[i + 2] << 8 | in[i + 3]);
        if (in[i + 1] != 0xC4) {
            memcpy(out + o, in + i, seg);
            o += seg;
        }
        i += seg;
    }
    memcpy(out + o, in + i, len - i);
    return o + len - i;
}

static void test_jpeg_no_huffman_tables(void) {
    cap_codec_t *c = NULL;
    cap_image_t src = gradient(64, 40, 0), a, b;
    const unsigned char *jpg;
    unsigned char *copy, *stripped;
    size_t len, slen;

    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    CU_ASSERT_EQUAL_FATAL(cap_jpeg_encode(c, &src, 80, &jpg, &len), 0);
    copy = malloc(len);
    stripped = malloc(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stripped);
    memcpy(copy, jpg, len);
    slen = strip_dht(copy, len, stripped);
    TESTS_CHECK(slen + 400 < len, "DHT removed: %zu -> %zu bytes", len, slen);
    CU_ASSERT_EQUAL_FATAL(cap_jpeg_decode(c, copy, len, 1, &a, NULL), 0);
    a.data = memcpy(malloc((size_t)a.stride * (size_t)a.height), a.data, (size_t)a.stride * (size_t)a.height);
    CU_ASSERT_EQUAL(cap_jpeg_decode(c, stripped, slen, 1, &b, NULL), 0);
    /* TurboJPEG encodes with the standard tables, which the decoder assumes when they are missing */
    TESTS_CHECK(b.width == a.width && mean_abs_diff(&a, &b) == 0.0, "Huffman-less decode differs");
    free(a.data);
    free(copy);
    free(stripped);
    free(src.data);
    cap_codec_destroy(c);
}

/* Damaged JPEGs (bytes flipped, cut short) never crash the decoder, and either decode (perhaps with a
 * warning) or fail with CAP_E_DECODE; run under ASan by make sanitize. */
static void test_jpeg_damaged(void) {
    cap_codec_t *c = NULL;
    cap_image_t src = gradient(80, 48, 0), out;
    const unsigned char *jpg;
    unsigned char *buf;
    size_t len, i;
    unsigned seed = 7;
    int k, ok = 0, bad = 0, other = 0;
    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    CU_ASSERT_EQUAL_FATAL(cap_jpeg_encode(c, &src, 75, &jpg, &len), 0);
    buf = malloc(len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    for (k = 0; k < 400; k++) {
        size_t n = len;
        int rc, warn = 0;
        memcpy(buf, jpg, len);
        for (i = 0; i < 1 + (size_t)(k % 8); i++) {
            seed = seed * 1103515245u + 12345u;
            buf[2 + (seed >> 8) % (len - 2)] ^= (unsigned char)(1u << (seed >> 29));
        }
        if (k % 5 == 0)
            n = 2 + (size_t)(seed >> 4) % (len - 2);
        rc = cap_jpeg_decode(c, buf, n, 1 + (k % 2), &out, &warn);
        if (rc == 0 && out.width > 0 && out.height > 0)
            ok++;
        else if (rc == CAP_E_DECODE)
            bad++;
        else
            other++;
        /* the encoder's buffer was not touched by decoding: re-encode for the next round */
        CU_ASSERT_EQUAL_FATAL(cap_jpeg_encode(c, &src, 75, &jpg, &len), 0);
    }
    TESTS_CHECK(other == 0 && ok + bad == 400, "damaged JPEGs: %d decoded, %d refused, %d other", ok, bad,
                other);
    free(buf);
    free(src.data);
    cap_codec_destroy(c);
}

static void test_jpeg_write_file(void) {
    char dir[64], path[128];
    cap_codec_t *c = NULL;
    cap_image_t src = gradient(32, 16, 0), back;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/evidence.jpg", dir);
    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    CU_ASSERT_EQUAL(cap_jpeg_write(c, &src, 90, path), 0);
    CU_ASSERT_EQUAL(cap_image_load(path, &back, err, sizeof err), 0);
    CU_ASSERT(back.width == 32 && back.height == 16);
    CU_ASSERT(access(path, F_OK) == 0);
    snprintf(path, sizeof path, "%s/evidence.jpg.tmp", dir);
    CU_ASSERT(access(path, F_OK) != 0); /* the temporary was renamed away */
    snprintf(path, sizeof path, "%s/no/such/dir/x.jpg", dir);
    CU_ASSERT_EQUAL(cap_jpeg_write(c, &src, 90, path), CAP_E_IO);
    cap_image_free(&back);
    cap_image_free(&back); /* twice is allowed */
    free(src.data);
    cap_codec_destroy(c);
    remove_dir(dir);
}

/* ---- EXIF orientation ---- */

/* A JPEG with an APP1 EXIF segment holding only IFD0 orientation o, inserted after SOI. */
static unsigned char *with_exif(const unsigned char *jpg, size_t len, int o, size_t *outlen) {
    static const unsigned char tmpl[] = {
        0xFF, 0xE1, 0x00, 0x22, 'E',  'x',  'i',  'f',  0, 0,             /* APP1, length 34 */
        'I',  'I',  0x2A, 0x00, 0x08, 0x00, 0x00, 0x00,                   /* TIFF, IFD0 at 8 */
        0x01, 0x00,                                                       /* one entry */
        0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0, 0, 0x00, 0x00, /* 0x0112 SHORT 1 o */
        0x00, 0x00, 0x00, 0x00                                            /* no next IFD */
    };
    unsigned char *out = malloc(len + sizeof tmpl);
    if (!out)
        return NULL;
    out[0] = 0xFF;
    out[1] = 0xD8;
    memcpy(out + 2, tmpl, sizeof tmpl);
    out[2 + 28] = (unsigned char)o;
    memcpy(out + 2 + sizeof tmpl, jpg + 2, len - 2);
    *outlen = len + sizeof tmpl;
    return out;
}

/* Where the displayed pixel (dx, dy) of a picture shown as dw x dh lies in the stored picture, for
 * EXIF orientation o, from the words of the EXIF standard (tag 0x0112: "the 0th row represents the
 * visual ..., the 0th column represents the visual ..."). sw, sh: stored size. */
static void exif_where(int o, int dx, int dy, int dw, int dh, int *sx, int *sy) {
    switch (o) {
    case 1:
        *sx = dx;
        *sy = dy;
        break; /* row 0 top, column 0 left */
    case 2:
        *sx = dw - 1 - dx;
        *sy = dy;
        break; /* row 0 top, column 0 right */
    case 3:
        *sx = dw - 1 - dx;
        *sy = dh - 1 - dy;
        break; /* row 0 bottom, column 0 right */
    case 4:
        *sx = dx;
        *sy = dh - 1 - dy;
        break; /* row 0 bottom, column 0 left */
    case 5:
        *sx = dy;
        *sy = dx;
        break; /* row 0 left, column 0 top */
    case 6:
        *sx = dy;
        *sy = dw - 1 - dx;
        break; /* row 0 right, column 0 top */
    case 7:
        *sx = dh - 1 - dy;
        *sy = dw - 1 - dx;
        break; /* row 0 right, column 0 bottom */
    default:
        *sx = dh - 1 - dy;
        *sy = dx;
        break; /* 8: row 0 left, column 0 bottom */
    }
}

static void test_exif_orientations(void) {
    /* The upright picture: 48 x 32, quadrants red (top left), green (top right), blue (bottom left),
     * white (bottom right). */
    const int dw = 48, dh = 32;
    static const unsigned char quad[4][3] = {{0, 0, 255}, {0, 255, 0}, {255, 0, 0}, {255, 255, 255}};
    char dir[64], path[128], err[256];
    cap_codec_t *c = NULL;
    int o;

    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    for (o = 1; o <= 8; o++) {
        int swap = o >= 5, sw = swap ? dh : dw, sh = swap ? dw : dh, dx, dy, q;
        cap_image_t st = {sw, sh, sw * 3, calloc((size_t)sw * (size_t)sh, 3)}, got;
        const unsigned char *jpg;
        unsigned char *ex;
        size_t len, exlen = 0;
        CU_ASSERT_PTR_NOT_NULL_FATAL(st.data);
        for (dy = 0; dy < dh; dy++)
            for (dx = 0; dx < dw; dx++) {
                int sx, sy, k = (dy >= dh / 2) * 2 + (dx >= dw / 2);
                exif_where(o, dx, dy, dw, dh, &sx, &sy);
                memcpy(st.data + (size_t)sy * (size_t)st.stride + (size_t)sx * 3, quad[k], 3);
            }
        CU_ASSERT_EQUAL_FATAL(cap_jpeg_encode(c, &st, 95, &jpg, &len), 0);
        ex = with_exif(jpg, len, o, &exlen);
        snprintf(path, sizeof path, "%s/o%d.jpg", dir, o);
        CU_ASSERT_EQUAL_FATAL(write_bytes(path, ex, exlen), 0);
        CU_ASSERT_EQUAL(cap_image_load(path, &got, err, sizeof err), 0);
        TESTS_CHECK(got.width == dw && got.height == dh, "orientation %d: %dx%d, want %dx%d", o, got.width,
                    got.height, dw, dh);
        if (got.width == dw && got.height == dh)
            for (q = 0; q < 4; q++) {
                const unsigned char *p =
                    px(&got, (q & 1) ? dw * 3 / 4 : dw / 4, (q & 2) ? dh * 3 / 4 : dh / 4);
                TESTS_CHECK(abs(p[0] - quad[q][0]) < 40 && abs(p[1] - quad[q][1]) < 40 &&
                                abs(p[2] - quad[q][2]) < 40,
                            "orientation %d quadrant %d: got %d,%d,%d", o, q, p[0], p[1], p[2]);
            }
        cap_image_free(&got);
        free(ex);
        free(st.data);
    }
    cap_codec_destroy(c);
    remove_dir(dir);
}

/* The phone photos of ../shared/data/photos/sanjaykumar695 are stored turned (EXIF orientation 6):
 * loaded, they must be the stored pixels turned 90 degrees clockwise. */
static void test_exif_phone_photo(void) {
    static const char *const names[] = {"photos/sanjaykumar695/normal.jpg",
                                        "photos/sanjaykumar695/promoted.jpg"};
    size_t i;
    for (i = 0; i < 2; i++) {
        char path[4096], err[256];
        FILE *f;
        unsigned char *raw;
        long n;
        cap_codec_t *c = NULL;
        cap_image_t stored, up;
        int x, y, bad = 0;

        if (tests_shared_path(path, sizeof path, names[i]) != 0 || access(path, R_OK) != 0) {
            tests_skip_shared(names[i]);
            return;
        }
        CU_ASSERT_EQUAL_FATAL(cap_image_load(path, &up, err, sizeof err), 0);
        f = fopen(path, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        raw = malloc((size_t)n);
        CU_ASSERT_FATAL(raw && fread(raw, 1, (size_t)n, f) == (size_t)n);
        fclose(f);
        CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
        CU_ASSERT_EQUAL_FATAL(cap_jpeg_decode(c, raw, (size_t)n, 1, &stored, NULL), 0);
        CU_ASSERT(up.width == stored.height && up.height == stored.width);
        for (y = 0; y < up.height && !bad; y += 97)
            for (x = 0; x < up.width && !bad; x += 89) {
                /* orientation 6: displayed (x, y) is stored (y, H-1-x) */
                if (memcmp(px(&up, x, y), px(&stored, y, stored.height - 1 - x), 3) != 0)
                    bad = 1;
            }
        TESTS_CHECK(!bad, "%s is not the stored image turned clockwise", names[i]);
        cap_image_free(&up);
        cap_codec_destroy(c);
        free(raw);
    }
}

/* ---- stills through libav, folders ---- */

/* Writes a binary PPM of img. */
static int write_ppm(const char *path, const cap_image_t *img) {
    FILE *f = fopen(path, "wb");
    int x, y, ok;
    if (!f)
        return -1;
    fprintf(f, "P6\n%d %d\n255\n", img->width, img->height);
    for (y = 0; y < img->height; y++)
        for (x = 0; x < img->width; x++) {
            const unsigned char *p = px(img, x, y);
            unsigned char rgb[3] = {p[2], p[1], p[0]};
            fwrite(rgb, 1, 3, f);
        }
    ok = fclose(f) == 0;
    return ok ? 0 : -1;
}

static void test_still_via_libav(void) {
    char dir[64], path[128], err[256];
    cap_image_t src = gradient(40, 30, 5), got;
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/still.ppm", dir);
    CU_ASSERT_EQUAL_FATAL(write_ppm(path, &src), 0);
    CU_ASSERT_EQUAL(cap_image_load(path, &got, err, sizeof err), 0);
    TESTS_CHECK(got.width == 40 && got.height == 30 && mean_abs_diff(&src, &got) == 0.0,
                "PPM through libav: %dx%d", got.width, got.height);
    cap_image_free(&got);
    free(src.data);
    remove_dir(dir);
    /* a real PNG photo, if the shared data is here */
    if (tests_shared_path(path, sizeof path, "photos/na-o-ys/board8_raw_photo_with_komadai_500x375.png") ==
            0 &&
        access(path, R_OK) == 0) {
        CU_ASSERT_EQUAL(cap_image_load(path, &got, err, sizeof err), 0);
        CU_ASSERT(got.width == 500 && got.height == 375);
        cap_image_free(&got);
        /* the same PNG cut after 20 kB: damaged, as a cut JPEG is, not "not an image" */
        FILE *in = fopen(path, "rb");
        static char head[20000];
        size_t n = in ? fread(head, 1, sizeof head, in) : 0;
        if (in)
            fclose(in);
        CU_ASSERT_EQUAL_FATAL(n, sizeof head);
        CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
        snprintf(path, sizeof path, "%s/cut.png", dir);
        write_bytes(path, head, n);
        CU_ASSERT_EQUAL(cap_image_load(path, &got, err, sizeof err), CAP_E_DECODE);
        TESTS_CHECK(strstr(err, "damaged image") && strstr(err, "truncated or corrupt"), "cut PNG: '%s'",
                    err);
        remove_dir(dir);
    } else {
        tests_skip_shared("na-o-ys PNG photo");
    }
}

/* A grey frame of level v, w x h. */
static cap_image_t grey(int w, int h, int v) {
    cap_image_t im = {w, h, w * 3, malloc((size_t)w * (size_t)h * 3)};
    if (im.data)
        memset(im.data, v, (size_t)w * (size_t)h * 3);
    return im;
}

static void test_folder_source(void) {
    static const int nums[] = {1, 2, 10, 3}; /* written out of order; read 1 2 3 10 */
    char dir[64], path[128];
    cap_codec_t *c = NULL;
    cap_source_t *src = NULL;
    cap_params_t p;
    cap_frame_t f;
    cap_stats_t st;
    size_t i;

    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    for (i = 0; i < 4; i++) {
        cap_image_t im = grey(32, 24, 20 * nums[i]);
        snprintf(path, sizeof path, "%s/frame_%d.jpg", dir, nums[i]);
        CU_ASSERT_EQUAL(cap_jpeg_write(c, &im, 95, path), 0);
        free(im.data);
    }
    snprintf(path, sizeof path, "%s/frame_4.jpg", dir); /* corrupt: counted and skipped */
    write_bytes(path, "\xFF\xD8\xFF garbage", 12);
    snprintf(path, sizeof path, "%s/notes.txt", dir); /* not an image name: ignored */
    write_bytes(path, "hello", 5);

    cap_params_default(&p);
    p.fps = 10;
    CU_ASSERT_EQUAL_FATAL(cap_source_open(dir, &p, &src), 0);
    {
        static const int want[] = {1, 2, 3, 10};
        for (i = 0; i < 4; i++) {
            CU_ASSERT_EQUAL_FATAL(cap_source_read(src, &f), 0);
            TESTS_CHECK(f.seq == (uint64_t)(want[i] - 1) && f.ts_us == (int64_t)(want[i] - 1) * 100000,
                        "frame %zu: seq %llu ts %lld", i, (unsigned long long)f.seq, (long long)f.ts_us);
            TESTS_CHECK(abs(px(&f.image, 5, 5)[1] - 20 * want[i]) <= 2, "frame %zu level %d", i,
                        px(&f.image, 5, 5)[1]);
            if (i == 3)
                TESTS_CHECK(f.dropped == 6 && (f.flags & CAP_FRAME_DROPPED), "dropped %u", f.dropped);
        }
    }
    CU_ASSERT_EQUAL(cap_source_read(src, &f), CAP_EOF);
    CU_ASSERT_EQUAL(cap_source_read(src, &f), CAP_EOF);
    cap_source_stats(src, &st);
    CU_ASSERT(st.delivered == 4 && st.corrupt == 1 && st.dropped == 6);
    cap_source_close(src);

    /* half scale through the URI's parameters is for cameras only; params work for folders */
    p.scale_denom = 2;
    CU_ASSERT_EQUAL_FATAL(cap_source_open(dir, &p, &src), 0);
    CU_ASSERT_EQUAL(cap_source_read(src, &f), 0);
    CU_ASSERT(f.image.width == 16 && f.image.height == 12);
    cap_source_close(src);
    cap_codec_destroy(c);
    remove_dir(dir);
}

static void test_single_image_source(void) {
    char dir[64], path[128];
    cap_codec_t *c = NULL;
    cap_source_t *src = NULL;
    cap_frame_t f;
    cap_image_t im = grey(20, 10, 77);
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    snprintf(path, sizeof path, "%s/photo", dir); /* no extension: recognised by its bytes */
    CU_ASSERT_EQUAL(cap_jpeg_write(c, &im, 90, path), 0);
    CU_ASSERT_EQUAL_FATAL(cap_source_open(path, NULL, &src), 0);
    CU_ASSERT(strncmp(cap_source_describe(src), "image ", 6) == 0);
    CU_ASSERT_EQUAL(cap_source_read(src, &f), 0);
    CU_ASSERT(f.image.width == 20 && f.image.height == 10 && f.ts_us == 0 && f.seq == 0);
    CU_ASSERT_EQUAL(cap_source_read(src, &f), CAP_EOF);
    cap_source_close(src);
    free(im.data);
    cap_codec_destroy(c);
    remove_dir(dir);
}

/* ---- video file ---- */

static void test_video_clip(void) {
    char dir[64], path[256], cmd[768];
    cap_source_t *src = NULL;
    cap_frame_t f;
    cap_params_t p;
    int i, n = 0, ok_ts = 1, ok_level = 1;

    if (system("ffmpeg -version >/dev/null 2>&1") != 0) {
        printf("\n    skipped: ffmpeg not installed (make deps)\n");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    for (i = 0; i < 12; i++) {
        cap_image_t im = grey(64, 48, 20 + 15 * i);
        snprintf(path, sizeof path, "%s/f%03d.ppm", dir, i);
        CU_ASSERT_EQUAL(write_ppm(path, &im), 0);
        free(im.data);
    }
    /* 25 fps MJPEG in Matroska (millisecond timestamps: 40 ms apart) */
    snprintf(cmd, sizeof cmd,
             "ffmpeg -loglevel error -y -framerate 25 -i %s/f%%03d.ppm -c:v mjpeg -q:v 2 "
             "-pix_fmt yuvj420p %s/clip.mkv",
             dir, dir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    snprintf(path, sizeof path, "%s/clip.mkv", dir);
    cap_params_default(&p);
    CU_ASSERT_EQUAL_FATAL(cap_source_open(path, &p, &src), 0);
    TESTS_CHECK(strncmp(cap_source_describe(src), "video ", 6) == 0, "describe '%s'",
                cap_source_describe(src));
    while (cap_source_read(src, &f) == 0) {
        if (f.ts_us != (int64_t)n * 40000 || f.seq != (uint64_t)n)
            ok_ts = 0;
        if (abs(px(&f.image, 32, 24)[1] - (20 + 15 * n)) > 3)
            ok_level = 0;
        CU_ASSERT(f.image.width == 64 && f.image.height == 48);
        n++;
    }
    TESTS_CHECK(n == 12, "read %d frames of 12", n);
    TESTS_CHECK(ok_ts, "container timestamps are not 40 ms apart from 0");
    TESTS_CHECK(ok_level, "frame contents out of order");
    CU_ASSERT_EQUAL(cap_source_read(src, &f), CAP_EOF);
    cap_source_close(src);

    /* H.264 in MP4 at 30000/1001 fps, the usual phone/camcorder case */
    snprintf(cmd, sizeof cmd,
             "ffmpeg -loglevel error -y -framerate 30000/1001 -i %s/f%%03d.ppm -c:v libx264 "
             "-pix_fmt yuv420p %s/clip.mp4",
             dir, dir);
    if (system(cmd) == 0) {
        snprintf(path, sizeof path, "%s/clip.mp4", dir);
        CU_ASSERT_EQUAL_FATAL(cap_source_open(path, &p, &src), 0);
        n = 0;
        ok_ts = 1;
        while (cap_source_read(src, &f) == 0) {
            if (llabs(f.ts_us - (int64_t)n * 1001000 / 30) > 1000)
                ok_ts = 0;
            n++;
        }
        TESTS_CHECK(n == 12 && ok_ts, "mp4: %d frames, timestamps %s", n, ok_ts ? "ok" : "wrong");
        cap_source_close(src);
    }
    remove_dir(dir);
}

static void expect_open_error(const char *uri, int want_rc, const char *want_text);

/* A 3 s clip read whole ends with CAP_EOF and no message; the same file cut to 40 % of its bytes
 * (moov first, so it still opens) ends with CAP_EOF after fewer frames and a message that it was cut
 * short, with the time its frames reached and the duration the file states. The same clip written
 * with its index last and cut does not open: "damaged video". */

/* What cap_probe (kifucam probe) prints for path, sampling `seconds`, into text (size bytes, always
 * terminated). Returns cap_probe's result, -1 if no temporary file. */
static int probe_text(const char *path, double seconds, char *text, size_t size) {
    char err[256] = "";
    FILE *tf = tmpfile();
    if (tf == NULL)
        return -1;
    int rc = cap_probe(path, NULL, seconds, tf, err, sizeof err);
    rewind(tf);
    size_t got = fread(text, 1, size - 1, tf);
    text[got] = 0;
    fclose(tf);
    return rc;
}

/* probe on a folder of images of mixed sizes names each size with its count (it named one). */
static void test_probe_mixed_sizes(void) {
    static const int size[][2] = {{32, 24}, {32, 24}, {16, 12}};
    char dir[64], path[128], text[2048];
    cap_codec_t *c = NULL;
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
    for (int i = 0; i < 3; i++) {
        cap_image_t im = grey(size[i][0], size[i][1], 100);
        snprintf(path, sizeof path, "%s/frame_%d.jpg", dir, i + 1);
        CU_ASSERT_EQUAL(cap_jpeg_write(c, &im, 95, path), 0);
        free(im.data);
    }
    CU_ASSERT_EQUAL(probe_text(dir, 1.0, text, sizeof text), 0);
    TESTS_CHECK(strstr(text, "measured: 3 frames of sizes 32x24 (2), 16x12 (1) in") != NULL, "probe said: %s",
                text);
    cap_codec_destroy(c);
    remove_dir(dir);
}

static void test_video_cut_short(void) {
    char dir[64], path[256], cut[256], cmd[1200];
    cap_source_t *src = NULL;
    cap_frame_t f;
    if (system("ffmpeg -version >/dev/null 2>&1") != 0) {
        printf("\n    skipped: ffmpeg not installed (make deps)\n");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/full.mp4", dir);
    snprintf(cut, sizeof cut, "%s/cut.mp4", dir);
    snprintf(cmd, sizeof cmd,
             "ffmpeg -loglevel error -y -f lavfi -i testsrc=size=320x240:rate=30 -t 3 -c:v libx264 -g 15 "
             "-pix_fmt yuv420p -movflags +faststart %s",
             path);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    FILE *in = fopen(path, "rb"), *out = fopen(cut, "wb");
    CU_ASSERT_FATAL(in != NULL && out != NULL);
    fseek(in, 0, SEEK_END);
    long size = ftell(in), keep = size * 2 / 5;
    fseek(in, 0, SEEK_SET);
    for (long i = 0; i < keep; i++)
        fputc(fgetc(in), out);
    fclose(in);
    fclose(out);
    const char *files[2] = {path, cut};
    int frames[2] = {0, 0}, rc[2] = {0, 0};
    char msg[2][512];
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL_FATAL(cap_source_open(files[k], NULL, &src), 0);
        while ((rc[k] = cap_source_read(src, &f)) == 0)
            frames[k]++;
        snprintf(msg[k], sizeof msg[k], "%s", cap_errmsg(src));
        cap_source_close(src);
    }
    TESTS_CHECK(rc[0] == CAP_EOF && frames[0] == 90 && msg[0][0] == 0,
                "whole clip: %d frames of 90, then '%s'", frames[0], msg[0]);
    TESTS_CHECK(rc[1] == CAP_EOF && frames[1] > 0 && frames[1] < 60, "cut clip: CAP_EOF after %d frames",
                frames[1]);
    TESTS_CHECK(strstr(msg[1], "cut short") && strstr(msg[1], "of the 3.0 s the file states") &&
                    !strchr(msg[1], '\n'),
                "cut clip says so on one line: '%s'", msg[1]);
    { /* kifucam probe says so too (it had said nothing, exit 0) */
        char text[2048] = "";
        CU_ASSERT_EQUAL(probe_text(cut, 10.0, text, sizeof text), 0);
        TESTS_CHECK(strstr(text, "  warning: ") && strstr(text, "cut short") &&
                        !strstr(text, "cap_source_read"),
                    "probe of the cut clip: '%s'", text);
    }
    /* an MP4 as a recording leaves it (index, the moov box, written last) cut at 40 %: it cannot be
     * opened, and says it is a damaged video, not "not a video" */
    snprintf(cmd, sizeof cmd,
             "ffmpeg -loglevel error -y -f lavfi -i testsrc=size=320x240:rate=30 -t 3 -c:v libx264 -g 15 "
             "-pix_fmt yuv420p %s && head -c %ld %s > %s",
             path, keep, path, cut);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    expect_open_error(cut, CAP_E_DECODE, "damaged video");
    remove_dir(dir);
}

/* The project's video rel (path into clip, 4096 bytes) copied into a new temporary folder (dir, 64
 * bytes) as damaged.mp4 (bad, 256 bytes) with 3000 bytes from byte offset damaged (tests_damage_copy).
 * 0 or -1. */
static int damaged_clip(const char *rel, long offset, char *clip, char *dir, char *bad) {
    if (tests_project_path(clip, 4096, rel) != 0 || make_tmpdir(dir, 64) != 0)
        return -1;
    snprintf(bad, 256, "%s/damaged.mp4", dir);
    return tests_damage_copy(clip, bad, offset, 3000);
}

/* tests/data/record-clip.mp4 (H.264, 140 frames at 10 fps) with 3000 bytes from byte 60000 overwritten by
 * a fixed pattern (tests_damage_copy): the decoder refuses some packets as invalid data (12 here) and
 * decodes one frame with errors. Every refused packet is a corrupt frame in the stats, with its time,
 * so that delivered + corrupt is the clip's 140 frames, and kifucam probe says the same numbers; the
 * whole clip has none. (The refused packets had been dropped unseen: "corrupt 0", 128 frames of 140;
 * found by a fresh user.) */
static void test_video_damaged(void) {
    char dir[64], clip[4096], bad[256], text[2048] = "", want[64];
    cap_source_t *src = NULL;
    cap_frame_t f;
    cap_stats_t st[2];
    CU_ASSERT_EQUAL_FATAL(damaged_clip("tests/data/record-clip.mp4", 60000, clip, dir, bad), 0);
    const char *files[2] = {clip, bad};
    for (int k = 0; k < 2; k++) {
        int rc;
        CU_ASSERT_EQUAL_FATAL(cap_source_open(files[k], NULL, &src), 0);
        while ((rc = cap_source_read(src, &f)) == 0)
            ;
        CU_ASSERT_EQUAL(rc, CAP_EOF);
        cap_source_stats(src, &st[k]);
        cap_source_close(src);
    }
    TESTS_CHECK(st[0].delivered == 140 && st[0].corrupt == 0 && st[0].warnings == 0 &&
                    st[0].corrupt_ts_us == -1,
                "whole clip: %llu delivered, %llu corrupt, %llu with warnings, last corrupt at %lld us",
                (unsigned long long)st[0].delivered, (unsigned long long)st[0].corrupt,
                (unsigned long long)st[0].warnings, (long long)st[0].corrupt_ts_us);
    TESTS_CHECK(st[1].corrupt > 0 && st[1].delivered + st[1].corrupt == 140,
                "damaged clip: %llu delivered + %llu corrupt, want 140 with corrupt > 0",
                (unsigned long long)st[1].delivered, (unsigned long long)st[1].corrupt);
    TESTS_CHECK(st[1].warnings >= 1, "damaged clip: %llu frames decoded with warnings",
                (unsigned long long)st[1].warnings);
    TESTS_CHECK(st[1].corrupt_ts_us > 0 && st[1].corrupt_ts_us < 14000000,
                "damaged clip: last corrupt frame at %lld us", (long long)st[1].corrupt_ts_us);
    CU_ASSERT_EQUAL(probe_text(bad, 60.0, text, sizeof text), 0);
    snprintf(want, sizeof want, "dropped 0, corrupt %llu, decoded with warnings %llu",
             (unsigned long long)st[1].corrupt, (unsigned long long)st[1].warnings);
    TESTS_CHECK(strstr(text, want) != NULL, "probe of the damaged clip, want '%s': '%s'", want, text);
    remove_dir(dir);
}

/* The sample clip (H.264, 820 frames at 10 fps, a keyframe every 10 s) with 3000 bytes from byte 148575
 * damaged (tests_damage_copy): the decoder refuses the packets at 18.0-18.7 s, and the frames decoded
 * after them up to the keyframe at 20.0 s are predicted from pictures that were lost. FFmpeg only logs
 * "reference picture missing": those frames had no flag at all (decode_error_flags 0), and the
 * recorder read a bishop on 6b from one of them. Each of them is now CAP_FRAME_DAMAGED (with
 * CAP_FRAME_WARNING), from the first refused packet to the keyframe, and no frame before 17.5 s or from
 * the keyframe on; the whole clip has none. */
static void test_video_predicted_from_lost(void) {
    char dir[64], clip[4096], bad[256];
    cap_source_t *src = NULL;
    cap_frame_t f;
    CU_ASSERT_EQUAL_FATAL(damaged_clip("samples/sample-clip.mp4", 148575, clip, dir, bad), 0);
    const char *files[2] = {clip, bad};
    for (int k = 0; k < 2; k++) {
        int rc, flagged = 0, in_stretch = 0, stretch = 0, outside = 0, warn_only = 0;
        CU_ASSERT_EQUAL_FATAL(cap_source_open(files[k], NULL, &src), 0);
        while ((rc = cap_source_read(src, &f)) == 0) {
            int d = (f.flags & CAP_FRAME_DAMAGED) != 0;
            flagged += d;
            warn_only += d && !(f.flags & CAP_FRAME_WARNING);
            if (f.ts_us >= 18800000 && f.ts_us < 20000000) { /* after the last refused packet (18.7 s) */
                stretch++;
                in_stretch += d;
            } else if (f.ts_us < 17500000 || f.ts_us >= 20000000)
                outside += d;
        }
        CU_ASSERT_EQUAL(rc, CAP_EOF);
        cap_source_close(src);
        if (k == 0)
            TESTS_CHECK(flagged == 0, "whole clip: %d frames flagged damaged", flagged);
        else
            TESTS_CHECK(
                stretch == 12 && in_stretch == stretch && outside == 0 && warn_only == 0,
                "damaged clip: %d of the %d frames at 18.8-19.9 s flagged damaged (want all 12), %d before "
                "17.5 s or from the keyframe at 20 s (want 0), %d without CAP_FRAME_WARNING",
                in_stretch, stretch, outside, warn_only);
    }
    remove_dir(dir);
}

/* tests/data/record-clip.mp4 (140 frames at 10 fps, 14 s) with the timescale of its mdhd box (ISO/IEC
 * 14496-12 8.4.2: version 0, then flags, creation and modification times, then the 32-bit timescale)
 * damaged. 10 instead of 10240: the demuxer gives 1 frame of the 140 (its edit list cuts the rest),
 * and that read as a whole clip of 1 frame, no warning (the stated rate, 0.01 fps, made the allowed
 * slack 300 s). Now the end of the file says it: 1 of the 140 frames, cut short or damaged. 102400:
 * every frame is read, at 100 fps, and the end says the timestamps are damaged. */
static void test_video_bad_timescale(void) {
    static const struct {
        uint32_t timescale;
        const char *want;
    } cases[] = {{10, "1 of the 140 frames it states: cut short or damaged"},
                 {0, "1 of the 140 frames it states: cut short or damaged"},
                 {102400, "though all 140 frames it states were read: its timestamps are damaged"}};
    char dir[64], clip[4096], bad[256], text[2048];
    static unsigned char buf[1 << 20];
    CU_ASSERT_FATAL(tests_project_path(clip, sizeof clip, "tests/data/record-clip.mp4") == 0);
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    FILE *in = fopen(clip, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    CU_ASSERT_FATAL(n > 0 && n < sizeof buf);
    size_t at = 0;
    for (size_t i = 0; i + 24 < n && at == 0; i++)
        if (memcmp(buf + i, "mdhd", 4) == 0 && buf[i + 4] == 0)
            at = i + 16; /* "mdhd", version and flags, creation and modification times */
    CU_ASSERT_FATAL(at > 0 && buf[at] == 0 && buf[at + 1] == 0 && buf[at + 2] == 0x28 && buf[at + 3] == 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cap_source_t *src = NULL;
        cap_frame_t f;
        int rc, frames = 0;
        snprintf(bad, sizeof bad, "%s/timescale-%u.mp4", dir, (unsigned)cases[k].timescale);
        for (int b = 0; b < 4; b++)
            buf[at + (size_t)b] = (unsigned char)(cases[k].timescale >> (24 - 8 * b));
        FILE *out = fopen(bad, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        CU_ASSERT_EQUAL(fwrite(buf, 1, n, out), n);
        fclose(out);
        CU_ASSERT_EQUAL_FATAL(cap_source_open(bad, NULL, &src), 0);
        while ((rc = cap_source_read(src, &f)) == 0)
            frames++;
        TESTS_CHECK(rc == CAP_EOF && strstr(cap_errmsg(src), cases[k].want) && !strchr(cap_errmsg(src), '\n'),
                    "timescale %u: %d frames, then %d '%s' (want '%s')", (unsigned)cases[k].timescale, frames,
                    rc, cap_errmsg(src), cases[k].want);
        cap_source_close(src);
        text[0] = 0;
        CU_ASSERT_EQUAL(probe_text(bad, 60.0, text, sizeof text), 0);
        TESTS_CHECK(strstr(text, "  warning: ") && strstr(text, cases[k].want), "probe, timescale %u: '%s'",
                    (unsigned)cases[k].timescale, text);
    }
    remove_dir(dir);
}

/* Videos of tiny frames (4x4 and 10x10 H.264, 200x14 FFV1): every frame is read, at its size. swscale
 * wrote past the end of a frame buffer of exactly w x h x 3 bytes at such sizes (glibc then aborted
 * with "corrupted double-linked list" when it was freed). */
static void test_video_tiny_frames(void) {
    static const char *const kinds[][2] = {
        {"4x4", "-pix_fmt yuv420p"}, {"10x10", "-pix_fmt yuv420p"}, {"200x14", "-c:v ffv1"}};
    char dir[64], path[256], cmd[512];
    if (system("ffmpeg -version >/dev/null 2>&1") != 0) {
        printf("\n    skipped: ffmpeg not installed (make deps)\n");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        int w = 0, h = 0, frames = 0, rc;
        cap_source_t *src = NULL;
        cap_frame_t f;
        sscanf(kinds[k][0], "%dx%d", &w, &h);
        snprintf(path, sizeof path, "%s/tiny%zu.mkv", dir, k);
        snprintf(cmd, sizeof cmd, "ffmpeg -loglevel error -y -f lavfi -i color=s=%s:d=1:r=10 %s %s",
                 kinds[k][0], kinds[k][1], path);
        CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
        CU_ASSERT_EQUAL_FATAL(cap_source_open(path, NULL, &src), 0);
        while ((rc = cap_source_read(src, &f)) == 0) {
            CU_ASSERT(f.image.width == w && f.image.height == h);
            frames++;
        }
        TESTS_CHECK(rc == CAP_EOF && frames == 10, "%s: %d frames of 10, then %s", kinds[k][0], frames,
                    cap_strerror(rc));
        cap_source_close(src);
    }
    remove_dir(dir);
}

/* ---- bad input: one clear line each ---- */

static void expect_open_error(const char *uri, int want_rc, const char *want_text) {
    cap_source_t *src = NULL;
    int rc = cap_source_open(uri, NULL, &src);
    const char *m = cap_errmsg(src);
    TESTS_CHECK(rc == want_rc, "%s: rc %s, want %s (%s)", uri, cap_strerror(rc), cap_strerror(want_rc), m);
    TESTS_CHECK(strncmp(m, "cap_source_open: ", 17) == 0 && strstr(m, want_text) && !strchr(m, '\n'),
                "%s: message '%s' should say '%s' on one line", uri, m, want_text);
    cap_source_close(src);
}

static void test_bad_input(void) {
    char dir[64], path[128];
    CU_ASSERT_EQUAL_FATAL(make_tmpdir(dir, sizeof dir), 0);
    expect_open_error("/nonexistent/video.mp4", CAP_E_NOTFOUND, "No such file");
    expect_open_error("/dev/video-kifucam-missing", CAP_E_NOTFOUND, "No such file");
    expect_open_error("v4l2:/dev/video-kifucam-missing", CAP_E_NOTFOUND, "No such file");
    expect_open_error("/dev/null", CAP_E_FORMAT, "not a V4L2 camera");
    expect_open_error("v4l2:", CAP_E_ARG, "no device path in 'v4l2:'");
    { /* probe checks a camera URI's query before it looks at the device (it had said "not a V4L2 camera") */
        char err[256] = "";
        FILE *tf = tmpfile();
        CU_ASSERT_PTR_NOT_NULL_FATAL(tf);
        CU_ASSERT_EQUAL(cap_probe("v4l2:/dev/null?width=abc", NULL, 1.0, tf, err, sizeof err), CAP_E_ARG);
        TESTS_CHECK(strstr(err, "bad width 'abc'") != NULL, "probe of a bad width: '%s'", err);
        CU_ASSERT_EQUAL(cap_probe("/dev/null?fps=30&colour=red", NULL, 1.0, tf, err, sizeof err), CAP_E_ARG);
        TESTS_CHECK(strstr(err, "unknown URI parameter 'colour'") != NULL, "probe of a bad key: '%s'", err);
        CU_ASSERT_EQUAL(cap_probe("v4l2:/dev/null?width=640&width=320", NULL, 1.0, tf, err, sizeof err),
                        CAP_E_ARG);
        TESTS_CHECK(strstr(err, "URI parameter 'width' given twice") != NULL, "probe of a repeated key: '%s'",
                    err);
        CU_ASSERT_EQUAL(cap_probe("v4l2:?fps=30", NULL, 1.0, tf, err, sizeof err), CAP_E_ARG);
        TESTS_CHECK(strstr(err, "no device path in 'v4l2:?fps=30'") != NULL, "probe of no device: '%s'", err);
        fclose(tf);
    }
    expect_open_error(dir, CAP_E_FORMAT, "no images in folder");
    { /* a PNG whose header states 20000x20000 (over libavcodec's limit): "too large", not "damaged" */
        static const unsigned char big[] =
            "\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x4e\x20\x00\x00\x4e\x20"
            "\x08\x00\x00\x00\x00\xc6\x1b\x19\xe5\x00\x00\x00\x00IEND\xae\x42\x60\x82";
        cap_image_t img;
        char err[256] = "";
        snprintf(path, sizeof path, "%s/huge.png", dir);
        write_bytes(path, (const char *)big, sizeof big - 1);
        CU_ASSERT_EQUAL(cap_image_load(path, &img, err, sizeof err), CAP_E_UNSUPPORTED);
        TESTS_CHECK(strstr(err, "image too large: 20000x20000 pixels") != NULL, "huge PNG: '%s'", err);
        /* the same header stating 0x0: damaged, not "too large" */
        unsigned char zero[sizeof big];
        memcpy(zero, big, sizeof big);
        memset(zero + 16, 0, 8);
        write_bytes(path, zero, sizeof zero - 1);
        CU_ASSERT_EQUAL(cap_image_load(path, &img, err, sizeof err), CAP_E_DECODE);
        TESTS_CHECK(strstr(err, "damaged image") != NULL && !strstr(err, "too large"), "0x0 PNG: '%s'", err);
        remove(path);
    }
    { /* a JPEG of 64x48 whose frame header is made to state 65000x65000: refused at once (the decoder took
       * 12 GB and 80 s to find the data short) */
        cap_codec_t *codec = NULL;
        cap_image_t src = {64, 48, 64 * 3, calloc(64 * 48, 3)}, img;
        unsigned char jpg[8192];
        char err[256] = "";
        size_t n = 0;
        CU_ASSERT_FATAL(src.data != NULL && cap_codec_create(&codec) == 0);
        snprintf(path, sizeof path, "%s/huge.jpg", dir);
        CU_ASSERT_EQUAL_FATAL(cap_jpeg_write(codec, &src, 90, path), 0);
        FILE *f = fopen(path, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        n = fread(jpg, 1, sizeof jpg, f);
        fclose(f);
        int patched = 0;
        for (size_t i = 2; i + 9 < n && !patched;
             i++) /* SOF0..SOF2: FF Cx, length, precision, height, width */
            if (jpg[i] == 0xFF && jpg[i + 1] >= 0xC0 && jpg[i + 1] <= 0xC2) {
                jpg[i + 5] = jpg[i + 7] = 65000 >> 8;
                jpg[i + 6] = jpg[i + 8] = 65000 & 255;
                patched = 1;
            }
        CU_ASSERT_FATAL(patched);
        write_bytes(path, jpg, n);
        CU_ASSERT_EQUAL(cap_image_load(path, &img, err, sizeof err), CAP_E_UNSUPPORTED);
        TESTS_CHECK(strstr(err, "image too large: 65000x65000 pixels") != NULL, "huge JPEG: '%s'", err);
        /* stating 16000x16000 (under the limit) in a few hundred bytes: too many pixels for its data, refused
         * before 768 MB are decoded as grey */
        for (size_t i = 2; i + 9 < n; i++)
            if (jpg[i] == 0xFF && jpg[i + 1] >= 0xC0 && jpg[i + 1] <= 0xC2) {
                jpg[i + 5] = jpg[i + 7] = 16000 >> 8;
                jpg[i + 6] = jpg[i + 8] = 16000 & 255;
                break;
            }
        write_bytes(path, jpg, n);
        CU_ASSERT_EQUAL(cap_image_load(path, &img, err, sizeof err), CAP_E_DECODE);
        TESTS_CHECK(strstr(err, "states 16000x16000 pixels, too many for its") != NULL && !strchr(err, '\n'),
                    "forged JPEG: '%s'", err);
        remove(path);
        cap_codec_destroy(codec);
        free(src.data);
    }
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_bytes(path, "not a picture\n", 14);
    expect_open_error(path, CAP_E_FORMAT, "not an image or video");
    {
        /* a few kB of text: libav's text-art ("tty") demuxer would take it for a video */
        char text[4096];
        for (size_t i = 0; i < sizeof text; i++)
            text[i] = (i % 64 == 63) ? '\n' : (char)('a' + i % 26);
        snprintf(path, sizeof path, "%s/readme.txt", dir);
        write_bytes(path, text, sizeof text);
        expect_open_error(path, CAP_E_FORMAT, "not an image or video");
    }
    snprintf(path, sizeof path, "%s/fake.png", dir);
    write_bytes(path, "not a picture\n", 14);
    expect_open_error(path, CAP_E_FORMAT, "not an image");
    snprintf(path, sizeof path, "%s/fake.jpg", dir);
    write_bytes(path, "\xFF\xD8\xFF\xE0 broken", 11);
    expect_open_error(path, CAP_E_DECODE, "fake.jpg");
    {
        /* a whole JPEG cut at 80 %: libjpeg fills the missing rows with grey and only warns; a file
         * must not be taken as a picture that way */
        cap_codec_t *c = NULL;
        cap_image_t src = gradient(320, 240, 0), img;
        const unsigned char *jpg;
        size_t len;
        char err[256] = "";
        CU_ASSERT_EQUAL_FATAL(cap_codec_create(&c), 0);
        CU_ASSERT_EQUAL_FATAL(cap_jpeg_encode(c, &src, 90, &jpg, &len), 0);
        snprintf(path, sizeof path, "%s/cut.jpg", dir);
        write_bytes(path, (const char *)jpg, len * 8 / 10);
        CU_ASSERT_EQUAL(cap_image_load(path, &img, err, sizeof err), CAP_E_DECODE);
        TESTS_CHECK(strstr(err, "truncated or corrupt") != NULL, "message '%s'", err);
        expect_open_error(path, CAP_E_DECODE, "truncated or corrupt");
        snprintf(path, sizeof path, "%s/whole.jpg", dir);
        write_bytes(path, (const char *)jpg, len);
        CU_ASSERT_EQUAL(cap_image_load(path, &img, err, sizeof err), 0);
        cap_image_free(&img);
        cap_image_free(&src);
        cap_codec_destroy(c);
        unlink(path);
        snprintf(path, sizeof path, "%s/cut.jpg", dir);
        unlink(path);
    }
    {
        cap_image_t img;
        char err[256] = "";
        CU_ASSERT_EQUAL(cap_image_load(dir, &img, err, sizeof err), CAP_E_IO);
        TESTS_CHECK(strstr(err, "is a directory") != NULL, "message '%s'", err);
    }
    expect_open_error("v4l2:/dev/video0?width=abc", CAP_E_ARG, "bad width");
    expect_open_error("v4l2:/dev/video0?format=h264", CAP_E_ARG, "bad format");
    expect_open_error("", CAP_E_ARG, "empty");
    remove_dir(dir);
    cap_source_close(NULL);
    CU_ASSERT_STRING_EQUAL(cap_errmsg(NULL), "out of memory");
}

int tests_register_capture_files(void) {
    CU_pSuite s = CU_add_suite("capture_files", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "jpeg_roundtrip", test_jpeg_roundtrip) ||
        !CU_add_test(s, "jpeg_no_huffman_tables", test_jpeg_no_huffman_tables) ||
        !CU_add_test(s, "jpeg_damaged", test_jpeg_damaged) ||
        !CU_add_test(s, "jpeg_write_file", test_jpeg_write_file) ||
        !CU_add_test(s, "exif_orientations", test_exif_orientations) ||
        !CU_add_test(s, "exif_phone_photo", test_exif_phone_photo) ||
        !CU_add_test(s, "still_via_libav", test_still_via_libav) ||
        !CU_add_test(s, "folder_source", test_folder_source) ||
        !CU_add_test(s, "single_image_source", test_single_image_source) ||
        !CU_add_test(s, "video_clip", test_video_clip) ||
        !CU_add_test(s, "video_cut_short", test_video_cut_short) ||
        !CU_add_test(s, "probe_mixed_sizes", test_probe_mixed_sizes) ||
        !CU_add_test(s, "video_damaged", test_video_damaged) ||
        !CU_add_test(s, "video_predicted_from_lost", test_video_predicted_from_lost) ||
        !CU_add_test(s, "video_bad_timescale", test_video_bad_timescale) ||
        !CU_add_test(s, "video_tiny_frames", test_video_tiny_frames) ||
        !CU_add_test(s, "bad_input", test_bad_input))
        return -1;
    return 0;
}
