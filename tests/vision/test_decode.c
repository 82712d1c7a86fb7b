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
    for (int f = 0; f < 9; f++)          /* 19 pawns: 18 on ranks c and g, one more on 5e */
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

/* ---------------------------------------------------------------- vis_position_decode */

/* A reading of the SFEN board field sfen: every square its class with probability 0.97 (the rest on
 * empty, or on a pawn for an empty square). */
static void sfen_read(vis_board_read_t *r, const char *sfen) {
    static const char *letters = "PLNSBRGK";
    int rank = 1, file = 9;
    empty_read(r);
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        put(r, sq, EMPTY, 0.97f, SP);
    for (const char *p = sfen; *p; p++) {
        if (*p == '/') {
            rank++;
            file = 9;
        } else if (*p >= '1' && *p <= '9') {
            file -= *p - '0';
        } else {
            int promoted = *p == '+';
            char ch = promoted ? *++p : *p, up = (char)(ch >= 'a' ? ch - 32 : ch);
            int kind = (int)(strchr(letters, up) - letters),
                c = 1 + kind + (promoted ? 8 : 0) + (ch >= 'a' ? 14 : 0);
            put(r, (file - 1) * 9 + rank - 1, c, 0.97f, EMPTY);
            file--;
        }
    }
}

/* Stands known, with the detections given: each (stand, kind, p(kind)); the rest of the kind mass on
 * kind alt; present 0.95. Counts as komadai.c reads them (one piece each, likeliest kind). */
static void stands(vis_komadai_read_t *k, int n, const int *who, const int *kind, const float *pk,
                   const int *alt) {
    memset(k, 0, sizeof *k);
    k->known[0] = k->known[1] = 1;
    for (int s = 0; s < 2; s++)
        for (int h = 0; h < VIS_HAND_KIND_NB; h++)
            k->prob[s][h][0] = 1;
    for (int i = 0; i < n; i++) {
        int s = who[i], d = k->pieces[s]++;
        k->piece_present[s][d] = 0.95f;
        k->piece_kind[s][d][kind[i]] = pk[i];
        k->piece_kind[s][d][alt[i]] += 1 - pk[i];
        k->count[s][pk[i] >= 0.5f ? kind[i] : alt[i]]++;
    }
}

#define START "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL"

static void test_set_stack_of_pawns(void) {
    /* sente's pawns of files 1-3 are gone: gote holds three, seen as one detection (a stack) */
    static vis_board_read_t r;
    static vis_komadai_read_t k;
    vis_position_fix_t fix;
    sfen_read(&r, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPP3/1B5R1/LNSGKGSNL");
    stands(&k, 1, (int[]){1}, (int[]){0}, (float[]){0.9f}, (int[]){1});
    CU_ASSERT_EQUAL_FATAL(vis_position_decode(&r, &k, NULL, 12.0, &fix), VIS_OK);
    CU_ASSERT_EQUAL(fix.applied, 1);
    CU_ASSERT_EQUAL(fix.nsquares, 0);
    CU_ASSERT_EQUAL(k.count[1][0], 3);
    CU_ASSERT_EQUAL(fix.hand_delta[1][0], 2);
    CU_ASSERT_EQUAL(k.count[0][0], 0);
    /* a stack of three: log(0.70 / 0.07) nats */
    CU_ASSERT(fabs(fix.cost - log(0.70 / 0.07)) < 1e-6);
}

static void test_set_square_and_stand(void) {
    /* 7g's pawn read as a gold (0.55 / 0.45), and a detection on sente's stand read as a rook although
     * all 40 pieces are on the board: the pawn comes back, the detection is no piece */
    static vis_board_read_t r;
    static vis_komadai_read_t k;
    vis_position_fix_t fix;
    sfen_read(&r, START);
    put(&r, 6 * 9 + 6, SG, 0.55f, SP);
    stands(&k, 1, (int[]){0}, (int[]){5}, (float[]){0.6f}, (int[]){0});
    CU_ASSERT_EQUAL_FATAL(vis_position_decode(&r, &k, NULL, 12.0, &fix), VIS_OK);
    CU_ASSERT_EQUAL_FATAL(fix.applied, 1);
    CU_ASSERT_EQUAL(fix.nsquares, 1);
    CU_ASSERT_EQUAL(fix.squares[0], 6 * 9 + 6);
    CU_ASSERT_EQUAL(r.cls[6 * 9 + 6], SP);
    CU_ASSERT(fabsf(r.conf[6 * 9 + 6] - 0.45f) < 1e-6f);
    CU_ASSERT_EQUAL(k.count[0][5], 0);
    CU_ASSERT_EQUAL(fix.hand_delta[0][5], -1);
}

static void test_set_handicap_and_dead(void) {
    /* a 2-piece handicap game's start: no rook or bishop for gote, none in hand */
    static vis_board_read_t r;
    static vis_komadai_read_t k;
    vis_position_fix_t fix;
    static const int two_piece[VIS_HAND_KIND_NB] = {18, 4, 4, 4, 1, 1, 4};
    sfen_read(&r, "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL");
    stands(&k, 0, NULL, NULL, NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(vis_position_decode(&r, &k, two_piece, 12.0, &fix), VIS_OK);
    CU_ASSERT_EQUAL(fix.applied, 1);
    CU_ASSERT_EQUAL(fix.nsquares, 0);
    CU_ASSERT(fabs(fix.cost) < 1e-9);
    /* read as an even game, no rook and bishop are invented on the stands: out of reach */
    CU_ASSERT_EQUAL_FATAL(vis_position_decode(&r, &k, NULL, 12.0, &fix), VIS_OK);
    CU_ASSERT_EQUAL(fix.applied, 0);
    CU_ASSERT_EQUAL(k.count[0][4] + k.count[0][5] + k.count[1][4] + k.count[1][5], 0);
    /* sente's knight read on 1b, where an unpromoted knight could never move (FESA 3.2): it is the
     * promoted knight the reading gave 40 % */
    sfen_read(&r, START);
    put(&r, 1 * 9 + 8, EMPTY, 0.97f, SP); /* 2i's knight gone ... */
    put(&r, 0 * 9 + 1, 3, 0.6f, 11);      /* ... to 1b: N 0.6, +N 0.4 */
    CU_ASSERT_EQUAL_FATAL(vis_position_decode(&r, &k, NULL, 12.0, &fix), VIS_OK);
    CU_ASSERT_EQUAL(fix.applied, 1);
    CU_ASSERT_EQUAL(r.cls[0 * 9 + 1], 11);
}

static void test_set_board_alone(void) {
    /* the even start read on the board, and six confident "pieces" on the stands (wood grain, a table's
     * edge): dropping them costs more than 12 nats, but a board holding the whole set leaves nothing for
     * the stands, so they are empty */
    static vis_board_read_t r;
    static vis_komadai_read_t k;
    vis_position_fix_t fix;
    sfen_read(&r, START);
    stands(&k, 6, (int[]){0, 0, 0, 1, 1, 1}, (int[]){3, 3, 5, 3, 0, 1},
           (float[]){0.9f, 0.9f, 0.8f, 0.9f, 0.7f, 0.9f}, (int[]){0, 0, 0, 0, 1, 0});
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < k.pieces[s]; i++)
            k.piece_present[s][i] = 0.99f;
    CU_ASSERT_EQUAL_FATAL(vis_position_decode(&r, &k, NULL, 12.0, &fix), VIS_OK);
    CU_ASSERT(fix.cost > 12.0);
    CU_ASSERT_EQUAL(fix.applied, 1);
    CU_ASSERT_EQUAL(fix.nsquares, 0);
    int left = 0;
    for (int s = 0; s < 2; s++)
        for (int h = 0; h < VIS_HAND_KIND_NB; h++)
            left += k.count[s][h];
    CU_ASSERT_EQUAL(left, 0);
    CU_ASSERT_EQUAL(fix.hand_delta[0][3], -2);
}

static void test_set_out_of_reach(void) {
    /* only the kings on the board and nothing on the stands: no set within 12 nats, nothing changed */
    static vis_board_read_t r, before;
    static vis_komadai_read_t k, kbefore;
    vis_position_fix_t fix;
    sfen_read(&r, "4k4/9/9/9/9/9/9/9/4K4");
    stands(&k, 0, NULL, NULL, NULL, NULL);
    before = r;
    kbefore = k;
    CU_ASSERT_EQUAL_FATAL(vis_position_decode(&r, &k, NULL, 12.0, &fix), VIS_OK);
    CU_ASSERT_EQUAL(fix.applied, 0);
    CU_ASSERT(fix.cost > 12.0);
    CU_ASSERT(memcmp(&r, &before, sizeof r) == 0);
    CU_ASSERT(memcmp(&k, &kbefore, sizeof k) == 0);
    /* a stand out of view: no set can be judged */
    k.known[1] = 0;
    CU_ASSERT_EQUAL(vis_position_decode(&r, &k, NULL, 12.0, &fix), VIS_E_ARG);
    k.known[1] = 1;
    CU_ASSERT_EQUAL(vis_position_decode(&r, &k, NULL, -1.0, &fix), VIS_E_ARG);
    static const int too_many[VIS_HAND_KIND_NB] = {19, 4, 4, 4, 2, 2, 4};
    CU_ASSERT_EQUAL(vis_position_decode(&r, &k, too_many, 12.0, &fix), VIS_E_ARG);
    CU_ASSERT_EQUAL(vis_position_decode(NULL, &k, NULL, 12.0, &fix), VIS_E_ARG);
}

static void test_read_turned(void) {
    /* the sente rook on 2h (0.9, 0.1 bishop) seen from the other end is a gote rook on 8b; the middle
     * square 5e keeps its square and swaps its owner; feat follows its square; turning twice restores */
    static vis_board_read_t r, orig;
    empty_read(&r);
    put(&r, 1 * 9 + 7, SR, 0.9f, SB);
    put(&r, 4 * 9 + 4, SP, 0.8f, EMPTY);
    r.feat[1 * 9 + 7][3] = 2.5f;
    r.orientation = 1;
    vis_board_read_argmax(&r);
    orig = r;
    vis_board_read_turn(&r);
    CU_ASSERT_EQUAL(r.cls[7 * 9 + 1], GR);
    CU_ASSERT(fabsf(r.prob[7 * 9 + 1][GR] - 0.9f) < 1e-6f);
    CU_ASSERT(fabsf(r.prob[7 * 9 + 1][SB + 14] - 0.1f) < 1e-6f);
    CU_ASSERT_EQUAL(r.cls[1 * 9 + 7], EMPTY);
    CU_ASSERT_EQUAL(r.cls[4 * 9 + 4], SP + 14);
    CU_ASSERT(fabsf(r.feat[7 * 9 + 1][3] - 2.5f) < 1e-6f);
    CU_ASSERT_EQUAL(r.orientation, 3);
    vis_board_read_turn(&r);
    CU_ASSERT(memcmp(&r, &orig, sizeof r) == 0);
}

int tests_register_vision_decode(void) {
    CU_pSuite s = CU_add_suite("vision/decode", NULL, NULL);
    if (s == NULL || CU_add_test(s, "a third rook gives way", test_third_rook) == NULL ||
        CU_add_test(s, "a ruled-out class is not forced", test_ruled_out_not_forced) == NULL ||
        CU_add_test(s, "one king a side, 18 pawns", test_kings_and_pawns) == NULL ||
        CU_add_test(s, "bad arguments", test_bad_args) == NULL ||
        CU_add_test(s, "one set: a stack of pawns on a stand", test_set_stack_of_pawns) == NULL ||
        CU_add_test(s, "one set: a square and a stand piece revised", test_set_square_and_stand) == NULL ||
        CU_add_test(s, "one set: a handicap, a dead knight", test_set_handicap_and_dead) == NULL ||
        CU_add_test(s, "one set: the board holds it all, the stands are empty", test_set_board_alone) ==
            NULL ||
        CU_add_test(s, "one set: out of reach, unknown stand", test_set_out_of_reach) == NULL ||
        CU_add_test(s, "a reading turned by 180 degrees", test_read_turned) == NULL)
        return -1;
    return 0;
}
