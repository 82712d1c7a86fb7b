/* jpeg.c - the JPEG codec handle: TurboJPEG 2.1 decode (scaled, tolerant of webcam MJPEG without
 * Huffman tables) and encode, and the atomic JPEG file writer used for evidence frames. */
#define _GNU_SOURCE
#include "capture/capture_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include <unistd.h>

struct cap_codec {
    tjhandle dec;          /* TurboJPEG decompressor, created on first decode */
    tjhandle enc;          /* TurboJPEG compressor, created on first encode */
    unsigned char *pix;    /* decoded BGR pixels */
    size_t pixcap;         /* bytes allocated at pix */
    unsigned char *jpg;    /* encoded bytes (tjAlloc'd) */
    unsigned long jpgcap;  /* bytes allocated at jpg */
    char err[CAPI_ERRLEN]; /* last error */
};

int cap_codec_create(cap_codec_t **out) {
    cap_codec_t *c = calloc(1, sizeof *c);
    *out = c;
    return c ? 0 : CAP_E_NOMEM;
}

void cap_codec_destroy(cap_codec_t *c) {
    if (!c)
        return;
    if (c->dec)
        tjDestroy(c->dec);
    if (c->enc)
        tjDestroy(c->enc);
    free(c->pix);
    tjFree(c->jpg);
    free(c);
}

const char *cap_codec_errmsg(const cap_codec_t *c) { return c ? c->err : "out of memory"; }

/* Grows c->pix to n bytes. */
static int reserve(cap_codec_t *c, size_t n) {
    unsigned char *p;
    if (n <= c->pixcap)
        return 0;
    p = realloc(c->pix, n);
    if (!p)
        return CAP_E_NOMEM;
    c->pix = p;
    c->pixcap = n;
    return 0;
}

/* Drops the decompressor after a failure, so no state of a broken stream leaks into the next one. */
static void reset_decoder(cap_codec_t *c) {
    if (c->dec)
        tjDestroy(c->dec);
    c->dec = NULL;
}

int cap_jpeg_decode(cap_codec_t *c, const unsigned char *jpeg, size_t len, int scale_denom, cap_image_t *img,
                    int *warn) {
    int w = 0, h = 0, sub, cs, sw, sh, stride, rc = 0;
    tjscalingfactor sf;

    if (warn)
        *warn = 0;
    if (!c || !jpeg || !img ||
        (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8)) {
        if (c)
            capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode", "bad argument");
        return CAP_E_ARG;
    }
    memset(img, 0, sizeof *img);
    if (!c->dec && !(c->dec = tjInitDecompress())) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode", "tjInitDecompress: %s", tjGetErrorStr2(NULL));
        return CAP_E_NOMEM;
    }
    if (len < 4 || len > (size_t)0x7fffffff || !capi_is_jpeg(jpeg, len)) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode", "not JPEG data (%zu bytes)", len);
        return CAP_E_DECODE;
    }
    /* A "tables only" stream (e.g. cut before its frame header) passes with a size of 0. */
    if (tjDecompressHeader3(c->dec, jpeg, (unsigned long)len, &w, &h, &sub, &cs) != 0 || w < 1 || h < 1) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode", "bad JPEG header: %s",
                     w < 1 || h < 1 ? "no image in it" : tjGetErrorStr2(c->dec));
        reset_decoder(c);
        return CAP_E_DECODE;
    }
    sf.num = 1;
    sf.denom = scale_denom;
    sw = TJSCALED(w, sf);
    sh = TJSCALED(h, sf);
    if ((long long)sw * sh > CAPI_MAX_PIXELS) { /* a header of a few bytes must not cost gigabytes */
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode",
                     "image too large: %dx%d pixels (at most %lld million "
                     "are decoded)",
                     sw, sh, CAPI_MAX_PIXELS / 1000000);
        return CAP_E_UNSUPPORTED;
    }
    /* Every 8x8 block of the full-size component costs at least one bit of Huffman-coded data: a file
     * stating more pixels than 512 a byte is cut short or forged, and decoding it would make up grey
     * pixels at the cost of up to CAPI_MAX_PIXELS of memory and seconds of time. Real photos and
     * camera frames carry 2-8 pixels a byte. */
    if ((long long)w * h > CAPI_JPEG_PIXELS_PER_BYTE * (long long)len) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode",
                     "damaged JPEG: its header states %dx%d pixels, too many for its %zu bytes (cut short?)",
                     w, h, len);
        return CAP_E_DECODE;
    }
    stride = sw * 3;
    if ((rc = reserve(c, (size_t)stride * (size_t)sh)) != 0) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode", "out of memory for %dx%d", sw, sh);
        return rc;
    }
    /* TJFLAG_FASTDCT is not used: its error shows at 1/1 scale and speed is the same with SIMD. */
    if (tjDecompress2(c->dec, jpeg, (unsigned long)len, c->pix, sw, stride, sh, TJPF_BGR, 0) != 0) {
        if (tjGetErrorCode(c->dec) == TJERR_WARNING) {
            if (warn)
                *warn = 1;
            capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode", "damaged JPEG: %s",
                         tjGetErrorStr2(c->dec));
        } else {
            capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_decode", "cannot decode: %s",
                         tjGetErrorStr2(c->dec));
            reset_decoder(c);
            return CAP_E_DECODE;
        }
    }
    img->width = sw;
    img->height = sh;
    img->stride = stride;
    img->data = c->pix;
    return 0;
}

int cap_jpeg_encode(cap_codec_t *c, const cap_image_t *img, int quality, const unsigned char **out,
                    size_t *outlen) {
    unsigned long len, need;
    if (!c || !img || !img->data || img->width < 1 || img->height < 1 || img->stride < 3 * img->width ||
        quality < 1 || quality > 100 || !out || !outlen) {
        if (c)
            capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_encode", "bad argument");
        return CAP_E_ARG;
    }
    if (!c->enc && !(c->enc = tjInitCompress())) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_encode", "tjInitCompress: %s", tjGetErrorStr2(NULL));
        return CAP_E_NOMEM;
    }
    /* A buffer of the worst-case size, kept between calls, so TurboJPEG never reallocates. */
    need = tjBufSize(img->width, img->height, TJSAMP_420);
    if (need == (unsigned long)-1) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_encode", "image too large");
        return CAP_E_ARG;
    }
    if (c->jpgcap < need) {
        tjFree(c->jpg);
        c->jpgcap = 0;
        if (!(c->jpg = tjAlloc((int)need))) {
            capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_encode", "out of memory");
            return CAP_E_NOMEM;
        }
        c->jpgcap = need;
    }
    len = c->jpgcap;
    if (tjCompress2(c->enc, img->data, img->width, img->stride, img->height, TJPF_BGR, &c->jpg, &len,
                    TJSAMP_420, quality, TJFLAG_NOREALLOC) != 0) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_encode", "%s", tjGetErrorStr2(c->enc));
        return CAP_E_IO;
    }
    *out = c->jpg;
    *outlen = len;
    return 0;
}

int cap_jpeg_write(cap_codec_t *c, const cap_image_t *img, int quality, const char *path) {
    const unsigned char *data;
    size_t len;
    char *tmp = NULL;
    FILE *f = NULL;
    int rc;

    if (!path) {
        if (c)
            capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_write", "no path");
        return CAP_E_ARG;
    }
    if ((rc = cap_jpeg_encode(c, img, quality, &data, &len)) != 0)
        return rc;
    if (asprintf(&tmp, "%s.tmp", path) < 0) {
        tmp = NULL;
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_write", "out of memory");
        return CAP_E_NOMEM;
    }
    f = fopen(tmp, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_write", "%s: %s", tmp, strerror(errno));
        rc = CAP_E_IO;
        goto out;
    }
    if (fclose(f) != 0) {
        f = NULL;
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_write", "%s: %s", tmp, strerror(errno));
        rc = CAP_E_IO;
        goto out;
    }
    f = NULL;
    if (rename(tmp, path) != 0) {
        capi_fmt_err(c->err, sizeof c->err, "cap_jpeg_write", "%s: %s", path, strerror(errno));
        rc = CAP_E_IO;
    }
out:
    if (f)
        fclose(f);
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}
