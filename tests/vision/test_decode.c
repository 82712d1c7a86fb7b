/* test_decode.c - tests of vis_board_constrain (vision/decode.c): a reading with a kind over a set's
 * count gives up its least sure square to the next class that fits; a class the network all but rules
 * out is not forced; one king a side; bad arguments refused. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <string.h>

#include "tests/tests.h"
#include "vision/vision.h"

/* Class numbers (vis_class_sfen): 1..14 sente P L N S B R G K +P +L +N +S +B +R, 15..28 gote. */
enum { EMPTY = 0, SP = 1, SS = 4, SB = 5, SR = 6, SG = 7, SK = 8, GR = 20, GK = 22 };

/* Puts class c on square sq with probability p, the rest (1 - p) on class alt. */
static void put(vis_board_read_t *r, int sq, int c, float p, int alt) {
    memset(r->prob[sq], 0, sizeof r->prob[sq]);
    r->prob[sq][c] = p;
    r->prob[sq][alt] += 1 - p;
    r->cls[sq] = c;
    r->conf[sq] = p;
}

static void empty_read(vis_board_read_t *r) {
    memset(r, 0, sizeof *r);
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        put(r, sq, EMPTY, 1, EMPTY);
    r->min_conf = 1;
}

static void test_third_rook(void) {
    static vis_board_read_t r;
    int ch[VIS_SQUARE_NB], n = -1;
    empty_read(&r);
    put(&r, 7 * 9 + 1, GR, 0.95f, EMPTY); /* 8b gote rook */
    put(&r, 1 * 9 + 7, SR, 0.90f, SB);    /* 2h sente rook */
    put(&r, 4 * 9 + 4, SR, 0.60f, SS);    /* 5e: a third rook, 40 % silver */
    CU_ASSERT_EQUAL_FATAL(vis_board_constrain(&r, 0.08, ch, &n), VIS_OK);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(ch[0], 4 * 9 + 4);
    CU_ASSERT_EQUAL(r.cls[4 * 9 + 4], SS);
    CU_ASSERT(fabsf(r.conf[4 * 9 + 4] - 0.40f) < 1e-6f);
    CU_ASSERT(fabsf(r.min_conf - 0.40f) < 1e-6f);
    CU_ASSERT_EQUAL(r.cls[7 * 9 + 1], GR);
    CU_ASSERT_EQUAL(r.cls[1 * 9 + 7], SR);
}

static void test_ruled_out_not_forced(void) {
    static vis_board_read_t r;
    int n = -1;
    empty_read(&r);
    put(&r, 0, SR, 0.99f, SB);
    put(&r, 1, SR, 0.98f, SB);
    put(&r, 2, SR, 0.97f, SG); /* gold at 3 %: below min_prob 0.08 everywhere */
    CU_ASSERT_EQUAL_FATAL(vis_board_constrain(&r, 0.08, NULL, &n), VIS_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(r.cls[0], SR);
    CU_ASSERT_EQUAL(r.cls[1], SR);
    CU_ASSERT_EQUAL(r.cls[2], SR);
    /* with no floor the least sure rook gives way, to the gold */
    CU_ASSERT_EQUAL_FATAL(vis_board_constrain(&r, 0, NULL, &n), VIS_OK);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(r.cls[2], SG);
}

static void test_kings_and_pawns(void) {
    static vis_board_read_t r;
    int ch[VIS_SQUARE_NB], n = -1;
    empty_read(&r);
    put(&r, 4 * 9 + 8, SK, 0.9f, EMPTY); /* 5i */
    put(&r, 3 * 9 + 7, SK, 0.5f, SG);    /* 4h: a second sente king, half gold */
    put(&r, 4 * 9 + 0, GK, 0.9f, EMPTY); /* 5a: gote's king is fine */
    for (int f = 0; f < 9; f++) /* 19 pawns: 18 on ranks c and g, one more on 5e */
        put(&r, f * 9 + 6, SP, 0.95f, EMPTY), put(&r, f * 9 + 2, SP + 14, 0.95f, EMPTY);
    put(&r, 4 * 9 + 4, SP, 0.55f, EMPTY);
    CU_ASSERT_EQUAL_FATAL(vis_board_constrain(&r, 0.08, ch, &n), VIS_OK);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_EQUAL(r.cls[3 * 9 + 7], SG);
    CU_ASSERT_EQUAL(r.cls[4 * 9 + 4], EMPTY);
    CU_ASSERT_EQUAL(r.cls[4 * 9 + 0], GK);
    CU_ASSERT_EQUAL(r.cls[4 * 9 + 8], SK);
}

static void test_bad_args(void) {
    static vis_board_read_t r;
    int n;
    empty_read(&r);
    CU_ASSERT_EQUAL(vis_board_constrain(NULL, 0.1, NULL, &n), VIS_E_ARG);
    CU_ASSERT_EQUAL(vis_board_constrain(&r, 0.1, NULL, NULL), VIS_E_ARG);
    CU_ASSERT_EQUAL(vis_board_constrain(&r, 1.5, NULL, &n), VIS_E_ARG);
    r.cls[3] = VIS_CLASS_NB;
    CU_ASSERT_EQUAL(vis_board_constrain(&r, 0.1, NULL, &n), VIS_E_ARG);
}

int tests_register_vision_decode(void) {
    CU_pSuite s = CU_add_suite("vision/decode", NULL, NULL);
    if (s == NULL || CU_add_test(s, "a third rook gives way", test_third_rook) == NULL ||
        CU_add_test(s, "a ruled-out class is not forced", test_ruled_out_not_forced) == NULL ||
        CU_add_test(s, "one king a side, 18 pawns", test_kings_and_pawns) == NULL ||
        CU_add_test(s, "bad arguments", test_bad_args) == NULL)
        return -1;
    return 0;
}
