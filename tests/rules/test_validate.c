/* test_validate.c - rul_pos_validate (FESA 9.4), standard handicap positions and their names. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "rules/rules.h"
#include "tests/rules/rules_test_util.h"
#include "tests/tests.h"

static void expect_invalid(const char *label, const char *sfen, int flags, rul_invalid_t want) {
    rul_pos_t pos;
    rul_error_t err;
    rul_invalid_t got;

    if (!rt_pos_or_fail(&pos, sfen, label))
        return;
    memset(&err, 0, sizeof err);
    got = rul_pos_validate(&pos, flags, &err);
    TESTS_CHECK(got == want, "%s: validate gives %d (%s), want %d (%s): %s [%s]", label, (int)got,
                rul_invalid_name(got), (int)want, rul_invalid_name(want), sfen, err.msg);
    if (want != RUL_VALID)
        TESTS_CHECK(err.msg[0] != '\0', "%s: no message for an invalid position", label);
    TESTS_CHECK(rul_pos_validate(&pos, flags, NULL) == got, "%s: answer changes with err NULL", label);
}

static void test_valid(void) {
    expect_invalid("startpos", RUL_SFEN_STARTPOS, RUL_VALIDATE_BOTH_KINGS, RUL_VALID);
    expect_invalid("startpos, gote to move",
                   "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_VALID);
    expect_invalid("matsuri", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_VALID);
    expect_invalid("40 pieces, all in hand but the kings", "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_VALID);
    expect_invalid("tsume: one king", "4k4/9/9/9/9/9/9/9/9 b 2R 1", 0, RUL_VALID);
    expect_invalid("promoted pawns do not count for nifu", "4k4/9/9/9/4+P4/9/4P4/9/4K4 b - 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_VALID);
    expect_invalid("pawns of both colours on a file", "4k4/4p4/9/9/9/9/4P4/9/4K4 b - 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_VALID);
    expect_invalid("gote pawn on rank 1, sente pawn on rank 9", "p3k4/9/9/9/9/9/9/9/P3K4 b - 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_VALID);
    expect_invalid("the side to move in check", "4k4/9/9/9/4r4/9/9/9/4K4 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_VALID);
}

static void test_invalid(void) {
    expect_invalid("3 rooks", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_INVALID_TOO_MANY_PIECES);
    expect_invalid("19 pawns (18 in hand)", "4k4/9/9/9/9/9/P8/9/4K4 b 18P 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_TOO_MANY_PIECES);
    expect_invalid("41 pieces", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_INVALID_TOO_MANY_PIECES);
    expect_invalid("5 golds", "4k4/9/9/9/9/9/9/9/3GKG3 b 3G 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_TOO_MANY_PIECES);
    expect_invalid("3 bishops, one promoted", "4k4/9/9/9/4+B4/9/9/9/4K4 b 2B 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_TOO_MANY_PIECES);
    expect_invalid("no gote king in a game", "9/9/9/9/9/9/9/9/4K4 b 2R 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_NO_KING);
    expect_invalid("no king at all in a game", "9/9/9/9/9/9/9/9/9 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_NO_KING);
    expect_invalid("nifu, sente", "4k4/9/9/9/9/9/4P4/4P4/4K4 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_NIFU);
    expect_invalid("nifu, gote", "4k4/p8/p8/9/9/9/9/9/4K4 b - 1", RUL_VALIDATE_BOTH_KINGS, RUL_INVALID_NIFU);
    expect_invalid("sente pawn on rank 1", "P3k4/9/9/9/9/9/9/9/4K4 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_DEAD_PIECE);
    expect_invalid("sente lance on rank 1", "L3k4/9/9/9/9/9/9/9/4K4 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_DEAD_PIECE);
    expect_invalid("sente knight on rank 2", "4k4/N8/9/9/9/9/9/9/4K4 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_DEAD_PIECE);
    expect_invalid("gote lance on rank 9", "4k4/9/9/9/9/9/9/9/l3K4 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_DEAD_PIECE);
    expect_invalid("gote knight on rank 8", "4k4/9/9/9/9/9/9/n8/4K4 b - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_DEAD_PIECE);
    expect_invalid("gote pawn on rank 9", "4k4/9/9/9/9/9/9/9/p3K4 w - 1", RUL_VALIDATE_BOTH_KINGS,
                   RUL_INVALID_DEAD_PIECE);
    expect_invalid("side not to move in check (gote)", "4k4/9/9/9/4R4/9/9/9/4K4 b - 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_INVALID_OPPONENT_IN_CHECK);
    expect_invalid("side not to move in check (sente)", "4k4/9/9/9/9/9/9/4p4/4K4 w - 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_INVALID_OPPONENT_IN_CHECK);
    expect_invalid("side not to move in check by a knight", "4k4/9/3N5/9/9/9/9/9/4K4 b - 1",
                   RUL_VALIDATE_BOTH_KINGS, RUL_INVALID_OPPONENT_IN_CHECK);
}

/* Two kings of one colour. Built square by square (as the vision module will) rul_pos_validate must
 * say so. As SFEN text the parser may refuse it instead (rules.h: parsing does not validate, but the
 * position holds one king square per colour); then it is RUL_EPARSE naming the second king's column. */
static void two_kings_sfen(const char *label, const char *sfen, const char *second_king) {
    rul_pos_t pos;
    rul_error_t err;
    int rc, col = (int)(strstr(sfen, second_king) - sfen) + 1;

    memset(&err, 0, sizeof err);
    rc = rul_pos_from_sfen(&pos, sfen, &err);
    if (rc == RUL_OK) {
        rul_invalid_t got = rul_pos_validate(&pos, 0, NULL);
        TESTS_CHECK(got == RUL_INVALID_KING_COUNT, "%s: parsed, and validate gives %s, want king_count",
                    label, rul_invalid_name(got));
    } else {
        TESTS_CHECK(rc == RUL_EPARSE, "%s: rc %d", label, rc);
        TESTS_CHECK(err.column == col,
                    "%s: rejected by the parser with column %d, want %d (the second king): %s", label,
                    err.column, col, err.msg);
    }
}

static void test_two_kings(void) {
    rul_pos_t pos;

    rul_pos_clear(&pos);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(5, 1), RUL_PIECE(RUL_GOTE, RUL_KING)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(5, 9), RUL_PIECE(RUL_SENTE, RUL_KING)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_validate(&pos, RUL_VALIDATE_BOTH_KINGS, NULL), RUL_VALID);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(6, 9), RUL_PIECE(RUL_SENTE, RUL_KING)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_validate(&pos, RUL_VALIDATE_BOTH_KINGS, NULL), RUL_INVALID_KING_COUNT);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(6, 9), RUL_PIECE_NONE), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(4, 1), RUL_PIECE(RUL_GOTE, RUL_KING)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_validate(&pos, 0, NULL), RUL_INVALID_KING_COUNT);

    two_kings_sfen("two sente kings", "4k4/9/9/9/9/9/9/9/3KK4 b - 1", "K4 b");
    two_kings_sfen("two gote kings", "3kk4/9/9/9/9/9/9/9/4K4 b - 1", "k4/9");
}

/* rul_pos_clear and rul_pos_set_piece: the contract of rules.h (key and king squares kept right). */
static void test_set_piece(void) {
    rul_pos_t pos, parsed;

    rul_pos_clear(&pos);
    CU_ASSERT_EQUAL(pos.side, RUL_SENTE);
    CU_ASSERT_EQUAL(pos.ply, 1);
    CU_ASSERT_EQUAL(rul_pos_king_sq(&pos, RUL_SENTE), RUL_SQ_NONE);
    CU_ASSERT_EQUAL(rul_pos_king_sq(&pos, RUL_GOTE), RUL_SQ_NONE);
    CU_ASSERT_EQUAL(pos.key, rul_pos_compute_key(&pos));
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(5, 9), RUL_PIECE(RUL_SENTE, RUL_KING)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(5, 1), RUL_PIECE(RUL_GOTE, RUL_KING)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(2, 8), RUL_PIECE(RUL_SENTE, RUL_DRAGON)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(1, 1), RUL_PIECE(RUL_GOTE, RUL_LANCE)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_king_sq(&pos, RUL_SENTE), RUL_SQ(5, 9));
    CU_ASSERT_EQUAL(rul_pos_king_sq(&pos, RUL_GOTE), RUL_SQ(5, 1));
    CU_ASSERT_EQUAL(pos.key, rul_pos_compute_key(&pos));
    CU_ASSERT_EQUAL(rul_pos_from_sfen(&parsed, "4k3l/9/9/9/9/9/9/7+R1/4K4 b - 1", NULL), RUL_OK);
    CU_ASSERT_TRUE(rul_pos_same(&pos, &parsed));
    CU_ASSERT_EQUAL(pos.key, parsed.key);
    /* moving the king by hand */
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(5, 9), RUL_PIECE_NONE), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_king_sq(&pos, RUL_SENTE), RUL_SQ_NONE);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, RUL_SQ(4, 8), RUL_PIECE(RUL_SENTE, RUL_KING)), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_king_sq(&pos, RUL_SENTE), RUL_SQ(4, 8));
    CU_ASSERT_EQUAL(pos.key, rul_pos_compute_key(&pos));
    /* out of range */
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, 81, RUL_PIECE(RUL_SENTE, RUL_PAWN)), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, -1, RUL_PIECE(RUL_SENTE, RUL_PAWN)), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, 0, (rul_piece_t)RUL_TYPE_NB), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, 0, (rul_piece_t)RUL_GOTE_BIT), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_set_piece(&pos, 0, (rul_piece_t)0x20), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_piece_at(&pos, 0), RUL_PIECE(RUL_GOTE, RUL_LANCE));
    /* rehash after editing fields by hand */
    rul_pos_set_hand(&pos, RUL_SENTE, RUL_GOLD, 2);
    pos.side = RUL_GOTE;
    rul_pos_rehash(&pos);
    CU_ASSERT_EQUAL(pos.key, rul_pos_compute_key(&pos));
    CU_ASSERT_EQUAL(rul_pos_from_sfen(&parsed, "4k3l/9/9/9/9/9/9/5K1+R1/9 w 2G 1", NULL), RUL_OK);
    CU_ASSERT_TRUE(rul_pos_same(&pos, &parsed));
    CU_ASSERT_EQUAL(pos.key, parsed.key);
}

static void test_invalid_names(void) {
    int r;
    const char *names[8];

    CU_ASSERT_STRING_EQUAL(rul_invalid_name(RUL_VALID), "valid");
    CU_ASSERT_STRING_EQUAL(rul_invalid_name(RUL_INVALID_NIFU), "nifu");
    CU_ASSERT_STRING_EQUAL(rul_invalid_name(RUL_INVALID_OPPONENT_IN_CHECK), "opponent_in_check");
    for (r = RUL_VALID; r <= RUL_INVALID_OPPONENT_IN_CHECK; r++) {
        int k;
        names[r] = rul_invalid_name((rul_invalid_t)r);
        if (!TESTS_CHECK(names[r] != NULL && names[r][0] != '\0', "rul_invalid_name(%d) is empty", r))
            continue;
        for (k = 0; k < r; k++)
            TESTS_CHECK(names[k] == NULL || strcmp(names[k], names[r]) != 0,
                        "rul_invalid_name(%d) == (%d): %s", r, k, names[r]);
    }
}

/* Standard handicaps (JSA 駒落ち): uwate (gote) removes the pieces and moves first. */
static const char *const handicap_sfen[RUL_HC_NB] = {
    [RUL_HC_EVEN] = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    [RUL_HC_LANCE] = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_RIGHT_LANCE] = "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_BISHOP] = "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_ROOK] = "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_ROOK_LANCE] = "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_2] = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_3] = "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_4] = "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_5] = "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_LEFT_5] = "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_6] = "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_LEFT_7] = "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_RIGHT_7] = "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_8] = "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    [RUL_HC_10] = "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
};

static const char *const handicap_ja[RUL_HC_NB] = {
    [RUL_HC_EVEN] = "平手",         [RUL_HC_LANCE] = "香落ち",       [RUL_HC_RIGHT_LANCE] = "右香落ち",
    [RUL_HC_BISHOP] = "角落ち",     [RUL_HC_ROOK] = "飛車落ち",      [RUL_HC_ROOK_LANCE] = "飛香落ち",
    [RUL_HC_2] = "二枚落ち",        [RUL_HC_3] = "三枚落ち",         [RUL_HC_4] = "四枚落ち",
    [RUL_HC_5] = "五枚落ち",        [RUL_HC_LEFT_5] = "左五枚落ち",  [RUL_HC_6] = "六枚落ち",
    [RUL_HC_LEFT_7] = "左七枚落ち", [RUL_HC_RIGHT_7] = "右七枚落ち", [RUL_HC_8] = "八枚落ち",
    [RUL_HC_10] = "十枚落ち",
};

static void test_handicaps(void) {
    int h;

    for (h = 0; h < RUL_HC_NB; h++) {
        rul_handicap_info_t info;
        rul_pos_t a, b;
        rul_handicap_t back;
        char label[64], sfen[256];
        rul_error_t err;

        memset(&info, 0, sizeof info);
        if (!TESTS_CHECK(rul_handicap_info((rul_handicap_t)h, &info) == RUL_OK, "handicap %d: no info", h))
            continue;
        if (!TESTS_CHECK(info.name != NULL && info.name_ja != NULL && info.sfen != NULL,
                         "handicap %d: NULL strings in info", h))
            continue;
        snprintf(label, sizeof label, "handicap %d (%s)", h, info.name);
        TESTS_CHECK(strcmp(info.sfen, handicap_sfen[h]) == 0, "%s: sfen '%s', want '%s'", label, info.sfen,
                    handicap_sfen[h]);
        TESTS_CHECK(strcmp(info.name_ja, handicap_ja[h]) == 0, "%s: Japanese name '%s', want '%s'", label,
                    info.name_ja, handicap_ja[h]);
        memset(&err, 0, sizeof err);
        if (!TESTS_CHECK(rul_pos_from_sfen(&a, info.sfen, &err) == RUL_OK, "%s: its SFEN does not parse: %s",
                         label, err.msg))
            continue;
        TESTS_CHECK(rul_pos_validate(&a, RUL_VALIDATE_BOTH_KINGS, &err) == RUL_VALID, "%s: not valid: %s",
                    label, err.msg);
        TESTS_CHECK(a.side == (h == RUL_HC_EVEN ? RUL_SENTE : RUL_GOTE), "%s: side to move %d", label,
                    a.side);
        TESTS_CHECK(rul_pos_set_handicap(&b, (rul_handicap_t)h) == RUL_OK, "%s: rul_pos_set_handicap failed",
                    label);
        TESTS_CHECK(rul_pos_same(&a, &b) && a.key == b.key && a.ply == b.ply,
                    "%s: rul_pos_set_handicap differs from the SFEN", label);
        TESTS_CHECK(rul_pos_to_sfen(&b, sfen, sizeof sfen) == RUL_OK && strcmp(sfen, handicap_sfen[h]) == 0,
                    "%s: set_handicap writes '%s'", label, sfen);
        TESTS_CHECK(rul_handicap_from_name(info.name, &back) == RUL_OK && back == (rul_handicap_t)h,
                    "%s: English name does not map back", label);
        TESTS_CHECK(rul_handicap_from_name(info.name_ja, &back) == RUL_OK && back == (rul_handicap_t)h,
                    "%s: Japanese name '%s' does not map back", label, info.name_ja);
        /* gote (uwate) can move at once in every handicap: 3c3d exists */
        if (h != RUL_HC_EVEN) {
            rul_move_t m = RUL_MOVE_MAKE(RUL_SQ(3, 3), RUL_SQ(3, 4), 0);
            TESTS_CHECK(rul_is_legal(&a, m), "%s: uwate cannot play 3c3d", label);
        }
    }
    {
        rul_handicap_info_t info;
        rul_pos_t pos;
        CU_ASSERT_EQUAL(rul_handicap_info(RUL_HC_NB, &info), RUL_ERANGE);
        CU_ASSERT_EQUAL(rul_handicap_info((rul_handicap_t)-1, &info), RUL_ERANGE);
        CU_ASSERT_EQUAL(rul_pos_set_handicap(&pos, RUL_HC_NB), RUL_ERANGE);
    }
}

static void name_is(const char *name, rul_handicap_t want) {
    rul_handicap_t h = RUL_HC_NB;
    int rc = rul_handicap_from_name(name, &h);

    TESTS_CHECK(rc == RUL_OK && h == want, "rul_handicap_from_name(\"%s\"): rc %d, handicap %d, want %d",
                name, rc, (int)h, (int)want);
}

static void test_handicap_names(void) {
    rul_handicap_t h;

    name_is("even", RUL_HC_EVEN);
    name_is("lance", RUL_HC_LANCE);
    name_is("LANCE", RUL_HC_LANCE);
    name_is("Lance", RUL_HC_LANCE);
    name_is("right-lance", RUL_HC_RIGHT_LANCE);
    name_is("right lance", RUL_HC_RIGHT_LANCE);
    name_is("bishop", RUL_HC_BISHOP);
    name_is("rook", RUL_HC_ROOK);
    name_is("rook-lance", RUL_HC_ROOK_LANCE);
    name_is("2", RUL_HC_2);
    name_is("2-piece", RUL_HC_2);
    name_is("3-piece", RUL_HC_3);
    name_is("4-piece", RUL_HC_4);
    name_is("5-piece", RUL_HC_5);
    name_is("left-5", RUL_HC_LEFT_5);
    name_is("6-piece", RUL_HC_6);
    name_is("8-piece", RUL_HC_8);
    name_is("10-piece", RUL_HC_10);
    name_is("10", RUL_HC_10);
    name_is("平手", RUL_HC_EVEN);
    name_is("香落ち", RUL_HC_LANCE);
    name_is("右香落ち", RUL_HC_RIGHT_LANCE);
    name_is("角落ち", RUL_HC_BISHOP);
    name_is("飛車落ち", RUL_HC_ROOK);
    name_is("飛香落ち", RUL_HC_ROOK_LANCE);
    name_is("二枚落ち", RUL_HC_2);
    name_is("左五枚落ち", RUL_HC_LEFT_5);
    name_is("左七枚落ち", RUL_HC_LEFT_7);
    name_is("右七枚落ち", RUL_HC_RIGHT_7);
    name_is("十枚落ち", RUL_HC_10);
    CU_ASSERT_EQUAL(rul_handicap_from_name("queen", &h), RUL_EPARSE);
    CU_ASSERT_EQUAL(rul_handicap_from_name("", &h), RUL_EPARSE);
    CU_ASSERT_EQUAL(rul_handicap_from_name("7-piece", &h), RUL_EPARSE); /* left or right must be said */
    CU_ASSERT_EQUAL(rul_handicap_from_name("lance lance", &h), RUL_EPARSE);
}

int tests_register_validate(void) {
    CU_pSuite s = CU_add_suite("rules_validate", NULL, NULL);

    if (s == NULL || CU_add_test(s, "valid positions", test_valid) == NULL ||
        CU_add_test(s, "invalid positions and their reasons", test_invalid) == NULL ||
        CU_add_test(s, "two kings of one colour", test_two_kings) == NULL ||
        CU_add_test(s, "rul_pos_clear, rul_pos_set_piece, rul_pos_rehash", test_set_piece) == NULL ||
        CU_add_test(s, "rul_invalid_name", test_invalid_names) == NULL ||
        CU_add_test(s, "the 16 handicap starting positions", test_handicaps) == NULL ||
        CU_add_test(s, "handicaps by English and Japanese name", test_handicap_names) == NULL)
        return -1;
    return 0;
}
