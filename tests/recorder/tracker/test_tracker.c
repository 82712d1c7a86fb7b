/* test_tracker.c - recorder/tracker/tracker.c: real games turned into streams of synthetic observations
 * (noisy per-square probabilities, hands in view between moves, blackouts hiding 2-3 moves, a nudged
 * piece) must give back exactly the game's moves; illegal moves, sennichite and perpetual check at
 * their ply; ambiguous views "uncertain", never a guess; setup errors, commands, new games. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/kifu.h"
#include "recorder/tracker/tracker.h"
#include "rules/rules.h"
#include "tests/recorder/tracker/tracker_test_util.h"
#include "tests/tests.h"

/* The first 70 moves of samples/sample-game.usi (WCSC32 NBS-DLS, see samples/README.md): captures,
 * drops, promotions. */
static const char *const SMALL_GAME =
    "position startpos moves 2g2f 8c8d 2f2e 8d8e 7g7f 4a3b 8h7g 3c3d 7i8h 2b7g+ 8h7g 3a2b 6i7h 2b3c 3i3h "
    "7c7d 3g3f 7a6b 4g4f 5a4b 3h4g 1c1d 1g1f 9c9d 9g9f 8a7c 5i6h 6c6d 2i3g 6b6c 4i4h 6a6b 4g5f 8b8a 6g6f "
    "6c5d 2h2i 4b5b 6h7i 4c4d 7i8h 8a4a 2i2h 4a8a 4h5h 6d6e 6f6e 7c6e 7g6f P*6d 5h6h 8e8f 8g8f 8a8f P*8g "
    "8f8a 4f4e 4d4e 3g4e 3c4d 2e2d 2c2d 2h2d B*4f 3f3e P*2c 2d3d 5d4c 3d3b+ 4c3b";

/* ---------------------------------------------------------------- the small embedded game */

static void test_small_game_clean(void) {
    tt_game_t g;
    tt_stream_params_t sp;
    tt_result_t r;
    TESTS_CHECK(tt_game_from_usi(&g, SMALL_GAME) == 0, "small game parses");
    tt_stream_params_default(&sp);
    sp.noise = 0; /* certain readings, no blackout */
    sp.blackout_rate = 0;
    sp.nudge = 0;
    tt_run(&g, &sp, NULL, &r);
    TESTS_CHECK(r.right == g.nmoves && r.wrong == 0 && r.uncertain == 0 && r.missing == 0,
                "clean: %d/%d right, %d wrong, %d uncertain, %d missing", r.right, g.nmoves, r.wrong,
                r.uncertain, r.missing);
    TESTS_CHECK(r.game_starts == 1 && r.setup_errors == 0, "one game start (%d), no setup error (%d)",
                r.game_starts, r.setup_errors);
}

static void test_small_game_noisy(void) {
    tt_game_t g;
    tt_stream_params_t sp;
    tt_result_t r;
    tt_game_from_usi(&g, SMALL_GAME);
    for (unsigned seed = 1; seed <= 4; seed++) {
        tt_stream_params_default(&sp);
        sp.seed = seed;
        tt_run(&g, &sp, NULL, &r);
        TESTS_CHECK(r.wrong == 0 && r.missing == 0 && r.right + r.skipped == g.nmoves && r.uncertain == 0,
                    "seed %u: %d/%d right (+%d skipped), %d wrong, %d uncertain, %d missing (blackouts %d, "
                    "nudges %d)",
                    seed, r.right, g.nmoves, r.skipped, r.wrong, r.uncertain, r.missing, r.blackouts,
                    r.nudges);
        TESTS_CHECK(r.blackouts > 0 && r.hidden_moves > 0,
                    "seed %u: blackouts happened (%d, %d hidden moves)", seed, r.blackouts, r.hidden_moves);
        TESTS_CHECK(r.illegal == 0, "seed %u: no illegal move invented (%d)", seed, r.illegal);
    }
}

/* Per-move times come from the timestamps: the first stable frame after the move minus the
 * previous one's. */
static void test_times(void) {
    tt_game_t g;
    tt_stream_params_t sp;
    tt_result_t r;
    tt_game_from_usi(&g, "position startpos moves 7g7f 3c3d 2g2f");
    tt_stream_params_default(&sp);
    sp.noise = 0;
    sp.blackout_rate = 0;
    sp.nudge = 0;
    sp.think_frames = 10; /* hand frames: 1 s at 10 fps */
    rec_trk_t *t = NULL;
    tt_run(&g, &sp, &t, &r);
    TESTS_CHECK(r.right == 3, "3 moves (%d)", r.right);
    int n = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type != REC_TEV_MOVE)
            continue;
        n++;
        /* stable frames of the previous view + hand frames, 100 ms each */
        int64_t want = (int64_t)(sp.stable_frames + sp.think_frames) * 100;
        TESTS_CHECK(e->time_ms == want, "move %d: time %lld ms, want %lld", e->ply, (long long)e->time_ms,
                    (long long)want);
    }
    TESTS_CHECK(n == 3, "3 move events (%d)", n);
    rec_trk_destroy(t);
}

/* ---------------------------------------------------------------- ambiguity: uncertain, not a guess */

static rec_obs_t *obs_new(void) {
    rec_obs_t *o = malloc(sizeof *o);
    rec_obs_clear(o);
    return o;
}

/* Feeds n stable frames of obs from *ts (100 ms apart). */
static int feed_n(rec_trk_t *t, rec_obs_t *o, int64_t *ts, int n) {
    int total = 0, k;
    for (int i = 0; i < n; i++) {
        o->ts_us = *ts;
        *ts += 100000;
        rec_trk_feed(t, o, &k);
        total += k;
    }
    return total;
}

static void feed_hand(rec_trk_t *t, rec_obs_t *o, int64_t *ts) {
    int view = o->view;
    o->view = REC_VIEW_HAND;
    feed_n(t, o, ts, 2);
    o->view = view;
}

static int count_type(const rec_trk_t *t, int type) {
    int n = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++)
        n += rec_trk_event(t, i)->type == type;
    return n;
}

static const rec_trk_event_t *last_of(const rec_trk_t *t, int type) {
    for (int i = rec_trk_nevents(t) - 1; i >= 0; i--)
        if (rec_trk_event(t, i)->type == type)
            return rec_trk_event(t, i);
    return NULL;
}

/* Sente's bishop takes on 2b: promoted or not? The square reads B at 0.9 and +B at 0.1: 2.2 nats for
 * the unpromoted bishop against the 2.5 nats charged for a forgone promotion (nopromo_penalty), so the
 * two legal moves are within the margin: the tracker must say "uncertain" with both, and play
 * neither. When the reading clears up, the move is played. */
static void test_uncertain_promotion(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 1", NULL);
    TESTS_CHECK(rec_trk_create(NULL, &pos, &t) == REC_OK, "create with a start position");
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    TESTS_CHECK(rec_trk_state(t) == REC_TRK_PLAYING, "game started");
    rul_pos_t after = pos;
    rul_undo_t u;
    rul_pos_do_move(&after, RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 0), &u);
    rec_obs_from_pos(o, &after);
    int sq = RUL_SQ(2, 2);
    o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_BISHOP))] = 0.9f; /* within the margin of */
    o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_HORSE))] = 0.1f;  /* 8h2b+ (nopromo_penalty) */
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 40); /* 4 s */
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 0, "no move guessed (%d)", count_type(t, REC_TEV_MOVE));
    TESTS_CHECK(count_type(t, REC_TEV_ILLEGAL) == 0, "no illegal move invented");
    const rec_trk_event_t *e = last_of(t, REC_TEV_UNCERTAIN);
    TESTS_CHECK(e != NULL, "an uncertain event");
    if (e) {
        int seen = 0;
        for (int i = 0; i < e->ncand; i++)
            if (e->cand[i].nmoves == 1 &&
                (e->cand[i].moves[0] == RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 0) ||
                 e->cand[i].moves[0] == RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 1)))
                seen++;
        TESTS_CHECK(seen == 2, "both 8h2b and 8h2b+ among the candidates (%d); %s", seen, e->detail);
        TESTS_CHECK(e->ply == 0, "uncertain at ply 0 (%d)", e->ply);
    }
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 1, "said once per view (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    /* the piece is turned over clearly: promoted */
    rul_pos_t promo = pos;
    rul_pos_do_move(&promo, RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 1), &u);
    rec_obs_from_pos(o, &promo);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    e = last_of(t, REC_TEV_MOVE);
    TESTS_CHECK(e != NULL && e->move == RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 1) && e->ply == 1,
                "then 8h2b+ at ply 1 (%s)", e ? e->usi : "none");
    rec_trk_destroy(t);
    free(o);
}

/* Precision first (agree_min): 7g7f is the only move that comes near a view of the start with the 7g
 * pawn gone, but the view reads 7f empty at 0.93. The fit alone would write it (ln(0.93 / 0.07) = 2.6
 * nats, within fit_max); the view contradicts the occupancy of 7f, so it is uncertain and waits, and
 * the move is written once a view shows the pawn on 7f. With agree_min 0 the first view writes it. */
static void precision_run(double agree_min, int *moves_first, int *uncertain_first, int *moves_after) {
    rec_trk_t *t = NULL;
    rec_trk_params_t p;
    rul_pos_t pos, after;
    rul_undo_t u;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rec_trk_params_default(&p);
    p.agree_min = agree_min;
    rul_pos_from_sfen(&pos, "startpos", NULL);
    TESTS_CHECK(rec_trk_create(&p, &pos, &t) == REC_OK, "create");
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    after = pos;
    rul_pos_do_move(&after, RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0), &u);
    rec_obs_from_pos(o, &after);
    int sq = RUL_SQ(7, 6);
    o->sq_prob[sq][0] = 0.93f;
    o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_PAWN))] = 0.07f;
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 40); /* 4 s */
    *moves_first = count_type(t, REC_TEV_MOVE);
    *uncertain_first = count_type(t, REC_TEV_UNCERTAIN);
    rec_obs_from_pos(o, &after);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    const rec_trk_event_t *e = last_of(t, REC_TEV_MOVE);
    *moves_after =
        e && e->move == RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0) ? count_type(t, REC_TEV_MOVE) : -1;
    rec_trk_destroy(t);
    free(o);
}

static void test_precision_first(void) {
    int first, unc, after;
    precision_run(0.1, &first, &unc, &after);
    TESTS_CHECK(first == 0, "no move written while 7f reads empty (%d)", first);
    TESTS_CHECK(unc == 1, "the view is uncertain (%d)", unc);
    TESTS_CHECK(after == 1, "7g7f written once 7f shows the pawn (%d)", after);
    precision_run(0, &first, &unc, &after);
    TESTS_CHECK(first == 1 && unc == 0, "agree_min 0: the fit alone writes 7g7f (%d moves, %d uncertain)",
                first, unc);
}

/* The prior against a forgone promotion (nopromo_penalty, 2.5 nats): a gote pawn steps into sente's
 * camp, 9g9h. A square read pawn 0.55 / tokin 0.45 (the tokin of a brush set looks like its pawn)
 * is 9g9h+, as real players almost always promote a pawn; a square read pawn 0.995 is 9g9h, the
 * player's rare choice, still written; with the penalty at 0 the first view is uncertain. */
static void test_forgone_promotion_prior(void) {
    static const struct {
        float p_pawn;
        double penalty;
        int promo; /* expected: 1 9g9h+, 0 9g9h, -1 uncertain */
    } C[] = {{0.55f, 2.5, 1}, {0.995f, 2.5, 0}, {0.55f, 0.0, -1}};
    for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
        rec_trk_params_t p;
        rec_trk_params_default(&p);
        p.nopromo_penalty = C[k].penalty;
        rec_trk_t *t = NULL;
        rul_pos_t pos;
        rec_obs_t *o = obs_new();
        int64_t ts = 0;
        rul_pos_from_sfen(&pos, "4k4/9/9/9/9/9/p8/9/4K4 w - 1", NULL);
        TESTS_CHECK(rec_trk_create(&p, &pos, &t) == REC_OK, "create with a start position");
        rec_obs_from_pos(o, &pos);
        feed_n(t, o, &ts, 3);
        rul_pos_t after = pos;
        rul_undo_t u;
        rul_pos_do_move(&after, RUL_MOVE_MAKE(RUL_SQ(9, 7), RUL_SQ(9, 8), 0), &u);
        rec_obs_from_pos(o, &after);
        int sq = RUL_SQ(9, 8);
        o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_GOTE, RUL_PAWN))] = C[k].p_pawn;
        o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_GOTE, RUL_PRO_PAWN))] = 1.0f - C[k].p_pawn;
        feed_hand(t, o, &ts);
        feed_n(t, o, &ts, 40); /* 4 s */
        const rec_trk_event_t *e = last_of(t, REC_TEV_MOVE);
        if (C[k].promo < 0) {
            TESTS_CHECK(e == NULL && count_type(t, REC_TEV_UNCERTAIN) == 1,
                        "case %zu: uncertain, no move (%s)", k, e ? e->usi : "none");
        } else {
            rul_move_t want = RUL_MOVE_MAKE(RUL_SQ(9, 7), RUL_SQ(9, 8), C[k].promo);
            TESTS_CHECK(e != NULL && e->move == want && e->ply == 1, "case %zu: %s written (%s)", k,
                        C[k].promo ? "9g9h+" : "9g9h", e ? e->usi : "none");
            TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 0, "case %zu: not uncertain", k);
        }
        rec_trk_destroy(t);
        free(o);
    }
}

/* A nudged piece (FESA 9.2) and a noisy square are not moves. */
static void test_nudge_is_not_a_move(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    rec_trk_create(NULL, NULL, &t);
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    /* the silver on 3i pushed half onto 3h: its square 0.55 S / 0.45 empty, 3h 0.4 S / 0.6 empty */
    int a = RUL_SQ(3, 9), b = RUL_SQ(3, 8), s = REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_SILVER));
    o->sq_prob[a][s] = 0.55f;
    o->sq_prob[a][0] = 0.45f;
    o->sq_prob[b][s] = 0.4f;
    o->sq_prob[b][0] = 0.6f;
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 50);
    TESTS_CHECK(
        count_type(t, REC_TEV_MOVE) + count_type(t, REC_TEV_ILLEGAL) + count_type(t, REC_TEV_UNCERTAIN) == 0,
        "no move, no illegal move, no uncertain event (%d events)", rec_trk_nevents(t));
    rec_trk_destroy(t);
    free(o);
}

/* ---------------------------------------------------------------- resynchronisation after "uncertain" */

/* Plays the USI moves of `usi` (space separated) on *pos. */
static void play_usi(rul_pos_t *pos, const char *usi) {
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", usi);
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        rul_move_t m;
        rul_undo_t u;
        TESTS_CHECK(rul_move_from_usi(w, &m, NULL) == RUL_OK && rul_is_legal(pos, m), "test move %s is legal",
                    w);
        rul_pos_do_move(pos, m, &u);
    }
}

/* A certain reading of pos with both komadai unread (the recorder reads no komadai yet). */
static void obs_board_only(rec_obs_t *o, const rul_pos_t *pos) {
    rec_obs_from_pos(o, pos);
    o->hand_known[RUL_SENTE] = o->hand_known[RUL_GOTE] = 0;
}

/* A move seen: usi played on *pos, then a hand in view, then nframes stable frames of the new position
 * (read exactly, or board only: komadai unread). */
static void move_seen(rec_trk_t *t, rec_obs_t *o, rul_pos_t *pos, const char *usi, int64_t *ts, int nframes,
                      int board_only) {
    play_usi(pos, usi);
    if (board_only)
        obs_board_only(o, pos);
    else
        rec_obs_from_pos(o, pos);
    feed_hand(t, o, ts);
    feed_n(t, o, ts, nframes);
}

/* The moves of game 1 in order as one USI string. */
static void moves_of(const rec_trk_t *t, char *buf, size_t size, int *nlate) {
    size_t len = 0;
    buf[0] = '\0';
    *nlate = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type != REC_TEV_MOVE && e->type != REC_TEV_ILLEGAL)
            continue;
        len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "%s%s", len ? " " : "", e->usi);
        *nlate += e->late;
    }
}

/* The source ends 1 s into a view two moves explain within the margin (8h2b or 8h2b+): before the end no
 * "uncertain" is due (3 s), rec_trk_finish says it at once with both candidates, and writes no move;
 * a finish with nothing pending adds nothing. */
static void test_finish_pending(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, after;
    rul_undo_t u;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    int nnew = -1;
    rul_pos_from_sfen(&pos, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 1", NULL);
    TESTS_CHECK(rec_trk_create(NULL, &pos, &t) == REC_OK, "create");
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    TESTS_CHECK(rec_trk_finish(t, ts, &nnew) == REC_OK && nnew == 0, "nothing pending: no event (%d)", nnew);
    after = pos;
    rul_pos_do_move(&after, RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 0), &u);
    rec_obs_from_pos(o, &after);
    int sq = RUL_SQ(2, 2);
    o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_BISHOP))] = 0.9f; /* within the margin of */
    o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_HORSE))] = 0.1f;  /* 8h2b+ (nopromo_penalty) */
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 10); /* 1 s */
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 0, "1 s in: not yet uncertain (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    TESTS_CHECK(rec_trk_finish(t, ts, &nnew) == REC_OK && nnew == 1, "finish adds one event (%d)", nnew);
    const rec_trk_event_t *e = last_of(t, REC_TEV_UNCERTAIN);
    int seen = 0;
    for (int i = 0; e && i < e->ncand; i++)
        seen +=
            e->cand[i].nmoves == 1 && (e->cand[i].moves[0] == RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 0) ||
                                       e->cand[i].moves[0] == RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 1));
    TESTS_CHECK(e && seen == 2 && e->ply == 0, "uncertain at ply 0 with 8h2b and 8h2b+ (%d): %s", seen,
                e ? e->detail : "none");
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 0, "no move written (%d)", count_type(t, REC_TEV_MOVE));
    TESTS_CHECK(rec_trk_finish(t, ts, &nnew) == REC_OK && nnew == 0, "said once (%d)", nnew);
    TESTS_CHECK(rec_trk_finish(NULL, 0, NULL) == REC_ERANGE, "NULL tracker");
    rec_trk_destroy(t);
    free(o);
}

/* The board is seen changed and then back at the game's position (moves made and taken back, or a
 * repetition cycle made while no view could be read, as in a perpetual check whose views were all
 * misread): nothing is written, but one "uncertain" event says so, with the frame that showed the
 * change; a hand passing over an unchanged board says nothing. */
static void test_came_back(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, away;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    TESTS_CHECK(rec_trk_create(NULL, &pos, &t) == REC_OK, "create");
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    move_seen(t, o, &pos, "2g2f", &ts, 5, 0);
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 1, "2g2f written (%d moves)", count_type(t, REC_TEV_MOVE));
    /* a hand over the board, the same position: nothing to say */
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 5);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 0, "a hand over an unchanged board is not news (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    /* two views no move explains (two moves made, and a square read as a rook that is not there) */
    away = pos;
    play_usi(&away, "3c3d 7g7f");
    rec_obs_from_pos(o, &away);
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        o->sq_prob[RUL_SQ(5, 5)][c] = c == REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_ROOK)) ? 1.0f : 0.0f;
    for (int v = 0; v < 2; v++) {
        feed_hand(t, o, &ts);
        feed_n(t, o, &ts, 10);
    }
    int nunc = count_type(t, REC_TEV_UNCERTAIN);
    /* ... and the board back at the position after 2g2f */
    rec_obs_from_pos(o, &pos);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 5);
    const rec_trk_event_t *e = last_of(t, REC_TEV_UNCERTAIN);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == nunc + 1,
                "one uncertain event when the board is back (%d, %d)", nunc,
                count_type(t, REC_TEV_UNCERTAIN));
    TESTS_CHECK(e && strstr(e->detail, "back at this position") && e->ply == 1,
                "it says the board came back after move 1: %s", e ? e->detail : "none");
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 1 && rec_trk_game(t)->nply == 1, "no move invented (%d)",
                count_type(t, REC_TEV_MOVE));
    /* said once: the same position again is quiet */
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 5);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == nunc + 1, "said once (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    /* the next move is written, with a word that its ply number may be short */
    move_seen(t, o, &pos, "3c3d", &ts, 5, 0);
    e = last_of(t, REC_TEV_MOVE);
    TESTS_CHECK(e && e->ply == 2 && strstr(e->detail, "ply number may be short") &&
                    strstr(e->detail, "after move 1"),
                "3c3d written as move 2 with the caveat: %s", e ? e->detail : "none");
    rec_trk_destroy(t);
    free(o);
}

/* With both komadai unread, gote drops a piece on 8e and sente's pawn takes it while the board is
 * hidden: P*8e 8f8e and R*8e 8f8e leave the same board (only the hands differ), so the view is
 * ambiguous and, after 3 s, "uncertain". Gote's next move (5a4a) fits both. Sente's pawn drop P*2c
 * is legal only if sente took a pawn: that view leaves one hypothesis, and the four moves are written
 * in order, the first three marked late. With the same start and no such move the tracker says
 * uncertain once and writes nothing (resync_unresolved). */
static const char *const RESYNC_START = "4k4/9/9/9/9/1P7/9/9/4K4 w rp 1";

static void resync_run(int nviews, const char *const *views, rec_trk_t **out) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, RESYNC_START, NULL);
    TESTS_CHECK(rec_trk_create(NULL, &pos, &t) == REC_OK, "create");
    obs_board_only(o, &pos);
    feed_n(t, o, &ts, 3);
    for (int v = 0; v < nviews; v++) {
        play_usi(&pos, views[v]);
        obs_board_only(o, &pos);
        for (int k = 0; k < (strchr(views[v], ' ') ? 5 : 1); k++)
            feed_hand(t, o, &ts);           /* two moves take time: the board hidden 1 s (min_move_us) */
        feed_n(t, o, &ts, v == 0 ? 40 : 5); /* the first view 4 s: long enough to be "uncertain" */
    }
    feed_hand(t, o, &ts);
    *out = t;
    free(o);
}

static void test_resync_resolved(void) {
    static const char *const views[] = {"P*8e 8f8e", "5a4a", "P*2c", "4a5a"};
    rec_trk_t *t = NULL;
    char got[256];
    int nlate;
    resync_run(4, views, &t);
    moves_of(t, got, sizeof got, &nlate);
    TESTS_CHECK(!strcmp(got, "P*8e 8f8e 5a4a P*2c 4a5a"), "moves: '%s', want 'P*8e 8f8e 5a4a P*2c 4a5a'",
                got);
    TESTS_CHECK(nlate == 3, "the three moves written after the ambiguity are late (%d)", nlate);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 1, "uncertain once (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    const rec_trk_event_t *u = last_of(t, REC_TEV_UNCERTAIN);
    TESTS_CHECK(u && u->ply == 0 && u->ncand >= 2 && strstr(u->detail, "P*8e 8f8e") &&
                    strstr(u->detail, "R*8e 8f8e"),
                "uncertain at ply 0 with both drops as candidates: %s", u ? u->detail : "none");
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type == REC_TEV_MOVE && e->late)
            TESTS_CHECK(strstr(e->detail, "resolved late") != NULL, "late move %d says so: %s", e->ply,
                        e->detail);
        if (e->type == REC_TEV_MOVE && e->ply == 4)
            TESTS_CHECK(!e->late && u && e->seq > u->seq, "P*2c is live, after the uncertain event");
    }
    rul_pos_t want;
    rul_pos_from_sfen(&want, RESYNC_START, NULL);
    play_usi(&want, "P*8e 8f8e 5a4a P*2c 4a5a");
    TESTS_CHECK(rul_pos_same(&rec_trk_game(t)->pos, &want), "the game is at the true position");
    rec_trk_destroy(t);
}

static void test_resync_unresolved(void) {
    static const char *const views[] = {"P*8e 8f8e", "5a4a", "5i4i", "4a5a"};
    rec_trk_t *t = NULL;
    char got[256];
    int nlate;
    resync_run(4, views, &t);
    moves_of(t, got, sizeof got, &nlate);
    TESTS_CHECK(got[0] == '\0', "no move written while P*8e and R*8e both explain every view: '%s'", got);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 1, "uncertain once (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    TESTS_CHECK(rec_trk_game(t)->nply == 0, "the game stays at its last certain position (%d)",
                rec_trk_game(t)->nply);
    rec_trk_destroy(t);
}

/* The board set wrongly for a long time (pieces swapped after move 1): one "uncertain", no move, the
 * game keeps its position; the board put back and the game goes on from it. A second mess later is
 * announced again. */
static void test_resync_after_mess(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, mess;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    rec_trk_create(NULL, NULL, &t);
    obs_board_only(o, &pos);
    feed_n(t, o, &ts, 3);
    move_seen(t, o, &pos, "7g7f", &ts, 3, 1);
    /* gote's gold and silver on the left swapped, the rooks' and bishops' files crossed */
    rul_pos_from_sfen(&mess, "lnsgkgsnl/1b5r1/ppppppppp/9/9/2P6/PP1PPPPPP/1R5B1/LNGSKGSNL w - 2", NULL);
    obs_board_only(o, &mess);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 60);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 30);
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 1 && count_type(t, REC_TEV_ILLEGAL) == 0,
                "no move invented for the mess (%d moves)", count_type(t, REC_TEV_MOVE));
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 1, "uncertain once for 9 s of mess (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    move_seen(t, o, &pos, "3c3d", &ts, 3, 1);
    const rec_trk_event_t *e = last_of(t, REC_TEV_MOVE);
    TESTS_CHECK(e && e->ply == 2 && !strcmp(e->usi, "3c3d") && !e->late, "then 3c3d at ply 2 (%s)",
                e ? e->usi : "none");
    obs_board_only(o, &mess);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 40);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 2, "a second mess is said again (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    rec_trk_destroy(t);
    free(o);
}

/* A view that is not a position of the game (the bishop seen on 2b, half promoted, for half a second:
 * a piece lifted and put back, a reflection) is ambiguous and becomes hypotheses; the next views are
 * explained from the game's position still (kept in the beam at a cost): 2g2f and 8c8d are written,
 * nothing for the false view. */
static void test_resync_false_view(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, ghost;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 1", NULL);
    rec_trk_create(NULL, &pos, &t);
    obs_board_only(o, &pos);
    feed_n(t, o, &ts, 3);
    ghost = pos;
    play_usi(&ghost, "8h2b");
    obs_board_only(o, &ghost);
    int sq = RUL_SQ(2, 2);
    o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_BISHOP))] = 0.9f; /* within the margin of */
    o->sq_prob[sq][REC_OBS_CLASS(RUL_PIECE(RUL_SENTE, RUL_HORSE))] = 0.1f;  /* 8h2b+ (nopromo_penalty) */
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 5);
    move_seen(t, o, &pos, "2g2f", &ts, 3, 1);
    move_seen(t, o, &pos, "8c8d", &ts, 3, 1);
    char got[128];
    int nlate;
    moves_of(t, got, sizeof got, &nlate);
    TESTS_CHECK(!strcmp(got, "2g2f 8c8d") && nlate == 0, "moves '%s' (want '2g2f 8c8d'), %d late", got,
                nlate);
    TESTS_CHECK(rul_pos_same(&rec_trk_game(t)->pos, &pos), "the game is at the true position");
    rec_trk_destroy(t);
    free(o);
}

/* The komadai read but wrong (the captured bishop not yet seen on sente's stand): no explanation fits
 * board and komadai together, so the board alone decides: 8h2b+ is written, nothing is uncertain. */
static void test_stale_komadai(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, after;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 1", NULL);
    rec_trk_create(NULL, &pos, &t);
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    after = pos;
    play_usi(&after, "8h2b+");
    rec_obs_from_pos(o, &after);
    memset(o->hand_prob[RUL_SENTE][RUL_BISHOP - 1], 0, sizeof o->hand_prob[RUL_SENTE][RUL_BISHOP - 1]);
    o->hand_prob[RUL_SENTE][RUL_BISHOP - 1][0] = 1.0f; /* the stand still shows no bishop */
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 40);
    const rec_trk_event_t *e = last_of(t, REC_TEV_MOVE);
    TESTS_CHECK(e && !strcmp(e->usi, "8h2b+") && e->ply == 1, "8h2b+ written (%s)", e ? e->usi : "none");
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 0 && count_type(t, REC_TEV_MOVE) == 1,
                "one move, no uncertain (%d, %d)", count_type(t, REC_TEV_MOVE),
                count_type(t, REC_TEV_UNCERTAIN));
    rec_trk_destroy(t);
    free(o);
}

/* Two ways to one position that no later view can tell apart: 8h2b+ read on a set whose promoted
 * bishop looks like its bishop (2b: sente B 0.95, +B 0.05: the two moves within the margin, with the
 * forgone promotion charged), then 3a2b takes it, and both ways reach the same position. Neither 8h2b
 * nor 8h2b+ is written: game 1 stops after 3c3d, game 2 takes it up from the position after 3a2b, and
 * the next move is written in it. */
static void test_merged_promotion(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    rec_trk_create(NULL, &pos, &t);
    obs_board_only(o, &pos);
    feed_n(t, o, &ts, 10);
    move_seen(t, o, &pos, "7g7f", &ts, 10, 1);
    move_seen(t, o, &pos, "3c3d", &ts, 10, 1);
    feed_hand(t, o, &ts);
    play_usi(&pos, "8h2b+");
    obs_board_only(o, &pos);
    int b2 = RUL_SQ(2, 2);
    memset(o->sq_prob[b2], 0, sizeof o->sq_prob[b2]);
    o->sq_prob[b2][5] = 0.95f;  /* sente B */
    o->sq_prob[b2][13] = 0.05f; /* sente +B */
    feed_n(t, o, &ts, 10);
    move_seen(t, o, &pos, "3a2b", &ts, 10, 1);
    move_seen(t, o, &pos, "2g2f", &ts, 10, 1);
    char got[128] = "";
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type == REC_TEV_MOVE)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d:%s", got[0] ? " " : "", e->game,
                     e->usi);
    }
    const rec_trk_event_t *gs = last_of(t, REC_TEV_GAME_START);
    TESTS_CHECK(!strcmp(got, "1:7g7f 1:3c3d 2:2g2f"), "moves '%s' (want '1:7g7f 1:3c3d 2:2g2f')", got);
    TESTS_CHECK(gs && gs->game == 2 && gs->continues == 1 && count_type(t, REC_TEV_GAME_END) == 1,
                "game 2 takes up game 1 (%d starts, continues %d)", count_type(t, REC_TEV_GAME_START),
                gs ? gs->continues : -1);
    TESTS_CHECK(rul_pos_same(&rec_trk_game(t)->pos, &pos), "the game is at the true position");
    rec_trk_destroy(t);
    free(o);
}

/* The classifier misreads the same squares of an unusual set from the start on: 1g's pawn read as a
 * rook, 9c's pawn as a gold (p 0.9 against 0.1). Such kinds are no rearrangement of a set's pieces (a
 * third rook, a fifth gold): the setup error is logged, the game starts, and moves are written while
 * those squares keep their piece and look; when 1g's pawn moves the square is scored as usual again.
 * Occupancy and owner first: with every square's occupancy and owner the start's, any number of such
 * squares is taken (7: both kings and three more pawns read as golds); with one square's occupancy
 * off too (5g's pawn read as none), max_misread_foreign (6) holds and no game starts. */
static void misread(rec_obs_t *o, int sq, int want, int seen) {
    memset(o->sq_prob[sq], 0, sizeof o->sq_prob[sq]);
    o->sq_prob[sq][seen] = 0.9f;
    o->sq_prob[sq][want] = 0.1f;
}

static void misread_view(rec_obs_t *o, const rul_pos_t *pos, int nmis) {
    obs_board_only(o, pos);
    if (rul_pos_piece_at(pos, RUL_SQ(1, 7)) != RUL_PIECE_NONE)
        misread(o, RUL_SQ(1, 7), 1, 6); /* 1g: sente P read as sente R */
    misread(o, RUL_SQ(9, 3), 15, 21);   /* 9c: gote P read as gote G */
    if (nmis > 2) {
        misread(o, RUL_SQ(5, 9), 8, 7);   /* 5i: sente K read as sente G */
        misread(o, RUL_SQ(5, 1), 22, 21); /* 5a: gote K read as gote G */
    }
    if (nmis > 4) {
        misread(o, RUL_SQ(9, 7), 1, 7);   /* 9g: sente P read as sente G */
        misread(o, RUL_SQ(4, 7), 1, 7);   /* 4g: sente P read as sente G */
        misread(o, RUL_SQ(1, 3), 15, 21); /* 1c: gote P read as gote G */
    }
    if (nmis > 7)
        misread(o, RUL_SQ(5, 7), 1, 0); /* 5g: sente P read as none */
}

static void test_start_misread(void) {
    static const char *const moves[] = {"7g7f", "3c3d", "1g1f", "8c8d", "1f1e"};
    static const int nmis_of[4] = {2, 4, 7, 8};
    for (int run = 0; run < 4; run++) {
        rec_trk_params_t p;
        rec_trk_t *t = NULL;
        rul_pos_t pos;
        rec_obs_t *o = obs_new();
        int64_t ts = 0, nmis = nmis_of[run];
        rec_trk_params_default(&p);
        rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
        CU_ASSERT_EQUAL_FATAL(rec_trk_create(&p, NULL, &t), REC_OK);
        misread_view(o, &pos, (int)nmis);
        feed_n(t, o, &ts, 20);
        for (int m = 0; m < 5; m++) {
            feed_hand(t, o, &ts);
            play_usi(&pos, moves[m]);
            misread_view(o, &pos, (int)nmis);
            feed_n(t, o, &ts, 10);
        }
        const rec_trk_event_t *se = last_of(t, REC_TEV_SETUP_ERROR);
        if (run < 3) {
            char want[40];
            snprintf(want, sizeof want, "taken as misread (%d squares)", (int)nmis);
            TESTS_CHECK(se && strstr(se->detail, want), "setup error: %s", se ? se->detail : "none");
            TESTS_CHECK(count_type(t, REC_TEV_GAME_START) == 1 && count_type(t, REC_TEV_MOVE) == 5 &&
                            count_type(t, REC_TEV_UNCERTAIN) == 0,
                        "%d misread squares: %d starts, %d moves, %d uncertain", (int)nmis,
                        count_type(t, REC_TEV_GAME_START), count_type(t, REC_TEV_MOVE),
                        count_type(t, REC_TEV_UNCERTAIN));
            for (int i = 0, m = 0; i < rec_trk_nevents(t); i++)
                if (rec_trk_event(t, i)->type == REC_TEV_MOVE) {
                    TESTS_CHECK(!strcmp(rec_trk_event(t, i)->usi, moves[m]), "move %d: %s, want %s", m + 1,
                                rec_trk_event(t, i)->usi, moves[m]);
                    m++;
                }
        } else {
            TESTS_CHECK(se != NULL && count_type(t, REC_TEV_GAME_START) == 0 &&
                            count_type(t, REC_TEV_MOVE) == 0,
                        "run %d: setup error and no game (%d starts, %d moves)", run,
                        count_type(t, REC_TEV_GAME_START), count_type(t, REC_TEV_MOVE));
        }
        rec_trk_destroy(t);
        free(o);
    }
}

/* Latency rule (min_run_us, 90 ms): at 30 fps a view still for 2 frames (a piece paused in the middle
 * of a move) is not read; a view still for 100 ms is, at its 4th frame (first + 100 ms). */
static void test_min_run(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, mid;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    int k;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    rec_trk_create(NULL, NULL, &t);
    obs_board_only(o, &pos);
    feed_n(t, o, &ts, 3);
    /* the rook on its way from 2h to 4h, paused on 3h for two frames */
    mid = pos;
    play_usi(&mid, "2h3h");
    obs_board_only(o, &mid);
    o->view = REC_VIEW_HAND;
    o->ts_us = ts;
    rec_trk_feed(t, o, NULL);
    o->view = REC_VIEW_STABLE;
    for (int i = 0; i < 2; i++) {
        ts += 33333;
        o->ts_us = ts;
        rec_trk_feed(t, o, NULL);
    }
    play_usi(&pos, "2h4h");
    obs_board_only(o, &pos);
    ts += 33333;
    o->view = REC_VIEW_MOVING;
    o->ts_us = ts;
    rec_trk_feed(t, o, NULL);
    o->view = REC_VIEW_STABLE;
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 0, "2 frames of 2h3h at 30 fps: not read (%d moves)",
                count_type(t, REC_TEV_MOVE));
    int at = -1;
    for (int i = 0; i < 6 && at < 0; i++) {
        ts += 33333;
        o->ts_us = ts;
        rec_trk_feed(t, o, &k);
        if (k > 0)
            at = i;
    }
    const rec_trk_event_t *e = last_of(t, REC_TEV_MOVE);
    TESTS_CHECK(e && !strcmp(e->usi, "2h4h") && at == 3, "2h4h written at the 4th stable frame (%d): %s",
                at + 1, e ? e->usi : "none");
    rec_trk_destroy(t);
    free(o);
}

/* ---------------------------------------------------------------- min_move_us: time for hidden moves */

/* Gote's gold on 5g goes to 6h (5g6h) or, in three moves, 5g5h, sente's P*6h, 5h6h (taking the pawn):
 * the same board, only the pawns in hand differ (sente 2 -> 1, gote 1 -> 2). 5g6h is the only other
 * way the gold gets there (6g holds gote's pawn), so the sequence is unique. */
static const char *const MINMOVE_START = "8k/9/9/9/9/9/3pg4/9/K8 w 2Pp 1";

/* Runs the start, then the board after 5g6h with both komadai read at 0.99 on the sequence's pawn
 * counts (0.01 on 5g6h's), the board hidden by a hand `nhand` times (feed_hand: 0.2 s each, the gap
 * 0.1 s more) before the view. 5g6h loses 2 ln 99 = 9.2 nats on the komadai (> fit_max 3), the
 * sequence is charged 2 x seq_penalty = 5: it wins by 4.2 (> margin 2) when it may be searched. */
static rec_trk_t *minmove_run(int64_t min_move_us, int nhand) {
    rec_trk_params_t p;
    rec_trk_t *t = NULL;
    rul_pos_t pos, single;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    const int P = RUL_PAWN - 1;
    rec_trk_params_default(&p);
    p.min_move_us = min_move_us;
    TESTS_CHECK(rul_pos_from_sfen(&pos, MINMOVE_START, NULL) == RUL_OK, "start parses");
    TESTS_CHECK(rec_trk_create(&p, &pos, &t) == REC_OK, "create");
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    TESTS_CHECK(rec_trk_state(t) == REC_TRK_PLAYING, "game started");
    single = pos;
    play_usi(&single, "5g6h");
    rec_obs_from_pos(o, &single);
    memset(o->hand_prob[RUL_SENTE][P], 0, sizeof o->hand_prob[RUL_SENTE][P]);
    memset(o->hand_prob[RUL_GOTE][P], 0, sizeof o->hand_prob[RUL_GOTE][P]);
    o->hand_prob[RUL_SENTE][P][1] = 0.99f; /* the sequence: sente dropped a pawn */
    o->hand_prob[RUL_SENTE][P][2] = 0.01f; /* 5g6h: sente's two pawns */
    o->hand_prob[RUL_GOTE][P][2] = 0.99f;  /* the sequence: gote took it */
    o->hand_prob[RUL_GOTE][P][1] = 0.01f;
    for (int i = 0; i < nhand; i++)
        feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 10);
    feed_hand(t, o, &ts);
    free(o);
    return t;
}

/* A story the board cannot confirm: gote to move, gote's bishop in hand; after 2 s unseen, the board
 * shows sente's gold 4i4h and nothing else changed. Only sequences in which gote's moves leave no
 * trace explain it (B*4h taken at once by 4i4h; 8b7b 4i4h 7b8b), and the komadai are not read: nothing
 * is written, the view is uncertain. */
static void test_traceless_story(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, after;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    TESTS_CHECK(rul_pos_from_sfen(&pos, "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w b 1",
                                  NULL) == RUL_OK,
                "start parses");
    TESTS_CHECK(rec_trk_create(NULL, &pos, &t) == REC_OK, "create");
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    TESTS_CHECK(rec_trk_state(t) == REC_TRK_PLAYING, "game started");
    after = pos;
    play_usi(&after, "B*4h");
    play_usi(&after, "4i4h");
    rec_obs_from_pos(o, &after);
    o->hand_known[RUL_SENTE] = o->hand_known[RUL_GOTE] = 0;
    for (int i = 0; i < 20; i++)
        feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 40);
    char got[128];
    int nlate;
    moves_of(t, got, sizeof got, &nlate);
    TESTS_CHECK(got[0] == 0, "no move written (%s)", got);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) >= 1, "the view is uncertain (%d)",
                count_type(t, REC_TEV_UNCERTAIN));
    rec_trk_destroy(t);
    free(o);
}

/* Checks that t recorded the three hidden moves 5g5h P*6h 5h6h and is at the position after them. */
static void minmove_check_seq(const rec_trk_t *t, const char *label) {
    char got[128];
    int nlate, nhidden = 0;
    moves_of(t, got, sizeof got, &nlate);
    TESTS_CHECK(!strcmp(got, "5g5h P*6h 5h6h"), "%s: moves '%s', want '5g5h P*6h 5h6h'", label, got);
    for (int i = 0; i < rec_trk_nevents(t); i++)
        nhidden += rec_trk_event(t, i)->type == REC_TEV_MOVE && rec_trk_event(t, i)->hidden;
    TESTS_CHECK(nhidden == 3, "%s: the three moves are hidden (%d)", label, nhidden);
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 0 && count_type(t, REC_TEV_ILLEGAL) == 0,
                "%s: no uncertain (%d), no illegal (%d)", label, count_type(t, REC_TEV_UNCERTAIN),
                count_type(t, REC_TEV_ILLEGAL));
    rul_pos_t want;
    rul_pos_from_sfen(&want, MINMOVE_START, NULL);
    play_usi(&want, "5g5h P*6h 5h6h");
    TESTS_CHECK(rul_pos_same(&rec_trk_game(t)->pos, &want), "%s: the game is at the position after them",
                label);
}

/* Case A: the hand over the board 0.2 s (0.3 s without a stable frame < min_move_us): no time for 3
 * moves, so 5g6h is written (the komadai, contradicting it, are set aside), not the sequence. */
static void test_min_move_short_gap(void) {
    rec_trk_t *t = minmove_run(400000, 1);
    char got[128];
    int nlate;
    moves_of(t, got, sizeof got, &nlate);
    TESTS_CHECK(!strcmp(got, "5g6h"), "moves '%s', want '5g6h'", got);
    const rec_trk_event_t *e = last_of(t, REC_TEV_MOVE);
    TESTS_CHECK(e && !e->hidden && e->ply == 1 && !e->late, "5g6h at ply 1, not hidden, not late");
    TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 0 && count_type(t, REC_TEV_ILLEGAL) == 0,
                "no uncertain (%d), no illegal (%d)", count_type(t, REC_TEV_UNCERTAIN),
                count_type(t, REC_TEV_ILLEGAL));
    rul_pos_t want;
    rul_pos_from_sfen(&want, MINMOVE_START, NULL);
    play_usi(&want, "5g6h");
    TESTS_CHECK(rul_pos_same(&rec_trk_game(t)->pos, &want), "the game is at the position after 5g6h");
    rec_trk_destroy(t);
}

/* Case B: the same view after the board was hidden 2 s (>= 2 x min_move_us): the komadai decide, and
 * the three hidden moves are written: case A's 5g6h is the time limit's doing, not the evidence's. */
static void test_min_move_long_gap(void) {
    rec_trk_t *t = minmove_run(400000, 10);
    minmove_check_seq(t, "2 s hidden");
    rec_trk_destroy(t);
}

/* Case C: min_move_us = 0 (no limit): the old behaviour, the sequence even after 0.3 s. */
static void test_min_move_unlimited(void) {
    rec_trk_t *t = minmove_run(0, 1);
    minmove_check_seq(t, "min_move_us 0");
    rec_trk_destroy(t);
}

/* ---------------------------------------------------------------- max_misread_given: a given start */

/* A given mid-game start (sente's dragon on 2a and tokin on 3c, gote's horse on 8h) read with
 * confident misreads (0.97 on the wrong class, 0.03 on the right one: 3.5 nats each, far over fit_max
 * together) on six squares. */
static const char *const GIVEN_START =
    "ln1g3+Rl/1ks1g4/1ppp1p+P1p/p3p4/9/P1P1P1P2/1P1P1P2P/1+bSK1G3/LN1G3NL b BSNrs2p 1";

static void given_misread_view(rec_obs_t *o, const rul_pos_t *pos, int one_empty) {
    static const struct {
        int file, rank, seen;
    } M[] = {
        {2, 1, 6},  /* sente +R read as sente R */
        {3, 3, 1},  /* sente +P read as sente P */
        {8, 8, 19}, /* gote +B read as gote B */
        {7, 8, 7},  /* sente S read as sente G */
        {6, 1, 18}, /* gote G read as gote S */
        {2, 9, 11}, /* sente N read as sente +N (or as empty: one_empty) */
    };
    rec_obs_from_pos(o, pos);
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++) {
        int sq = RUL_SQ(M[i].file, M[i].rank), want = REC_OBS_CLASS(rul_pos_piece_at(pos, sq));
        int seen = one_empty && i == sizeof M / sizeof M[0] - 1 ? 0 : M[i].seen;
        TESTS_CHECK(want != seen && want != 0, "misread square %d%c holds a piece", M[i].file,
                    'a' + M[i].rank - 1);
        memset(o->sq_prob[sq], 0, sizeof o->sq_prob[sq]);
        o->sq_prob[sq][seen] = 0.97f;
        o->sq_prob[sq][want] = 0.03f;
    }
}

/* Six squares read off the given start in kind only: taken as misread (max_misread_given 10 > 6), the
 * game starts and a move is written; one of them read empty instead (occupancy differs: never taken as
 * misread), or max_misread_given 3 (it replaces max_misread for a given start): setup_error only, no
 * game. */
static void test_given_start_misread(void) {
    static const struct {
        const char *label;
        int one_empty, max_given, starts;
    } C[] = {
        {"6 kind misreads", 0, 10, 1},
        {"5 kind misreads + 1 square read empty", 1, 10, 0},
        {"6 kind misreads, max_misread_given 3", 0, 3, 0},
    };
    for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
        rec_trk_params_t p;
        rec_trk_t *t = NULL;
        rul_pos_t pos;
        rec_obs_t *o = obs_new();
        int64_t ts = 0;
        rec_trk_params_default(&p);
        p.max_misread_given = C[c].max_given;
        TESTS_CHECK(rul_pos_from_sfen(&pos, GIVEN_START, NULL) == RUL_OK &&
                        rul_pos_validate(&pos, RUL_VALIDATE_BOTH_KINGS, NULL) == RUL_VALID,
                    "given start is valid");
        CU_ASSERT_EQUAL_FATAL(rec_trk_create(&p, &pos, &t), REC_OK);
        given_misread_view(o, &pos, C[c].one_empty);
        feed_n(t, o, &ts, 20); /* 2 s: past setup_after_us */
        const rec_trk_event_t *se = last_of(t, REC_TEV_SETUP_ERROR);
        TESTS_CHECK(count_type(t, REC_TEV_SETUP_ERROR) == 1, "%s: one setup error (%d)", C[c].label,
                    count_type(t, REC_TEV_SETUP_ERROR));
        TESTS_CHECK(se && strstr(se->detail, "given start") &&
                        strstr(se->detail, "2a: expected sente +R, seen sente R"),
                    "%s: setup error square by square: %s", C[c].label, se ? se->detail : "none");
        if (C[c].starts) {
            const rec_trk_event_t *gs = last_of(t, REC_TEV_GAME_START);
            TESTS_CHECK(se && strstr(se->detail, "taken as misread (6 squares): the game starts"),
                        "%s: taken as misread: %s", C[c].label, se ? se->detail : "none");
            TESTS_CHECK(gs && se && gs->seq > se->seq && count_type(t, REC_TEV_GAME_START) == 1 &&
                            rec_trk_state(t) == REC_TRK_PLAYING,
                        "%s: game_start after the setup error (%d starts)", C[c].label,
                        count_type(t, REC_TEV_GAME_START));
            TESTS_CHECK(gs && !strcmp(gs->sfen, GIVEN_START) && gs->handicap == -1,
                        "%s: from the given start (%s)", C[c].label, gs ? gs->sfen : "none");
            /* the misread squares keep their piece and look: 5f5e is read as usual */
            play_usi(&pos, "5f5e");
            given_misread_view(o, &pos, 0);
            feed_hand(t, o, &ts);
            feed_n(t, o, &ts, 10);
            const rec_trk_event_t *m = last_of(t, REC_TEV_MOVE);
            TESTS_CHECK(m && !strcmp(m->usi, "5f5e") && count_type(t, REC_TEV_MOVE) == 1 &&
                            count_type(t, REC_TEV_UNCERTAIN) == 0,
                        "%s: then 5f5e (%s), %d moves, %d uncertain", C[c].label, m ? m->usi : "none",
                        count_type(t, REC_TEV_MOVE), count_type(t, REC_TEV_UNCERTAIN));
        } else {
            TESTS_CHECK(se && !strstr(se->detail, "taken as misread"), "%s: not taken as misread: %s",
                        C[c].label, se ? se->detail : "none");
            TESTS_CHECK(count_type(t, REC_TEV_GAME_START) == 0 && count_type(t, REC_TEV_MOVE) == 0 &&
                            rec_trk_state(t) == REC_TRK_SETUP,
                        "%s: no game (%d starts, %d moves)", C[c].label, count_type(t, REC_TEV_GAME_START),
                        count_type(t, REC_TEV_MOVE));
        }
        rec_trk_destroy(t);
        free(o);
    }
}

/* The given start's board read right but both komadai read empty with confidence (its hands: sente
 * B S N, gote R S 2P): the board decides, the game starts at once with a setup_error naming the hands,
 * and the next move is written. With one board square (1g's pawn) read empty as well: no game. */
static void test_start_komadai_misread(void) {
    for (int board_wrong = 0; board_wrong <= 1; board_wrong++) {
        rec_trk_t *t = NULL;
        rul_pos_t pos;
        rec_obs_t *o = obs_new();
        int64_t ts = 0;
        const char *label = board_wrong ? "komadai and 1g misread" : "komadai misread";
        CU_ASSERT_EQUAL_FATAL(rul_pos_from_sfen(&pos, GIVEN_START, NULL), RUL_OK);
        CU_ASSERT_EQUAL_FATAL(rec_trk_create(NULL, &pos, &t), REC_OK);
        for (int step = 0; step < 2; step++) {
            rec_obs_from_pos(o, &pos);
            for (int c = 0; c < RUL_COLOR_NB; c++)
                for (int k = 0; k < RUL_HAND_NB; k++) {
                    memset(o->hand_prob[c][k], 0, sizeof o->hand_prob[c][k]);
                    o->hand_prob[c][k][0] = 0.98f; /* every stand read as empty */
                    o->hand_prob[c][k][1] = 0.02f;
                }
            if (board_wrong) {
                int sq = RUL_SQ(1, 7);
                memset(o->sq_prob[sq], 0, sizeof o->sq_prob[sq]);
                o->sq_prob[sq][0] = 0.99f;
                o->sq_prob[sq][REC_OBS_CLASS(rul_pos_piece_at(&pos, sq))] = 0.01f;
            }
            if (step == 0) {
                feed_n(t, o, &ts, 20);
                play_usi(&pos, "5f5e");
            } else {
                feed_hand(t, o, &ts);
                feed_n(t, o, &ts, 10);
            }
        }
        const rec_trk_event_t *se = last_of(t, REC_TEV_SETUP_ERROR), *m = last_of(t, REC_TEV_MOVE);
        if (!board_wrong) {
            TESTS_CHECK(se && strstr(se->detail, "sente hand B: expected 1, seen 0") &&
                            strstr(se->detail, "gote hand P: expected 2, seen 0"),
                        "%s: the hands named: %s", label, se ? se->detail : "none");
            const rec_trk_event_t *gs = last_of(t, REC_TEV_GAME_START);
            TESTS_CHECK(se && strstr(se->detail, "the komadai taken as misread, the game starts"), "%s: %s",
                        label, se ? se->detail : "none");
            TESTS_CHECK(gs && se && gs->seq > se->seq && gs->ts_us < 200000 && !strcmp(gs->sfen, GIVEN_START),
                        "%s: game_start at once from the given start (%s at %lld us)", label,
                        gs ? gs->sfen : "none", gs ? (long long)gs->ts_us : -1LL);
            TESTS_CHECK(m && !strcmp(m->usi, "5f5e") && count_type(t, REC_TEV_MOVE) == 1,
                        "%s: then 5f5e (%s)", label, m ? m->usi : "none");
        } else {
            TESTS_CHECK(se && strstr(se->detail, "1g: expected sente P, seen empty") &&
                            !strstr(se->detail, "taken as misread"),
                        "%s: %s", label, se ? se->detail : "none");
            TESTS_CHECK(count_type(t, REC_TEV_GAME_START) == 0 && count_type(t, REC_TEV_MOVE) == 0,
                        "%s: no game (%d starts, %d moves)", label, count_type(t, REC_TEV_GAME_START),
                        count_type(t, REC_TEV_MOVE));
        }
        rec_trk_destroy(t);
        free(o);
    }
}

/* The given start read right but sente's bishop in hand read as 0 with 0.6 against 0.4 (within the
 * fit): the game starts as before, and a setup_error names the hand for the arbiter. */
static void test_start_hand_differs(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    CU_ASSERT_EQUAL_FATAL(rul_pos_from_sfen(&pos, GIVEN_START, NULL), RUL_OK);
    CU_ASSERT_EQUAL_FATAL(rec_trk_create(NULL, &pos, &t), REC_OK);
    rec_obs_from_pos(o, &pos);
    float *b = o->hand_prob[RUL_SENTE][RUL_BISHOP - 1];
    memset(b, 0, sizeof o->hand_prob[RUL_SENTE][RUL_BISHOP - 1]);
    b[0] = 0.6f;
    b[1] = 0.4f;
    feed_n(t, o, &ts, 5);
    const rec_trk_event_t *se = last_of(t, REC_TEV_SETUP_ERROR), *gs = last_of(t, REC_TEV_GAME_START);
    TESTS_CHECK(se && strstr(se->detail, "sente hand B: expected 1, seen 0;") &&
                    strstr(se->detail, "the board matches; the komadai read otherwise") &&
                    !strstr(se->detail, "hand P") && count_type(t, REC_TEV_SETUP_ERROR) == 1,
                "the hand named once: %s", se ? se->detail : "none");
    TESTS_CHECK(gs && se && gs->seq == se->seq + 1 && !strcmp(gs->sfen, GIVEN_START),
                "then the game starts (%s)", gs ? gs->sfen : "none");
    rec_trk_destroy(t);
    free(o);
}

/* A mid-game board before any game: the setup_error lists as many differences as fit and ends with
 * " and N more;", N the differences left out (against the nearest start). */
static void test_setup_error_and_more(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, start;
    rec_obs_t *o = obs_new();
    int64_t ts = 0, more = -1, listed = 0, total = 0;
    CU_ASSERT_EQUAL_FATAL(rul_pos_from_sfen(&pos, GIVEN_START, NULL), RUL_OK);
    CU_ASSERT_EQUAL_FATAL(rec_trk_create(NULL, NULL, &t), REC_OK);
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 20);
    const rec_trk_event_t *se = last_of(t, REC_TEV_SETUP_ERROR);
    CU_ASSERT_PTR_NOT_NULL_FATAL(se);
    CU_ASSERT_EQUAL_FATAL(rul_pos_from_sfen(&start, se->sfen, NULL), RUL_OK);
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        total += REC_OBS_CLASS(rul_pos_piece_at(&start, sq)) != REC_OBS_CLASS(rul_pos_piece_at(&pos, sq));
    /* the hands count only when the event reads them: a start tried and given up (setup_step's late
     * camera trial) leaves the view without its komadai */
    for (int c = 0; c < RUL_COLOR_NB && strstr(se->detail, " hand "); c++)
        for (int k = 0; k < RUL_HAND_NB; k++)
            total += start.hand[c][k] != pos.hand[c][k];
    for (const char *p = strstr(se->detail, "expected"); p; p = strstr(p + 1, "expected"))
        listed++;
    const char *m = strstr(se->detail, " and ");
    if (m)
        more = strtol(m + 5, NULL, 10);
    TESTS_CHECK(m && strstr(m, " more;") && listed + more == total &&
                    strlen(se->detail) < sizeof se->detail - 1,
                "%lld listed + %lld more = %lld differences: %s", (long long)listed, (long long)more,
                (long long)total, se->detail);
    rec_trk_destroy(t);
    free(o);
}

/* ---------------------------------------------------------------- setup (FESA 9.1), commands, new games */

static void test_setup_error_then_fixed(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, wrong;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    /* gold and silver swapped on sente's left, and the bishop and rook swapped */
    rul_pos_from_sfen(&wrong, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1R5B1/LNGSKGSNL b - 1", NULL);
    rec_trk_create(NULL, NULL, &t);
    rec_obs_from_pos(o, &wrong);
    feed_n(t, o, &ts, 20);
    const rec_trk_event_t *e = last_of(t, REC_TEV_SETUP_ERROR);
    TESTS_CHECK(e != NULL, "a setup error");
    if (e) {
        TESTS_CHECK(strstr(e->detail, "8h: expected sente B, seen sente R") &&
                        strstr(e->detail, "2h: expected sente R") &&
                        strstr(e->detail, "7i: expected sente S, seen sente G") &&
                        strstr(e->detail, "6i: expected sente G, seen sente S"),
                    "square by square: %s", e->detail);
    }
    TESTS_CHECK(count_type(t, REC_TEV_SETUP_ERROR) == 1, "said once (%d)",
                count_type(t, REC_TEV_SETUP_ERROR));
    TESTS_CHECK(rec_trk_state(t) == REC_TRK_SETUP, "still waiting for the setup");
    rec_obs_from_pos(o, &pos);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    TESTS_CHECK(rec_trk_state(t) == REC_TRK_PLAYING && count_type(t, REC_TEV_GAME_START) == 1,
                "then the game starts");
    rec_trk_destroy(t);
    free(o);
}

/* A board already in the middle of a game (move 40 of the sample game) when the recording begins: a
 * setup_error that says it is no start and how to record such a game, and no game; a board that is
 * the even start with a few pieces swapped gets no such advice (test_setup_error_then_fixed). */
static void test_setup_mid_game(void) {
    rec_trk_t *t = NULL;
    rul_pos_t mid;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_from_sfen(&mid, "ln1g3nl/1r3kg2/p2pppsp1/2ps2p1p/1p5P1/2PP1PP1P/PPS1P1N2/2G2S1R1/LN2KG2L b Bb 41",
                      NULL);
    rec_trk_create(NULL, NULL, &t);
    rec_obs_from_pos(o, &mid);
    feed_n(t, o, &ts, 20);
    const rec_trk_event_t *e = last_of(t, REC_TEV_SETUP_ERROR);
    TESTS_CHECK(e != NULL && strstr(e->detail, "not a start") && strstr(e->detail, "--start SFEN"),
                "a setup error that says so: %s", e ? e->detail : "none");
    TESTS_CHECK(e != NULL && strstr(e->detail, " more;"), "the differences listed as far as they fit: %s",
                e ? e->detail : "none");
    TESTS_CHECK(count_type(t, REC_TEV_GAME_START) == 0 && rec_trk_state(t) == REC_TRK_SETUP, "no game");
    rec_trk_destroy(t);
    /* seen for 0.5 s only (a file that begins mid-game, a move every second): nothing before the end
     * of the source, then rec_trk_finish judges it */
    t = NULL;
    ts = 0;
    rec_trk_create(NULL, NULL, &t);
    feed_n(t, o, &ts, 5);
    TESTS_CHECK(count_type(t, REC_TEV_SETUP_ERROR) == 0, "0.5 s: not yet judged");
    int nnew = 0;
    TESTS_CHECK(rec_trk_finish(t, ts, &nnew) == REC_OK && nnew == 1, "finish adds one event (%d)", nnew);
    e = last_of(t, REC_TEV_SETUP_ERROR);
    TESTS_CHECK(e != NULL && strstr(e->detail, "not a start"), "at the end of the source: %s",
                e ? e->detail : "none");
    rec_trk_destroy(t);
    t = NULL;
    rul_pos_t wrong;
    rul_pos_from_sfen(&wrong, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1R5B1/LNGSKGSNL b - 1", NULL);
    rec_trk_create(NULL, NULL, &t);
    rec_obs_from_pos(o, &wrong);
    feed_n(t, o, &ts, 20);
    e = last_of(t, REC_TEV_SETUP_ERROR);
    TESTS_CHECK(e != NULL && !strstr(e->detail, "not a start"), "a few pieces swapped: no advice (%s)",
                e ? e->detail : "none");
    rec_trk_destroy(t);
    free(o);
}

/* Any handicap start is recognised; uwate (gote) moves first. */
static void test_handicap_start(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_pos_set_handicap(&pos, RUL_HC_2);
    rec_trk_create(NULL, NULL, &t);
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    const rec_trk_event_t *e = last_of(t, REC_TEV_GAME_START);
    TESTS_CHECK(e != NULL && e->handicap == RUL_HC_2, "2-piece handicap recognised (%d)",
                e ? e->handicap : -9);
    rul_undo_t u;
    rul_pos_do_move(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 1), RUL_SQ(4, 2), 0), &u);
    rec_obs_from_pos(o, &pos);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    e = last_of(t, REC_TEV_MOVE);
    TESTS_CHECK(e != NULL && !strcmp(e->usi, "5a4b") && e->mover == RUL_GOTE, "gote's 5a4b first (%s)",
                e ? e->usi : "none");
    rec_trk_destroy(t);
    free(o);
}

/* The rook handicap given (--handicap rook), the even start on the board: one setup_error that names
 * the even start (handicap RUL_HC_EVEN) and no game; the 2-piece start given and seen: no such name. */
static void test_wrong_handicap(void) {
    static const struct {
        int given, seen, other, games;
    } C[] = {{RUL_HC_ROOK, RUL_HC_EVEN, RUL_HC_EVEN, 0}, {RUL_HC_2, RUL_HC_2, -1, 1}};
    for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
        rec_trk_t *t = NULL;
        rul_pos_t given, seen;
        rec_obs_t *o = obs_new();
        int64_t ts = 0;
        rul_pos_set_handicap(&given, (rul_handicap_t)C[c].given);
        rul_pos_set_handicap(&seen, (rul_handicap_t)C[c].seen);
        CU_ASSERT_EQUAL_FATAL(rec_trk_create(NULL, &given, &t), REC_OK);
        rec_obs_from_pos(o, &seen);
        feed_n(t, o, &ts, 20); /* 2 s: past setup_after_us */
        const rec_trk_event_t *se = last_of(t, REC_TEV_SETUP_ERROR);
        TESTS_CHECK(count_type(t, REC_TEV_GAME_START) == C[c].games, "case %zu: %d games (%d)", c, C[c].games,
                    count_type(t, REC_TEV_GAME_START));
        if (C[c].other >= 0)
            TESTS_CHECK(se && se->handicap == C[c].other &&
                            strstr(se->detail, "the board looks like the even start, not the one given"),
                        "case %zu: the setup error names the even start: %s", c, se ? se->detail : "none");
        else
            TESTS_CHECK(se == NULL, "case %zu: no setup error (%s)", c, se ? se->detail : "none");
        rec_trk_destroy(t);
        free(o);
    }
}

static void test_commands(void) {
    static const struct {
        const char *cmd;
        int winner, reason;
    } C[] = {
        {"resign sente", REC_WINNER_GOTE, RUL_REASON_RESIGN},
        {"flag sente", REC_WINNER_GOTE, RUL_REASON_TIME},
        {"abort", REC_WINNER_NONE, RUL_REASON_ABORT},
        {"declare", REC_WINNER_SENTE + 1 /* sente to move fails to declare: loses */, RUL_REASON_IMPASSE}};
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        rec_trk_t *t = NULL;
        rul_pos_t pos;
        rec_obs_t *o = obs_new();
        int64_t ts = 0;
        rec_error_t err;
        rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
        rec_trk_create(NULL, NULL, &t);
        TESTS_CHECK(rec_trk_command(t, C[i].cmd, 0, &err) == REC_ESTATE, "%s before the game: no game",
                    C[i].cmd);
        rec_obs_from_pos(o, &pos);
        feed_n(t, o, &ts, 3);
        TESTS_CHECK(rec_trk_command(t, C[i].cmd, ts, &err) == REC_OK, "%s: %s", C[i].cmd, err.msg);
        const rec_trk_event_t *e = last_of(t, REC_TEV_GAME_END);
        TESTS_CHECK(e && e->winner == C[i].winner && e->reason == C[i].reason, "%s: winner %d reason %d",
                    C[i].cmd, e ? e->winner : -1, e ? e->reason : -1);
        TESTS_CHECK(rec_trk_state(t) == REC_TRK_ENDED, "%s ends the game", C[i].cmd);
        rec_trk_destroy(t);
        free(o);
    }
    /* sente to move: gote's resignation or flag is refused (the files would name sente's loss), the
     * game goes on; after sente's move gote's resignation is taken */
    {
        rec_trk_t *t = NULL;
        rul_pos_t pos;
        rec_obs_t *o = obs_new();
        int64_t ts = 0;
        rec_error_t err;
        rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
        rec_trk_create(NULL, NULL, &t);
        rec_obs_from_pos(o, &pos);
        feed_n(t, o, &ts, 3);
        static const char *const wrong[] = {"resign gote", "flag gote"};
        for (int k = 0; k < 2; k++)
            TESTS_CHECK(rec_trk_command(t, wrong[k], ts, &err) == REC_ESTATE &&
                            strstr(err.msg, "sente is to move") && rec_trk_state(t) == REC_TRK_PLAYING &&
                            last_of(t, REC_TEV_GAME_END) == NULL,
                        "%s with sente to move: refused (%s)", wrong[k], err.msg);
        move_seen(t, o, &pos, "7g7f", &ts, 3, 1);
        TESTS_CHECK(rec_trk_command(t, "resign gote", ts, &err) == REC_OK, "resign gote after 7g7f: %s",
                    err.msg);
        const rec_trk_event_t *e = last_of(t, REC_TEV_GAME_END);
        TESTS_CHECK(e && e->winner == REC_WINNER_SENTE && e->reason == RUL_REASON_RESIGN, "sente wins (%d)",
                    e ? e->winner : -1);
        rec_trk_destroy(t);
        free(o);
    }
    rec_trk_t *t = NULL;
    rec_error_t err;
    rec_trk_create(NULL, NULL, &t);
    TESTS_CHECK(rec_trk_command(t, "resign blue", 0, &err) == REC_EPARSE && strstr(err.msg, "blue"),
                "bad side: %s", err.msg);
    TESTS_CHECK(rec_trk_command(t, "takeback", 0, &err) == REC_EPARSE && strstr(err.msg, "takeback"),
                "unknown command: %s", err.msg);
    rec_trk_destroy(t);
}

/* After a game ends (here a resignation), the board set up again starts game 2; after a
 * sennichite, with colours reversed (FESA 12.2). A board set up again mid-game stops the game. */
static void test_new_game(void) {
    rec_trk_t *t = NULL;
    rul_pos_t pos, p2;
    rec_obs_t *o = obs_new();
    int64_t ts = 0;
    rul_undo_t u;
    rec_error_t err;
    rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL);
    rec_trk_create(NULL, NULL, &t);
    rec_obs_from_pos(o, &pos);
    feed_n(t, o, &ts, 3);
    p2 = pos;
    rul_pos_do_move(&p2, RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0), &u);
    rec_obs_from_pos(o, &p2);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    rec_trk_command(t, "resign gote", ts, &err);
    rec_obs_from_pos(o, &pos);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    TESTS_CHECK(rec_trk_game_number(t) == 2 && rec_trk_state(t) == REC_TRK_PLAYING, "game 2 (%d)",
                rec_trk_game_number(t));
    const rec_trk_event_t *e = last_of(t, REC_TEV_GAME_START);
    TESTS_CHECK(e && e->game == 2 && !e->colours_reversed, "game 2 starts, same colours");
    /* mid-game setup again: game 2 stopped, game 3 */
    rec_obs_from_pos(o, &p2);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    rec_obs_from_pos(o, &pos);
    feed_hand(t, o, &ts);
    feed_n(t, o, &ts, 3);
    e = last_of(t, REC_TEV_GAME_END);
    TESTS_CHECK(e && e->game == 2 && e->reason == RUL_REASON_ABORT, "game 2 stopped (%s)",
                e ? e->detail : "none");
    TESTS_CHECK(rec_trk_game_number(t) == 3, "game 3 (%d)", rec_trk_game_number(t));
    rec_trk_destroy(t);
    free(o);
}

/* ---------------------------------------------------------------- real games from ../shared/data */

/* Replays the game of file rel (under ../shared/data) as a stream whose blackouts hide hide_min..hide_max
 * moves; adds its result to *sum. */
static void run_file_hidden(const char *rel, tt_result_t *sum, int *ngames, int expect_clean, int hide_min,
                            int hide_max) {
    char path[4096];
    tt_game_t g;
    tt_stream_params_t sp;
    tt_result_t r;
    if (tests_shared_path(path, sizeof path, rel) != 0)
        return;
    rul_pos_t start;
    if (tt_game_from_file(&g, path) != 0 || rul_pos_from_sfen(&start, g.start_sfen, NULL) != RUL_OK ||
        rul_pos_validate(&start, RUL_VALIDATE_BOTH_KINGS, NULL) != RUL_VALID)
        return; /* not a game (a tsume problem) */
    tt_stream_params_default(&sp);
    sp.seed = 1000u + (unsigned)*ngames;
    sp.blackout_min = hide_min;
    sp.blackout_max = hide_max;
    tt_run(&g, &sp, NULL, &r);
    tt_result_add(sum, &r);
    (*ngames)++;
    /* Never a wrong move, never an invented illegal one; a move not found is announced (uncertain). */
    if (expect_clean)
        TESTS_CHECK(r.wrong == 0 && r.illegal == 0 && (r.missing == 0 || r.uncertain > 0),
                    "%s: %d/%d right (+%d skipped), %d wrong, %d uncertain, %d missing, %d illegal", rel,
                    r.right, g.nlegal, r.skipped, r.wrong, r.uncertain, r.missing, r.illegal);
}

static void run_file(const char *rel, tt_result_t *sum, int *ngames, int expect_clean) {
    run_file_hidden(rel, sum, ngames, expect_clean, 2, 3);
}

static void test_real_games(void) {
    char dir[4096];
    if (tests_shared_path(dir, sizeof dir, "kifu") != 0) {
        tests_skip_shared("tracker on real games");
        return;
    }
    /* One folder of each kind of record: professional KIF, computer CSA, amateur KI2. */
    static const char *const DIRS[] = {"kifu/json-kifu-format/kif", "kifu/mog-core-scala/kif/game",
                                       "kifu/apery_wcsc28", "kifu/shogi-kifu-converter/kif",
                                       "kifu/python-shogi"};
    const char *env = getenv("KIFUCAM_TRACKER_GAMES");
    int limit = env ? atoi(env) : 24;
    tt_result_t sum;
    int ngames = 0, total_moves;
    memset(&sum, 0, sizeof sum);
    for (size_t d = 0; d < sizeof DIRS / sizeof DIRS[0]; d++) {
        char p[4096];
        tests_shared_path(p, sizeof p, DIRS[d]);
        struct dirent **names = NULL;
        int n = scandir(p, &names, NULL, alphasort);
        int taken = 0;
        for (int i = 0; i < n; i++) {
            const char *nm = names[i]->d_name;
            size_t L = strlen(nm);
            int ok = L > 4 && (!strcmp(nm + L - 4, ".kif") || !strcmp(nm + L - 4, ".csa") ||
                               !strcmp(nm + L - 4, ".ki2"));
            /* the three illegal-move games have their own test */
            if (ok && strstr(DIRS[d], "mog-core") &&
                (!strcmp(nm, "014.kif") || !strcmp(nm, "015.kif") || !strcmp(nm, "017.kif")))
                ok = 0;
            if (ok && taken < (limit + 4) / 5) {
                char rel[4096];
                snprintf(rel, sizeof rel, "%s/%s", DIRS[d], nm);
                run_file(rel, &sum, &ngames, 1);
                taken++;
            }
            free(names[i]);
        }
        free(names);
    }
    total_moves = sum.right + sum.skipped + sum.wrong + sum.missing;
    printf("\n    tracker: %d real games, %d/%d moves right (+%d skipped: an order no view shows), %d wrong, "
           "%d uncertain, %d missing; %d blackouts (%d hidden moves), %d nudges, %d frames\n",
           ngames, sum.right, total_moves, sum.skipped, sum.wrong, sum.uncertain, sum.missing, sum.blackouts,
           sum.hidden_moves, sum.nudges, sum.frames);
    TESTS_CHECK(ngames >= 5, "games replayed (%d)", ngames);
    TESTS_CHECK(sum.wrong == 0, "no wrong move (%d)", sum.wrong);
}

/* Blackouts of 4 and 5 moves (a spectator in front of the camera, frames lost): more than max_seq, so
 * the deep reading (max_seq_deep) finds them; with max_seq_deep = max_seq the same streams leave the
 * tracker uncertain. Never a wrong move either way. */
static void test_real_games_deep(void) {
    char dir[4096];
    if (tests_shared_path(dir, sizeof dir, "kifu") != 0) {
        tests_skip_shared("tracker on real games, long blackouts");
        return;
    }
    static const char *const FILES[] = {
        "kifu/json-kifu-format/kif/jt201409130101.kif", "kifu/mog-core-scala/kif/game/001.kif",
        "kifu/apery_wcsc28/utf8_WCSC28_L1_762_KFW.csa", "kifu/python-shogi/habu-fujii-2006.kif"};
    tt_result_t sum;
    int ngames = 0;
    memset(&sum, 0, sizeof sum);
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++)
        run_file_hidden(FILES[i], &sum, &ngames, 1, 4, 5);
    int total = sum.right + sum.skipped + sum.wrong + sum.missing;
    printf(
        "\n    tracker, blackouts of 4-5 moves: %d games, %d/%d right (+%d skipped), %d wrong, %d uncertain, "
        "%d missing; %d blackouts (%d hidden moves)\n",
        ngames, sum.right, total, sum.skipped, sum.wrong, sum.uncertain, sum.missing, sum.blackouts,
        sum.hidden_moves);
    TESTS_CHECK(ngames >= 3, "games replayed (%d)", ngames);
    TESTS_CHECK(sum.blackouts >= 4, "blackouts happened (%d)", sum.blackouts);
    TESTS_CHECK(sum.wrong == 0, "no wrong move (%d)", sum.wrong);
    TESTS_CHECK(sum.missing == 0, "every move recorded (%d missing)", sum.missing);
}

/* The board hidden for 10 moves (more than any hidden sequence): the tracker is lost; 3 s later
 * (resync_after_us) it takes the game up again from a view one move before the next it sees: game 1
 * stops (reason none) and game 2 continues from a position of the real game, its moves those of the
 * game from there. With resync_after_us 0 it stays lost (uncertain) to the end. */
static void test_resync_lost_game(void) {
    char path[4096];
    if (tests_shared_path(path, sizeof path, "kifu/json-kifu-format/kif/jt201409130101.kif") != 0) {
        tests_skip_shared("tracker: a game lost for 10 moves");
        return;
    }
    tt_game_t g;
    CU_ASSERT_FATAL(tt_game_from_file(&g, path) == 0);
    rec_trk_params_t tp;
    rec_trk_params_default(&tp);
    for (int on = 1; on >= 0; on--) {
        tt_stream_params_t sp;
        tt_result_t r;
        rec_trk_t *t = NULL;
        tt_stream_params_default(&sp);
        sp.seed = 7;
        sp.blackout_rate = 0;
        sp.nudge = 0;
        sp.lost_from = 40;
        sp.lost_count = 10;
        tp.resync_after_us = on ? 3000000 : 0;
        sp.trk_params = &tp;
        tt_run(&g, &sp, &t, &r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        /* the positions of the game, to find where game 2 starts */
        rul_pos_t pos;
        rul_undo_t u;
        rul_pos_from_sfen(&pos, g.start_sfen, NULL);
        int base = -1, games = 0, right = 0, wrong = 0, end1 = -1, reason1 = -1;
        const rec_trk_event_t *start2 = NULL;
        for (int i = 0; i < rec_trk_nevents(t); i++) {
            const rec_trk_event_t *e = rec_trk_event(t, i);
            if (e->type == REC_TEV_GAME_START)
                games++;
            if (e->type == REC_TEV_GAME_END && e->game == 1) {
                end1 = e->ply;
                reason1 = e->reason;
            }
            if (e->type == REC_TEV_GAME_START && e->game == 2) {
                start2 = e;
                rul_pos_t p2, q = pos;
                rul_pos_from_sfen(&p2, e->sfen, NULL);
                for (int m = 0; m < g.nlegal && base < 0; m++) {
                    rul_pos_do_move(&q, g.moves[m], &u);
                    if (q.key == p2.key)
                        base = m + 1; /* the position after move base */
                }
            }
            if (e->type == REC_TEV_MOVE && e->game == 2 && base >= 0) {
                if (base + e->ply <= g.nlegal && g.moves[base + e->ply - 1] == e->move)
                    right++;
                else
                    wrong++;
            }
        }
        if (on) {
            TESTS_CHECK(end1 == 40 && reason1 == RUL_REASON_NONE,
                        "game 1 stops after move 40, reason none (%d, %d)", end1, reason1);
            TESTS_CHECK(games == 2 && start2 && start2->continues == 1,
                        "game 2 takes up game 1 (%d games, continues %d)", games,
                        start2 ? start2->continues : -1);
            TESTS_CHECK(base >= 50 && base <= 60,
                        "game 2 starts at a position of the game, after move 50-60 (%d)", base);
            TESTS_CHECK(wrong == 0 && right == g.nlegal - base && right > 0,
                        "game 2 has the game's moves from there: %d right of %d, %d wrong", right,
                        g.nlegal - base, wrong);
            printf("\n    a game lost for 10 moves: game 1 stops at move %d, game 2 takes it up after move "
                   "%d, %d/%d "
                   "moves right, %d wrong\n",
                   end1, base, right, g.nlegal - base, wrong);
        } else {
            TESTS_CHECK(
                games == 1 && r.uncertain > 0 && r.right == 40,
                "without resync_after_us: one game, 40 moves, uncertain (%d games, %d right, %d uncertain)",
                games, r.right, r.uncertain);
        }
        rec_trk_destroy(t);
    }
}

/* mog-core-scala 014, 015, 017 end with an illegal move (kifu_validation.tsv): the tracker gives it
 * at its ply with its reason. */
/* The sample game (samples/sample-clip.usi) with moves lost_from+1..lost_from+n made while the camera
 * saw nothing (n = 8..10 plies, more than any hidden sequence is read from one view; within them sente's
 * moves, and gote's, could be made in other orders): game 1 stops after move lost_from with none of
 * the hidden moves written in any order, and game 2 takes the game up at the first view after the gap
 * (the position reached by the fewest legal moves that leave the board seen, gap.c, confirmed by the
 * next view), from exactly the game's position, with the game's moves from there. */
static void test_gap_taken_up(void) {
    /* exact: taken up at the first view after the gap; else (38+9: the fewest moves, 9, leave the board
     * seen with other hands and side to move than the game's 10, and the next view refutes them) later,
     * by the resync, from a position of the game all the same */
    static const struct { int from, n, exact; } C[] = {{20, 8, 1}, {10, 6, 1}, {30, 8, 1}, {38, 9, 0}};
    char path[4096], line[8192];
    CU_ASSERT_FATAL(tests_project_path(path, sizeof path, "samples/sample-clip.usi") == 0);
    FILE *f = fopen(path, "r");
    CU_ASSERT_FATAL(f != NULL && fgets(line, sizeof line, f) != NULL);
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    static tt_game_t g;
    CU_ASSERT_FATAL(tt_game_from_usi(&g, line) == 0);
    for (size_t c = 0; c < sizeof C / sizeof C[0]; c++) {
        tt_stream_params_t sp;
        tt_result_t r;
        rec_trk_t *t = NULL;
        tt_stream_params_default(&sp);
        sp.seed = 3;
        sp.blackout_rate = 0;
        sp.nudge = 0;
        sp.lost_from = C[c].from;
        sp.lost_count = C[c].n;
        tt_run(&g, &sp, &t, &r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        rul_pos_t truth, p2;
        rul_undo_t u;
        rul_pos_from_sfen(&truth, g.start_sfen, NULL);
        int end1 = -1, hidden = 0, games = 0, right = 0, wrong = 0, same = 0, base = -1;
        for (int i = 0; i < rec_trk_nevents(t); i++) {
            const rec_trk_event_t *e = rec_trk_event(t, i);
            games += e->type == REC_TEV_GAME_START;
            hidden += e->type == REC_TEV_MOVE && e->hidden;
            if (e->type == REC_TEV_GAME_END && e->game == 1)
                end1 = e->ply;
            if (e->type == REC_TEV_GAME_START && e->game == 2 &&
                rul_pos_from_sfen(&p2, e->sfen, NULL) == RUL_OK)
                for (int m = 0; m < g.nlegal && base < 0; m++) { /* where the game reaches it */
                    rul_pos_do_move(&truth, g.moves[m], &u);
                    if (truth.key == p2.key && e->continues == 1)
                        base = m + 1;
                }
            if (e->type == REC_TEV_MOVE && e->game == 2 && base >= 0) {
                int m = base + e->ply - 1;
                *(m < g.nlegal && g.moves[m] == e->move ? &right : &wrong) += 1;
            }
        }
        /* the first view after the gap shows the position after the move after it */
        same = C[c].exact ? base == C[c].from + C[c].n + 1 : base > C[c].from + C[c].n + 1;
        int want = base >= 0 ? g.nlegal - base : -1;
        TESTS_CHECK(end1 == C[c].from && hidden == 0 && games == 2,
                    "lost %d+%d: game 1 stops after move %d (%d), no hidden move (%d), 2 games (%d)",
                    C[c].from, C[c].n, C[c].from, end1, hidden, games);
        TESTS_CHECK(same && right == want && wrong == 0,
                    "lost %d+%d: game 2 from the game's position after move %d (want %s %d), its %d moves "
                    "right (%d, %d "
                    "wrong)",
                    C[c].from, C[c].n, base, C[c].exact ? "" : "after", C[c].from + C[c].n + 1, want, right,
                    wrong);
        rec_trk_destroy(t);
    }
}

static void test_illegal_games(void) {
    static const struct {
        const char *rel;
        int ply;
        const char *why;
    } G[] = {{"kifu/mog-core-scala/kif/game/014.kif", 157, "leaves_king_in_check"},
             {"kifu/mog-core-scala/kif/game/015.kif", 83, "leaves_king_in_check"},
             {"kifu/mog-core-scala/kif/game/017.kif", 27, "leaves_king_in_check"}};
    char path[4096];
    if (tests_shared_path(path, sizeof path, G[0].rel) != 0) {
        tests_skip_shared("tracker on the illegal-move games");
        return;
    }
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        tt_game_t g;
        tt_stream_params_t sp;
        tt_result_t r;
        rec_trk_t *t = NULL;
        tests_shared_path(path, sizeof path, G[i].rel);
        TESTS_CHECK(tt_game_from_file(&g, path) == 0, "%s reads", G[i].rel);
        tt_stream_params_default(&sp);
        sp.seed = 77u + (unsigned)i;
        sp.blackout_rate = 0; /* blackouts are the other tests' subject */
        tt_run(&g, &sp, &t, &r);
        TESTS_CHECK(r.wrong == 0 && r.right + r.skipped == g.nmoves - 1,
                    "%s: %d/%d legal moves right (+%d skipped), %d wrong", G[i].rel, r.right, g.nmoves - 1,
                    r.skipped, r.wrong);
        const rec_trk_event_t *e = last_of(t, REC_TEV_ILLEGAL);
        TESTS_CHECK(e != NULL && e->ply == G[i].ply && !strcmp(rec_trk_why_name(e->why), G[i].why) &&
                        e->move == g.moves[g.nmoves - 1],
                    "%s: illegal move at ply %d (%d), reason %s (%s)", G[i].rel, G[i].ply, e ? e->ply : -1,
                    G[i].why, e ? rec_trk_why_name(e->why) : "none");
        TESTS_CHECK(count_type(t, REC_TEV_ILLEGAL) == 1, "%s: one illegal event (%d)", G[i].rel,
                    count_type(t, REC_TEV_ILLEGAL));
        rec_trk_destroy(t);
    }
}

/* Repetition: 009.kif ends in sennichite at ply 85; shogi-server's oute_sennichite games in
 * perpetual check (FESA 3.12) at the ply the replay finds. */
static void test_repetition_games(void) {
    static const struct {
        const char *rel;
        int ply, reason, winner;
    } G[] = {
        {"kifu/mog-core-scala/kif/game/009.kif", 85, RUL_REASON_SENNICHITE, REC_WINNER_NONE},
        {"fixtures/shogi-server/csa/oute_sennichite.csa", 110, RUL_REASON_PERPETUAL_CHECK, REC_WINNER_GOTE},
        {"fixtures/shogi-server/csa/oute_sennichite2.csa", 135, RUL_REASON_PERPETUAL_CHECK,
         REC_WINNER_SENTE}};
    char path[4096];
    if (tests_shared_path(path, sizeof path, G[0].rel) != 0) {
        tests_skip_shared("tracker on repetition games");
        return;
    }
    for (size_t i = 0; i < sizeof G / sizeof G[0]; i++) {
        tt_game_t g;
        tt_stream_params_t sp;
        tt_result_t r;
        rec_trk_t *t = NULL;
        tests_shared_path(path, sizeof path, G[i].rel);
        TESTS_CHECK(tt_game_from_file(&g, path) == 0, "%s reads", G[i].rel);
        tt_stream_params_default(&sp);
        sp.seed = 300u + (unsigned)i;
        sp.blackout_rate = 0;
        tt_run(&g, &sp, &t, &r);
        TESTS_CHECK(r.wrong == 0 && r.right >= G[i].ply, "%s: %d moves right, %d wrong", G[i].rel, r.right,
                    r.wrong);
        const rec_trk_event_t *e = last_of(t, REC_TEV_GAME_END);
        TESTS_CHECK(e && e->ply == G[i].ply && e->reason == G[i].reason && e->winner == G[i].winner,
                    "%s: ends at ply %d (%d), reason %s (%s), winner %d (%d)", G[i].rel, G[i].ply,
                    e ? e->ply : -1, rul_reason_name((rul_reason_t)G[i].reason),
                    e ? rul_reason_name((rul_reason_t)e->reason) : "none", G[i].winner, e ? e->winner : -1);
        rec_trk_destroy(t);
    }
}

/* Illegal actions on small positions: each reason, two in a row, a king captured after being left in
 * check (FESA 9.5). */
static void test_illegal_actions(void) {
    static const struct {
        const char *label, *sfen, *moves; /* moves: USI, the last one is the illegal action */
        int wrong_side;                   /* the last move is by the side that just moved */
        const char *why;
        int ends; /* 1: the game ends (king captured) */
    } C[] = {
        {"nifu", "4k4/9/9/9/9/9/4P4/9/4K4 b P 1", "P*5e", 0, "nifu", 0},
        {"pawn drop mate", "7nk/9/7+R1/9/9/9/9/9/K8 b P 1", "P*1b", 0, "pawn_drop_mate", 0},
        {"leaves king in check", "4k4/4r4/9/9/9/9/9/9/4K4 b - 1", "5i5h", 0, "leaves_king_in_check", 0},
        {"no compulsory promotion", "4k4/9/P8/9/9/9/9/9/4K4 b - 1", "9c9b 5a4a 9b9a", 0, "no_further_move",
         0},
        {"rook moved like a bishop", "4k4/9/9/9/9/9/9/1R7/4K4 b - 1", "8h6f", 0, "not_a_legal_move", 0},
        {"two in a row", "4k4/9/9/9/9/9/2P6/9/4K4 b - 1", "7g7f 7f7e", 1, "two_moves_in_a_row", 0},
        {"king left in check, captured", "4k4/4r4/9/9/9/9/9/9/4K4 b G 1", "G*1a 5b5i", 0, "king_captured", 1},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        rec_trk_t *t = NULL;
        rul_pos_t pos;
        rec_obs_t *o = obs_new();
        int64_t ts = 0;
        char buf[64], *save = NULL;
        rul_pos_from_sfen(&pos, C[i].sfen, NULL);
        rec_trk_create(NULL, &pos, &t);
        rec_obs_from_pos(o, &pos);
        feed_n(t, o, &ts, 3);
        snprintf(buf, sizeof buf, "%s", C[i].moves);
        int nm = 0;
        for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
            nm++;
        snprintf(buf, sizeof buf, "%s", C[i].moves);
        int k = 0;
        for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save), k++) {
            rul_move_t m;
            rul_undo_t u;
            rul_move_from_usi(w, &m, NULL);
            if (k == nm - 1 && C[i].wrong_side) {
                pos.side ^= 1;
                rul_pos_rehash(&pos);
            }
            rul_pos_do_move(&pos, m, &u);
            rec_obs_from_pos(o, &pos);
            feed_hand(t, o, &ts);
            feed_n(t, o, &ts, 15);
        }
        if (C[i].ends) {
            const rec_trk_event_t *e = last_of(t, REC_TEV_KING_CAPTURED);
            const rec_trk_event_t *end = last_of(t, REC_TEV_GAME_END);
            TESTS_CHECK(e != NULL && end != NULL && end->winner == REC_WINNER_GOTE &&
                            rec_trk_state(t) == REC_TRK_ENDED,
                        "%s: king captured, gote wins (FESA 9.5)", C[i].label);
            const rec_trk_event_t *il = last_of(t, REC_TEV_ILLEGAL);
            TESTS_CHECK(il && !strcmp(rec_trk_why_name(il->why), "leaves_king_in_check") && il->ply == 1,
                        "%s: the drop that left the king in check is illegal at ply 1", C[i].label);
        } else {
            const rec_trk_event_t *e = last_of(t, REC_TEV_ILLEGAL);
            TESTS_CHECK(e != NULL && !strcmp(rec_trk_why_name(e->why), C[i].why) && e->ply == nm,
                        "%s: illegal at ply %d (%d), reason %s (%s)", C[i].label, nm, e ? e->ply : -1,
                        C[i].why, e ? rec_trk_why_name(e->why) : "none");
            TESTS_CHECK(rec_trk_state(t) == REC_TRK_PLAYING, "%s: the game goes on", C[i].label);
            TESTS_CHECK(rul_pos_same(&rec_trk_game(t)->pos, &pos), "%s: from the position after it",
                        C[i].label);
        }
        TESTS_CHECK(count_type(t, REC_TEV_UNCERTAIN) == 0, "%s: no uncertain event", C[i].label);
        rec_trk_destroy(t);
        free(o);
    }
}

int tests_register_tracker(void) {
    CU_pSuite s = CU_add_suite("tracker", NULL, NULL);
    if (s == NULL)
        return -1;
    if (!CU_add_test(s, "small game, clean readings", test_small_game_clean) ||
        !CU_add_test(s, "small game, noise, blackouts, nudges", test_small_game_noisy) ||
        !CU_add_test(s, "move times from timestamps", test_times) ||
        !CU_add_test(s, "ambiguous promotion is uncertain", test_uncertain_promotion) ||
        !CU_add_test(s, "a forgone promotion needs a clear view", test_forgone_promotion_prior) ||
        !CU_add_test(s, "nudged piece is not a move", test_nudge_is_not_a_move) ||
        !CU_add_test(s, "setup error square by square", test_setup_error_then_fixed) ||
        !CU_add_test(s, "a game under way is no start: said, with the advice", test_setup_mid_game) ||
        !CU_add_test(s, "a long setup error ends with the number left out", test_setup_error_and_more) ||
        !CU_add_test(s, "handicap start", test_handicap_start) ||
        !CU_add_test(s, "a wrong handicap given: the setup error names the start seen",
                     test_wrong_handicap) ||
        !CU_add_test(s, "commands", test_commands) || !CU_add_test(s, "new game", test_new_game) ||
        !CU_add_test(s, "illegal actions", test_illegal_actions) ||
        !CU_add_test(s, "real games", test_real_games) ||
        !CU_add_test(s, "real games, blackouts of 4-5 moves", test_real_games_deep) ||
        !CU_add_test(s, "a game lost for 10 moves is taken up again", test_resync_lost_game) ||
        !CU_add_test(s, "a gap of 8-10 moves: taken up at the next views, exactly", test_gap_taken_up) ||
        !CU_add_test(s, "illegal-move games", test_illegal_games) ||
        !CU_add_test(s, "repetition games", test_repetition_games) ||
        !CU_add_test(s, "board changed and back: said, nothing written", test_came_back) ||
        !CU_add_test(s, "source ends on an unexplained view: uncertain at once", test_finish_pending) ||
        !CU_add_test(s, "ambiguous drop resolved by a later move", test_resync_resolved) ||
        !CU_add_test(s, "ambiguity never resolved: no move", test_resync_unresolved) ||
        !CU_add_test(s, "board set wrongly, then put back", test_resync_after_mess) ||
        !CU_add_test(s, "a false ambiguous view does not stop the game", test_resync_false_view) ||
        !CU_add_test(s, "a komadai misread does not stop a move", test_stale_komadai) ||
        !CU_add_test(s, "a view is read after 100 ms still", test_min_run) ||
        !CU_add_test(s, "precision first: occupancy the view contradicts is not written",
                     test_precision_first) ||
        !CU_add_test(s, "precision first: a hidden move the board cannot show is not written",
                     test_traceless_story) ||
        !CU_add_test(s, "misread start squares: the game starts", test_start_misread) ||
        !CU_add_test(s, "two ways to one position: the record stops, the next game takes it up",
                     test_merged_promotion) ||
        !CU_add_test(s, "min_move_us: no 3 hidden moves in 0.3 s", test_min_move_short_gap) ||
        !CU_add_test(s, "min_move_us: 3 hidden moves after 2 s", test_min_move_long_gap) ||
        !CU_add_test(s, "min_move_us 0: 3 hidden moves in 0.3 s", test_min_move_unlimited) ||
        !CU_add_test(s, "max_misread_given: a given start read off in kind only", test_given_start_misread) ||
        !CU_add_test(s, "a start whose board fits and komadai do not: the board decides",
                     test_start_komadai_misread) ||
        !CU_add_test(s, "a start that fits with a hand read otherwise: said, and the game starts",
                     test_start_hand_differs))
        return -1;
    return 0;
}
