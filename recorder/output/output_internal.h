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

/* Where the board lies in an event's evidence frames: the frame's size and the grid's corners as
 * rec_obs_t.board_px (pixels); known 0 when the event has no frame or the board's place is unknown. */
typedef struct {
    int known;
    int width, height;
    float px[4][2];
} rec_out_geom_t;

/* Reads an events.jsonl line's "board_px" ([x0, y0, ... x3, y3, width, height]) into *g (known 0 if
 * none). */
void rec_out_geom_from_json(const char *line, rec_out_geom_t *g);

/* Rewrites dir/review.html (atomically) from t's events; geom[seq] (ngeom entries, may be NULL) says
 * where the board lies in event seq's frames. Evidence links are relative (rec_out_evidence_name),
 * written when the JPEG exists; events whose frame is missing are listed. 0, or -1 with errno set. */
int rec_out_write_review(const char *dir, const rec_trk_t *t, const rec_out_geom_t *geom, int ngeom);

/* Writes m to dir/meta.json (atomically). 0, or -1 with errno set. */
int rec_out_meta_save(const char *dir, const rec_out_meta_t *m);

/* Sets k's headers from m's given fields (棋戦 場所 回戦 盤番号 先手 後手). 0, or -1 out of memory. */
int rec_out_meta_headers(rec_kifu_t *k, const rec_out_meta_t *m);

#endif
