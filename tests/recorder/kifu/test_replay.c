/* test_replay.c - recorder/kifu/replay.c: a USI game line replayed to its result, with the events and the
 * reason of an illegal move (issue 2's `kifucam replay`), and its JSON. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/kifu/replay.h"
#include "rules/rules.h"
#include "tests/tests.h"

typedef struct {
    const char *label;
    const char *usi;
    const char *winner;      /* rec_winner_name */
    const char *reason;      /* rul_reason_name */
    int ply;                 /* result.ply */
    const char *illegal_why; /* rul_why_name of the illegal move, or NULL */
} replay_case_t;

static const replay_case_t CASES[] = {
    /* rules_cases.tsv R09, R10: sennichite (FESA 5.2), fourth occurrence over the whole game. */
    {"R09", "position startpos moves 2h3h 8b7b 3h2h 7b8b 2h3h 8b7b 3h2h 7b8b 2h3h 8b7b 3h2h 7b8b", "none",
     "sennichite", 12, NULL},
    {"R10",
     "position startpos moves 5i4h 5a5b 4h5h 5b5a 5h5i 8b7b 2h3h 7b8b 3h2h 8b7b 2h3h 7b8b 3h2h 8b7b 2h3h "
     "7b8b 3h2h",
     "none", "sennichite", 17, NULL},
    /* R11, R12: perpetual check (FESA 3.12): the checking side loses. */
    {"R11",
     "position sfen +R6nl/6s1k/p1n2s1s1/1g3Bp1p/2pPPNPp1/KPs2G2P/N3p4/1G4+r2/LL7 b BL2Pg5p 1 moves L*1c 1b1c "
     "B*3a "
     "1c2d 3a4b+ 2d1c 4b3a 1c2d 3a4b 2d1c 4b3a 1c2d 3a4b 2d1c 4b3a 1c2d 3a4b",
     "gote", "perpetual_check", 17, NULL},
    {"R12",
     "position sfen 1n5ll/4R2g1/1g2P3n/p5Spk/1Kp1ppP2/P1Pb3G1/1S1S2N1P/2S6/LN+b5+r w GL5P3p 1 moves 8a7c "
     "8e8f "
     "7i6h 8f9g 6h7i 9g8f 7i6h 8f9g 6h7i 9g8f 7i6h 8f9g 6h7i 9g8f",
     "sente", "perpetual_check", 14, NULL},
    /* Illegal moves stop the replay at their number; the mover's opponent wins (FESA 9.4). */
    {"nifu", "position sfen 4k4/9/9/9/9/9/4P4/9/4K4 b P 1 moves P*5e", "gote", "illegal_move", 1, "nifu"},
    {"nifu by gote", "position sfen 4k4/9/2p6/9/9/9/9/9/4K4 w p 1 moves P*7g", "sente", "illegal_move", 1,
     "nifu"},
    {"pawn drop mate", "position sfen 8k/9/7+R1/9/9/9/9/9/K8 b P 1 moves P*1b", "gote", "illegal_move", 1,
     "pawn_drop_mate"},
    {"king left in check", "position sfen 4k4/4r4/9/9/9/9/9/9/4K4 b - 1 moves 5i5h", "gote", "illegal_move",
     1, "leaves_king_in_check"},
    {"king moved into check", "position sfen 4k4/9/9/9/9/9/9/3r5/4K4 b - 1 moves 5i4i 5a4a 4i4h", "gote",
     "illegal_move", 3, "leaves_king_in_check"},
    {"no further move", "position sfen 4k4/9/9/P8/9/9/9/9/4K4 b - 1 moves 9d9c 5a4a 9c9b 4a5a 9b9a", "gote",
     "illegal_move", 5, "no_further_move"},
    {"not a legal move", "position startpos moves 7g7f 3c3d 2h2c", "gote", "illegal_move", 3,
     "not_a_legal_move"},
    {"move of the wrong side", "position startpos moves 3c3d", "gote", "illegal_move", 1, "not_a_legal_move"},
    /* Mate (FESA 5.1): "fool's mate" style with a drop: gote's king mated by G*5b. */
    {"mate", "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1 moves G*5b", "sente", "mate", 1, NULL},
    /* A tsume record: only gote has a king; it replays (issue 3: every corpus file replays). */
    {"tsume, one king", "position sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1 moves G*5b", "sente", "mate", 1, NULL},
    /* A move written after the mate is illegal at its own number, after the mate event. */
    {"move after mate", "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1 moves G*5b 5a4a", "sente",
     "illegal_move", 2, "leaves_king_in_check"},
    /* No legal move without check (FESA 1.2): gote king on 1a boxed in by its own pieces? Not
     * possible to move at all: a lone gote king on 9a with sente pieces covering b-squares. */
    {"no legal move", "position sfen k8/2G6/1G7/9/9/9/9/9/4K4 w - 1", "sente", "no_legal_move", 0, NULL},
    {"resign", "position startpos moves 7g7f 3c3d resign", "gote", "resign", 2, NULL},
    /* a fallen flag (kifucam's "timeout" token; KIF 切れ負け, CSA %TIME_UP): the side to move loses */
    {"timeout", "position startpos moves 7g7f 3c3d 2g2f timeout", "sente", "time", 3, NULL},
    {"unfinished", "position startpos moves 7g7f", "none", "none", 1, NULL},
};

static void test_cases(void) {
    rec_replay_t *r = NULL;
    CU_ASSERT_FATAL(rec_replay_create(&r) == REC_OK);
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        const replay_case_t *c = &CASES[i];
        rec_error_t err;
        int rc = rec_replay_usi(r, c->usi, NULL, &err);
        TESTS_CHECK(rc == REC_OK, "%s: rc %d: %s", c->label, rc, err.msg);
        if (rc != REC_OK)
            continue;
        TESTS_CHECK(strcmp(rec_winner_name(r->result.winner), c->winner) == 0, "%s: winner %s, want %s",
                    c->label, rec_winner_name(r->result.winner), c->winner);
        TESTS_CHECK(strcmp(rul_reason_name(r->result.reason), c->reason) == 0, "%s: reason %s, want %s",
                    c->label, rul_reason_name(r->result.reason), c->reason);
        TESTS_CHECK(r->result.ply == c->ply, "%s: ply %d, want %d", c->label, r->result.ply, c->ply);
        if (c->illegal_why) {
            TESTS_CHECK(strcmp(rul_why_name(r->illegal_why), c->illegal_why) == 0, "%s: why %s, want %s",
                        c->label, rul_why_name(r->illegal_why), c->illegal_why);
            int found = 0;
            for (int e = 0; e < r->nevents; e++)
                if (r->events[e].type == REC_EV_ILLEGAL_MOVE && r->events[e].ply == c->ply &&
                    strcmp(r->events[e].detail, c->illegal_why) == 0)
                    found = 1;
            TESTS_CHECK(found, "%s: no illegal_move event with detail %s at ply %d", c->label, c->illegal_why,
                        c->ply);
        }
    }
    rec_replay_destroy(r);
}

/* The mate event comes before the illegal move written after it. */
static void test_move_after_mate_events(void) {
    rec_replay_t *r = NULL;
    CU_ASSERT_FATAL(rec_replay_create(&r) == REC_OK);
    CU_ASSERT_FATAL(rec_replay_usi(r, "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1 moves G*5b 5a4a", NULL,
                                   NULL) == REC_OK);
    int mate_at = -1, illegal_at = -1;
    for (int e = 0; e < r->nevents; e++) {
        if (r->events[e].type == REC_EV_MATE)
            mate_at = e;
        if (r->events[e].type == REC_EV_ILLEGAL_MOVE)
            illegal_at = e;
    }
    TESTS_CHECK(mate_at >= 0 && illegal_at > mate_at, "mate event %d, illegal_move event %d", mate_at,
                illegal_at);
    TESTS_CHECK(r->moves == 1, "moves %d, want 1", r->moves);
    rec_replay_destroy(r);
}

/* Malformed text is an error naming the column, not an illegal move. */
static void test_bad_text(void) {
    static const struct {
        const char *usi;
        int column;
    } BAD[] = {
        {"position startpos moves 7g7f 3c3z", 30},
        {"position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1", 0},
        {"position startpos moves 7g7f resign 3c3d", 0},
    };
    rec_replay_t *r = NULL;
    CU_ASSERT_FATAL(rec_replay_create(&r) == REC_OK);
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        rec_error_t err;
        memset(&err, 0, sizeof err);
        int rc = rec_replay_usi(r, BAD[i].usi, NULL, &err);
        TESTS_CHECK(rc == REC_EPARSE, "'%s': rc %d, want REC_EPARSE", BAD[i].usi, rc);
        TESTS_CHECK(err.msg[0] != 0, "'%s': no message", BAD[i].usi);
        if (BAD[i].column)
            TESTS_CHECK(err.column == BAD[i].column, "'%s': column %d, want %d (%s)", BAD[i].usi, err.column,
                        BAD[i].column, err.msg);
    }
    /* FESA 9.4(a): a start position with the side not to move in check is refused. */
    rec_error_t err;
    int rc = rec_replay_usi(r, "position sfen 4k4/4R4/9/9/9/9/9/9/4K4 b - 1", NULL, &err);
    TESTS_CHECK(rc == REC_EINVALID, "opponent in check at the start: rc %d, want REC_EINVALID", rc);
    rec_replay_destroy(r);
}

/* The JSON object of the issue: moves, final_sfen, result, events. */
static void test_json(void) {
    rec_replay_t *r = NULL;
    CU_ASSERT_FATAL(rec_replay_create(&r) == REC_OK);
    CU_ASSERT_FATAL(rec_replay_usi(r, "position startpos moves 7g7f 3c3d 8h2b+", NULL, NULL) == REC_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(rec_replay_write_json(r, f) == REC_OK);
    fclose(f);
    const char *want_start =
        "{\"moves\": 3, \"first_move\": 1, \"final_sfen\": "
        "\"lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4\", "
        "\"result\": {\"winner\": \"none\", \"reason\": \"none\", \"ply\": 3, \"move\": 3}, "
        "\"events\": [";
    TESTS_CHECK(buf && strncmp(buf, want_start, strlen(want_start)) == 0, "json: got %s",
                buf ? buf : "(null)");
    free(buf);
    rec_replay_destroy(r);
}

/* A game taken up at move 30 (SFEN move number 30) names its moves 30, 31, ... as the KIF writer numbers
 * them (fresh-user report: the replay said "move 3"); "ply" in the JSON still counts the line's moves. */
static void test_numbered_start(void) {
    rec_replay_t *r = NULL;
    CU_ASSERT_FATAL(rec_replay_create(&r) == REC_OK);
    CU_ASSERT_FATAL(
        rec_replay_usi(r,
                       "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 30 "
                       "moves 7g7f 3c3d 5e5d",
                       NULL, NULL) == REC_OK);
    TESTS_CHECK(r->first_move == 30, "first_move %d, want 30", r->first_move);
    TESTS_CHECK(r->result.reason == RUL_REASON_ILLEGAL_MOVE && r->result.ply == 3, "reason %s ply %d",
                rul_reason_name(r->result.reason), r->result.ply);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(rec_replay_write_text(r, f) == REC_OK);
    CU_ASSERT(rec_replay_write_json(r, f) == REC_OK);
    fclose(f);
    TESTS_CHECK(buf && strstr(buf, "result: gote wins: move 32 (5e5d) by sente is illegal"), "text: %s", buf);
    TESTS_CHECK(buf && strstr(buf, "  move   32  illegal_move     not_a_legal_move"), "text: %s", buf);
    TESTS_CHECK(buf && strstr(buf, "\"first_move\": 30,") &&
                    strstr(buf, "\"result\": {\"winner\": \"gote\", \"reason\": \"illegal_move\", \"ply\": "
                                "3, \"move\": 32}") &&
                    strstr(buf, "{\"ply\": 3, \"move\": 32, \"type\": \"illegal_move\""),
                "json: %s", buf);
    free(buf);
    /* resignation after the last move: "after move 31" */
    CU_ASSERT_FATAL(
        rec_replay_usi(r,
                       "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 30 "
                       "moves 7g7f 3c3d resign",
                       NULL, NULL) == REC_OK);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(rec_replay_write_text(r, f) == REC_OK);
    fclose(f);
    TESTS_CHECK(buf && strstr(buf, "result: gote wins by resignation after move 31 (FESA 5.1)"), "text: %s",
                buf);
    free(buf);
    rec_replay_destroy(r);
}

/* The SFEN reader takes move numbers up to 99999999; a line whose moves would carry the final position past
 * it is refused at the move that does (its final SFEN, "... 100000001", could not be read back). */
static void test_number_limit(void) {
    rec_replay_t *r = NULL;
    rec_error_t err;
    CU_ASSERT_FATAL(rec_replay_create(&r) == REC_OK);
    static const char ok[] =
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 99999998 moves 7g7f";
    CU_ASSERT_FATAL(rec_replay_usi(r, ok, NULL, &err) == REC_OK);
    TESTS_CHECK(
        !strcmp(r->final_sfen, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 99999999"),
        "final %s", r->final_sfen);
    rul_pos_t p;
    TESTS_CHECK(rul_pos_from_sfen(&p, r->final_sfen, NULL) == RUL_OK, "the final SFEN reads back");
    static const char bad[] = "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - "
                              "99999998 moves 7g7f 3c3d";
    memset(&err, 0, sizeof err);
    int rc = rec_replay_usi(r, bad, NULL, &err);
    TESTS_CHECK(rc == REC_EPARSE && err.column == (int)(strstr(bad, "3c3d") - bad) + 1 &&
                    !strcmp(err.msg,
                            "column 97: move 99999999 '3c3d' would leave a position numbered past 99999999, "
                            "SFEN's last move number: a game from move 99999998 has room for 1 moves"),
                "rc %d column %d: %s", rc, err.column, err.msg);
    rec_replay_destroy(r);
}

int tests_register_replay(void) {
    CU_pSuite s = CU_add_suite("recorder/replay", NULL, NULL);
    if (!s || !CU_add_test(s, "USI replays to their results", test_cases) ||
        !CU_add_test(s, "a move after a mate", test_move_after_mate_events) ||
        !CU_add_test(s, "malformed text and illegal start", test_bad_text) ||
        !CU_add_test(s, "JSON", test_json) ||
        !CU_add_test(s, "a numbered start names moves by their numbers", test_numbered_start) ||
        !CU_add_test(s, "no move carries the position past SFEN's last move number", test_number_limit))
        return -1;
    return 0;
}
