/* record.h - `kifucam record`: the live loop that ties capture, vision and the tracker together.
 *
 * One source (camera, video file, image folder) is read frame by frame. The board pose is searched
 * (vis_pose_find, slow) on the first frames and again every `pose_retry_frames` frames until found;
 * then each frame goes through the cheap stability test, and a stable view is read (81 squares in one
 * batched forward), turned into an observation and fed to the tracker (rec_trk_*), whose events are
 * written by the outputs (rec_out_*: kifu files, events.jsonl, evidence JPEGs, review.html). Board and
 * source events that the tracker's log has no type for (board found / lost, camera lost / back,
 * corrupt frames, end of source, interrupted) go one JSON object a line to OUT/source.jsonl.
 * Operator commands (resign sente|gote, declare, flag sente|gote, abort) are read one a line from a
 * file descriptor with poll(), without blocking the loop.
 *
 * Conventions as tracker.h: REC_OK or a negative REC_E* code; err buffers get one line. How the loop is
 * built and why: docs/recording-loop.md; its measurements: docs/EVALUATION.md. */
#ifndef KIFUCAM_RECORD_H
#define KIFUCAM_RECORD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "recorder/output/output.h"
#include "recorder/record/adapt.h"
#include "recorder/recorder.h"
#include "recorder/tracker/tracker.h"
#include "vision/vision.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REC_CTL_CLIENTS 4 /* control socket connections served at once */

/* Options of one recording. Fill with rec_record_opts_default(), then set source and what you need. */
typedef struct {
    const char *source;     /* capture URI (capture.h); required */
    const char *out_dir;    /* output folder (created); default "kifucam-out" */
    const rul_pos_t *start; /* the expected start position, NULL: any standard start (even or handicap) */
    const char *model;      /* ONNX square classifier; default "models/squares.onnx" */
    int resume;             /* 1: continue the recording in out_dir from its events.jsonl; a file or
                               folder source skips its frames up to the last logged event's time */
    rec_trk_params_t trk;   /* tracker parameters (impasse rule for `declare` among them) */
    vis_stability_params_t stab; /* stability test parameters */
    vis_pose_params_t pose;      /* pose search parameters */
    int pose_retry_frames;  /* frames between two pose searches while no board is found, >= 1; default 5 */
    double pose_relax;      /* a grid scoring within this much under pose.min_score in the same place
                               (0.15 square) in two searches running is taken as the board; 0: never;
                               default 0.05 */
    int64_t recheck_us;     /* a view that has not been stable for this long (a hand resting, the
                               board moved, a changed komadai) makes the pose be checked again; default 2 s */
    int max_reads_per_view; /* stable frames of one still view read by the network; later frames of
                               the same view re-feed the last reading (cheap); >= 1; default 3 */
    double reread_diff;     /* a reading sends through the network only the squares whose crop changed
                               by more than this (mean absolute difference, 0..1) since the network
                               last read them (vis_classifier_read_changed), and every 16th reading
                               all 81; the others keep their last reading. 0: all 81 every time.
                               Default 0.008 (docs/EVALUATION.md, "The recording loop") */
    double fps;             /* image folders: frames per second for the timestamps (0: 30) */
    int cmd_fd;             /* operator commands, one a line (poll()ed, never blocks); -1: none */
    FILE *log;              /* progress and event lines; NULL: none */
    int log_tty;            /* 1: one progress line rewritten in place (a terminal); 0: plain lines */
    volatile sig_atomic_t *stop; /* when it becomes non-zero (a signal handler), the recording ends
                                    cleanly after the current frame, files flushed; may be NULL */
    int64_t max_frames;          /* stop after this many frames (0: no limit) */
    int verbose;                 /* 1: log every board reading (its SFEN) and every change of view state */
    int live_port;               /* serve the live feed (live.h) on this TCP port, 0 = any free one;
                                    -1: no feed (default) */
    const char *live_addr;       /* ... on this local address (an IP literal, "0.0.0.0": every interface);
                                    NULL: 127.0.0.1, this machine only (default) */
    int adapt;                   /* 1: adapt the readings to the piece set on the board (adapt.h): the
                                    supposed start judged leave-one-out before the first move, the
                                    prototypes of every class seen since after each written move;
                                    0: the network's probabilities as they are. Default 1 */
    int turned;                  /* 1: each square the network reads is also read turned by 180 degrees and
                                    the two merged (vis_classifier_set_turned; the test-time turn that
                                    `recognize` also uses); 0: read once (--no-turned). Default 1 */
    double degrade;              /* evaluation only (the stress row of make eval-matrix): each square's
                                    probabilities mixed with a random distribution as (1 - degrade) p +
                                    degrade r, r drawn per frame and square from a fixed seed, so that the
                                    tracker's safety is measured on a classifier that misreads; 0..1,
                                    default 0 (off) */
    const char *control_path;    /* operator commands also from a Unix stream socket created at this
                                    path (a stale socket there is replaced, removed at the end); each
                                    line is answered "ok: CMD" or "refused: CMD: why"; NULL: none */
    const rec_out_meta_t *meta;  /* who plays where (output.h), into every kifu file's headers and
                                    OUT/meta.json; its given fields replace a resumed folder's; NULL:
                                    none (a resumed folder keeps its meta.json) */
    const char *mqtt_url;        /* publish the board (meta's board id) to this MQTT broker as the
                                    recording goes (recorder/hall/hall.h); NULL: none */
    int realtime;                /* 1: a file or folder source is read no faster than its frame times
                                    (from the first frame processed: a --resume skips the rest at full
                                    speed), as a camera would give it; a loop slower than that just
                                    falls behind. Default 0: as fast as it goes */
} rec_record_opts_t;

/* What happened, for the caller and the tests. */
typedef struct {
    uint64_t frames;        /* frames read from the source */
    uint64_t reads;         /* board readings by the network */
    uint64_t squares_read;  /* squares those readings sent through the network (81 a full reading) */
    uint64_t komadai_reads; /* readings of the stands (the others kept the last one: nothing changed there) */
    uint64_t corrupt;       /* corrupt frames skipped by capture */
    uint64_t dropped;       /* frames lost (sequence gaps) */
    int pose_searches;      /* calls of vis_pose_find */
    int board_found;        /* times the board was found (1 + re-finds) */
    int board_lost;         /* times it was declared lost */
    int camera_lost;        /* times the camera went away */
    int moves;              /* move and illegal-move events of the recording (all games) */
    int uncertain;          /* uncertain events */
    int setup_errors;       /* setup_error events */
    int setup_other;        /* rul_handicap_t of the standard start a setup_error said the board
                               matches instead of the one given (--start / --handicap), -1: none */
    int events;             /* tracker events in all */
    int games;              /* games in the output folder: started here, plus those of a --resume log */
    int taken_up;           /* of those, games that take a game up again after it was lost track of
                               (game_start with continues, tracker resync_after_us) */
    int evidence_refilled;  /* --resume of a file: evidence frames of logged events that were missing
                               (a full disk) written again from the replayed source */
    int game_over;          /* 1 when the last game has ended */
    int aborted;            /* 1: ended by an `abort` command; 2: by the stop flag */
    double wall_s;          /* seconds the loop ran */
    double fps;             /* frames / wall_s */
    double read_ms;         /* mean milliseconds of one board reading */
    int latency_n;          /* live moves timed (not hidden, not written late) */
    double latency_median_ms; /* latency of those moves, median and 95th percentile (nearest rank), ms
                                 of the frames' clock: from the first frame without the hand (the last
                                 frame that moved) to the frame whose reading wrote the move; the time
                                 a reading takes is not in it (a video file waits for it) */
    double latency_p95_ms;
    char last_move[24];        /* last move in Western notation, "" if none */
    int last_ply;              /* ply of the last move or illegal-move event (0 if none) */
    int64_t last_move_us;      /* its timestamp (frames' clock, µs), -1 if none */
    int64_t last_uncertain_us; /* timestamp of the last uncertain event, -1 if none */
    int64_t end_us;            /* timestamp of the last frame read, -1 if none */
    int64_t last_damage_us;    /* the last place frames were lost or damaged (corrupt frames, frames decoded
                                  from damaged data, a gap of frames_dropped), frames' clock (µs), -1 if
                                  none: after last_move_us, moves may be missing from the end of the record */
    int adapt_learned;         /* views the piece-set adaptation learned from (one a written move or start) */
    int adapt_classes;         /* classes with a prototype at the end (0..29) */
    int adapt_off; /* 0: adaptation on; 1: off by the options (--no-adapt); 2: off, the model gives
                      no embeddings (29 outputs instead of 29 + VIS_FEAT_NB) */
} rec_record_stats_t;

/* The square classifier to use when none is given: $KIFUCAM_MODEL if set; else the first that exists of
 * models/squares.onnx (the current folder: the source tree), EXE/../models/squares.onnx (the build
 * folder of a source tree) and EXE/../share/kifucam/squares.onnx (`make install`), EXE being the folder
 * of the running program (/proc/self/exe); else models/squares.onnx, for the error message. Written
 * into buf (size bytes); returns buf. */
const char *rec_model_default(char *buf, size_t size);

/* Fills *o with the defaults above (source NULL). */
void rec_record_opts_default(rec_record_opts_t *o);

/* Records: runs until the source ends, an `abort` command, or *o->stop. *st (may be NULL) gets the
 * counters. Errors: REC_ERANGE (bad options), REC_ESOURCE (cannot open / read the source), REC_ENOBOARD,
 * REC_EMODEL, REC_EIO (output folder or files; also --resume without events.jsonl), REC_EPARSE (a
 * resume log that is not one), REC_EVISION, REC_ENOMEM; err (errlen bytes) gets the reason. Files
 * written until then stay, complete. */
int rec_record_run(const rec_record_opts_t *o, rec_record_stats_t *st, char *err, size_t errlen);

/* ---- a piece set learned from a photo of its start position (kifucam recognize --reference) */

#define REC_REF_MAX_MISS                                                                                     \
    8 /* squares a reference photo's empty / sente / gote may differ from the start by: a few pieces         \
         set up out of place or already moved, or misread as nothing */

/* What rec_adapt_learn_start did. */
typedef struct {
    int misses;  /* squares whose likeliest of empty / sente piece / gote piece is not the start's */
    int turned;  /* 1: the start fitted the reading turned by 180 degrees (a handicap seen from
                    gote's end) */
    int learned; /* squares learned: those whose reading, judged by the other squares' prototypes
                    (leave-one-out), is the start's class */
} rec_ref_t;

/* Learns into a (emptied first) the piece set of rd, the reading of a photo of that set in the start
 * position start (vis_photo_read's board, with embeddings), as the recorder learns the start of a game
 * (adapt_glue.c): the start's classes label the 81 squares, each square is judged by the prototypes of
 * the others (rec_adapt_apply's own), and the squares judged as the start's class are learned (a piece
 * out of place, or a square that looks like another class's, is left out). Returns REC_OK with *out
 * filled, or REC_EINVALID when more than REC_REF_MAX_MISS squares differ from the start either way
 * round (not that start: *out says how far; a is left empty), REC_ESTATE when rd has no embeddings (an
 * older model), REC_ERANGE (NULL), REC_ENOMEM. */
int rec_adapt_learn_start(rec_adapt_t *a, const vis_board_read_t *rd, const rul_pos_t *start, rec_ref_t *out);

/* Removes from the NUL-terminated msg, in place, the library function names its text starts with or
 * passes on ("cap_source_open: ", "cap_jpeg_decode: ": the convention of capture.h and vision.h), which
 * tell a user nothing: a word of lower-case letters, digits and '_' starting with "cap_", "vis_", "rec_"
 * or "rul_", at the start or after a space, followed by ": ". The user error lines of every kifucam
 * command go through it; internal failures (exit 2) keep the names for a bug report. NULL: nothing. */
void rec_plain_message(char *msg);

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_RECORD_H */
