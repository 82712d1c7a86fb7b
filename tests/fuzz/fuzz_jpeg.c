/* fuzz_jpeg.c - libFuzzer harness for the JPEG path of capture/: a camera's MJPEG frames as the V4L2
 * source decodes them (cap_jpeg_decode on one codec kept from frame to frame, so that a broken frame
 * must leave nothing behind for the next), and a photo as cap_image_load reads it (the EXIF
 * orientation through libexif, the turn applied). The first byte picks: bits 0..1 the scale (1, 2, 4,
 * 8: --source ...?scale=), bit 2 the photo path; the rest is the frame. A decoded image must be as large
 * as it says (every byte of it is read) and small ones are encoded again as evidence frames are.
 * FUZZ_VERBOSE=1 in the environment prints each frame's size or error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads every byte of img (an image shorter than its size says is a heap overflow under ASan). */
static unsigned sum_of(const cap_image_t *img) {
    unsigned s = 0;
    for (int y = 0; y < img->height; y++) {
        const unsigned char *row = img->data + (size_t)y * (size_t)img->stride;
        for (int x = 0; x < img->width * 3; x++)
            s += row[x];
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static cap_codec_t *camera; /* one codec for all frames, as a camera source has */
    static const int scales[] = {1, 2, 4, 8};
    if (size < 1)
        return 0;
    if (camera == NULL && cap_codec_create(&camera) != 0)
        abort();
    int scale = scales[data[0] & 3];
    /* an exact copy: a read past the frame is caught (a camera's buffer is larger, a file is not) */
    unsigned char *frame = malloc(size - 1 ? size - 1 : 1);
    if (frame == NULL)
        abort();
    memcpy(frame, data + 1, size - 1);
    cap_image_t img;
    int warn = 0, rc = cap_jpeg_decode(camera, frame, size - 1, scale, &img, &warn);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "jpeg: %dx%d%s %s\n", rc ? 0 : img.width, rc ? 0 : img.height, warn ? " damaged" : "",
                rc ? cap_codec_errmsg(camera) : "");
    if (rc == 0) {
        if (img.width < 1 || img.height < 1 || img.stride < 3 * img.width || img.data == NULL)
            abort();
        volatile unsigned s = sum_of(&img);
        (void)s;
        if (data[0] & 4) {
            cap_image_t turned;
            if (capi_orient(&img, capi_exif_orientation(frame, size - 1), &turned) == 0) {
                s = sum_of(&turned);
                cap_image_free(&turned);
            }
        }
        if ((long long)img.width * img.height <= 64 * 64) {
            const unsigned char *out;
            size_t outlen;
            if (cap_jpeg_encode(camera, &img, 85, &out, &outlen) != 0 || outlen < 4)
                abort(); /* an image we decoded can be written as evidence */
        }
    } else if (cap_codec_errmsg(camera)[0] == '\0') {
        abort(); /* a refused frame says why */
    }
    free(frame);
    return 0;
}
