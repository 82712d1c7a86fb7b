/* record_internal.h - what the files of recorder/record/ share: the recording's state (rec_loop_t)
 * and the steps each file gives the others. Internal to the library; the contract is record.h. */
#ifndef KIFUCAM_RECORD_INTERNAL_H
#define KIFUCAM_RECORD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "recorder/hall/hall.h"
#include "recorder/output/live.h"
#include "recorder/output/output.h"
#include "recorder/record/adapt.h"
#include "recorder/record/record.h"
#include "recorder/record/view.h"
#include "vision/vision.h"

/* Readings between two full ones when only the changed squares are read (vis_classifier_read_changed). */
#define REC_FULL_READ_EVERY 16
/* A still view is read again this often after its first readings, us of the frames' clock. */
#define REC_STILL_REREAD_US 1000000

/* The state of one recording (rec_record_run), borrowed by every step. Times are us of the frames'
 * clock (cap_frame_t ts_us) unless said otherwise; -1 means none. The groups the vision steps of
 * record.c read by field name are anonymous members; the others are named. See
 * docs/recording-loop.md. */
typedef struct {
    /* ---- what every step uses */
    const rec_record_opts_t *o; /* the options (borrowed from the caller) */
    rec_record_stats_t *st;     /* the counters returned to the caller (borrowed) */
    rec_trk_t *trk;             /* the tracker (owned) */
    rec_out_t *out;             /* the output files (owned) */
    rec_obs_t *obs;             /* the observation given to the tracker, reused each frame (owned) */
    vis_board_read_t *rd;       /* the current reading, network frame (owned) */
    char err[4800];             /* the reason of a failure, one line */

    /* ---- the source and its clock */
    struct {
        cap_source_t *src;         /* the capture source (owned) */
        int64_t ts;                /* the current frame's time, us; never goes backwards */
        int64_t ts0;               /* the first frame's time, us; -1 before */
        int64_t skip_until;        /* --resume of a file: frames up to this time are in the log, us; -1 */
        int refill_failed;         /* 1 once a missing evidence frame could not be written again */
        int64_t log_base;          /* time the log lines count from: the source's first frame, skipped or
                                      not (a resumed file's lines keep the media time), us; -1 before */
        uint64_t corrupt_seen;     /* corrupt frames of the source already logged (or skipped by --resume) */
        int64_t damaged_logged_ts; /* time of the last frames_damaged event, us; -1 before any */
        int64_t lost_since;        /* first frame of the current stretch of damaged frames not read, us; -1 */
        unsigned lost_n;           /* frames of that stretch */
        int damage_warned;         /* bits said on stderr: 1 corrupt frames, 2 frames decoded with errors */
    };

    /* ---- vision: the board's pose, its stability, orientation and stands */
    struct {
        vis_classifier_t *clf;   /* the square classifier (owned) */
        vis_stability_t *stab;   /* the stability test of the found pose (owned), NULL while lost */
        vis_pose_t pose;         /* the board's pose, image pixels */
        vis_pose_t cand;         /* the last pose search's best grid below the threshold */
        int have_cand;           /* 1: cand is worth comparing with the next search */
        int have_pose;           /* 1: the board is found */
        int64_t since_search;    /* frames since the last pose search while lost */
        int64_t last_stable_ts;  /* time of the last stable frame (or of the pose being found), us */
        int64_t last_recheck_ts; /* time of the last re-check of a found pose, us */
        int reads_this_view;     /* network readings of the current still view */
        int64_t last_read_ts;    /* time of the last network reading, us */
        int have_read;           /* 1: obs holds a reading of the current still view */
        int view_state;          /* the last VIS_VIEW_* state, for the progress line */
        int flip;                /* 1: sente sits at the far end of the turn the network reads best (the
                                    readings are turned by 180 degrees, owners swapped) */
        int orient_decided;      /* 1 once sente's side is known (the even start looks the same from both
                                    ends of the board until a first move) */
        int64_t withheld_since;  /* time of the first withheld view, us; -1 if none */
        int64_t start_grid_ts;   /* time of the last start_grid.c check of a setup view, us; -1 if none */
        int start_grid_n;        /* start_grid.c checks of the current pose */
        int withhold;            /* 1: the current still view is not given to the tracker (undecided
                                    orientation and a view no first move explains) */
        unsigned char *kthumb;   /* the stands' thumbnail (kthumb_w^2 BGR) at the last komadai read (owned) */
        int kthumb_w;            /* its side, pixels */
        double kthumb_H[9];      /* the homography it was warped with */
        int have_hands_last;     /* 1: hand_*_last hold the last komadai reading */
        uint8_t hand_known_last[RUL_COLOR_NB];
        float hand_prob_last[RUL_COLOR_NB][RUL_HAND_NB][REC_OBS_COUNT_NB];
    };

    /* ---- piece-set adaptation (adapt.h, adapt_glue.c) */
    struct {
        rec_adapt_t *set;                /* the piece set's prototypes (owned), NULL: --no-adapt */
        rec_adapt_t *hyp;                /* scratch: the prototypes of one supposed start (owned) */
        float (*hyp_prob)[VIS_CLASS_NB]; /* scratch: 81 rows, a supposed start's adapted reading (owned) */
        vis_board_read_t *rd2;           /* scratch: a reading judged under one supposed start (owned) */
        int pending;                     /* 1 after --resume: learn the first reading that places the pieces
                                            as the game's position does (the log has no views) */
    } adapt;

    /* ---- the log and the live feed */
    struct {
        int nev_logged;         /* tracker events already reported on the log */
        int last_end_ply;       /* moves of the game that ended last (its game_end event's ply) */
        double t_start;         /* wall clock at the start, s (rec_loop_now_s) */
        double t_last_progress; /* wall clock of the last progress line, s */
        char progress[200];     /* the progress line on the terminal now (but its fps), "" when a log line
                                   cleared it */
    } log;
    struct {
        rec_live_t *feed; /* --live: the feed (owned), NULL if none */
        int eof;          /* 1: the source ended (the feed says so at the end) */
        int nev;          /* tracker events when the feed was last published; -1 before */
        const char *view; /* the view state's words (state_name) then */
        rec_pub_t *pub;   /* --mqtt: the board's publisher (owned), NULL if none */
        double pub_since; /* rec_loop_now_s when the publisher was opened */
        int pub_said;     /* 1: the log said the broker is not connected (and not that it came back) */
    } live;

    /* ---- operator commands: standard input and the control socket */
    struct {
        char buf[512]; /* bytes read, not yet a complete line */
        size_t len;    /* bytes in buf */
        int open;      /* 1 until the end of o->cmd_fd */
    } cmd;
    struct {
        int fd; /* --control: the listening Unix socket, -1 if none */
        struct {
            int fd;        /* a connected client, -1: free slot */
            char buf[512]; /* bytes read, not yet a complete line */
            size_t len;    /* bytes in buf */
        } client[REC_CTL_CLIENTS];
    } ctl;

    /* ---- statistics (into *st at the end) */
    struct {
        double read_ms_sum; /* wall time of all board readings, ms */
        int64_t moved_ts;   /* time of the last frame that moved or showed a hand, us; -1 none: the first
                               frame without the hand when the view is still after it */
        double *lat_ms;     /* latency of each live move: its event's frame minus moved_ts, ms (owned) */
        int nlat, caplat;   /* latencies in lat_ms, and its room */
    } stats;
} rec_loop_t;

/* ---- loop.c: the log, the progress line, the outputs */

double rec_loop_now_s(void); /* the monotonic clock, s: only for wall-time statistics */
/* Formats one line into err (errlen bytes; err may be NULL) and returns rc. */
int set_err(char *err, size_t errlen, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* One log line on o->log, stamped with the frames' time since the first frame. */
void logline(rec_loop_t *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends one board/source event to OUT/source.jsonl (fsync'd) and logs it. */
void source_event(rec_loop_t *L, const char *type, const char *detail);
/* Writes the tracker's new events (obs NULL after a command) and reports them; REC_EIO with L->err. */
int flush_out(rec_loop_t *L, const rec_obs_t *obs);
void rec_loop_progress(rec_loop_t *L, int force); /* the progress line of a terminal (force: now) */
void rec_loop_live_update(
    rec_loop_t *L); /* publishes to the live feed and the broker when something changed */

/* ---- commands.c: operator commands */

/* Runs the complete lines of buf (*len bytes of cap; a full buffer is one line) from the source named
 * from, answering each on reply_fd (-1: none). *quit = 1 after `abort`. REC_OK or a fatal error. */
int rec_loop_run_lines(rec_loop_t *L, char *buf, size_t cap, size_t *len, const char *from, int reply_fd,
                       int *quit);
/* Runs the lines o->cmd_fd has (never blocks). *quit = 1 after `abort`. */
int rec_loop_poll_commands(rec_loop_t *L, int *quit);

/* ---- control.c: the control socket (--control) */

int rec_loop_control_open(rec_loop_t *L, const char *path); /* listens at path; REC_EIO with L->err */
int rec_loop_poll_control(rec_loop_t *L, int *quit);        /* accepts clients, runs their lines */
void rec_loop_control_close(rec_loop_t *L);                 /* closes all, removes the socket file */

/* ---- record.c: vision (the board's pose, orientation, stability, komadai) */

int feed_view(rec_loop_t *L, int view, const cap_image_t *img);     /* a view that is not read */
void drop_pose(rec_loop_t *L);                                      /* forgets the board's pose */
int search_pose(rec_loop_t *L, const cap_image_t *img, int *found); /* finds and orients the board */
int recheck_pose(rec_loop_t *L, const cap_image_t *img);            /* is the board still there? */
int resolve_orientation(rec_loop_t *L); /* 1: the view may go to the tracker, 0: withheld */
void read_komadai(rec_loop_t *L, const cap_image_t *img, int force); /* the stands into L->obs */

/* ---- start_grid.c: the grid a square off at the setup, put back where the start says */

int rec_loop_start_grid(rec_loop_t *L, const cap_image_t *img, int *moved); /* *moved 1: pose moved */

/* ---- adapt_glue.c: piece-set adaptation (adapt.h) in the loop */

void rec_loop_adapt_read(rec_loop_t *L);            /* reweighs a fresh reading by the piece set */
void rec_loop_adapt_resumed(rec_loop_t *L);         /* after --resume: learns the game's position */
void rec_loop_adapt_learn(rec_loop_t *L, int nnew); /* learns the view of a written start or move */

#endif /* KIFUCAM_RECORD_INTERNAL_H */
