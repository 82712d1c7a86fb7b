/* test_rules_cases.c - the rules cases R01-R05 and R07-R13 of ../shared/data/cases/rules_cases.tsv. */
/* Inputs and answers are copied here (the file is small) so that they run without ../shared; each
 * assertion names its case. R06 and R14-R21 are kifu-reader cases (R21 is in test_repetition.c). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "tests/rules/rules_test_util.h"
#include "tests/tests.h"

static void legal_count(const char *id, const char *sfen, int want) {
    rul_pos_t pos;
    rul_movelist_t list;

    if (!rt_pos_or_fail(&pos, sfen, id))
        return;
    rul_gen_legal(&pos, &list);
    TESTS_CHECK(list.count == want, "%s: %d legal moves, want %d", id, list.count, want);
    TESTS_CHECK(rul_count_legal(&pos) == want, "%s: rul_count_legal %d, want %d", id, rul_count_legal(&pos),
                want);
}

/* R01: nifu must look at the mover's own unpromoted pawns only. */
static void test_r01(void) {
    legal_count("R01", "lr7/3skgg1+B/2n2s1pp/p1p1ppP2/3p1np2/1PPPP4/PS1G1P2P/2GS3R1/LNK4NL w L2pb 58", 92);
}

/* R02: long diagonal bishop moves on both sides of the board. */
static void test_r02(void) {
    legal_count("R02", "lnsg1g1nl/3k3r1/pppp1s1pp/b3p1p2/2PP1p2B/P3P3P/1P3PPP1/1S3K1R1/LN1G1GSNL w - 1", 39);
}

/* R03: a promoting bishop move that leaves the zone. */
static void test_r03(void) {
    rul_pos_t pos;
    rul_move_t m;
    rul_undo_t undo;
    char got[256];

    if (!rt_pos_or_fail(&pos, "ln1g3+Rl/1ks4s1/pp1gppbpp/2p3N2/9/5P1P1/PPPP1S1bP/2K1R1G2/LNSG3NL w 4p 42",
                        "R03"))
        return;
    if (!TESTS_CHECK(rul_move_from_usi("2g5d+", &m, NULL) == RUL_OK, "R03: 2g5d+ not parsed"))
        return;
    if (!TESTS_CHECK(rul_is_legal(&pos, m), "R03: 2g5d+ must be legal (why: %s)",
                     rul_why_name(rul_why_illegal(&pos, m))))
        return;
    rul_pos_do_move(&pos, m, &undo);
    TESTS_CHECK(rul_pos_to_sfen(&pos, got, sizeof got) == RUL_OK, "R03: no SFEN after 2g5d+");
    TESTS_CHECK(strcmp(got, "ln1g3+Rl/1ks4s1/pp1gppbpp/2p1+b1N2/9/5P1P1/PPPP1S2P/2K1R1G2/LNSG3NL b 4p 43") ==
                    0,
                "R03: after 2g5d+ got %s", got);
    TESTS_CHECK(pos.key == rul_pos_compute_key(&pos), "R03: key after 2g5d+");
}

/* R04: moves from and to the corner square 9a (index 0 is 1a; 9a is 72). */
static void test_r04(void) {
    rul_game_t *g = malloc(sizeof *g);
    rul_pos_t start;
    rul_move_t m;

    if (!TESTS_CHECK(g != NULL, "R04: out of memory"))
        return;
    if (rt_pos_or_fail(&start, RUL_SFEN_STARTPOS, "R04")) {
        rul_game_init(g, &start);
        TESTS_CHECK(rul_move_from_usi("9g9f", &m, NULL) == RUL_OK && rul_game_play(g, m) == RUL_OK,
                    "R04: 9g9f must be legal");
        TESTS_CHECK(rul_move_from_usi("9a9b", &m, NULL) == RUL_OK && RUL_MOVE_FROM(m) == RUL_SQ(9, 1) &&
                        rul_game_play(g, m) == RUL_OK,
                    "R04: 9a9b must be legal");
        TESTS_CHECK(g->nply == 2, "R04: %d moves played, want 2", g->nply);
        TESTS_CHECK(rul_pos_piece_at(&g->pos, RUL_SQ(9, 2)) == RUL_PIECE(RUL_GOTE, RUL_LANCE) &&
                        rul_pos_piece_at(&g->pos, RUL_SQ(9, 1)) == RUL_PIECE_NONE,
                    "R04: the lance is not on 9b");
    }
    free(g);
}

/* R05: the start position: 30 legal moves, 7g7f among them. */
static void test_r05(void) {
    rul_pos_t pos;
    rul_movelist_t list;

    legal_count("R05", RUL_SFEN_STARTPOS, 30);
    if (rt_pos_or_fail(&pos, "startpos", "R05")) {
        rul_gen_legal(&pos, &list);
        TESTS_CHECK(rt_list_has(&list, RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0)), "R05: 7g7f missing");
    }
}

/* R07: pawn-drop mate is illegal even when the mover has no king. */
static void test_r07(void) {
    rul_pos_t pos;
    rul_move_t m = RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(1, 2));

    if (rt_pos_or_fail(&pos, "8k/9/7+R1/9/9/9/9/9/9 b P 1", "R07")) {
        TESTS_CHECK(!rul_is_legal(&pos, m), "R07: P*1b must be illegal");
        TESTS_CHECK(rul_why_illegal(&pos, m) == RUL_WHY_PAWN_DROP_MATE,
                    "R07: P*1b why %s, want pawn_drop_mate", rul_why_name(rul_why_illegal(&pos, m)));
    }
    legal_count("R07", "8k/9/7+R1/9/9/9/9/9/9 b P 1", 90);
    legal_count("R07 (with a black king on 9i)", "8k/9/7+R1/9/9/9/9/9/K8 b P 1", 92);
    if (rt_pos_or_fail(&pos, "8k/9/7+R1/9/9/9/9/9/K8 b P 1", "R07 (with king)"))
        TESTS_CHECK(!rul_is_legal(&pos, m), "R07 (with king): P*1b must be illegal");
}

/* R08: pawn-drop mate next to a corner king. */
static void test_r08(void) {
    rul_pos_t pos;
    rul_move_t m = RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(1, 2));

    legal_count("R08", "7lk/9/8S/9/9/9/9/7L1/8K b P 1", 85);
    if (rt_pos_or_fail(&pos, "7lk/9/8S/9/9/9/9/7L1/8K b P 1", "R08")) {
        TESTS_CHECK(!rul_is_legal(&pos, m), "R08: P*1b must be illegal");
        TESTS_CHECK(rul_why_illegal(&pos, m) == RUL_WHY_PAWN_DROP_MATE,
                    "R08: P*1b why %s, want pawn_drop_mate", rul_why_name(rul_why_illegal(&pos, m)));
    }
}

/* Replays a USI position line move by move; before the last move the verdict must be none, after it
 * `verdict` with the fourth occurrence (count 4) first seen after first_ply. */
static void repetition_case(const char *id, const char *usi, int plies, rul_rep_t verdict, int first_ply) {
    rul_game_t *g = malloc(sizeof *g);
    rul_move_t *moves = malloc(sizeof *moves * RUL_GAME_MAX_PLY);
    rul_pos_t start;
    rul_rep_info_t info;
    char why[256];
    int n = 0, i, rc, early = 0;

    if (!TESTS_CHECK(g != NULL && moves != NULL, "%s: out of memory", id))
        goto out;
    if (!TESTS_CHECK(rt_parse_position(usi, &start, moves, RUL_GAME_MAX_PLY, &n, why, sizeof why) == 0,
                     "%s: %s", id, why))
        goto out;
    TESTS_CHECK(n == plies, "%s: %d moves in the line, want %d", id, n, plies);
    rul_game_init(g, &start);
    for (i = 0; i < n; i++) {
        char text[6];
        rc = rul_game_play(g, moves[i]);
        rul_move_to_usi(moves[i], text);
        if (!TESTS_CHECK(rc == RUL_OK, "%s: move %d %s rejected (rc %d, why %s)", id, i + 1, text, rc,
                         rul_why_name(rul_why_illegal(&g->pos, moves[i]))))
            goto out;
        rul_game_repetition(g, &info);
        if (i + 1 < n && info.verdict != RUL_REP_NONE && early++ == 0)
            TESTS_CHECK(0, "%s: verdict %d already after ply %d (count %d), want none before ply %d", id,
                        (int)info.verdict, i + 1, info.count, n);
    }
    TESTS_CHECK(early == 0, "%s: %d plies before the last have a repetition verdict", id, early);
    rul_game_repetition(g, &info);
    TESTS_CHECK(info.verdict == verdict, "%s: verdict %d after ply %d, want %d", id, (int)info.verdict, n,
                (int)verdict);
    TESTS_CHECK(info.count == 4, "%s: the final position occurred %d times, want 4", id, info.count);
    TESTS_CHECK(info.first_ply == first_ply, "%s: first occurrence after ply %d, want %d", id, info.first_ply,
                first_ply);
    /* taking the last move back removes the verdict */
    TESTS_CHECK(rul_game_undo(g) == RUL_OK, "%s: rul_game_undo failed", id);
    rul_game_repetition(g, &info);
    TESTS_CHECK(info.verdict == RUL_REP_NONE && info.count == 3, "%s: after undo verdict %d count %d", id,
                (int)info.verdict, info.count);
out:
    free(moves);
    free(g);
}

/* R09: fourth occurrence reached by sente's move; the game must end there. */
static void test_r09(void) {
    repetition_case("R09",
                    "position startpos moves 2h3h 8b7b 3h2h 7b8b 2h3h 8b7b 3h2h 7b8b 2h3h 8b7b 3h2h 7b8b", 12,
                    RUL_REP_SENNICHITE, 0);
}

/* R10: a repetition that starts after some plies (the start position with gote to move, after ply 5). */
static void test_r10(void) {
    repetition_case(
        "R10",
        "position startpos moves 5i4h 5a5b 4h5h 5b5a 5h5i 8b7b 2h3h 7b8b 3h2h 8b7b 2h3h 7b8b 3h2h "
        "8b7b 2h3h 7b8b 3h2h",
        17, RUL_REP_SENNICHITE, 5);
}

/* R11: perpetual check by sente: sente loses. */
static void test_r11(void) {
    repetition_case(
        "R11",
        "position sfen +R6nl/6s1k/p1n2s1s1/1g3Bp1p/2pPPNPp1/KPs2G2P/N3p4/1G4+r2/LL7 b BL2Pg5p 1 "
        "moves L*1c 1b1c B*3a 1c2d 3a4b+ 2d1c 4b3a 1c2d 3a4b 2d1c 4b3a 1c2d 3a4b 2d1c 4b3a 1c2d 3a4b",
        17, RUL_REP_PERPETUAL_SENTE, 5);
}

/* R12: perpetual check by gote: gote loses. */
static void test_r12(void) {
    repetition_case("R12",
                    "position sfen 1n5ll/4R2g1/1g2P3n/p5Spk/1Kp1ppP2/P1Pb3G1/1S1S2N1P/2S6/LN+b5+r w GL5P3p 1 "
                    "moves 8a7c 8e8f 7i6h 8f9g 6h7i 9g8f 7i6h 8f9g 6h7i 9g8f 7i6h 8f9g 6h7i 9g8f",
                    14, RUL_REP_PERPETUAL_GOTE, 2);
}

/* R13: declaration points for sente: 27 points, the 27-point rule needs 28 (lose); 24-point: draw. */
static void test_r13(void) {
    rul_pos_t pos;
    rul_impasse_t out;

    if (!rt_pos_or_fail(
            &pos, "5+B+P2/K+P1+P+R+P3/+P+P+NPP4/7g1/6gg1/5+n1s1/3+p+p4/1+p3+n1k1/9 b G2SNL3Psl4p 1", "R13"))
        return;
    TESTS_CHECK(rul_impasse_judge(&pos, RUL_IMPASSE_27, &out) == RUL_OK, "R13: judge failed");
    TESTS_CHECK(out.points == 27, "R13: 27-point rule: %d points, want 27", out.points);
    TESTS_CHECK(out.needed == 28, "R13: 27-point rule: needs %d, want 28", out.needed);
    TESTS_CHECK(out.verdict == RUL_VERDICT_LOSE, "R13: 27-point rule: verdict %d, want lose",
                (int)out.verdict);
    TESTS_CHECK(rul_impasse_judge(&pos, RUL_IMPASSE_24, &out) == RUL_OK, "R13: judge failed");
    TESTS_CHECK(out.points == 27, "R13: 24-point rule: %d points, want 27", out.points);
    TESTS_CHECK(out.verdict == RUL_VERDICT_DRAW, "R13: 24-point rule: verdict %d, want draw",
                (int)out.verdict);
}

int tests_register_rules_cases(void) {
    CU_pSuite s = CU_add_suite("rules_cases", NULL, NULL);

    if (s == NULL || CU_add_test(s, "R01 nifu counts own pawns only", test_r01) == NULL ||
        CU_add_test(s, "R02 long bishop diagonals", test_r02) == NULL ||
        CU_add_test(s, "R03 promotion leaving the zone", test_r03) == NULL ||
        CU_add_test(s, "R04 corner square 9a", test_r04) == NULL ||
        CU_add_test(s, "R05 start position", test_r05) == NULL ||
        CU_add_test(s, "R07 pawn-drop mate without a king", test_r07) == NULL ||
        CU_add_test(s, "R08 pawn-drop mate by a corner", test_r08) == NULL ||
        CU_add_test(s, "R09 sennichite at ply 12", test_r09) == NULL ||
        CU_add_test(s, "R10 sennichite at ply 17", test_r10) == NULL ||
        CU_add_test(s, "R11 perpetual check by sente", test_r11) == NULL ||
        CU_add_test(s, "R12 perpetual check by gote", test_r12) == NULL ||
        CU_add_test(s, "R13 impasse 27 and 24 points", test_r13) == NULL)
        return -1;
    return 0;
}
