/* test_movegen.c - perft and move-generation invariants of rules/ (FESA 3, 1.2; perft tables). */
#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/rules.h"
#include "tests/rules/rules_test_util.h"
#include "tests/tests.h"

#define PERFT_LIMIT 30000000ULL /* TSV rows at or above this many nodes belong to `make bench` */
#define MAX_SFENS 512

/* ---------------------------------------------------------------- embedded perft values
 * Well-known numbers, so that the suite means something without ../shared/data. Sources: YaneuraOu
 * Position::UnitTest (start position, matsuri), python-shogi perft_test.py (the 593-move position,
 * single king), lishogi issue #320 and shogiops gentest-21 (pawn-drop mate). */
typedef struct {
    const char *label;
    const char *sfen;
    int depth;
    uint64_t nodes;
} perft_case_t;

static const perft_case_t embedded[] = {
    {"startpos d1", RUL_SFEN_STARTPOS, 1, 30},
    {"startpos d2", RUL_SFEN_STARTPOS, 2, 900},
    {"startpos d3", RUL_SFEN_STARTPOS, 3, 25470},
    {"startpos d4", RUL_SFEN_STARTPOS, 4, 719731},
    {"593-move position d1", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 1, 593},
    {"matsuri d1", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1", 1, 207},
    {"matsuri d2", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1", 2, 28684},
    {"no legal move", "+R+N+SGKG+S+N+R/+B+N+SG+LG+S+N+B/P+LPP+LPP+LP/1P2P2P1/9/9/9/9/4k4 b 9P 200", 1, 0},
    {"single king d1", "4k4/9/9/9/9/9/9/9/9 b 16P 1", 1, 72},
    {"single king d2", "4k4/9/9/9/9/9/9/9/9 b 16P 1", 2, 355},
    {"pawn-drop mate, no sente king", "8k/9/7+R1/9/9/9/9/9/9 b P 1", 1, 90},
    {"pawn-drop mate, two kings", "8k/9/7+R1/9/9/9/9/9/K8 b P 1", 1, 92},
    {"pawn-drop mate by the corner", "7lk/9/8S/9/9/9/9/7L1/8K b P 1", 1, 85},
    {"pawn-drop mate by the corner d2", "7lk/9/8S/9/9/9/9/7L1/8K b P 1", 2, 639},
    {"check by dropping a pawn", "kn7/9/1G7/9/9/9/9/9/9 b P 1", 1, 76},
};

static void test_perft_embedded(void) {
    size_t i;
    rul_pos_t pos, before;

    for (i = 0; i < sizeof embedded / sizeof embedded[0]; i++) {
        const perft_case_t *c = &embedded[i];
        uint64_t got;

        if (!rt_pos_or_fail(&pos, c->sfen, c->label))
            continue;
        before = pos;
        got = rul_perft(&pos, c->depth);
        TESTS_CHECK(got == c->nodes, "%s: perft(%d) of %s: expected %" PRIu64 ", got %" PRIu64, c->label,
                    c->depth, c->sfen, c->nodes, got);
        TESTS_CHECK(rul_pos_same(&pos, &before) && pos.key == before.key && pos.ply == before.ply,
                    "%s: rul_perft did not restore the position", c->label);
    }
}

static void test_perft_depth_range(void) {
    rul_pos_t pos;

    CU_ASSERT_EQUAL_FATAL(rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL), RUL_OK);
    CU_ASSERT_EQUAL(rul_perft(&pos, 0), 0);
    CU_ASSERT_EQUAL(rul_perft(&pos, -1), 0);
    CU_ASSERT_EQUAL(rul_perft(&pos, RUL_PERFT_MAX_DEPTH + 1), 0);
    CU_ASSERT_EQUAL(rul_perft(&pos, 99), 0);
    CU_ASSERT_EQUAL(rul_perft(&pos, 1), 30);
}

/* ---------------------------------------------------------------- the perft table */

/* Reads perft_cases.tsv into *text; returns 0, or -1 when ../shared/data is absent (skip). */
static int load_perft_tsv(char **text) {
    char path[4096];

    *text = NULL;
    if (tests_shared_path(path, sizeof path, "fixtures/perft/perft_cases.tsv") != 0)
        return -1;
    *text = rt_read_file(path);
    TESTS_CHECK(*text != NULL, "cannot read %s", path);
    return *text != NULL ? 0 : -1;
}

/* The expected count of a row: the published value (column 4), else the independent recomputation
 * (column 5) for the rows whose source gives none. Returns 0 if neither is a number. */
static int row_expected(char **f, int n, uint64_t *nodes) {
    const char *v = (n > 3 && f[3][0] != '\0') ? f[3] : (n > 4 ? f[4] : "");
    char *end;

    if (v[0] < '0' || v[0] > '9')
        return 0;
    *nodes = strtoull(v, &end, 10);
    return *end == '\0';
}

static void test_perft_tsv(void) {
    char *text, *cursor, *f[8];
    int n, line = 0, rows = 0, skipped = 0, fails = 0;
    uint64_t total = 0;
    clock_t t0 = clock();

    if (load_perft_tsv(&text) != 0) {
        tests_skip_shared("perft_cases.tsv");
        return;
    }
    cursor = text;
    while ((n = rt_next_tsv_row(&cursor, f, 8)) >= 0) {
        rul_pos_t pos;
        uint64_t want = 0, got;
        int depth;
        char label[160];

        line++;
        if (n < 4)
            continue;
        depth = atoi(f[2]);
        if (!TESTS_CHECK(row_expected(f, n, &want), "perft_cases.tsv line %d: no expected count", line))
            continue;
        if (want >= PERFT_LIMIT) {
            skipped++;
            continue;
        }
        snprintf(label, sizeof label, "perft_cases.tsv line %d (%.60s)", line, f[0]);
        if (!rt_pos_or_fail(&pos, f[1], label))
            continue;
        rows++;
        got = rul_perft(&pos, depth);
        total += got;
        if (!TESTS_CHECK(got == want, "%s: perft(%d) of %s: expected %" PRIu64 ", got %" PRIu64, label, depth,
                         f[1], want, got)) {
            fails++;
            printf("\n    MISMATCH %s\n      sfen %s depth %d expected %" PRIu64 " got %" PRIu64, label, f[1],
                   depth, want, got);
        }
        /* Both columns, where both are given, must agree (a check of the table, not of the engine). */
        if (n > 4 && f[3][0] != '\0' && f[4][0] != '\0')
            TESTS_CHECK(strcmp(f[3], f[4]) == 0, "perft_cases.tsv line %d: sources disagree (%s vs %s)", line,
                        f[3], f[4]);
    }
    TESTS_CHECK(rows >= 350, "perft_cases.tsv: only %d rows under %llu nodes", rows,
                (unsigned long long)PERFT_LIMIT);
    printf("\n    perft_cases.tsv: %d rows, %" PRIu64
           " nodes, %d failed, %d over %llu nodes left to bench, %.1f s\n",
           rows, total, fails, skipped, (unsigned long long)PERFT_LIMIT,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    free(text);
}

/* ---------------------------------------------------------------- random playouts */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Failure counters of the invariants, with the first few failures printed in full. */
typedef struct {
    long positions, moves, probes;
    long count_mismatch, duplicate, not_legal, why_mismatch, sanity;
    long key_after_do, undo_restore, probe_mismatch, sfen_round_trip, check_mismatch, mate_mismatch;
    long playback;
    int printed;
} stats_t;

static void report(stats_t *st, long *counter, const rul_pos_t *pos, const char *what, rul_move_t m) {
    char sfen[256], usi[6];

    (*counter)++;
    if (st->printed >= 12)
        return;
    st->printed++;
    if (rul_pos_to_sfen(pos, sfen, sizeof sfen) != RUL_OK)
        strcpy(sfen, "(unprintable)");
    rul_move_to_usi(m, usi);
    printf("\n    INVARIANT %s: sfen %s move %.6s (0x%x)", what, sfen, usi, (unsigned)m);
}

/* Plain checks of a generated move that do not depend on the engine's own notion of legality. */
static int move_sane(const rul_pos_t *pos, rul_move_t m) {
    int to = RUL_MOVE_TO(m);
    rul_piece_t at = rul_pos_piece_at(pos, to);

    if (m >> 16 || to < 0 || to >= RUL_SQ_NB)
        return 0;
    if (RUL_MOVE_IS_DROP(m)) {
        rul_type_t t = RUL_MOVE_DROP_TYPE(m);
        return !RUL_MOVE_IS_PROMO(m) && t >= RUL_PAWN && t <= RUL_GOLD &&
               rul_pos_hand(pos, (rul_color_t)pos->side, (rul_type_t)t) > 0 && at == RUL_PIECE_NONE;
    } else {
        int from = RUL_MOVE_FROM(m);
        rul_piece_t pc = rul_pos_piece_at(pos, from);
        if (from >= RUL_SQ_NB || pc == RUL_PIECE_NONE || RUL_PIECE_COLOR(pc) != pos->side)
            return 0;
        if (at != RUL_PIECE_NONE && (RUL_PIECE_COLOR(at) == pos->side || RUL_PIECE_TYPE(at) == RUL_KING))
            return 0;
        if (RUL_MOVE_IS_PROMO(m)) {
            rul_type_t t = RUL_PIECE_TYPE(pc);
            int rf = RUL_SQ_RANK(from), rt = RUL_SQ_RANK(to);
            int zone = pos->side == RUL_SENTE ? (rf <= 3 || rt <= 3) : (rf >= 7 || rt >= 7);
            if (t == RUL_GOLD || t == RUL_KING || t > RUL_KING || !zone)
                return 0;
        }
        return 1;
    }
}

/* A random candidate move: board or drop, promotion flag at random, or raw 32-bit noise. */
static rul_move_t random_probe(rng_t *r) {
    uint64_t x = rng_next(r);
    int to = (int)(x % 81), from = (int)((x >> 8) % 81);

    switch ((x >> 20) % 4) {
    case 0: return RUL_MOVE_MAKE(from, to, 0);
    case 1: return RUL_MOVE_MAKE(from, to, 1);
    case 2: return RUL_MOVE_DROP((int)((x >> 30) % 9), to); /* types 0..8: 0 and 8 (king) are never legal */
    default: return (rul_move_t)(x >> 32);
    }
}

static void check_position(stats_t *st, rul_pos_t *pos, rng_t *r) {
    rul_movelist_t list;
    rul_pos_t copy;
    rul_undo_t undo;
    char sfen[256];
    int i, j, count, ksq;

    st->positions++;
    rul_gen_legal(pos, &list);
    count = rul_count_legal(pos);
    if (count != list.count)
        report(st, &st->count_mismatch, pos, "rul_count_legal != rul_gen_legal count", RUL_MOVE_NONE);
    if (rul_pos_no_legal_move(pos) != (list.count == 0))
        report(st, &st->mate_mismatch, pos, "rul_pos_no_legal_move", RUL_MOVE_NONE);
    if (rul_pos_is_mate(pos) != (list.count == 0 && rul_pos_in_check(pos)))
        report(st, &st->mate_mismatch, pos, "rul_pos_is_mate", RUL_MOVE_NONE);
    ksq = rul_pos_king_sq(pos, (rul_color_t)pos->side);
    if (ksq != RUL_SQ_NONE &&
        rul_pos_in_check(pos) != rul_pos_attacked(pos, ksq, (rul_color_t)(pos->side ^ 1)))
        report(st, &st->check_mismatch, pos, "rul_pos_in_check != rul_pos_attacked(king)", RUL_MOVE_NONE);
    /* SFEN out and back in gives the same position and key */
    if (rul_pos_to_sfen(pos, sfen, sizeof sfen) != RUL_OK || rul_pos_from_sfen(&copy, sfen, NULL) != RUL_OK ||
        !rul_pos_same(&copy, pos) || copy.key != pos->key)
        report(st, &st->sfen_round_trip, pos, "SFEN round trip", RUL_MOVE_NONE);

    for (i = 0; i < list.count; i++) {
        rul_move_t m = list.moves[i];
        st->moves++;
        for (j = 0; j < i; j++)
            if (list.moves[j] == m) {
                report(st, &st->duplicate, pos, "duplicate move in rul_gen_legal", m);
                break;
            }
        if (!move_sane(pos, m))
            report(st, &st->sanity, pos, "generated move fails a plain sanity check", m);
        copy = *pos;
        rul_pos_do_move(pos, m, &undo);
        if (pos->key != rul_pos_compute_key(pos))
            report(st, &st->key_after_do, &copy, "key after do_move != rul_pos_compute_key", m);
        if (pos->side == copy.side || pos->ply != copy.ply + 1 || undo.move != m || undo.key != copy.key)
            report(st, &st->key_after_do, &copy, "side/ply/undo record after do_move", m);
        rul_pos_undo_move(pos, &undo);
        if (!rul_pos_same(pos, &copy) || pos->key != copy.key || pos->ply != copy.ply ||
            memcmp(pos->hand, copy.hand, sizeof pos->hand) != 0 ||
            memcmp(pos->king_mb, copy.king_mb, sizeof pos->king_mb) != 0)
            report(st, &st->undo_restore, &copy, "undo_move did not restore the position", m);
        *pos = copy;
    }
    /* rul_is_legal / rul_why_illegal on a sample of the generated moves (they cost a generation each) */
    for (i = 0; i < 8 && list.count > 0; i++) {
        rul_move_t m = list.moves[rng_next(r) % (uint64_t)list.count];
        st->probes++;
        if (!rul_is_legal(pos, m))
            report(st, &st->not_legal, pos, "generated move not rul_is_legal", m);
        if (rul_why_illegal(pos, m) != RUL_WHY_LEGAL)
            report(st, &st->why_mismatch, pos, "generated move has a rul_why_illegal reason", m);
    }
    for (i = 0; i < 8; i++) {
        rul_move_t m = random_probe(r);
        int legal = rul_is_legal(pos, m);
        st->probes++;
        if (legal != rt_list_has(&list, m))
            report(st, &st->probe_mismatch, pos, "rul_is_legal disagrees with rul_gen_legal", m);
        if ((rul_why_illegal(pos, m) == RUL_WHY_LEGAL) != legal)
            report(st, &st->why_mismatch, pos, "rul_why_illegal disagrees with rul_is_legal", m);
    }
}

/* From pos, plays up to plies random legal moves checking every invariant on the way, then takes them
 * all back and checks the start comes back. */
static void playout(stats_t *st, const rul_pos_t *start, int plies, rng_t *r) {
    rul_undo_t undo[64];
    rul_movelist_t list;
    rul_pos_t pos = *start;
    int n = 0;

    while (n < plies && n < 64) {
        check_position(st, &pos, r);
        rul_gen_legal(&pos, &list);
        if (list.count == 0)
            break;
        rul_pos_do_move(&pos, list.moves[rng_next(r) % (uint64_t)list.count], &undo[n]);
        n++;
    }
    if (n == plies)
        check_position(st, &pos, r);
    while (n > 0)
        rul_pos_undo_move(&pos, &undo[--n]);
    if (!rul_pos_same(&pos, start) || pos.key != start->key || pos.ply != start->ply)
        report(st, &st->playback, start, "undoing a whole playout did not give the start back",
               RUL_MOVE_NONE);
}

static void test_playouts(void) {
    static const char *const fallback[] = {
        RUL_SFEN_STARTPOS,
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
        "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
        "lr7/3skgg1+B/2n2s1pp/p1p1ppP2/3p1np2/1PPPP4/PS1G1P2P/2GS3R1/LNK4NL w L2pb 58",
        "lnsg1g1nl/3k3r1/pppp1s1pp/b3p1p2/2PP1p2B/P3P3P/1P3PPP1/1S3K1R1/LN1G1GSNL w - 1",
        "7lk/9/8S/9/9/9/9/7L1/8K b P 1",
        "8k/9/7+R1/9/9/9/9/9/K8 b P 1",
    };
    const char *sfens[MAX_SFENS];
    char *text = NULL, *cursor, *f[8];
    int nsfens = 0, n, i, k, per, total_playouts = 0;
    stats_t st;
    rng_t r = {0x6b69667563616d31ULL}; /* fixed seed: "kifucam1" */
    clock_t t0 = clock();

    memset(&st, 0, sizeof st);
    for (i = 0; i < (int)(sizeof fallback / sizeof fallback[0]); i++)
        sfens[nsfens++] = fallback[i];
    if (load_perft_tsv(&text) == 0) {
        cursor = text;
        while ((n = rt_next_tsv_row(&cursor, f, 8)) >= 0) {
            if (n < 4 || nsfens >= MAX_SFENS)
                continue;
            for (k = 0; k < nsfens; k++)
                if (strcmp(sfens[k], f[1]) == 0)
                    break;
            if (k == nsfens)
                sfens[nsfens++] = f[1];
        }
    } else {
        tests_skip_shared("playouts from perft_cases.tsv positions; embedded positions only");
    }
    /* a few thousand playouts in all */
    per = nsfens >= 300 ? 10 : 3000 / nsfens;
    for (i = 0; i < nsfens; i++) {
        rul_pos_t start;
        char label[48];
        snprintf(label, sizeof label, "playout start %d", i);
        if (!rt_pos_or_fail(&start, sfens[i], label))
            continue;
        for (k = 0; k < per; k++, total_playouts++)
            playout(&st, &start, 16, &r);
    }
    printf("\n    %d playouts from %d positions: %ld positions, %ld moves, %ld probes, %.1f s\n",
           total_playouts, nsfens, st.positions, st.moves, st.probes,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    TESTS_CHECK(total_playouts >= 2000 && st.positions >= 20000, "too few playouts: %d (%ld positions)",
                total_playouts, st.positions);
    TESTS_CHECK(st.count_mismatch == 0, "rul_count_legal != rul_gen_legal count in %ld positions",
                st.count_mismatch);
    TESTS_CHECK(st.duplicate == 0, "%ld duplicate generated moves", st.duplicate);
    TESTS_CHECK(st.sanity == 0, "%ld generated moves fail a plain sanity check", st.sanity);
    TESTS_CHECK(st.not_legal == 0, "%ld generated moves are not rul_is_legal", st.not_legal);
    TESTS_CHECK(st.why_mismatch == 0, "%ld rul_why_illegal answers disagree", st.why_mismatch);
    TESTS_CHECK(st.key_after_do == 0, "%ld do_moves leave a wrong key, side, ply or undo record",
                st.key_after_do);
    TESTS_CHECK(st.undo_restore == 0, "%ld undo_moves do not restore the position exactly", st.undo_restore);
    TESTS_CHECK(st.probe_mismatch == 0, "%ld random moves: rul_is_legal disagrees with rul_gen_legal",
                st.probe_mismatch);
    TESTS_CHECK(st.sfen_round_trip == 0, "%ld positions fail the SFEN round trip", st.sfen_round_trip);
    TESTS_CHECK(st.check_mismatch == 0, "%ld positions: in_check disagrees with attacked(king)",
                st.check_mismatch);
    TESTS_CHECK(st.mate_mismatch == 0, "%ld positions: is_mate / no_legal_move disagree with the move list",
                st.mate_mismatch);
    TESTS_CHECK(st.playback == 0, "%ld playouts did not undo back to their start", st.playback);
    free(text);
}

/* ---------------------------------------------------------------- named positions */

static void expect_count(const char *label, const char *sfen, int want) {
    rul_pos_t pos;
    rul_movelist_t list;

    if (!rt_pos_or_fail(&pos, sfen, label))
        return;
    rul_gen_legal(&pos, &list);
    TESTS_CHECK(list.count == want, "%s: %d legal moves, want %d (%s)", label, list.count, want, sfen);
    TESTS_CHECK(rul_count_legal(&pos) == want, "%s: rul_count_legal %d, want %d", label,
                rul_count_legal(&pos), want);
}

static int has_usi(const rul_pos_t *pos, const char *usi) {
    rul_movelist_t list;
    rul_move_t m;

    if (rul_move_from_usi(usi, &m, NULL) != RUL_OK)
        return -1;
    rul_gen_legal(pos, &list);
    return rt_list_has(&list, m);
}

/* Non-promotions of P, B, R, L are generated wherever legal (the convention of every published perft). */
static void test_unpromotions(void) {
    rul_pos_t pos;

    /* sente pawn on 3d, bishop on 8h with the diagonal to 2b open, rook 2h with 2c open, lance 1e */
    if (!rt_pos_or_fail(&pos, "4k4/9/9/6P2/8L/9/9/1B5R1/4K4 b - 1", "unpromotions"))
        return;
    CU_ASSERT_EQUAL(has_usi(&pos, "3d3c"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "3d3c+"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "8h3c"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "8h3c+"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "8h4d"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "8h4d+"), 0); /* 4d is outside the zone */
    CU_ASSERT_EQUAL(has_usi(&pos, "2h2a"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "2h2a+"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "1e1b"), 1); /* lance to rank 2: optional */
    CU_ASSERT_EQUAL(has_usi(&pos, "1e1b+"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "1e1a"), 0); /* lance to rank 1: must promote (FESA 3.2) */
    CU_ASSERT_EQUAL(has_usi(&pos, "1e1a+"), 1);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(1, 5), RUL_SQ(1, 1), 0)),
                    RUL_WHY_NO_FURTHER_MOVE);
    /* knights must promote on the last two ranks; gote mirrors it (gote knight 6g jumps to 5i / 7i) */
    if (!rt_pos_or_fail(&pos, "4k4/9/9/5N3/9/9/3n5/9/8K b - 1", "knight promotion"))
        return;
    CU_ASSERT_EQUAL(has_usi(&pos, "4d5b"), 0);
    CU_ASSERT_EQUAL(has_usi(&pos, "4d5b+"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "4d3b"), 0);
    CU_ASSERT_EQUAL(has_usi(&pos, "4d3b+"), 1);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(4, 4), RUL_SQ(3, 2), 0)),
                    RUL_WHY_NO_FURTHER_MOVE);
    pos.side = RUL_GOTE;
    rul_pos_rehash(&pos);
    CU_ASSERT_EQUAL(pos.key, rul_pos_compute_key(&pos));
    CU_ASSERT_EQUAL(has_usi(&pos, "6g5i"), 0);
    CU_ASSERT_EQUAL(has_usi(&pos, "6g5i+"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "6g7i"), 0);
    CU_ASSERT_EQUAL(has_usi(&pos, "6g7i+"), 1);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(6, 7), RUL_SQ(7, 9), 0)),
                    RUL_WHY_NO_FURTHER_MOVE);
    /* a gote pawn reaching rank 9 must promote; on rank 7 it may stay a pawn */
    if (!rt_pos_or_fail(&pos, "4k4/9/9/9/9/2p6/6p2/9/K8 w - 1", "gote pawn promotion"))
        return;
    CU_ASSERT_EQUAL(has_usi(&pos, "7f7g"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "7f7g+"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "3g3h"), 1);
    CU_ASSERT_EQUAL(has_usi(&pos, "3g3h+"), 1);
}

static void test_named_counts(void) {
    expect_count("startpos", RUL_SFEN_STARTPOS, 30);
    expect_count("593-move position", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 593);
    expect_count("empty board, sente king only", "9/9/9/9/9/9/9/9/4K4 b - 1", 5);
    expect_count("king in the corner", "9/9/9/9/9/9/9/9/8K b - 1", 3);
    /* drops: a rook in hand on an empty board with two kings: 79 squares */
    expect_count("rook drop everywhere", "4k4/9/9/9/9/9/9/9/4K4 b R 1", 79 + 5);
    /* a pawn goes on ranks 2-9 of every file (3.11b), except 5i where the king stands: 71 drops, P*5b
     * gives a check that is not mate; plus 5 king moves */
    expect_count("pawn drop", "4k4/9/9/9/9/9/9/9/4K4 b P 1", 8 * 9 - 1 + 5);
}

static void test_why_illegal_names(void) {
    CU_ASSERT_STRING_EQUAL(rul_why_name(RUL_WHY_LEGAL), "legal");
    CU_ASSERT_STRING_EQUAL(rul_why_name(RUL_WHY_NIFU), "nifu");
    CU_ASSERT_STRING_EQUAL(rul_why_name(RUL_WHY_PAWN_DROP_MATE), "pawn_drop_mate");
    CU_ASSERT_STRING_EQUAL(rul_why_name(RUL_WHY_LEAVES_KING_IN_CHECK), "leaves_king_in_check");
    CU_ASSERT_STRING_EQUAL(rul_why_name(RUL_WHY_NO_FURTHER_MOVE), "no_further_move");
    CU_ASSERT_STRING_EQUAL(rul_why_name(RUL_WHY_NOT_A_LEGAL_MOVE), "not_a_legal_move");
}

static void test_why_illegal(void) {
    rul_pos_t pos;

    /* gote lance 5b pins the sente silver 5e against the sente king 5i; a sente pawn stands on 6g */
    if (!rt_pos_or_fail(&pos, "k8/4l4/9/9/4S4/9/3P5/9/4K4 b P 1", "why_illegal"))
        return;
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(6, 5))), RUL_WHY_NIFU);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(7, 5))), RUL_WHY_LEGAL);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(7, 1))), RUL_WHY_NO_FURTHER_MOVE);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 5), RUL_SQ(4, 4), 0)),
                    RUL_WHY_LEAVES_KING_IN_CHECK); /* the pinned silver steps aside */
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 5), RUL_SQ(5, 4), 0)), RUL_WHY_LEGAL);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 5), RUL_SQ(5, 1), 0)),
                    RUL_WHY_NOT_A_LEGAL_MOVE); /* not a silver's move */
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(2, 2), RUL_SQ(2, 3), 0)),
                    RUL_WHY_NOT_A_LEGAL_MOVE); /* no piece there */
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_DROP(RUL_GOLD, RUL_SQ(2, 3))), RUL_WHY_NOT_A_LEGAL_MOVE);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 9), RUL_SQ(4, 8), 0)), RUL_WHY_LEGAL);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_NONE), RUL_WHY_NOT_A_LEGAL_MOVE);
    CU_ASSERT_EQUAL(rul_is_legal(&pos, 0xFFFFFFFFu), 0);
    CU_ASSERT_EQUAL(rul_is_legal(&pos, RUL_MOVE_DROP(RUL_KING, RUL_SQ(2, 3))), 0);
    /* gote king 5d in check from the sente pawn 5e: stepping aside or taking it are legal */
    if (!rt_pos_or_fail(&pos, "9/9/9/4k4/4P4/9/9/9/4K4 w - 1", "evading a pawn check"))
        return;
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 4), RUL_SQ(4, 4), 0)), RUL_WHY_LEGAL);
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 4), RUL_SQ(5, 5), 0)), RUL_WHY_LEGAL);
    /* gote king 5c may not step onto 5d, which the sente pawn 5e attacks (FESA 1.2) */
    if (!rt_pos_or_fail(&pos, "9/9/4k4/9/4P4/9/9/9/4K4 w - 1", "king into pawn check"))
        return;
    CU_ASSERT_EQUAL(rul_why_illegal(&pos, RUL_MOVE_MAKE(RUL_SQ(5, 3), RUL_SQ(5, 4), 0)),
                    RUL_WHY_LEAVES_KING_IN_CHECK);
}

/* rul_is_legal judges one move on its own (no generation): it must agree with rul_gen_legal on EVERY
 * conceivable move (81 x 80 x 2 board moves, 7 x 81 drops) of positions along fixed-seed playouts
 * from the start and from two crowded middle games with pieces in hand. */
static int in_list(const rul_movelist_t *l, rul_move_t m) {
    for (int i = 0; i < l->count; i++)
        if (l->moves[i] == m)
            return 1;
    return 0;
}

/* 1 if rul_is_legal(m) disagrees with list l (the legal moves of p); the first five are reported. */
static int judge_one(const rul_pos_t *p, const rul_movelist_t *l, rul_move_t m, long bad_so_far) {
    int legal = rul_is_legal(p, m), listed = in_list(l, m);
    if (legal == listed)
        return 0;
    if (bad_so_far < 5) {
        char sf[128], u[6];
        rul_pos_to_sfen(p, sf, sizeof sf);
        rul_move_to_usi(m, u);
        TESTS_CHECK(0, "is_legal(%s) = %d but generation says %d in %s", u, legal, listed, sf);
    }
    return 1;
}

static void test_is_legal_exhaustive(void) {
    static const char *const STARTS[] = {
        RUL_SFEN_STARTPOS,
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1",
        "lr7/3skgg1+B/2n2s1pp/p1p1ppP2/3p1np2/1PPPP4/PS1G1P2P/2GS3R1/LNK4NL w L2pb 58",
    };
    unsigned seed = 12345;
    long checked = 0, bad = 0;
    for (size_t k = 0; k < sizeof STARTS / sizeof *STARTS; k++) {
        rul_pos_t p;
        CU_ASSERT_FATAL(rul_pos_from_sfen(&p, STARTS[k], NULL) == RUL_OK);
        for (int ply = 0; ply < 60; ply++) {
            rul_movelist_t l;
            rul_gen_legal(&p, &l);
            for (int f = 0; f < RUL_SQ_NB; f++)
                for (int t = 0; t < RUL_SQ_NB; t++)
                    for (int pr = 0; pr < 2 && f != t; pr++) {
                        checked++;
                        bad += judge_one(&p, &l, RUL_MOVE_MAKE(f, t, pr), bad);
                    }
            for (int ty = 1; ty <= RUL_HAND_NB; ty++)
                for (int t = 0; t < RUL_SQ_NB; t++) {
                    checked++;
                    bad += judge_one(&p, &l, RUL_MOVE_DROP(ty, t), bad);
                }
            if (l.count == 0)
                break;
            seed = seed * 1103515245u + 12345u;
            rul_undo_t u;
            rul_pos_do_move(&p, l.moves[(seed >> 8) % (unsigned)l.count], &u);
        }
    }
    TESTS_CHECK(bad == 0, "%ld of %ld moves judged differently", bad, checked);
    TESTS_CHECK(checked > 2000000, "only %ld moves checked", checked);
}

int tests_register_movegen(void) {
    CU_pSuite s = CU_add_suite("rules_movegen", NULL, NULL);

    if (s == NULL || CU_add_test(s, "perft: embedded well-known values", test_perft_embedded) == NULL ||
        CU_add_test(s, "perft: depth out of range", test_perft_depth_range) == NULL ||
        CU_add_test(s, "perft: perft_cases.tsv rows under 30M nodes", test_perft_tsv) == NULL ||
        CU_add_test(s, "named positions: legal move counts", test_named_counts) == NULL ||
        CU_add_test(s, "non-promotions and forced promotions", test_unpromotions) == NULL ||
        CU_add_test(s, "rul_why_name", test_why_illegal_names) == NULL ||
        CU_add_test(s, "rul_why_illegal reasons", test_why_illegal) == NULL ||
        CU_add_test(s, "random playouts: gen/count/is_legal/do/undo/key", test_playouts) == NULL ||
        CU_add_test(s, "rul_is_legal agrees with generation on every move", test_is_legal_exhaustive) == NULL)
        return -1;
    return 0;
}
