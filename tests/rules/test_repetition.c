/* test_repetition.c - sennichite and perpetual check over whole games (FESA 5.2, 3.12), from real records. */
/* The records are tests/data/repetition_cases.tsv (USI lines written once from ../shared/data by
 * tests/data/make_repetition_cases.py; expected answers from the records' own projects). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules.h"
#include "tests/rules/rules_test_util.h"
#include "tests/tests.h"

#define CASES_FILE "tests/data/repetition_cases.tsv"

static int verdict_from_name(const char *s, rul_rep_t *v) {
    if (strcmp(s, "none") == 0)
        *v = RUL_REP_NONE;
    else if (strcmp(s, "sennichite") == 0)
        *v = RUL_REP_SENNICHITE;
    else if (strcmp(s, "perpetual_sente") == 0)
        *v = RUL_REP_PERPETUAL_SENTE;
    else if (strcmp(s, "perpetual_gote") == 0)
        *v = RUL_REP_PERPETUAL_GOTE;
    else
        return -1;
    return 0;
}

static const char *rep_name(rul_rep_t v) {
    switch (v) {
    case RUL_REP_NONE: return "none";
    case RUL_REP_SENNICHITE: return "sennichite";
    case RUL_REP_PERPETUAL_SENTE: return "perpetual_sente";
    case RUL_REP_PERPETUAL_GOTE: return "perpetual_gote";
    }
    return "?";
}

/* The probe after the last move: "MOVE:why" (rul_why_name of the move) or "impasse27:win|draw|lose". */
static void run_probe(const char *id, const rul_pos_t *pos, const char *probe) {
    char text[32];
    const char *colon = strchr(probe, ':');
    size_t len = colon != NULL ? (size_t)(colon - probe) : 0;

    if (strcmp(probe, "-") == 0)
        return;
    if (!TESTS_CHECK(colon != NULL && len < sizeof text, "%s: bad probe '%s'", id, probe))
        return;
    memcpy(text, probe, len);
    text[len] = '\0';
    if (strcmp(text, "impasse27") == 0) {
        rul_impasse_t out;
        const char *want = colon + 1, *got;
        TESTS_CHECK(rul_impasse_judge(pos, RUL_IMPASSE_27, &out) == RUL_OK, "%s: impasse judge failed", id);
        got = out.verdict == RUL_VERDICT_WIN ? "win" : out.verdict == RUL_VERDICT_DRAW ? "draw" : "lose";
        TESTS_CHECK(strcmp(got, want) == 0,
                    "%s: 27-point declaration by the side to move: %s, want %s (points %d, "
                    "pieces in zone %d, king in zone %d, in check %d)",
                    id, got, want, out.points, out.pieces_in_zone, out.king_in_zone, out.in_check);
    } else {
        rul_move_t m;
        rul_why_t why;
        if (!TESTS_CHECK(rul_move_from_usi(text, &m, NULL) == RUL_OK, "%s: probe move '%s' not parsed", id,
                         text))
            return;
        why = rul_why_illegal(pos, m);
        TESTS_CHECK(strcmp(rul_why_name(why), colon + 1) == 0, "%s: after the record, %s is '%s', want '%s'",
                    id, text, rul_why_name(why), colon + 1);
        TESTS_CHECK(rul_is_legal(pos, m) == (why == RUL_WHY_LEGAL), "%s: rul_is_legal(%s) disagrees with why",
                    id, text);
    }
}

static void replay_row(rul_game_t *g, rul_move_t *moves, char **f) {
    const char *id = f[0], *probe = f[4], *usi = f[8];
    int ply = atoi(f[2]), first = atoi(f[3]), n = 0, i, early = 0;
    rul_rep_t want = RUL_REP_NONE;
    rul_rep_info_t info;
    rul_pos_t start;
    char why[256];

    if (!TESTS_CHECK(verdict_from_name(f[1], &want) == 0, "%s: unknown verdict '%s'", id, f[1]))
        return;
    if (!TESTS_CHECK(rt_parse_position(usi, &start, moves, RUL_GAME_MAX_PLY, &n, why, sizeof why) == 0,
                     "%s: %s", id, why))
        return;
    TESTS_CHECK(ply == 0 || n == ply, "%s: %d moves, but the fourth occurrence is at ply %d", id, n, ply);
    rul_game_init(g, &start);
    for (i = 0; i < n; i++) {
        int rc = rul_game_play(g, moves[i]);
        char text[6];
        rul_move_to_usi(moves[i], text);
        if (!TESTS_CHECK(rc == RUL_OK, "%s: move %d %s rejected: rc %d, why %s", id, i + 1, text, rc,
                         rul_why_name(rul_why_illegal(&g->pos, moves[i]))))
            return;
        if (i + 1 < n) {
            rul_game_repetition(g, &info);
            if (info.verdict != RUL_REP_NONE && early++ == 0)
                TESTS_CHECK(
                    0, "%s: verdict %s already after ply %d (count %d, first %d), want none before ply %d",
                    id, rep_name(info.verdict), i + 1, info.count, info.first_ply, n);
        }
    }
    rul_game_repetition(g, &info);
    TESTS_CHECK(info.verdict == want, "%s: verdict after ply %d: %s, want %s (count %d, first %d)", id, n,
                rep_name(info.verdict), f[1], info.count, info.first_ply);
    if (ply > 0) {
        TESTS_CHECK(info.count == 4, "%s: the last position occurred %d times, want 4", id, info.count);
        TESTS_CHECK(info.first_ply == first, "%s: first occurrence after ply %d, want %d", id, info.first_ply,
                    first);
    } else {
        TESTS_CHECK(info.count < 4, "%s: the last position occurred %d times", id, info.count);
    }
    TESTS_CHECK(g->nply == n && g->keys[n] == g->pos.key && g->pos.key == rul_pos_compute_key(&g->pos),
                "%s: game record inconsistent after %d moves", id, n);
    run_probe(id, &g->pos, probe);
    /* one move back: no verdict any more */
    if (n > 0 && ply > 0) {
        TESTS_CHECK(rul_game_undo(g) == RUL_OK, "%s: undo failed", id);
        rul_game_repetition(g, &info);
        TESTS_CHECK(info.verdict == RUL_REP_NONE, "%s: verdict %s after taking back ply %d", id,
                    rep_name(info.verdict), n);
    }
}

static void test_records(void) {
    char path[4096], *text, *cursor, *f[10];
    rul_game_t *g = malloc(sizeof *g);
    rul_move_t *moves = malloc(sizeof *moves * RUL_GAME_MAX_PLY);
    int n, rows = 0;

    if (!TESTS_CHECK(g != NULL && moves != NULL, "out of memory"))
        goto out;
    if (!TESTS_CHECK(tests_project_path(path, sizeof path, CASES_FILE) == 0, "path too long"))
        goto out;
    text = rt_read_file(path);
    if (!TESTS_CHECK(text != NULL, "cannot read %s (run the tests from the project root)", path))
        goto out;
    cursor = text;
    while ((n = rt_next_tsv_row(&cursor, f, 10)) >= 0) {
        if (n == 0)
            continue;
        if (!TESTS_CHECK(n == 9, "%s: row %d has %d columns, want 9", CASES_FILE, rows + 1, n))
            continue;
        rows++;
        replay_row(g, moves, f);
    }
    TESTS_CHECK(rows == 12, "%s: %d rows, want 12", CASES_FILE, rows);
    free(text);
out:
    free(moves);
    free(g);
}

/* Repetition is judged over the whole game (CONVENTIONS.md: an engine's 16-ply window is wrong for a
 * game record): the start position comes back after three different 8-ply detours (the kings walk
 * right, then left, then the rooks shuffle), so its four occurrences are 8 plies apart and no other
 * position occurs four times. */
static void test_spread_repetition(void) {
    rul_game_t *g = malloc(sizeof *g);
    rul_move_t moves[32];
    rul_pos_t start;
    rul_rep_info_t info;
    char why[128];
    int n = 0, i, early = 0;

    if (!TESTS_CHECK(g != NULL, "out of memory"))
        return;
    if (!TESTS_CHECK(
            rt_parse_position("position startpos moves 5i4h 5a4b 4h3h 4b3b 3h4h 3b4b 4h5i 4b5a "
                              "5i6h 5a6b 6h7h 6b7b 7h6h 7b6b 6h5i 6b5a 2h3h 8b7b 3h4h 7b6b 4h3h 6b7b "
                              "3h2h 7b8b",
                              &start, moves, 32, &n, why, sizeof why) == 0,
            "detours: %s", why))
        goto out;
    rul_game_init(g, &start);
    for (i = 0; i < n; i++) {
        if (!TESTS_CHECK(rul_game_play(g, moves[i]) == RUL_OK, "detours: move %d rejected", i + 1))
            goto out;
        rul_game_repetition(g, &info);
        if (i + 1 < n && info.verdict != RUL_REP_NONE)
            early++;
        if (i + 1 == 8 || i + 1 == 16)
            TESTS_CHECK(info.count == (i + 1) / 8 + 1 && info.first_ply == 0,
                        "detours: after ply %d the start occurred %d times (first %d), want %d (first 0)",
                        i + 1, info.count, info.first_ply, (i + 1) / 8 + 1);
    }
    TESTS_CHECK(early == 0, "detours: %d plies before the last have a verdict", early);
    TESTS_CHECK(n == 24 && info.verdict == RUL_REP_SENNICHITE && info.count == 4 && info.first_ply == 0,
                "detours: after ply %d verdict %s count %d first %d, want sennichite 4 0", n,
                rep_name(info.verdict), info.count, info.first_ply);
out:
    free(g);
}

/* rul_game_play / rul_game_undo contracts: illegal moves leave the game alone, undo at the start is an
 * error, the store fills at RUL_GAME_MAX_PLY, and keys/check follow the moves. */
static void test_game_contract(void) {
    static const char *const shuffle[4] = {"2h3h", "8b7b", "3h2h", "7b8b"};
    rul_game_t *g = malloc(sizeof *g);
    rul_pos_t start, before;
    rul_move_t m;
    rul_rep_info_t info;
    int i, rc = RUL_OK, bad_keys = 0;

    if (!TESTS_CHECK(g != NULL, "out of memory"))
        return;
    if (!rt_pos_or_fail(&start, RUL_SFEN_STARTPOS, "game contract"))
        goto out;
    rul_game_init(g, &start);
    CU_ASSERT_EQUAL(g->nply, 0);
    CU_ASSERT_TRUE(rul_pos_same(&g->pos, &start));
    CU_ASSERT_EQUAL(g->keys[0], start.key);
    CU_ASSERT_EQUAL(rul_game_undo(g), RUL_ERANGE);
    rul_game_repetition(g, &info);
    CU_ASSERT_EQUAL(info.verdict, RUL_REP_NONE);
    CU_ASSERT_EQUAL(info.count, 1);
    /* an illegal move: rejected, nothing changes */
    before = g->pos;
    CU_ASSERT_EQUAL(rul_move_from_usi("7g7e", &m, NULL), RUL_OK);
    CU_ASSERT_EQUAL(rul_game_play(g, m), RUL_EILLEGAL);
    CU_ASSERT_EQUAL(rul_game_play(g, RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(5, 5))), RUL_EILLEGAL);
    CU_ASSERT_EQUAL(rul_game_play(g, 0xFFFFFFFFu), RUL_EILLEGAL);
    CU_ASSERT_EQUAL(g->nply, 0);
    CU_ASSERT_TRUE(rul_pos_same(&g->pos, &before) && g->pos.key == before.key);
    /* rook shuffles until the store is full: no move gives check, every key is recorded */
    for (i = 0; i < RUL_GAME_MAX_PLY; i++) {
        CU_ASSERT_EQUAL_FATAL(rul_move_from_usi(shuffle[i % 4], &m, NULL), RUL_OK);
        rc = rul_game_play(g, m);
        if (rc != RUL_OK)
            break;
        if (g->keys[g->nply] != g->pos.key || g->check[g->nply] != 0)
            bad_keys++;
    }
    TESTS_CHECK(i == RUL_GAME_MAX_PLY && g->nply == RUL_GAME_MAX_PLY,
                "only %d shuffle moves were accepted (rc %d)", i, rc);
    TESTS_CHECK(bad_keys == 0, "%d plies with a wrong key or check flag in the game record", bad_keys);
    rul_game_repetition(g, &info);
    TESTS_CHECK(info.verdict == RUL_REP_SENNICHITE, "after %d shuffles: verdict %s", g->nply,
                rep_name(info.verdict));
    TESTS_CHECK(info.count == RUL_GAME_MAX_PLY / 4 + 1 && info.first_ply == 0,
                "after %d shuffles: count %d first %d, want %d and 0", g->nply, info.count, info.first_ply,
                RUL_GAME_MAX_PLY / 4 + 1);
    CU_ASSERT_EQUAL(rul_move_from_usi(shuffle[0], &m, NULL), RUL_OK);
    CU_ASSERT_EQUAL(rul_game_play(g, m), RUL_EFULL);
    CU_ASSERT_EQUAL(g->nply, RUL_GAME_MAX_PLY);
    CU_ASSERT_EQUAL(rul_game_undo(g), RUL_OK);
    CU_ASSERT_EQUAL(g->nply, RUL_GAME_MAX_PLY - 1);
    for (i = RUL_GAME_MAX_PLY - 1; i > 0; i--)
        if (rul_game_undo(g) != RUL_OK)
            break;
    CU_ASSERT_EQUAL(i, 0);
    CU_ASSERT_EQUAL(g->nply, 0);
    CU_ASSERT_TRUE(rul_pos_same(&g->pos, &start) && g->pos.key == start.key);
out:
    free(g);
}

/* The check flags of the game record follow the moves: a sente rook checks along rank a, then the
 * king steps out of it. */
static void test_game_check_flags(void) {
    rul_game_t *g = malloc(sizeof *g);
    rul_pos_t start;
    rul_move_t m;

    if (!TESTS_CHECK(g != NULL, "out of memory"))
        return;
    if (rt_pos_or_fail(&start, "4k4/9/9/9/9/9/9/9/R3K4 b - 1", "check flags")) {
        rul_game_init(g, &start);
        CU_ASSERT_EQUAL(g->check[0], 0);
        CU_ASSERT_EQUAL(rul_move_from_usi("9i9a", &m, NULL), RUL_OK);
        CU_ASSERT_EQUAL(rul_game_play(g, m), RUL_OK); /* rook to 9a: check along rank a */
        CU_ASSERT_EQUAL(g->check[1], 1);
        CU_ASSERT_EQUAL(rul_move_from_usi("5a5b", &m, NULL), RUL_OK);
        CU_ASSERT_EQUAL(rul_game_play(g, m), RUL_OK);
        CU_ASSERT_EQUAL(g->check[2], 0);
        CU_ASSERT_EQUAL(g->keys[2], g->pos.key);
    }
    free(g);
}

/* rul_game_judge: mate (FESA 5.1), no legal move (1.2), sennichite (5.2), and a game that goes on. */
static void test_game_judge(void) {
    static const char *const shuffle[8] = {"2h3h", "8b7b", "3h2h", "7b8b", "2h3h", "8b7b", "3h2h", "7b8b"};
    rul_game_t *g = malloc(sizeof *g);
    rul_game_end_t e;
    rul_pos_t start;
    rul_move_t m;

    if (!TESTS_CHECK(g != NULL, "out of memory"))
        return;
    if (rt_pos_or_fail(&start, "4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", "judge mate")) {
        rul_game_init(g, &start);
        rul_game_judge(g, &e);
        CU_ASSERT_EQUAL(e.reason, RUL_REASON_MATE);
        CU_ASSERT_EQUAL(e.winner, RUL_SENTE);
    }
    if (rt_pos_or_fail(&start, RUL_SFEN_STARTPOS, "judge startpos")) {
        rul_game_init(g, &start);
        rul_game_judge(g, &e);
        CU_ASSERT_EQUAL(e.reason, RUL_REASON_NONE);
        CU_ASSERT_EQUAL(e.winner, RUL_COLOR_NB);
        CU_ASSERT_EQUAL(e.rep.count, 1);
        for (int i = 0; i < 12; i++) {
            CU_ASSERT_EQUAL(rul_move_from_usi(shuffle[i % 8], &m, NULL), RUL_OK);
            CU_ASSERT_EQUAL(rul_game_play(g, m), RUL_OK);
        }
        rul_game_judge(g, &e);
        CU_ASSERT_EQUAL(e.reason, RUL_REASON_SENNICHITE);
        CU_ASSERT_EQUAL(e.winner, RUL_COLOR_NB);
        CU_ASSERT_EQUAL(e.rep.count, 4);
        CU_ASSERT_STRING_EQUAL(rul_reason_name(e.reason), "sennichite");
    }
    free(g);
}

/* rul_pos_set_hand keeps the key as a full rehash computes it. */
static void test_set_hand(void) {
    rul_pos_t pos;
    if (!rt_pos_or_fail(&pos, RUL_SFEN_STARTPOS, "set hand"))
        return;
    CU_ASSERT_EQUAL(rul_pos_set_hand(&pos, RUL_GOTE, RUL_BISHOP, 2), RUL_OK);
    CU_ASSERT_EQUAL(rul_pos_hand(&pos, RUL_GOTE, RUL_BISHOP), 2);
    CU_ASSERT_EQUAL(pos.key, rul_pos_compute_key(&pos));
    CU_ASSERT_EQUAL(rul_pos_set_hand(&pos, RUL_GOTE, RUL_BISHOP, 0), RUL_OK);
    CU_ASSERT_EQUAL(pos.key, rul_pos_compute_key(&pos));
    CU_ASSERT_EQUAL(rul_pos_set_hand(&pos, RUL_SENTE, RUL_KING, 1), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_set_hand(&pos, RUL_SENTE, RUL_PAWN, 19), RUL_ERANGE);
    CU_ASSERT_EQUAL(rul_pos_hand(&pos, RUL_SENTE, RUL_KING), 0);
}

int tests_register_repetition(void) {
    CU_pSuite s = CU_add_suite("rules_repetition", NULL, NULL);

    if (s == NULL || CU_add_test(s, "records of repetition_cases.tsv", test_records) == NULL ||
        CU_add_test(s, "repetition 8 plies apart over different detours", test_spread_repetition) == NULL ||
        CU_add_test(s, "rul_game_play/undo contract, 4096 plies", test_game_contract) == NULL ||
        CU_add_test(s, "check flags of the game record", test_game_check_flags) == NULL ||
        CU_add_test(s, "rul_game_judge: mate, sennichite, none", test_game_judge) == NULL ||
        CU_add_test(s, "rul_pos_set_hand keeps the key", test_set_hand) == NULL)
        return -1;
    return 0;
}
