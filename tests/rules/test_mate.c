/* test_mate.c - checkmate, "no legal move" and pawn-drop mate (FESA 1.2, 3.11(c), 5.1) in rules/. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "rules/rules.h"
#include "tests/rules/rules_test_util.h"
#include "tests/tests.h"

/* Parses sfen, checks usi is legal (why = legal), plays it, and checks the result: in check, mate,
 * no legal move. */
static void mate_after(const char *label, const char *sfen, const char *usi, int check, int mate) {
    rul_pos_t pos;
    rul_move_t m;
    rul_undo_t undo;

    if (!rt_pos_or_fail(&pos, sfen, label))
        return;
    if (!TESTS_CHECK(rul_move_from_usi(usi, &m, NULL) == RUL_OK, "%s: '%s' not parsed", label, usi))
        return;
    TESTS_CHECK(rul_pos_is_mate(&pos) == 0 && rul_pos_no_legal_move(&pos) == 0, "%s: mate before %s", label,
                usi);
    if (!TESTS_CHECK(rul_is_legal(&pos, m), "%s: %s should be legal (why: %s)", label, usi,
                     rul_why_name(rul_why_illegal(&pos, m))))
        return;
    rul_pos_do_move(&pos, m, &undo);
    TESTS_CHECK(rul_pos_in_check(&pos) == check, "%s: after %s in_check %d, want %d", label, usi,
                rul_pos_in_check(&pos), check);
    TESTS_CHECK(rul_pos_is_mate(&pos) == mate, "%s: after %s is_mate %d, want %d", label, usi,
                rul_pos_is_mate(&pos), mate);
    TESTS_CHECK(rul_pos_no_legal_move(&pos) == mate, "%s: after %s no_legal_move %d, want %d", label, usi,
                rul_pos_no_legal_move(&pos), mate);
    TESTS_CHECK((rul_count_legal(&pos) == 0) == mate, "%s: after %s %d legal moves", label, usi,
                rul_count_legal(&pos));
}

static void test_checkmate(void) {
    /* gold dropped on 5b, guarded by the pawn 5c: mate (dropping a piece other than a pawn may mate) */
    mate_after("gold drop mate", "4k4/9/4P4/9/9/9/9/9/4K4 b G 1", "G*5b", 1, 1);
    /* the same drop with the pawn gone: the king takes the gold */
    mate_after("gold drop check", "4k4/9/9/9/9/9/9/9/4K4 b G 1", "G*5b", 1, 0);
    /* pushing a pawn to give mate is legal (3.11(c) is about drops only), promoted or not:
     * gote king 1a, sente knight 3c covers 2a, gold 2c covers 2b and guards 1b */
    mate_after("pawn push mate", "8k/9/6NGP/9/9/9/9/9/K8 b - 1", "1c1b", 1, 1);
    mate_after("pawn push mate, promoting", "8k/9/6NGP/9/9/9/9/9/K8 b - 1", "1c1b+", 1, 1);
    /* gote mates sente: back-rank rook drop, sente king 5i boxed in by its own golds and pawns */
    mate_after("gote rook drop mate", "4k4/9/9/9/9/9/3PPP3/3G1G3/4K4 w r 1", "R*5h", 1, 0);
    /* back-rank mate: pawns on 4h 5h 6h cannot go back; 4i and 6i stay on the rook's line */
    mate_after("gote rook drop mate on the back rank", "4k4/9/9/9/9/9/9/3PPP3/4K4 w r 1", "R*1i", 1, 1);
}

static void test_no_legal_move(void) {
    rul_pos_t pos;

    /* sente king 1i, nothing in hand; gote rook 2h guarded by gote gold 2g covers 1h and 2i; the king
     * is not in check and has no move: it loses (FESA 1.2), but it is not checkmate */
    if (rt_pos_or_fail(&pos, "k8/9/9/9/9/9/7g1/7r1/8K b - 1", "stalemate")) {
        CU_ASSERT_EQUAL(rul_pos_in_check(&pos), 0);
        CU_ASSERT_EQUAL(rul_count_legal(&pos), 0);
        CU_ASSERT_EQUAL(rul_pos_no_legal_move(&pos), 1);
        CU_ASSERT_EQUAL(rul_pos_is_mate(&pos), 0);
        CU_ASSERT_EQUAL(rul_pos_validate(&pos, RUL_VALIDATE_BOTH_KINGS, NULL), RUL_VALID);
    }
    /* the same with a pawn in hand: dropping it is a move */
    if (rt_pos_or_fail(&pos, "k8/9/9/9/9/9/7g1/7r1/8K b P 1", "stalemate broken by a drop")) {
        CU_ASSERT_EQUAL(rul_pos_no_legal_move(&pos), 0);
        CU_ASSERT_EQUAL(rul_count_legal(&pos), 8 * 9 - 3); /* ranks 2-9 less 2g 2h 1i */
    }
    /* python-shogi test_3: every sente piece blocked, every file holds a sente pawn, 9 pawns in hand */
    if (rt_pos_or_fail(&pos, "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200",
                       "python-shogi no legal move")) {
        CU_ASSERT_EQUAL(rul_pos_in_check(&pos), 0);
        CU_ASSERT_EQUAL(rul_pos_no_legal_move(&pos), 1);
        CU_ASSERT_EQUAL(rul_pos_is_mate(&pos), 0);
    }
    /* a side with no king and no piece has no move either */
    if (rt_pos_or_fail(&pos, "4k4/9/9/9/9/9/9/9/9 b - 1", "nothing at all")) {
        CU_ASSERT_EQUAL(rul_count_legal(&pos), 0);
        CU_ASSERT_EQUAL(rul_pos_no_legal_move(&pos), 1);
        CU_ASSERT_EQUAL(rul_pos_is_mate(&pos), 0);
    }
}

/* Checks that dropping a pawn on sq is legal (want_legal) or illegal as pawn-drop mate. */
static void pawn_drop(const char *label, const char *sfen, int file, int rank, int want_legal) {
    rul_pos_t pos;
    rul_movelist_t list;
    rul_move_t m = RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(file, rank));
    rul_why_t why;

    if (!rt_pos_or_fail(&pos, sfen, label))
        return;
    rul_gen_legal(&pos, &list);
    why = rul_why_illegal(&pos, m);
    TESTS_CHECK(rul_is_legal(&pos, m) == want_legal, "%s: P*%d%c is_legal %d, want %d", label, file,
                'a' + rank - 1, rul_is_legal(&pos, m), want_legal);
    TESTS_CHECK(rt_list_has(&list, m) == want_legal, "%s: P*%d%c in rul_gen_legal: %d, want %d", label, file,
                'a' + rank - 1, rt_list_has(&list, m), want_legal);
    TESTS_CHECK(why == (want_legal ? RUL_WHY_LEGAL : RUL_WHY_PAWN_DROP_MATE),
                "%s: P*%d%c why '%s', want '%s'", label, file, 'a' + rank - 1, rul_why_name(why),
                want_legal ? "legal" : "pawn_drop_mate");
}

static void test_pawn_drop_mate(void) {
    /* the 1-move position of the pawn push mate, with the pawn in hand instead: uchifuzume */
    pawn_drop("uchifuzume", "8k/9/6NG1/9/9/9/9/9/K8 b P 1", 1, 2, 0);
    /* lishogi #320: a dragon guards 1b; with and without a sente king */
    pawn_drop("uchifuzume, no sente king", "8k/9/7+R1/9/9/9/9/9/9 b P 1", 1, 2, 0);
    pawn_drop("uchifuzume, two kings", "8k/9/7+R1/9/9/9/9/9/K8 b P 1", 1, 2, 0);
    /* shogiops gentest-21: next to a corner king, guarded by the silver 1c */
    pawn_drop("uchifuzume by the corner", "7lk/9/8S/9/9/9/9/7L1/8K b P 1", 1, 2, 0);
    /* python-shogi: P*9b guarded by the gold 8c; the knight 8a blocks the king */
    pawn_drop("uchifuzume, python-shogi", "kn7/9/1G7/9/9/9/9/9/9 b P 1", 9, 2, 0);
    /* a check the king escapes from (2a is free): legal */
    pawn_drop("pawn check, king escapes", "8k/9/7G1/9/9/9/9/9/K8 b P 1", 1, 2, 1);
    /* the king cannot escape but the gold 2a may take the pawn: not mate, legal */
    pawn_drop("pawn check, defender takes", "7gk/9/7G1/9/9/9/9/9/K8 b P 1", 1, 2, 1);
    /* the same gold pinned by the rook 5a cannot take: mate, illegal */
    pawn_drop("pawn check, defender pinned", "4R2gk/9/7G1/9/9/9/9/9/K8 b P 1", 1, 2, 0);
    /* an unguarded pawn: the king takes it */
    pawn_drop("pawn check, unguarded", "8k/9/9/9/9/9/9/9/K8 b P 1", 1, 2, 1);
    /* gote drops the pawn on 9h against the sente king 9i: the silver 8g guards 9h and 8h, the gold 7h
     * covers 8h and 8i: mate, illegal; without the silver the king takes the pawn */
    pawn_drop("gote uchifuzume", "4k4/9/9/9/9/9/1s7/2g6/K8 w p 1", 9, 8, 0);
    pawn_drop("gote pawn check, king takes", "4k4/9/9/9/9/9/9/2g6/K8 w p 1", 9, 8, 1);
}

int tests_register_mate(void) {
    CU_pSuite s = CU_add_suite("rules_mate", NULL, NULL);

    if (s == NULL || CU_add_test(s, "checkmate after one move", test_checkmate) == NULL ||
        CU_add_test(s, "no legal move without check", test_no_legal_move) == NULL ||
        CU_add_test(s, "pawn-drop mate (FESA 3.11c)", test_pawn_drop_mate) == NULL)
        return -1;
    return 0;
}
