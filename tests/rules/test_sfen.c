/* test_sfen.c - tests of SFEN and USI move text in and out (rules/rules.h, FESA notation). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "tests/rules/rules_test_util.h"
#include "tests/tests.h"

/* Rewrites the hand field of an SFEN in the canonical USI order (R B G S N L P, sente first), keeping
 * the rest; this is the test's own reading of the text, independent of the engine. Returns 0, or -1 if
 * the text is not four space-separated fields. */
static int normalise_hands(const char *in, char *out, size_t size) {
    static const char order[] = "RBGSNLP";
    char board[256], side[8], hand[64], ply[32];
    int count[2][7] = {{0}};
    int n = 0, c, k;
    size_t len;
    const char *h;

    if (sscanf(in, "%255s %7s %63s %31s", board, side, hand, ply) != 4)
        return -1;
    if (strcmp(hand, "-") != 0) {
        for (h = hand; *h != '\0'; h++) {
            if (*h >= '0' && *h <= '9') {
                n = n * 10 + (*h - '0');
                continue;
            }
            c = (*h >= 'a' && *h <= 'z') ? 1 : 0;
            const char *at = strchr(order, c ? *h - 'a' + 'A' : *h);
            if (at == NULL)
                return -1;
            count[c][at - order] += n ? n : 1;
            n = 0;
        }
    }
    len = (size_t)snprintf(out, size, "%s %s ", board, side);
    if (len >= size)
        return -1;
    h = out + len;
    for (c = 0; c < 2; c++) {
        for (k = 0; k < 7; k++) {
            char letter = (char)(c ? order[k] - 'A' + 'a' : order[k]);
            if (count[c][k] == 0)
                continue;
            if (count[c][k] > 1)
                len += (size_t)snprintf(out + len, size - len, "%d", count[c][k]);
            if (len + 2 >= size)
                return -1;
            out[len++] = letter;
            out[len] = '\0';
        }
    }
    if (out + len == h)
        len += (size_t)snprintf(out + len, size - len, "-");
    len += (size_t)snprintf(out + len, size - len, " %s", ply);
    return len < size ? 0 : -1;
}

/* One SFEN: parse, write back, compare with the hand-normalised input; parse the output again and
 * check the same position and key come back. Returns 1 when every check passed. */
static int round_trip(const char *sfen, const char *label) {
    rul_pos_t a, b;
    char want[512], got[256];
    int ok = 1;

    if (!rt_pos_or_fail(&a, sfen, label))
        return 0;
    if (normalise_hands(sfen, want, sizeof want) != 0) {
        TESTS_CHECK(0, "%s: test cannot read its own input: %s", label, sfen);
        return 0;
    }
    ok &= TESTS_CHECK(rul_pos_to_sfen(&a, got, sizeof got) == RUL_OK, "%s: rul_pos_to_sfen failed", label);
    ok &= TESTS_CHECK(strcmp(got, want) == 0, "%s: SFEN round trip: in '%s' want '%s' got '%s'", label, sfen,
                      want, got);
    if (rt_pos_or_fail(&b, got, label)) {
        ok &= TESTS_CHECK(rul_pos_same(&a, &b), "%s: re-parsed SFEN differs: %s", label, got);
        ok &= TESTS_CHECK(a.key == b.key && a.key == rul_pos_compute_key(&a),
                          "%s: keys differ after round trip: %s", label, got);
        ok &= TESTS_CHECK(a.ply == b.ply, "%s: ply %d became %d", label, a.ply, b.ply);
    }
    return ok;
}

static void test_round_trip_embedded(void) {
    static const char *const sfens[] = {
        RUL_SFEN_STARTPOS,
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
        "8k/9/7+R1/9/9/9/9/9/9 b P 1",
        "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "9/9/9/9/9/9/9/9/9 b - 1",
        "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
        "4k4/9/9/9/9/9/9/9/4K4 w 2r2b4g4s4n4l18p 123",
    };
    size_t i;
    char label[32];

    for (i = 0; i < sizeof sfens / sizeof sfens[0]; i++) {
        snprintf(label, sizeof label, "embedded SFEN %zu", i);
        round_trip(sfens[i], label);
    }
}

/* Hands given out of order are read and written back in the canonical order. */
static void test_hand_order_normalised(void) {
    rul_pos_t pos;
    char got[256];

    if (!rt_pos_or_fail(&pos, "lr7/3skgg1+B/2n2s1pp/p1p1ppP2/3p1np2/1PPPP4/PS1G1P2P/2GS3R1/LNK4NL w L2pb 58",
                        "R01 hand"))
        return;
    CU_ASSERT_EQUAL(rul_pos_hand(&pos, RUL_SENTE, RUL_LANCE), 1);
    CU_ASSERT_EQUAL(rul_pos_hand(&pos, RUL_GOTE, RUL_PAWN), 2);
    CU_ASSERT_EQUAL(rul_pos_hand(&pos, RUL_GOTE, RUL_BISHOP), 1);
    CU_ASSERT_EQUAL(rul_pos_to_sfen(&pos, got, sizeof got), RUL_OK);
    CU_ASSERT_STRING_EQUAL(got,
                           "lr7/3skgg1+B/2n2s1pp/p1p1ppP2/3p1np2/1PPPP4/PS1G1P2P/2GS3R1/LNK4NL w Lb2p 58");
    if (!rt_pos_or_fail(&pos, "4k4/9/9/9/9/9/9/9/4K4 b p2PgR 1", "mixed hand"))
        return;
    CU_ASSERT_EQUAL(rul_pos_to_sfen(&pos, got, sizeof got), RUL_OK);
    CU_ASSERT_STRING_EQUAL(got, "4k4/9/9/9/9/9/9/9/4K4 b R2Pgp 1");
}

static void test_round_trip_tsv(void) {
    char path[4096], *text, *cursor, *f[8];
    int n, rows = 0, fails = 0;
    char label[64];

    if (tests_shared_path(path, sizeof path, "fixtures/perft/perft_cases.tsv") != 0) {
        tests_skip_shared("SFEN round trips of perft_cases.tsv");
        return;
    }
    text = rt_read_file(path);
    if (!TESTS_CHECK(text != NULL, "cannot read %s", path))
        return;
    cursor = text;
    while ((n = rt_next_tsv_row(&cursor, f, 8)) >= 0) {
        if (n < 4)
            continue;
        rows++;
        snprintf(label, sizeof label, "perft_cases.tsv row %d", rows);
        fails += !round_trip(f[1], label);
    }
    TESTS_CHECK(rows >= 350, "perft_cases.tsv: only %d rows read", rows);
    if (fails)
        printf("\n    %d of %d TSV SFENs failed the round trip\n", fails, rows);
    free(text);
}

static void test_startpos_word(void) {
    rul_pos_t a, b;
    char got[256];

    CU_ASSERT_EQUAL(rul_pos_from_sfen(&a, "startpos", NULL), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_from_sfen(&b, RUL_SFEN_STARTPOS, NULL), RUL_OK);
    CU_ASSERT_TRUE(rul_pos_same(&a, &b));
    CU_ASSERT_EQUAL(a.key, b.key);
    CU_ASSERT_EQUAL(a.side, RUL_SENTE);
    CU_ASSERT_EQUAL(a.ply, 1);
    CU_ASSERT_EQUAL(rul_pos_to_sfen(&a, got, sizeof got), RUL_OK);
    CU_ASSERT_STRING_EQUAL(got, RUL_SFEN_STARTPOS);
    /* the ply is optional and defaults to 1 */
    CU_ASSERT_EQUAL(
        rul_pos_from_sfen(&a, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -", NULL), RUL_OK);
    CU_ASSERT_EQUAL(a.ply, 1);
    CU_ASSERT_TRUE(rul_pos_same(&a, &b));
    /* a few squares, read through the public accessors (1a = 0, 9i = 80) */
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(5, 9)), RUL_PIECE(RUL_SENTE, RUL_KING));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(5, 1)), RUL_PIECE(RUL_GOTE, RUL_KING));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(2, 8)), RUL_PIECE(RUL_SENTE, RUL_ROOK));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(8, 8)), RUL_PIECE(RUL_SENTE, RUL_BISHOP));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(8, 2)), RUL_PIECE(RUL_GOTE, RUL_ROOK));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(9, 1)), RUL_PIECE(RUL_GOTE, RUL_LANCE));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(1, 9)), RUL_PIECE(RUL_SENTE, RUL_LANCE));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, RUL_SQ(5, 5)), RUL_PIECE_NONE);
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, 81), RUL_PIECE_NONE);
    CU_ASSERT_EQUAL(rul_pos_piece_at(&b, -1), RUL_PIECE_NONE);
    CU_ASSERT_EQUAL(rul_pos_king_sq(&b, RUL_SENTE), RUL_SQ(5, 9));
    CU_ASSERT_EQUAL(rul_pos_king_sq(&b, RUL_GOTE), RUL_SQ(5, 1));
    /* promoted pieces and gote's pieces */
    CU_ASSERT_EQUAL(rul_pos_from_sfen(&a, "+r+b+s+n+l+p3/9/9/9/9/9/9/9/+R+B+S+N+L+P3 b - 1", NULL), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_piece_at(&a, RUL_SQ(9, 1)), RUL_PIECE(RUL_GOTE, RUL_DRAGON));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&a, RUL_SQ(8, 1)), RUL_PIECE(RUL_GOTE, RUL_HORSE));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&a, RUL_SQ(4, 1)), RUL_PIECE(RUL_GOTE, RUL_PRO_PAWN));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&a, RUL_SQ(7, 9)), RUL_PIECE(RUL_SENTE, RUL_PRO_SILVER));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&a, RUL_SQ(6, 9)), RUL_PIECE(RUL_SENTE, RUL_PRO_KNIGHT));
    CU_ASSERT_EQUAL(rul_pos_piece_at(&a, RUL_SQ(5, 9)), RUL_PIECE(RUL_SENTE, RUL_PRO_LANCE));
    CU_ASSERT_EQUAL(rul_pos_king_sq(&a, RUL_SENTE), RUL_SQ_NONE);
}

/* A bad SFEN: the engine must answer RUL_EPARSE with err.column at the first character of `at`
 * (located in the input by the test, so that the expected column is not counted by hand). */
static void bad_sfen(const char *label, const char *sfen, const char *at) {
    rul_pos_t pos;
    rul_error_t err;
    const char *p = strstr(sfen, at);
    int want = p != NULL ? (int)(p - sfen) + 1 : -1, rc;

    memset(&err, 0, sizeof err);
    err.column = -99;
    rc = rul_pos_from_sfen(&pos, sfen, &err);
    TESTS_CHECK(rc == RUL_EPARSE, "%s: rc %d, want RUL_EPARSE for '%s'", label, rc, sfen);
    TESTS_CHECK(err.column == want, "%s: err.column %d, want %d ('%c') in '%s' (msg '%s')", label, err.column,
                want, p != NULL ? *p : '?', sfen, err.msg);
    TESTS_CHECK(err.msg[0] != '\0', "%s: empty error message", label);
    /* the NULL err form must also reject it */
    TESTS_CHECK(rul_pos_from_sfen(&pos, sfen, NULL) == RUL_EPARSE, "%s: rejected only with err", label);
}

static void test_bad_sfen(void) {
    bad_sfen("unknown piece letter", "lnsgkgsnl/1r5x1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
             "x1/");
    bad_sfen("unknown piece in rank 8", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B3Q1R1/LNSGKGSNL b - 1",
             "Q1R1");
    bad_sfen("rank with 10 squares", "lnsgkgsnlp/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
             "p/");
    bad_sfen("rank with 10 squares (digit)",
             "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R2/LNSGKGSNL b - 1", "2/LN");
    bad_sfen("too few ranks", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1", " b - 1");
    bad_sfen("bad side letter", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1", "x - 1");
    bad_sfen("bad hand count 0", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 0P 1", "0P 1");
    bad_sfen("bad hand count 19", "4k4/9/9/9/9/9/9/9/4K4 b 19P 1", "19P");
    bad_sfen("king in hand", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b K 1", "K 1");
    bad_sfen("unknown hand letter", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2x 1",
             "x 1");
    bad_sfen("trailing junk", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 junk", "junk");
    bad_sfen("promoted gold", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1", "GKGSNL b");
}

static void test_bad_sfen_misc(void) {
    rul_pos_t pos;

    CU_ASSERT_EQUAL(rul_pos_from_sfen(&pos, "", NULL), RUL_EPARSE);
    CU_ASSERT_EQUAL(rul_pos_from_sfen(&pos, "start", NULL), RUL_EPARSE);
    CU_ASSERT_EQUAL(
        rul_pos_from_sfen(&pos, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL", NULL),
        RUL_EPARSE);
    CU_ASSERT_EQUAL(rul_pos_from_sfen(&pos, "9/9/9/9/9/9/9/9/9/9 b - 1", NULL), RUL_EPARSE);
    CU_ASSERT_EQUAL(rul_pos_from_sfen(&pos, "9/9/9/9/9/9/9/9/8 b - 1", NULL), RUL_EPARSE);
}

static void test_to_sfen_small_buffer(void) {
    rul_pos_t pos;
    char buf[16];

    CU_ASSERT_EQUAL(rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_to_sfen(&pos, buf, sizeof buf), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_to_sfen(&pos, buf, 0), RUL_ERANGE);
}

/* USI move text: parse, check the packed move, format it back. */
static void good_usi(const char *text, rul_move_t want) {
    rul_move_t m = 0;
    rul_error_t err;
    char back[6];
    int rc;

    memset(&err, 0, sizeof err);
    rc = rul_move_from_usi(text, &m, &err);
    TESTS_CHECK(rc == RUL_OK, "USI '%s' rejected: rc %d (%s)", text, rc, err.msg);
    TESTS_CHECK(m == want, "USI '%s' parsed to 0x%x, want 0x%x", text, (unsigned)m, (unsigned)want);
    memset(back, 'Z', sizeof back);
    rul_move_to_usi(want, back);
    TESTS_CHECK(memchr(back, '\0', sizeof back) != NULL && strcmp(back, text) == 0,
                "move 0x%x formatted as '%.6s', want '%s'", (unsigned)want, back, text);
}

static void bad_usi(const char *text) {
    rul_move_t m = 0;
    rul_error_t err;
    int rc;

    memset(&err, 0, sizeof err);
    rc = rul_move_from_usi(text, &m, &err);
    TESTS_CHECK(rc == RUL_EPARSE, "bad USI '%s' accepted (rc %d, move 0x%x)", text, rc, (unsigned)m);
    TESTS_CHECK(rc == RUL_OK || err.msg[0] != '\0', "bad USI '%s': no message", text);
}

static void test_usi_moves(void) {
    good_usi("7g7f", RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0));
    good_usi("P*5e", RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(5, 5)));
    good_usi("8h2b+", RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 1));
    good_usi("9a9b", RUL_MOVE_MAKE(RUL_SQ(9, 1), RUL_SQ(9, 2), 0));
    good_usi("1a1b", RUL_MOVE_MAKE(RUL_SQ(1, 1), RUL_SQ(1, 2), 0));
    good_usi("9i1a+", RUL_MOVE_MAKE(RUL_SQ(9, 9), RUL_SQ(1, 1), 1));
    good_usi("R*1a", RUL_MOVE_DROP(RUL_ROOK, RUL_SQ(1, 1)));
    good_usi("B*9i", RUL_MOVE_DROP(RUL_BISHOP, RUL_SQ(9, 9)));
    good_usi("G*5e", RUL_MOVE_DROP(RUL_GOLD, RUL_SQ(5, 5)));
    good_usi("S*5e", RUL_MOVE_DROP(RUL_SILVER, RUL_SQ(5, 5)));
    good_usi("N*5e", RUL_MOVE_DROP(RUL_KNIGHT, RUL_SQ(5, 5)));
    good_usi("L*5e", RUL_MOVE_DROP(RUL_LANCE, RUL_SQ(5, 5)));
    /* the packing itself (rules.h bit layout) */
    CU_ASSERT_EQUAL(RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0), (rul_move_t)(59 | (60 << 7)));
    CU_ASSERT_EQUAL(RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(5, 5)), (rul_move_t)(40 | (1 << 7) | (1u << 15)));

    bad_usi("7g7");
    bad_usi("P*5j");
    bad_usi("Z*5e");
    bad_usi("7g7f++");
    bad_usi("");
    bad_usi("7g7f ");
    bad_usi("0a1b");
    bad_usi("7j7f");
    bad_usi("K*5e");
    bad_usi("P*5e+");
    bad_usi("+P*5e");
}

int tests_register_sfen(void) {
    CU_pSuite s = CU_add_suite("rules_sfen", NULL, NULL);

    if (s == NULL || CU_add_test(s, "round trip of embedded SFENs", test_round_trip_embedded) == NULL ||
        CU_add_test(s, "hand order normalised", test_hand_order_normalised) == NULL ||
        CU_add_test(s, "round trip of every perft_cases.tsv SFEN", test_round_trip_tsv) == NULL ||
        CU_add_test(s, "startpos word and accessors", test_startpos_word) == NULL ||
        CU_add_test(s, "bad SFENs: RUL_EPARSE and column", test_bad_sfen) == NULL ||
        CU_add_test(s, "bad SFENs: other shapes", test_bad_sfen_misc) == NULL ||
        CU_add_test(s, "rul_pos_to_sfen with a small buffer", test_to_sfen_small_buffer) == NULL ||
        CU_add_test(s, "USI move parse and format", test_usi_moves) == NULL)
        return -1;
    return 0;
}
