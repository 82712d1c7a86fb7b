/* test_damaged.c - views of frames decoded from damaged data (rec_obs_t.damaged, recorder/tracker/
 * damaged.c): their moves are written only once the first clean view after them is their position or
 * one move from it; a stretch whose picture the clean view contradicts writes nothing but an uncertain
 * event, and so does one the source ends in. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/tracker/tracker.h"
#include "rules/rules.h"
#include "tests/tests.h"

static int count_type(const rec_trk_t *t, int type) {
    int n = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++)
        n += rec_trk_event(t, i)->type == type;
    return n;
}

/* Feeds n frames of pos (a certain reading) from *ts, 100 ms apart: view, damaged as given. */
static void feed_pos(rec_trk_t *t, rec_obs_t *o, const rul_pos_t *pos, int view, int damaged, int64_t *ts,
                     int n) {
    rec_obs_from_pos(o, pos);
    o->view = view;
    o->damaged = (uint8_t)damaged;
    for (int i = 0; i < n; i++) {
        o->ts_us = *ts;
        *ts += 100000;
        CU_ASSERT_EQUAL(rec_trk_feed(t, o, NULL), REC_OK);
    }
}

/* The move usi played on *pos. */
static void play(rul_pos_t *pos, const char *usi) {
    rul_move_t m;
    rul_undo_t u;
    CU_ASSERT_EQUAL_FATAL(rul_move_from_usi(usi, &m, NULL), RUL_OK);
    rul_pos_do_move(pos, m, &u);
}

/* A tracker whose game has started from the even start (*pos), its clock at *ts. */
static rec_trk_t *started(rec_obs_t *o, rul_pos_t *pos, int64_t *ts) {
    rec_trk_t *t = NULL;
    CU_ASSERT_EQUAL_FATAL(rec_trk_create(NULL, NULL, &t), REC_OK);
    rul_pos_set_handicap(pos, RUL_HC_EVEN);
    feed_pos(t, o, pos, REC_VIEW_STABLE, 0, ts, 5);
    CU_ASSERT_EQUAL_FATAL(rec_trk_state(t), REC_TRK_PLAYING);
    return t;
}

/* Moves 7g7f 3c3d 2g2f seen only in damaged frames (a hand between them): nothing is written while
 * they last; the clean view after them (3 s later, the position after 2g2f) writes the three, each
 * flagged damaged and late, the game's moves in order. */
static void test_damaged_confirmed(void) {
    static const char *const moves[] = {"7g7f", "3c3d", "2g2f"};
    rec_obs_t *o = malloc(sizeof *o);
    rul_pos_t pos;
    int64_t ts = 0;
    rec_trk_t *t = started(o, &pos, &ts);
    for (int i = 0; i < 3; i++) {
        feed_pos(t, o, &pos, REC_VIEW_HAND, 1, &ts, 3);
        play(&pos, moves[i]);
        feed_pos(t, o, &pos, REC_VIEW_STABLE, 1, &ts, 8);
    }
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 0, "no move written from damaged frames alone (%d)",
                count_type(t, REC_TEV_MOVE));
    feed_pos(t, o, &pos, REC_VIEW_STABLE, 0, &ts, 3);
    int n = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type != REC_TEV_MOVE)
            continue;
        TESTS_CHECK(n < 3 && strcmp(e->usi, moves[n]) == 0 && e->ply == n + 1 && e->damaged && e->late,
                    "move %d: %s ply %d damaged %d late %d (want %s)", n + 1, e->usi, e->ply, e->damaged,
                    e->late, n < 3 ? moves[n] : "none");
        n++;
    }
    TESTS_CHECK(n == 3 && count_type(t, REC_TEV_UNCERTAIN) == 0, "%d moves, %d uncertain (want 3, 0)", n,
                count_type(t, REC_TEV_UNCERTAIN));
    /* the game goes on from there, clean */
    feed_pos(t, o, &pos, REC_VIEW_HAND, 0, &ts, 3);
    play(&pos, "8c8d");
    feed_pos(t, o, &pos, REC_VIEW_STABLE, 0, &ts, 3);
    const rec_trk_event_t *e = rec_trk_event(t, rec_trk_nevents(t) - 1);
    TESTS_CHECK(e->type == REC_TEV_MOVE && strcmp(e->usi, "8c8d") == 0 && e->ply == 4 && !e->damaged,
                "then 8c8d as move 4, clean (%s %s ply %d)", rec_trk_event_name(e->type), e->usi, e->ply);
    rec_trk_destroy(t);
    free(o);
}

/* Damaged frames show 7g7f (a stale picture: the game's move was 2g2f); the clean view after them
 * is the position after 2g2f 8c8d, which is not 7g7f's position nor one move from it: the held-back
 * 7g7f is dropped with an uncertain event that names it, and no move of the record is wrong. */
static void test_damaged_contradicted(void) {
    rec_obs_t *o = malloc(sizeof *o);
    rul_pos_t pos, shown;
    int64_t ts = 0;
    rec_trk_t *t = started(o, &pos, &ts);
    shown = pos;
    play(&shown, "7g7f");
    feed_pos(t, o, &pos, REC_VIEW_HAND, 1, &ts, 3);
    feed_pos(t, o, &shown, REC_VIEW_STABLE, 1, &ts, 8);
    play(&pos, "2g2f");
    play(&pos, "8c8d");
    feed_pos(t, o, &pos, REC_VIEW_HAND, 0, &ts, 3);
    feed_pos(t, o, &pos, REC_VIEW_STABLE, 0, &ts, 30);
    int wrong = 0, right = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type == REC_TEV_MOVE)
            (*(strcmp(e->usi, e->ply == 1 ? "2g2f" : e->ply == 2 ? "8c8d" : "") == 0 ? &right : &wrong))++;
    }
    TESTS_CHECK(wrong == 0, "%d wrong moves, %d right", wrong, right);
    int said = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        said += e->type == REC_TEV_UNCERTAIN && strstr(e->detail, "damaged data") != NULL &&
                strstr(e->detail, "7g7f") != NULL;
    }
    TESTS_CHECK(said == 1, "one uncertain event names the dropped 7g7f (%d)", said);
    rec_trk_destroy(t);
    free(o);
}

/* The source ends inside a damaged stretch that showed 7g7f: nothing is written but an uncertain event
 * (rec_trk_finish), and the game stays at the start. */
static void test_damaged_at_end(void) {
    rec_obs_t *o = malloc(sizeof *o);
    rul_pos_t pos;
    int64_t ts = 0;
    rec_trk_t *t = started(o, &pos, &ts);
    feed_pos(t, o, &pos, REC_VIEW_HAND, 1, &ts, 3);
    play(&pos, "7g7f");
    feed_pos(t, o, &pos, REC_VIEW_STABLE, 1, &ts, 8);
    CU_ASSERT_EQUAL(rec_trk_finish(t, ts, NULL), REC_OK);
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 0 && count_type(t, REC_TEV_UNCERTAIN) == 1 &&
                    rec_trk_game(t)->nply == 0,
                "%d moves, %d uncertain, ply %d (want 0, 1, 0)", count_type(t, REC_TEV_MOVE),
                count_type(t, REC_TEV_UNCERTAIN), rec_trk_game(t)->nply);
    rec_trk_destroy(t);
    free(o);
}

/* A damaged view that no single legal move explains, even with two squares taken as stale (three
 * moves at once: a smeared picture), stops the stretch's reading once it lasts illegal_after_us: the
 * moves after it are not read from damaged frames, and the clean view is left to the clean tracker. */
static void test_damaged_frozen(void) {
    rec_obs_t *o = malloc(sizeof *o);
    rul_pos_t pos, two;
    int64_t ts = 0;
    rec_trk_t *t = started(o, &pos, &ts);
    two = pos;
    play(&two, "7g7f");
    play(&two, "3c3d");
    play(&two, "8h2b+");
    feed_pos(t, o, &pos, REC_VIEW_HAND, 1, &ts, 3);
    feed_pos(t, o, &two, REC_VIEW_STABLE, 1, &ts, 15); /* 1.5 s unexplained by one move */
    play(&pos, "2g2f");
    feed_pos(t, o, &pos, REC_VIEW_HAND, 1, &ts, 3);
    feed_pos(t, o, &pos, REC_VIEW_STABLE, 1, &ts, 8);
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 0, "nothing written during the stretch");
    feed_pos(t, o, &pos, REC_VIEW_STABLE, 0, &ts, 3);
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 1 &&
                    strcmp(rec_trk_event(t, rec_trk_nevents(t) - 1)->usi, "2g2f") == 0 &&
                    !rec_trk_event(t, rec_trk_nevents(t) - 1)->damaged,
                "2g2f written from the clean view alone (%d moves)", count_type(t, REC_TEV_MOVE));
    rec_trk_destroy(t);
    free(o);
}

/* A damaged picture keeps a gote gold on 5e that was never there (a stale block) while 7g7f and 3c3d
 * are made: the square is taken as stale, the two moves are read, and the clean view (which reads 5e
 * empty) confirms them: written, flagged damaged. */
static void test_damaged_stale_square(void) {
    static const char *const moves[] = {"7g7f", "3c3d"};
    rec_obs_t *o = malloc(sizeof *o);
    rul_pos_t pos;
    int64_t ts = 0;
    rec_trk_t *t = started(o, &pos, &ts);
    for (int i = 0; i < 2; i++) {
        feed_pos(t, o, &pos, REC_VIEW_HAND, 1, &ts, 3);
        play(&pos, moves[i]);
        for (int k = 0; k < 8; k++) {
            rec_obs_from_pos(o, &pos);
            memset(o->sq_prob[RUL_SQ(5, 5)], 0, sizeof o->sq_prob[0]);
            o->sq_prob[RUL_SQ(5, 5)][REC_OBS_CLASS(RUL_PIECE(RUL_GOTE, RUL_GOLD))] = 1.0f;
            o->view = REC_VIEW_STABLE;
            o->damaged = 1;
            o->ts_us = ts;
            ts += 100000;
            CU_ASSERT_EQUAL(rec_trk_feed(t, o, NULL), REC_OK);
        }
    }
    TESTS_CHECK(count_type(t, REC_TEV_MOVE) == 0, "nothing written during the stretch");
    feed_pos(t, o, &pos, REC_VIEW_STABLE, 0, &ts, 3);
    int damaged = 0, wrong = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type != REC_TEV_MOVE)
            continue;
        damaged += e->damaged;
        wrong += e->ply > 2 || strcmp(e->usi, moves[e->ply - 1]) != 0;
    }
    TESTS_CHECK(damaged == 2 && wrong == 0 && rec_trk_game(t)->nply == 2,
                "stale 5e: %d damaged moves written, %d wrong, ply %d (want 2, 0, 2)", damaged, wrong,
                rec_trk_game(t)->nply);
    rec_trk_destroy(t);
    free(o);
}

int tests_register_tracker_damaged(void) {
    CU_pSuite s = CU_add_suite("tracker_damaged", NULL, NULL);
    if (s == NULL ||
        !CU_add_test(s, "damaged views' moves written once a clean view confirms them",
                     test_damaged_confirmed) ||
        !CU_add_test(s, "a clean view contradicting them drops them, said", test_damaged_contradicted) ||
        !CU_add_test(s, "the source ends in damaged frames: nothing written, said", test_damaged_at_end) ||
        !CU_add_test(s, "a damaged view no move explains stops the reading", test_damaged_frozen) ||
        !CU_add_test(s, "a stale square of a damaged picture is not read", test_damaged_stale_square))
        return -1;
    return 0;
}
