/* output_internal.h - what output.c and review.c share (not part of the module's API). dir/name
 * must fit in 4096 bytes; a -1 return leaves errno as the failing call set it. */
#ifndef KIFUCAM_OUTPUT_INTERNAL_H
#define KIFUCAM_OUTPUT_INTERNAL_H

#include <stddef.h>

#include "recorder/output/output.h"

/* A copy of a frame's pixels (packed BGR8), owned by the output handle; its buffer grows as needed
 * and is reused from frame to frame. */
typedef struct {
    cap_image_t img;     /* view of data, stride = 3 * width */
    unsigned char *data; /* owned, cap bytes */
    size_t cap;          /* bytes allocated at data */
    int valid;           /* 1 when img holds a frame */
} rec_out_frame_t;

/* Writes data[0..len) to dir/name through dir/.name.tmp: write, fsync, rename, fsync the folder.
 * Returns 0, or -1 with errno set. */
int rec_out_write_atomic(const char *dir, const char *name, const char *data, size_t len);

/* Parses one events.jsonl line into *e (fields the line lacks are zero / none). 0, or -1 if the line
 * is not an event. */
int rec_out_event_from_json(const char *line, rec_trk_event_t *e);

/* Rewrites dir/review.html (atomically) from t's events; evidence links are relative
 * (evidence/NNNN-before.jpg), written when the JPEG exists. 0, or -1 with errno set. */
int rec_out_write_review(const char *dir, const rec_trk_t *t);

/* Writes m to dir/meta.json (atomically). 0, or -1 with errno set. */
int rec_out_meta_save(const char *dir, const rec_out_meta_t *m);

/* Sets k's headers from m's given fields (棋戦 場所 回戦 盤番号 先手 後手). 0, or -1 out of memory. */
int rec_out_meta_headers(rec_kifu_t *k, const rec_out_meta_t *m);

#endif
