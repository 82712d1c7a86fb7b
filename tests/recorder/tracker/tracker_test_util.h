/* tracker_test_util.h - synthetic observation streams from real games for the tracker and output
 * tests: a game (start + moves), a stream generator (noise, hands in view, blackouts, a nudge) and the
 * comparison of the tracker's moves with the game's. */
#ifndef KIFUCAM_TRACKER_TEST_UTIL_H
#define KIFUCAM_TRACKER_TEST_UTIL_H

#include "recorder/tracker/tracker.h"
#include "rules/rules.h"

#define TT_MAX_MOVES 1024

/* A game to replay: its start and main-line moves (the last may be illegal). */
typedef struct {
    char start_sfen[160];
    rul_move_t moves[TT_MAX_MOVES];
    int nmoves; /* moves[0..nmoves-1] */
    int nlegal; /* moves before the first illegal one */
} tt_game_t;

/* From a USI "position ..." line, or a kifu file (rec_kifu_read_file). 0 or -1. */
int tt_game_from_usi(tt_game_t *g, const char *usi);
int tt_game_from_file(tt_game_t *g, const char *path);

/* How the stream is made. */
typedef struct {
    unsigned seed;        /* random seed */
    int noise;            /* 0: certain readings; 1: noisy probabilities, uncertain and hidden squares */
    double blackout_rate; /* per move, chance that the next blackout_min..blackout_max moves are made
                             with the camera blind */
    int blackout_min, blackout_max; /* moves a blackout hides, 2 <= min <= max; default 2 and 3 */
    int lost_from, lost_count;      /* moves lost_from..lost_from+lost_count-1 (0-based) are also made with
                                       the camera blind (a spectator in front of it); lost_count 0: none */
    int nudge;                /* 1: once in the game, a piece is nudged half off its square (FESA 9.2) */
    int stable_frames;        /* stable frames after each move (noise adds 0..2), 10 fps */
    int think_frames;         /* hand-in-view frames before each move */
    int end_frames;           /* stable frames after the last move */
    const cap_image_t *image; /* attached to every observation (outputs test), may be NULL */
    const rec_trk_params_t *trk_params; /* the tracker's parameters, NULL: the defaults */
    /* called after every feed (outputs test), may be NULL */
    void (*after_feed)(void *user, rec_trk_t *t, const rec_obs_t *obs);
    void *user;
} tt_stream_params_t;

/* What came out, compared with the game. */
typedef struct {
    int right;     /* move events equal to the game's move at their ply */
    int wrong;     /* move events that are not */
    int skipped;   /* game moves not written between a game's stop and the game that takes it up
                      (hidden moves whose order no view tells, two ways to one position) */
    int missing;   /* legal game moves with no move event, not skipped */
    int uncertain; /* uncertain events */
    int illegal;   /* illegal_move events */
    int blackouts, hidden_moves, nudges, frames;
    int game_starts, setup_errors;
} tt_result_t;

void tt_stream_params_default(tt_stream_params_t *sp);

/* Feeds the stream of g to a new tracker (standard starts; g's start when it is not one); fills *r.
 * keep: if not NULL, receives the tracker (caller destroys it); else it is destroyed. */
void tt_run(const tt_game_t *g, const tt_stream_params_t *sp, rec_trk_t **keep, tt_result_t *r);

/* Compares the move events of game `game` of t, and of the games that take it up, with g. */
void tt_compare(const tt_game_t *g, const rec_trk_t *t, int game, tt_result_t *r);

void tt_result_add(tt_result_t *sum, const tt_result_t *r);

#endif
