/* test_kifu.c - recorder/kifu_*.c: record model, KIF/KI2/CSA/JKF/USI/Western readers and writers, the
 * rules_cases.tsv kifu cases (R06, R14-R21), bad input, the whole shared corpus (replay and round trip
 * through every format) and the parser fixtures with expected results. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/kifu/kifu.h"
#include "recorder/kifu/replay.h"
#include "rules/rules.h"
#include "tests/recorder/kifu/kifu_test_util.h"
#include "tests/tests.h"

/* ---------------------------------------------------------------- helpers */
static rec_kifu_t *read_text(const char *label, const char *text, rec_format_t fmt) {
    rec_kifu_t *k = NULL;
    rec_kifu_error_t e;
    int rc = rec_kifu_read(text, strlen(text), fmt, &k, &e);
    TESTS_CHECK(rc == REC_KIFU_OK, "%s: read failed rc=%d at %d:%d: %s", label, rc, e.line, e.column, e.msg);
    return rc == REC_KIFU_OK ? k : NULL;
}

static void usi_of(const rec_kifu_t *k, int line, int i, char *buf) {
    rul_move_to_usi(k->lines[line].moves[i].move, buf);
}

static int read_shared(const char *rel, rec_kifu_t **k, rec_kifu_error_t *e) {
    char path[4096];
    if (tests_shared_path(path, sizeof path, rel) != 0)
        return -1;
    return rec_kifu_read_file(path, REC_FMT_UNKNOWN, k, e);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* 1 if both records have the same set of lines (as move sequences from the root). */
static int same_lines(const rec_kifu_t *a, const rec_kifu_t *b, char *why, size_t wsize) {
    if (a->nlines != b->nlines) {
        snprintf(why, wsize, "%d lines vs %d", a->nlines, b->nlines);
        return 0;
    }
    char **sa = malloc(sizeof(char *) * (size_t)a->nlines), **sb = malloc(sizeof(char *) * (size_t)b->nlines);
    for (int i = 0; i < a->nlines; i++)
        sa[i] = kifu_test_line_sig(a, i), sb[i] = kifu_test_line_sig(b, i);
    qsort(sa, (size_t)a->nlines, sizeof(char *), cmp_str);
    qsort(sb, (size_t)b->nlines, sizeof(char *), cmp_str);
    int ok = 1;
    for (int i = 0; i < a->nlines && ok; i++)
        if (strcmp(sa[i], sb[i])) {
            snprintf(why, wsize, "line differs: %.60s... vs %.60s...", sa[i], sb[i]);
            ok = 0;
        }
    for (int i = 0; i < a->nlines; i++)
        free(sa[i]), free(sb[i]);
    free(sa);
    free(sb);
    return ok;
}

static const char *canon_key(const char *k) {
    if (!strcmp(k, "下手"))
        return "先手";
    if (!strcmp(k, "上手"))
        return "後手";
    return k;
}

/* Compares the original record a with b, read back from format f. Returns 1 if equal. */
static int same_record(const rec_kifu_t *a, const rec_kifu_t *b, rec_format_t f, char *why, size_t wsize) {
    const rec_kifu_line_t *A = &a->lines[0], *B = &b->lines[0];
    if (strcmp(a->start_sfen, b->start_sfen)) {
        snprintf(why, wsize, "start %.100s vs %.100s", a->start_sfen, b->start_sfen);
        return 0;
    }
    if (A->nmoves != B->nmoves) {
        snprintf(why, wsize, "%d moves vs %d", A->nmoves, B->nmoves);
        return 0;
    }
    for (int i = 0; i < A->nmoves; i++) {
        if (A->moves[i].move != B->moves[i].move) {
            snprintf(why, wsize, "move %d differs", i + 1);
            return 0;
        }
        const rec_kifu_move_t *x = &A->moves[i], *y = &B->moves[i];
        if (f == REC_FMT_KIF || f == REC_FMT_JKF || f == REC_FMT_CSA) {
            int64_t tx = x->time_ms == REC_TIME_NONE ? -1 : x->time_ms / 1000;
            int64_t ty = y->time_ms == REC_TIME_NONE ? -1 : y->time_ms / 1000;
            if (f == REC_FMT_JKF && tx == -1)
                ty = -1; /* JKF: no time written */
            if (tx != ty) {
                snprintf(why, wsize, "move %d: time %lld vs %lld", i + 1, (long long)tx, (long long)ty);
                return 0;
            }
        }
        if (f == REC_FMT_KIF && x->total_ms != REC_TIME_NONE && x->total_ms / 1000 != y->total_ms / 1000) {
            snprintf(why, wsize, "move %d: total %lld vs %lld", i + 1, (long long)x->total_ms,
                     (long long)y->total_ms);
            return 0;
        }
        if (f == REC_FMT_KIF || f == REC_FMT_KI2 || f == REC_FMT_JKF || f == REC_FMT_CSA) {
            const char *cx = x->comment ? x->comment : "", *cy = y->comment ? y->comment : "";
            if (strcmp(cx, cy)) {
                snprintf(why, wsize, "move %d: comment '%.40s' vs '%.40s'", i + 1, cx, cy);
                return 0;
            }
        }
    }
    if (f != REC_FMT_USI && f != REC_FMT_WESTERN) {
        for (int i = 0; i < a->nheaders; i++) {
            const char *key = a->headers[i].key;
            if (f == REC_FMT_CSA && (!strcmp(key, "手合割") || strchr(a->headers[i].value, '\n')))
                continue;
            const char *v = rec_kifu_header_get(b, f == REC_FMT_CSA ? canon_key(key) : key);
            if (!v || strcmp(v, a->headers[i].value)) {
                if (!strcmp(key, "手合割") && a->handicap >= 0)
                    continue; /* normalised value */
                snprintf(why, wsize, "header %s: '%s' vs '%s'", key, a->headers[i].value, v ? v : "(none)");
                return 0;
            }
        }
    }
    if (f == REC_FMT_USI) { /* a USI line carries kifucam's 'resign', 'win' and 'timeout' tokens, no other */
        rec_end_t want = a->result.end == REC_END_RESIGN || a->result.end == REC_END_KACHI ||
                                 a->result.end == REC_END_TIME_UP
                             ? a->result.end
                             : REC_END_NONE;
        if (b->result.end != want || (want != REC_END_NONE && (b->result.winner != a->result.winner ||
                                                               b->result.ply != a->result.ply))) {
            snprintf(why, wsize, "usi: end %s (winner %d, ply %d) vs %s (winner %d, ply %d)",
                     rec_kifu_end_name(want), a->result.winner, a->result.ply,
                     rec_kifu_end_name(b->result.end), b->result.winner, b->result.ply);
            return 0;
        }
    }
    if (f != REC_FMT_USI && a->result.end != b->result.end &&
        !(f == REC_FMT_CSA &&
          (a->result.end == REC_END_DEFAULT_WIN || a->result.end == REC_END_DEFAULT_LOSS))) {
        snprintf(why, wsize, "end %s vs %s", rec_kifu_end_name(a->result.end),
                 rec_kifu_end_name(b->result.end));
        return 0;
    }
    if ((f == REC_FMT_KIF || f == REC_FMT_KI2 || f == REC_FMT_JKF) && !same_lines(a, b, why, wsize))
        return 0;
    return 1;
}

/* Writes k in f and reads it back (format detected from the content). */
static int round_trip(const char *label, const rec_kifu_t *k, rec_format_t f) {
    char *text = NULL, why[256] = "";
    size_t len;
    rec_kifu_error_t e;
    int rc = rec_kifu_write(k, f, &text, &len, &e);
    if (rc) {
        TESTS_CHECK(0, "%s -> %s: write failed: %s", label, rec_kifu_format_name(f), e.msg);
        return 0;
    }
    rec_format_t d = rec_kifu_detect(text, len);
    if (f == REC_FMT_KI2 && d == REC_FMT_KIF && k->lines[0].nmoves == 0)
        d = f; /* no moves: the same text */
    TESTS_CHECK(d == f, "%s -> %s: detected as %s", label, rec_kifu_format_name(f),
                rec_kifu_format_name(rec_kifu_detect(text, len)));
    rec_kifu_t *b = NULL;
    rc = rec_kifu_read(text, len, f, &b, &e);
    int ok = rc == REC_KIFU_OK && same_record(k, b, f, why, sizeof why);
    if (rc)
        snprintf(why, sizeof why, "read back failed at %d:%d: %s", e.line, e.column, e.msg);
    TESTS_CHECK(ok, "%s -> %s -> back: %s", label, rec_kifu_format_name(f), why);
    rec_kifu_free(b);
    free(text);
    return ok;
}

/* ---------------------------------------------------------------- owned fixtures */
static const char kif_basic[] = "#KIF version=2.0 encoding=UTF-8\r\n"
                                "開始日時：2021/10/16 09:00\r\n"
                                "棋戦：テスト棋戦\r\n"
                                "持ち時間：10分\r\n"
                                "手合割：平手\r\n"
                                "先手：先手さん\r\n"
                                "後手：後手さん\r\n"
                                "独自の項目：何でも\r\n"
                                "手数----指手---------消費時間--\r\n"
                                "*開始局面のコメント\r\n"
                                "   1 ７六歩(77)   ( 1:00/00:01:00)\r\n"
                                "*初手のコメント\r\n"
                                "&しおり\r\n"
                                "   2 ３四歩(33)   ( 0:02/00:00:02)\r\n"
                                "   3 ２二角成(88)   ( 0:03/00:01:03)\r\n"
                                "   4 同　銀(31)   ( 0:04/00:00:06)\r\n"
                                "   5 ３三角打(00)   ( 0:05/00:01:08)\r\n"
                                "   6 ４二飛(82)   ( 0:06/00:00:12)\r\n"
                                "   7 投了   ( 0:07/00:01:15)\r\n"
                                "まで6手で後手の勝ち\r\n";

static void test_kif_basic(void) {
    rec_kifu_t *k = read_text("kif_basic", kif_basic, REC_FMT_UNKNOWN);
    if (!k)
        return;
    TESTS_CHECK(k->format == REC_FMT_KIF, "format %s", rec_kifu_format_name(k->format));
    TESTS_CHECK(k->lines[0].nmoves == 6, "6 moves, got %d", k->lines[0].nmoves);
    char u[8];
    usi_of(k, 0, 0, u);
    /* R06: minutes field of 1 or more */
    TESTS_CHECK(!strcmp(u, "7g7f") && k->lines[0].moves[0].time_ms == 60000 &&
                    k->lines[0].moves[0].total_ms == 60000,
                "R06: move 1 %s time %lld total %lld", u, (long long)k->lines[0].moves[0].time_ms,
                (long long)k->lines[0].moves[0].total_ms);
    usi_of(k, 0, 4, u);
    /* R16: a drop written with a (00) origin; the next move keeps its number */
    TESTS_CHECK(!strcmp(u, "B*3c"), "R16: move 5 is %s, want B*3c", u);
    usi_of(k, 0, 5, u);
    TESTS_CHECK(!strcmp(u, "8b4b"), "R16: move 6 is %s, want 8b4b", u);
    TESTS_CHECK(k->nwarnings == 0, "no warnings, got %d (%s)", k->nwarnings,
                k->nwarnings ? k->warnings[0].msg : "");
    TESTS_CHECK(k->result.end == REC_END_RESIGN && k->result.ply == 7 && k->result.winner == RUL_GOTE,
                "result %s ply %d winner %d", rec_kifu_end_name(k->result.end), k->result.ply,
                k->result.winner);
    TESTS_CHECK(k->comment && !strcmp(k->comment, "開始局面のコメント"), "start comment '%s'",
                k->comment ? k->comment : "");
    TESTS_CHECK(k->lines[0].moves[0].comment && !strcmp(k->lines[0].moves[0].comment, "初手のコメント"),
                "move 1 comment");
    TESTS_CHECK(k->lines[0].moves[0].bookmark && !strcmp(k->lines[0].moves[0].bookmark, "しおり"),
                "bookmark");
    const char *v = rec_kifu_header_get(k, "独自の項目");
    TESTS_CHECK(v && !strcmp(v, "何でも"), "unknown header kept");
    TESTS_CHECK(k->nheaders == 7, "7 headers, got %d", k->nheaders);
    /* R17: dates without seconds */
    rec_kifu_datetime_t dt;
    int rc = rec_kifu_parse_datetime(rec_kifu_header_get(k, "開始日時"), &dt);
    TESTS_CHECK(rc == 0 && dt.year == 2021 && dt.month == 10 && dt.day == 16 && dt.hour == 9 &&
                    dt.minute == 0 && dt.second == -1,
                "R17: %d-%d-%d %d:%d:%d", dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second);
    TESTS_CHECK(rec_kifu_parse_datetime("2008/12/20(土)", &dt) == 0 && dt.day == 20 && dt.hour == -1,
                "date with weekday");
    TESTS_CHECK(rec_kifu_parse_datetime("2021/13/01", &dt) != 0, "bad month rejected");
    for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++)
        round_trip("kif_basic", k, (rec_format_t)f);
    rec_kifu_free(k);
}

/* R18: spacing after 同 */
static void test_kif_same(void) {
    static const char *const forms[3] = {"同歩(23)", "同　歩(23)", "同 歩(23)"};
    rul_move_t got[3] = {0};
    for (int i = 0; i < 3; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "手数----指手---------消費時間--\n1 ２六歩(27)\n2 ８四歩(83)\n3 ２五歩(26)\n4 ８五歩(84)\n"
                 "5 ２四歩(25)\n6 %s\n",
                 forms[i]);
        rec_kifu_t *k = read_text(forms[i], text, REC_FMT_KIF);
        if (!k)
            continue;
        TESTS_CHECK(k->lines[0].nmoves == 6, "R18 %s: 6 moves", forms[i]);
        if (k->lines[0].nmoves == 6)
            got[i] = k->lines[0].moves[5].move;
        rec_kifu_free(k);
    }
    char u[8];
    rul_move_to_usi(got[0], u);
    TESTS_CHECK(!strcmp(u, "2c2d") && got[1] == got[0] && got[2] == got[0], "R18: %s and the others differ",
                u);
}

/* R19: a variation at a two-digit ply */
static const char kif_fork[] =
    "手合割：平手\n手数----指手---------消費時間--\n"
    "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n   4 ８四歩(83)\n   5 ２五歩(26)\n"
    "   6 ８五歩(84)\n   7 ７八金(69)\n   8 ３二金(41)\n   9 ２四歩(25)\n  10 同　歩(23)\n"
    "  11 同　飛(28)\n  12 ２三歩打\n  13 中断\n\n"
    "変化：10手\n  10 ８六歩(85)\n  11 同　歩(87)\n  12 同　飛(82)\n"
    "変化：11手\n  11 ２二角成(88)\n\n"
    "変化：10手\n  10 ５二玉(51)\n";

static void test_kif_fork(void) {
    rec_kifu_t *k = read_text("kif_fork", kif_fork, REC_FMT_KIF);
    if (!k)
        return;
    TESTS_CHECK(k->nlines == 4, "4 lines, got %d", k->nlines);
    if (k->nlines == 4) {
        const rec_kifu_line_t *v = &k->lines[1];
        char u[8];
        rul_move_to_usi(v->moves[0].move, u);
        TESTS_CHECK(v->parent == 0 && v->start_ply == 10 && v->nmoves == 3 && !strcmp(u, "8e8f"),
                    "R19: variation 1 parent %d start %d moves %d first %s", v->parent, v->start_ply,
                    v->nmoves, u);
        TESTS_CHECK(k->lines[2].parent == 1 && k->lines[2].start_ply == 11,
                    "nested variation: parent %d start %d", k->lines[2].parent, k->lines[2].start_ply);
        TESTS_CHECK(k->lines[3].parent == 0 && k->lines[3].start_ply == 10,
                    "sibling variation: parent %d start %d", k->lines[3].parent, k->lines[3].start_ply);
        rul_pos_t p;
        TESTS_CHECK(rec_kifu_position_at(k, 2, 12, &p) == 0, "position in the nested variation");
    }
    TESTS_CHECK(k->result.end == REC_END_ABORT, "中断 read");
    round_trip("kif_fork", k, REC_FMT_KIF);
    round_trip("kif_fork", k, REC_FMT_KI2);
    round_trip("kif_fork", k, REC_FMT_JKF);
    round_trip("kif_fork", k, REC_FMT_CSA);
    rec_kifu_free(k);
}

/* R20: tolerant reading of real-world KIF (Shift_JIS bytes built below) */
static const char kif_tsume[] = "手合割：詰将棋\n"
                                "後手の持駒：飛二角二金四銀四桂二香三歩十八\n"
                                "  ９ ８ ７ ６ ５ ４ ３ ２ １\n"
                                "+---------------------------+\n"
                                "| ・ ・ ・ ・ ・ ・ ・v桂v香|一\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・v玉|二\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|三\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|四\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|五\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|六\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|七\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|八\n"
                                "| ・ ・ ・ ・ ・ ・ ・ ・ ・|九\n"
                                "+---------------------------+\n"
                                "先手の持駒：   \n"
                                "手数----指手---------消費時間--   \n"
                                "1 ２三桂打   (0:4/0:0:4)  \n"
                                "2 同　玉(12)   (0:1/0:0:1)";

static void test_kif_tolerant(void) {
    /* the same with a knight in sente's hand, no separators */
    char text[2048];
    snprintf(text, sizeof text, "%s", kif_tsume);
    char *h = strstr(text, "先手の持駒：   ");
    memcpy(h, "先手の持駒：桂", strlen("先手の持駒：桂"));
    rec_kifu_t *k = read_text("R20", text, REC_FMT_UNKNOWN);
    if (!k)
        return;
    TESTS_CHECK(k->handicap == -1, "R20: a board position, not a handicap");
    TESTS_CHECK(k->lines[0].nmoves == 2, "R20: 2 moves, got %d", k->lines[0].nmoves);
    if (k->lines[0].nmoves == 2) {
        TESTS_CHECK(k->lines[0].moves[0].time_ms == 4000 && k->lines[0].moves[0].total_ms == 4000,
                    "R20: (0:4/0:0:4)");
        char u[8];
        usi_of(k, 0, 1, u);
        TESTS_CHECK(!strcmp(u, "1b2c"), "R20: move 2 %s", u);
    }
    TESTS_CHECK(!strcmp(k->start_sfen, "7nl/8k/9/9/9/9/9/9/9 b N2r2b4g4s2n3l18p 1"), "R20: start %s",
                k->start_sfen);
    const char *v = rec_kifu_header_get(k, "手合割");
    TESTS_CHECK(v && !strcmp(v, "詰将棋"), "unknown 手合割 kept");
    round_trip("R20", k, REC_FMT_KIF);
    round_trip("R20", k, REC_FMT_CSA);
    round_trip("R20", k, REC_FMT_JKF);
    round_trip("R20", k, REC_FMT_USI);
    rec_kifu_free(k);
    /* with 先手の持駒 left empty the diagram reads, and the drop of a piece sente lacks is one error */
    rec_kifu_error_t e;
    k = NULL;
    int rc = rec_kifu_read(kif_tsume, strlen(kif_tsume), REC_FMT_UNKNOWN, &k, &e);
    TESTS_CHECK(rc == REC_KIFU_EMOVE && e.line == 17 && e.column == 3, "R20 empty hand: rc %d at %d:%d %s",
                rc, e.line, e.column, e.msg);
    rec_kifu_free(k);
}

static void test_shift_jis(void) {
    /* "先手：羽生" in Shift_JIS, CRLF, no final newline */
    static const char sj[] =
        "\x90\xe6\x8e\xe8\x81\x46\x89\x48\x90\xb6\r\n"
        "\x8e\xe8\x90\x94----\x8e\x77\x8e\xe8---------\x8f\xc1\x94\xef\x8e\x9e\x8a\xd4--\r\n"
        "   1 \x82\x56\x98\x5a\x95\xe0(77)";
    rec_kifu_t *k = read_text("shift_jis", sj, REC_FMT_UNKNOWN);
    if (!k)
        return;
    const char *v = rec_kifu_header_get(k, "先手");
    TESTS_CHECK(v && !strcmp(v, "羽生"), "Shift_JIS header decoded: '%s'", v ? v : "");
    TESTS_CHECK(k->lines[0].nmoves == 1, "one move");
    rec_kifu_free(k);
    /* UTF-8 with BOM */
    k = read_text("bom", "\xEF\xBB\xBF手数----指手--\n1 ７六歩(77)\n", REC_FMT_UNKNOWN);
    TESTS_CHECK(k && k->lines[0].nmoves == 1, "BOM");
    rec_kifu_free(k);
}

static const char ki2_text[] = "先手：A\n後手：B\n\n"
                               "▲７六歩    △３四歩    ▲６六歩    △８四歩    ▲７八銀    △８五歩\n"
                               "▲７七角    △６二銀    ▲６八飛    △４二玉    ▲４八玉    △３二玉\n"
                               "▲３八銀    △５二金左  ▲５八金左  △１四歩\n"
                               "まで16手で中断\n";

static void test_ki2(void) {
    rec_kifu_t *k = read_text("ki2", ki2_text, REC_FMT_UNKNOWN);
    if (!k)
        return;
    TESTS_CHECK(k->format == REC_FMT_KI2 && k->lines[0].nmoves == 16, "ki2: %s %d moves",
                rec_kifu_format_name(k->format), k->lines[0].nmoves);
    char u[8];
    if (k->lines[0].nmoves == 16) {
        usi_of(k, 0, 13, u);
        TESTS_CHECK(!strcmp(u, "4a5b"), "△５二金左 is 4a5b (gote's left), got %s", u);
        usi_of(k, 0, 14, u);
        TESTS_CHECK(!strcmp(u, "6i5h"), "５八金左 is 6i5h, got %s", u);
    }
    TESTS_CHECK(k->result.end == REC_END_ABORT, "ki2 trailer 中断");
    for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++)
        round_trip("ki2", k, (rec_format_t)f);
    rec_kifu_free(k);
}

/* JSA relative notation, written and read back */
static void test_ki2_relative(void) {
    static const struct {
        const char *sfen, *usi, *want;
    } c[] = {
        {"4k4/9/9/9/9/9/9/9/3GKG3 b - 1", "6i5h", "５八金左"},
        {"4k4/9/9/9/9/9/9/9/3GKG3 b - 1", "4i5h", "５八金右"},
        {"4k4/9/9/9/9/9/9/9/3GGG2K b - 1", "5i5h", "５八金直"},
        {"4k4/9/9/9/9/9/9/4G4/3G4K b - 1", "6i5i", "５九金寄"},
        {"4k4/9/9/9/9/9/9/5G3/4G3K b - 1", "4h5h", "５八金寄"},
        {"4k4/9/9/9/9/9/9/5G3/4G3K b - 1", "5i5h", "５八金上"},
        {"4k4/9/9/9/9/9/9/9/3G1G2K b G 1", "G*5h", "５八金打"},
        {"4k4/9/9/9/9/9/9/9/K2S1S3 b - 1", "4i5h", "５八銀右"},
        {"8k/9/9/9/9/9/9/9/+R3+R3K b - 1", "9i7i", "７九龍左"},
        {"8k/9/9/9/9/9/9/9/+R3+R3K b - 1", "5i7i", "７九龍右"},
        {"k8/9/9/9/9/9/9/9/4+B+B2K b - 1", "4i1f", "１六馬右"}, /* only 4i reaches */
        {"3gkg3/9/9/9/9/9/9/9/4K4 w - 1", "6a5b", "５二金右"},  /* gote: its right is file 9 */
        {"3gkg3/9/9/9/9/9/9/9/4K4 w - 1", "4a5b", "５二金左"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        rul_pos_t p;
        rul_move_t m;
        rul_error_t e;
        char buf[64];
        if (rul_pos_from_sfen(&p, c[i].sfen, &e) || rul_move_from_usi(c[i].usi, &m, &e)) {
            TESTS_CHECK(0, "case %zu: bad input", i);
            continue;
        }
        if (!rul_is_legal(&p, m)) {
            TESTS_CHECK(0, "case %zu: %s not legal in %s", i, c[i].usi, c[i].sfen);
            continue;
        }
        rec_kifu_move_to_ki2(&p, m, -1, buf, sizeof buf);
        if (!strcmp(c[i].want, "１六馬右")) {
            TESTS_CHECK(!strcmp(buf, "１六馬"), "case %zu: %s gives %s, want １六馬 (one horse reaches)", i,
                        c[i].usi, buf);
            continue;
        }
        TESTS_CHECK(!strcmp(buf, c[i].want), "case %zu: %s gives %s, want %s", i, c[i].usi, buf, c[i].want);
        /* read back */
        char text[512];
        snprintf(text, sizeof text, "手合割：平手\n");
        rec_kifu_t *k = rec_kifu_new();
        rec_kifu_set_start(k, c[i].sfen);
        rec_kifu_add_move(k, 0, m, REC_TIME_NONE);
        round_trip(c[i].want, k, REC_FMT_KI2);
        rec_kifu_free(k);
    }
}

static void test_western(void) {
    rul_pos_t p;
    rul_pos_from_sfen(&p, RUL_SFEN_STARTPOS, NULL);
    char buf[32];
    rec_kifu_move_to_western(&p, RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0), buf, sizeof buf);
    TESTS_CHECK(!strcmp(buf, "P-7f"), "P-7f, got %s", buf);
    rul_pos_from_sfen(&p, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3", NULL);
    rec_kifu_move_to_western(&p, RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 1), buf, sizeof buf);
    TESTS_CHECK(!strcmp(buf, "Bx2b+"), "Bx2b+, got %s", buf);
    rec_kifu_move_to_western(&p, RUL_MOVE_MAKE(RUL_SQ(8, 8), RUL_SQ(2, 2), 0), buf, sizeof buf);
    TESTS_CHECK(!strcmp(buf, "Bx2b="), "Bx2b=, got %s", buf);
    rul_pos_from_sfen(&p, "4k4/9/9/9/9/9/9/9/3GKG3 b N 1", NULL);
    rec_kifu_move_to_western(&p, RUL_MOVE_DROP(RUL_KNIGHT, RUL_SQ(5, 5)), buf, sizeof buf);
    TESTS_CHECK(!strcmp(buf, "N*5e"), "N*5e, got %s", buf);
    rec_kifu_move_to_western(&p, RUL_MOVE_MAKE(RUL_SQ(6, 9), RUL_SQ(5, 8), 0), buf, sizeof buf);
    TESTS_CHECK(!strcmp(buf, "G6i-5h"), "G6i-5h, got %s", buf);
}

/* R14, R15: CSA hands in the position lines; R21 pawn-drop mate; lenient CSA */
static void test_csa_cases(void) {
    static const struct {
        const char *id, *file, *sfen;
    } c[] = {{"R14", "fixtures/cshogi/parse_position_issue38.csa",
              "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B7/LNSGKGSNL b Rr 1"},
             {"R15", "fixtures/cshogi/parse_position_issue43.csa",
              "2sgkgs2/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B7/1NSGKGSN1 b 2LR2l2nb 1"}};
    char probe[4096];
    if (tests_shared_path(probe, sizeof probe, "fixtures/cshogi") != 0) {
        tests_skip_shared("R14 R15 R21");
        return;
    }
    for (size_t i = 0; i < 2; i++) {
        rec_kifu_t *k = NULL;
        rec_kifu_error_t e;
        int rc = read_shared(c[i].file, &k, &e);
        rul_pos_t want, got;
        rul_pos_from_sfen(&want, c[i].sfen, NULL);
        int same = rc == 0 && rul_pos_from_sfen(&got, k->start_sfen, NULL) == 0 && rul_pos_same(&got, &want);
        TESTS_CHECK(same, "%s: rc %d start %s want %s", c[i].id, rc, k ? k->start_sfen : "", c[i].sfen);
        rec_kifu_free(k);
    }
    rec_kifu_t *k = NULL;
    rec_kifu_error_t e;
    int rc = read_shared("fixtures/shogi-server/csa/uchifuzume.csa", &k, &e);
    TESTS_CHECK(rc == 0, "R21: read: %s", e.msg);
    if (k) {
        rec_replay_record_t r;
        kifu_test_replay(k, &r);
        rul_pos_t p;
        rul_pos_from_sfen(&p, r.final_sfen, NULL);
        rul_move_t m = RUL_MOVE_DROP(RUL_PAWN, RUL_SQ(6, 4));
        TESTS_CHECK(r.illegal_ply == 0 && p.side == RUL_GOTE, "R21: replays to the end, gote to move");
        TESTS_CHECK(rul_why_illegal(&p, m) == RUL_WHY_PAWN_DROP_MATE, "R21: P*6d is %s, want pawn_drop_mate",
                    rul_why_name(rul_why_illegal(&p, m)));
        rec_kifu_free(k);
    }
    k = read_text(
        "csa inline",
        "'CSA encoding=UTF-8\nV3.0\nN+A\nN-B\n$EVENT:test\nPI\n+\n+7776FU,T1.5\n-3334FU,T2\n+8822UM\nT3\n"
        "-3122GI,T4,'* comment\n%TORYO,T5\n",
        REC_FMT_UNKNOWN);
    if (k) {
        TESTS_CHECK(k->lines[0].nmoves == 4 && k->lines[0].moves[0].time_ms == 1500 &&
                        k->lines[0].moves[2].time_ms == 3000 && k->lines[0].moves[2].total_ms == 4500,
                    "CSA times: %lld %lld", (long long)k->lines[0].moves[0].time_ms,
                    (long long)k->lines[0].moves[2].total_ms);
        TESTS_CHECK(RUL_MOVE_IS_PROMO(k->lines[0].moves[2].move), "+8822UM promotes");
        TESTS_CHECK(k->result.end == REC_END_RESIGN && k->result.winner == RUL_GOTE &&
                        k->lines[0].end_time_ms == 5000,
                    "%%TORYO by sente after 4 moves");
        const char *v = rec_kifu_header_get(k, "棋戦");
        TESTS_CHECK(v && !strcmp(v, "test"), "$EVENT -> 棋戦");
        for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++)
            round_trip("csa inline", k, (rec_format_t)f);
        rec_kifu_free(k);
    }
    /* %-ILLEGAL_ACTION: gote's illegal action, sente wins (CSA v3.0), whoever is to move */
    k = read_text("illegal action", "PI\n+\n+7776FU\n%-ILLEGAL_ACTION\n", REC_FMT_CSA);
    if (k) {
        TESTS_CHECK(k->result.winner == RUL_SENTE && k->result.end == REC_END_ILLEGAL_LOSS,
                    "-ILLEGAL_ACTION: winner %d", k->result.winner);
        round_trip("illegal action", k, REC_FMT_CSA);
        round_trip("illegal action", k, REC_FMT_KIF);
        rec_kifu_free(k);
    }
}

static void test_jkf_usi(void) {
    rec_kifu_t *k = read_text(
        "jkf",
        "{\"header\":{\"先手\":\"A\"},\"initial\":{\"preset\":\"KA\"},\"moves\":[{},"
        "{\"move\":{\"from\":{\"x\":5,\"y\":1},\"to\":{\"x\":4,\"y\":2},\"piece\":\"OU\",\"color\":1},"
        "\"time\":{\"now\":{\"m\":1,\"s\":2},\"total\":{\"h\":0,\"m\":1,\"s\":2}}},"
        "{\"special\":\"TORYO\"}]}",
        REC_FMT_UNKNOWN);
    if (k) {
        TESTS_CHECK(k->format == REC_FMT_JKF && k->handicap == RUL_HC_BISHOP && k->lines[0].nmoves == 1 &&
                        k->lines[0].moves[0].time_ms == 62000,
                    "jkf: handicap %d moves %d", k->handicap, k->lines[0].nmoves);
        TESTS_CHECK(k->result.end == REC_END_RESIGN && k->result.winner == RUL_GOTE, "jkf: sente resigns");
        for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++)
            round_trip("jkf", k, (rec_format_t)f);
        rec_kifu_free(k);
    }
    k = read_text("usi", "position startpos moves 7g7f 3c3d 8h2b+ 3a2b\n", REC_FMT_UNKNOWN);
    if (k) {
        TESTS_CHECK(k->format == REC_FMT_USI && k->lines[0].nmoves == 4, "usi: 4 moves");
        for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++)
            round_trip("usi", k, (rec_format_t)f);
        rec_kifu_free(k);
    }
}

static void read_bad(const char *label, const char *text, rec_format_t fmt, int want_rc, int want_line,
                     int want_col, const char *want_msg);

/* Writes k in f; the text (caller frees) or NULL with a failed check. */
static char *write_text_of(const char *label, const rec_kifu_t *k, rec_format_t f) {
    char *text = NULL;
    size_t len;
    rec_kifu_error_t e;
    int rc = rec_kifu_write(k, f, &text, &len, &e);
    TESTS_CHECK(rc == REC_KIFU_OK, "%s -> %s: write failed rc=%d: %s", label, rec_kifu_format_name(f), rc,
                e.msg);
    return rc == REC_KIFU_OK ? text : NULL;
}

/* A game taken up at move 30 (SFEN move number 30) keeps its numbering: USI/SFEN 30, KIF 手数＝29 and
 * moves from 30, KI2 手数＝29 and its trailer, Western from 30; read back from each (CSA and JKF have no
 * field for it: 1). It was lost: KIF numbered the first move 1, the USI line said 1. */
static void test_start_number(void) {
#define S30 "l2g3nl/1r1s1kg2/2n1ppsp1/p1pp2p1p/1p5P1/P1P2PP1P/1PSPPSN2/2GK3R1/LN3G2L w Bb 30"
    rec_kifu_t *k = read_text("start 30", "position sfen " S30 " moves 1a1b 1f1e resign\n", REC_FMT_USI);
    if (!k)
        return;
    TESTS_CHECK(!strcmp(k->start_sfen, S30) && rec_kifu_start_number(k) == 30, "start: %s (%d)",
                k->start_sfen, rec_kifu_start_number(k));
    static const char board[] = "後手の持駒：角　\n"
                                "  ９ ８ ７ ６ ５ ４ ３ ２ １\n"
                                "+---------------------------+\n"
                                "|v香 ・ ・v金 ・ ・ ・v桂v香|一\n"
                                "| ・v飛 ・v銀 ・v玉v金 ・ ・|二\n"
                                "| ・ ・v桂 ・v歩v歩v銀v歩 ・|三\n"
                                "|v歩 ・v歩v歩 ・ ・v歩 ・v歩|四\n"
                                "| ・v歩 ・ ・ ・ ・ ・ 歩 ・|五\n"
                                "| 歩 ・ 歩 ・ ・ 歩 歩 ・ 歩|六\n"
                                "| ・ 歩 銀 歩 歩 銀 桂 ・ ・|七\n"
                                "| ・ ・ 金 玉 ・ ・ ・ 飛 ・|八\n"
                                "| 香 桂 ・ ・ ・ 金 ・ ・ 香|九\n"
                                "+---------------------------+\n"
                                "先手の持駒：角　\n"
                                "手数＝29\n"
                                "後手番\n";
    char want[2048];
    snprintf(want, sizeof want,
             "#KIF version=2.0 encoding=UTF-8\n%s手数----指手---------消費時間--\n"
             "  30 １二香(11)\n  31 １五歩(16)\n  32 投了\nまで31手で先手の勝ち\n",
             board);
    char *t = write_text_of("start 30", k, REC_FMT_KIF);
    TESTS_CHECK(t && !strcmp(t, want), "KIF written:\n%s\nwant:\n%s", t ? t : "", want);
    free(t);
    snprintf(want, sizeof want, "%s△１二香　　　▲１五歩\nまで31手で先手の勝ち\n", board);
    t = write_text_of("start 30", k, REC_FMT_KI2);
    TESTS_CHECK(t && !strcmp(t, want), "KI2 written:\n%s\nwant:\n%s", t ? t : "", want);
    free(t);
    t = write_text_of("start 30", k, REC_FMT_USI);
    TESTS_CHECK(t && !strcmp(t, "position sfen " S30 " moves 1a1b 1f1e resign\n"), "USI written: %s",
                t ? t : "");
    free(t);
    t = write_text_of("start 30", k, REC_FMT_WESTERN);
    TESTS_CHECK(t && !strcmp(t, "[SFEN \"" S30 "\"]\n30. L-1b\n31. P-1e\n32. Gote resigns\n"),
                "Western written: %s", t ? t : "");
    free(t);
    /* read back: the number from KIF / KI2 (手数＝), USI and Western (SFEN); CSA and JKF count from 1 */
    for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++) {
        int keeps = f != REC_FMT_CSA && f != REC_FMT_JKF;
        if (keeps)
            round_trip("start 30", k, (rec_format_t)f); /* the same start SFEN, moves, ending */
        t = write_text_of("start 30", k, (rec_format_t)f);
        rec_kifu_t *b = t ? read_text("start 30 back", t, (rec_format_t)f) : NULL;
        TESTS_CHECK(b && rec_kifu_start_number(b) == (keeps ? 30 : 1) && b->lines[0].nmoves == 2,
                    "%s: read back with number %d (want %d)", rec_kifu_format_name((rec_format_t)f),
                    b ? rec_kifu_start_number(b) : -1, keeps ? 30 : 1);
        rec_kifu_free(b);
        free(t);
    }
    /* a variation: 変化 numbered as its moves */
    int nl = -1;
    rul_move_t m;
    rul_move_from_usi("2e2d", &m, NULL);
    if (rec_kifu_add_line(k, 0, 2, &nl) == REC_KIFU_OK)
        rec_kifu_add_move(k, nl, m, REC_TIME_NONE);
    t = write_text_of("start 30 variation", k, REC_FMT_KIF);
    TESTS_CHECK(t && strstr(t, "まで31手で先手の勝ち\n\n変化：31手\n  31 ２四歩(25)\n"), "KIF variation: %s",
                t ? t : "");
    free(t);
    t = write_text_of("start 30 variation", k, REC_FMT_KI2);
    TESTS_CHECK(t && strstr(t, "\n変化：31手\n▲２四歩\n"), "KI2 variation: %s", t ? t : "");
    free(t);
    round_trip("start 30 variation", k, REC_FMT_KIF);
    round_trip("start 30 variation", k, REC_FMT_KI2);
    rec_kifu_free(k);
    /* KIF read: a diagram caption 手数＝ in full-width digits; one before moves numbered from 1 is a caption
       only (a warning); a variation before the first move is an error */
    static const char kif30[] = "手合割：平手\n手数＝２９\n手数----指手--\n  30 ７六歩(77)\n  31 ３四歩(33)\n"
                                "\n変化：31手\n  31 ８四歩(83)\n";
    k = read_text("手数＝２９", kif30, REC_FMT_KIF);
    TESTS_CHECK(
        k && rec_kifu_start_number(k) == 30 && k->nlines == 2 && k->lines[1].start_ply == 2 &&
            k->nwarnings == 0 &&
            !strcmp(k->start_sfen, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 30"),
        "手数＝２９: %s, %d lines, %d warnings", k ? k->start_sfen : "", k ? k->nlines : 0,
        k ? k->nwarnings : 0);
    rec_kifu_free(k);
    k = read_text("caption", "手合割：平手\n手数＝29\n手数----指手--\n   1 ７六歩(77)\n   2 ３四歩(33)\n",
                  REC_FMT_KIF);
    TESTS_CHECK(k && rec_kifu_start_number(k) == 1 && k->lines[0].nmoves == 2 && k->nwarnings == 1 &&
                    strstr(k->warnings[0].msg, "手数＝29 before the moves, but they are numbered from 1"),
                "caption only: number %d, %d warnings (%s)", k ? rec_kifu_start_number(k) : -1,
                k ? k->nwarnings : 0, k && k->nwarnings ? k->warnings[0].msg : "");
    rec_kifu_free(k);
    read_bad("variation before 30",
             "手合割：平手\n手数＝29\n手数----指手--\n  30 ７六歩(77)\n\n変化：29手\n  29 ２六歩(27)\n",
             REC_FMT_KIF, REC_KIFU_EPARSE, 6, 1, "variation at move 29, before the first move (30)");
#undef S30
}

/* The moves of line 0 as USI text ("7g6f 3c3d"), into buf. */
static void main_usi(const rec_kifu_t *k, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < k->lines[0].nmoves && n + 8 < size; i++) {
        char u[8];
        usi_of(k, 0, i, u);
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", u);
    }
}

/* KI2 written from a record with an illegal move: written as it ends before it, with the winner and a
 * comment naming it; checks the text read back from KI2 against the replay of k. */
static void ki2_cut_check(const char *label, const rec_kifu_t *k, const rec_replay_record_t *r) {
    char *t = write_text_of(label, k, REC_FMT_KI2), msg[512];
    rec_kifu_t *b = t ? read_text(label, t, REC_FMT_KI2) : NULL;
    int same = b && b->lines[0].nmoves == r->illegal_ply - 1;
    rul_pos_t before; /* the illegal move's mover loses (FESA 9.4) */
    const int winner =
        rec_kifu_position_at(k, 0, r->illegal_ply, &before) == REC_KIFU_OK ? before.side ^ 1 : -2;
    for (int i = 0; same && i < b->lines[0].nmoves; i++)
        same = b->lines[0].moves[i].move == k->lines[0].moves[i].move;
    TESTS_CHECK(same && b->result.end == REC_END_ILLEGAL_LOSS && b->result.winner == winner,
                "%s -> ki2: %d moves (want the %d before the illegal one), end %s, winner %d (want %d)",
                label, b ? b->lines[0].nmoves : -1, r->illegal_ply - 1,
                b ? rec_kifu_end_name(b->result.end) : "", b ? b->result.winner : -2, winner);
    TESTS_CHECK(rec_kifu_write_cuts(k, REC_FMT_KI2, msg, sizeof msg) >= 1 && strstr(msg, r->illegal_usi),
                "%s: the cut is said: %s", label, msg);
    rec_kifu_free(b);
    free(t);
}

/* An illegal move is never written as another move (found by a fresh user: 7g6f became "▲６六歩左" in
 * KI2 and "P-6f" in Western, both read back as the legal 6g6f). Western writes its origin ("P7g-6f");
 * KI2, which cannot name an origin, ends the line before it with the mover's loss and a comment naming
 * it (rec_kifu_write_cuts says so: convert prints it); KIF, CSA, JKF and USI keep it as written. */
static void test_illegal_written(void) {
    rec_kifu_t *k = read_text("7g6f", "V2.2\nPI\n+\n+7766FU\n-3334FU\n+2726FU\n-8384FU\n", REC_FMT_CSA);
    if (!k)
        return;
    char msg[512], u[64];
    rul_pos_t p;
    rul_pos_from_sfen(&p, RUL_SFEN_STARTPOS, NULL);
    TESTS_CHECK(rec_kifu_move_to_ki2(&p, k->lines[0].moves[0].move, -1, msg, sizeof msg) == REC_KIFU_EMOVE,
                "move_to_ki2 refuses 7g6f (it wrote %s)", msg);
    rec_kifu_move_to_western(&p, k->lines[0].moves[0].move, msg, sizeof msg);
    TESTS_CHECK(!strcmp(msg, "P7g-6f"), "Western 7g6f: %s", msg);
    /* KI2: the exact text, what is said about it, and what it reads back as */
    static const char want_ki2[] = "手合割：平手\n"
                                   "*1手目の▲６六歩(77)は反則手（指せない手）\n"
                                   "*以降の3手は省略\n"
                                   "まで0手で先手の反則負け\n";
    char *t = write_text_of("7g6f", k, REC_FMT_KI2);
    TESTS_CHECK(t && !strcmp(t, want_ki2), "KI2 written:\n%s", t ? t : "");
    rec_kifu_t *b = t ? read_text("7g6f ki2", t, REC_FMT_KI2) : NULL;
    TESTS_CHECK(b && b->lines[0].nmoves == 0 && b->result.end == REC_END_ILLEGAL_LOSS &&
                    b->result.winner == RUL_GOTE && b->comment &&
                    !strcmp(b->comment, "1手目の▲６六歩(77)は反則手（指せない手）\n以降の3手は省略"),
                "KI2 read back: %d moves, %s, winner %d, comment %s", b ? b->lines[0].nmoves : -1,
                b ? rec_kifu_end_name(b->result.end) : "", b ? b->result.winner : -2,
                b && b->comment ? b->comment : "");
    rec_kifu_free(b);
    free(t);
    TESTS_CHECK(
        rec_kifu_write_cuts(k, REC_FMT_KI2, msg, sizeof msg) == 1 &&
            !strcmp(msg,
                    "move 1 ▲６六歩(77) (7g6f) is illegal (not_a_legal_move) and KI2 cannot state its "
                    "origin: the moves end before it with the mover's loss (まで0手で先手の反則負け) and a "
                    "comment naming it; 3 later moves left out (KIF, CSA, JKF, USI and Western keep them)"),
        "cuts: %s", msg);
    /* every other format: the move kept as written, replayed as the illegal move 1 */
    t = write_text_of("7g6f", k, REC_FMT_WESTERN);
    TESTS_CHECK(t && !strcmp(t, "1. P7g-6f\n2. P-3d\n3. P-2f\n4. P-8d\n"), "Western written:\n%s",
                t ? t : "");
    free(t);
    for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++) {
        if (f == REC_FMT_KI2)
            continue;
        TESTS_CHECK(rec_kifu_write_cuts(k, (rec_format_t)f, msg, sizeof msg) == 0 && !msg[0],
                    "%s: no cut said (%s)", rec_kifu_format_name((rec_format_t)f), msg);
        t = write_text_of("7g6f", k, (rec_format_t)f);
        b = t ? read_text("7g6f back", t, (rec_format_t)f) : NULL;
        rec_replay_record_t r;
        memset(&r, 0, sizeof r);
        if (b)
            main_usi(b, u, sizeof u), kifu_test_replay(b, &r);
        TESTS_CHECK(b && !strcmp(u, "7g6f 3c3d 2g2f 8c8d") && r.illegal_ply == 1 &&
                        !strcmp(r.illegal_usi, "7g6f"),
                    "%s: read back %s, illegal move %d %s", rec_kifu_format_name((rec_format_t)f), b ? u : "",
                    r.illegal_ply, r.illegal_usi);
        rec_kifu_free(b);
        free(t);
    }
    rec_kifu_free(k);
    /* a later illegal move (gote's 6th, its king left in check), a variation before it (kept) and one
       replacing it (left out): KI2 ends the main line after move 5, gote's loss */
    k = read_text("8b3b", "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*3c 8b3b 2g2f\n", REC_FMT_USI);
    if (!k)
        return;
    int nl;
    rul_move_t m;
    rul_move_from_usi("2g2f", &m, NULL);
    if (rec_kifu_add_line(k, 0, 3, &nl) == REC_KIFU_OK)
        rec_kifu_add_move(k, nl, m, REC_TIME_NONE);
    rul_move_from_usi("4a4b", &m, NULL);
    if (rec_kifu_add_line(k, 0, 6, &nl) == REC_KIFU_OK)
        rec_kifu_add_move(k, nl, m, REC_TIME_NONE);
    t = write_text_of("8b3b", k, REC_FMT_KI2);
    TESTS_CHECK(t && !strcmp(t, "手合割：平手\n"
                                "▲７六歩　　　△３四歩　　　▲２二角成　　△同　銀　　　▲３三角\n"
                                "*6手目の△３二飛(82)は反則手（王手放置）\n"
                                "*以降の1手は省略\n"
                                "まで5手で後手の反則負け\n"
                                "\n変化：3手\n▲２六歩\n"),
                "KI2 written:\n%s", t ? t : "");
    b = t ? read_text("8b3b ki2", t, REC_FMT_KI2) : NULL;
    if (b)
        main_usi(b, u, sizeof u);
    TESTS_CHECK(b && !strcmp(u, "7g7f 3c3d 8h2b+ 3a2b B*3c") && b->nlines == 2 &&
                    b->result.end == REC_END_ILLEGAL_LOSS && b->result.winner == RUL_SENTE,
                "KI2 read back: %s, %d lines, %s, winner %d", b ? u : "", b ? b->nlines : 0,
                b ? rec_kifu_end_name(b->result.end) : "", b ? b->result.winner : -2);
    rec_kifu_free(b);
    free(t);
    TESTS_CHECK(
        rec_kifu_write_cuts(k, REC_FMT_KI2, msg, sizeof msg) == 2 &&
            !strcmp(msg,
                    "move 6 △３二飛(82) (8b3b) is illegal (leaves_king_in_check) and KI2 cannot state its "
                    "origin: the moves end before it with the mover's loss (まで5手で後手の反則負け) and a "
                    "comment naming it; 1 later move left out (KIF, CSA, JKF, USI and Western keep them); "
                    "1 more line ended or left out the same way"),
        "cuts: %s", msg);
    round_trip("8b3b", k, REC_FMT_KIF); /* KIF keeps all of it */
    rec_kifu_free(k);
}

/* Builders as the recorder uses them */
static void test_builders(void) {
    rec_kifu_t *k = rec_kifu_new();
    TESTS_CHECK(k != NULL, "new");
    if (!k)
        return;
    rec_kifu_header_set(k, "先手", "camera");
    rec_kifu_header_set(k, "先手", "camera 2");
    TESTS_CHECK(k->nheaders == 1 && !strcmp(rec_kifu_header_get(k, "先手"), "camera 2"), "header replaced");
    rec_kifu_add_move(k, 0, RUL_MOVE_MAKE(RUL_SQ(7, 7), RUL_SQ(7, 6), 0), 3000);
    rec_kifu_add_move(k, 0, RUL_MOVE_MAKE(RUL_SQ(3, 3), RUL_SQ(3, 4), 0), 5000);
    rec_kifu_add_move(k, 0, RUL_MOVE_MAKE(RUL_SQ(2, 7), RUL_SQ(2, 6), 0), 4000);
    TESTS_CHECK(k->lines[0].moves[2].total_ms == 7000 && k->lines[0].moves[1].total_ms == 5000,
                "cumulative times");
    int l;
    TESTS_CHECK(rec_kifu_add_line(k, 0, 3, &l) == 0 && l == 1, "variation");
    rec_kifu_add_move(k, l, RUL_MOVE_MAKE(RUL_SQ(5, 7), RUL_SQ(5, 6), 0), 1000);
    TESTS_CHECK(k->lines[1].moves[0].total_ms == 4000, "cumulative in a variation: %lld",
                (long long)k->lines[1].moves[0].total_ms);
    TESTS_CHECK(rec_kifu_add_line(k, 0, 9, &l) == REC_KIFU_EARG, "variation past the end refused");
    rec_kifu_set_result(k, REC_END_RESIGN, NULL);
    TESTS_CHECK(k->result.winner == RUL_SENTE && k->result.ply == 4, "gote resigns at ply 4");
    for (int f = REC_FMT_KIF; f < REC_FMT_NB; f++)
        round_trip("builders", k, (rec_format_t)f);
    rec_replay_record_t r;
    kifu_test_replay(k, &r);
    TESTS_CHECK(r.plies == 3 && r.illegal_ply == 0 && r.claim_ok, "replay");
    rec_kifu_set_result(k, REC_END_SENNICHITE, NULL);
    kifu_test_replay(k, &r);
    TESTS_CHECK(!r.claim_ok, "a claimed sennichite with no repetition is reported");
    rec_kifu_free(k);
    rec_kifu_free(NULL);
}

/* Bad input: one error with line and column, never a crash */
static void test_bad_input(void) {
    static const struct {
        const char *label, *text;
        size_t len;
        rec_format_t fmt;
    } c[] = {
        {"binary", "\x00\x01\x02\xff\xfe", 5, REC_FMT_UNKNOWN},
        {"mis-encoded", "\x81\x20\x82\x20\xfd\xfe\n", 7, REC_FMT_KIF},
        {"truncated KIF move", "手数----指手--\n1 ７六", 0, REC_FMT_KIF},
        {"KIF bad square", "手数----指手--\n1 ０六歩(77)\n", 0, REC_FMT_KIF},
        {"KIF impossible move", "手数----指手--\n1 ５五歩(56)\n", 0, REC_FMT_KIF},
        {"KIF origin typo (not a time)", "手数----指手--\n1 ７六歩(7x)   ( 0:48/00:01:03)\n", 0, REC_FMT_KIF},
        {"KI2 no such piece", "▲５五角\n", 0, REC_FMT_KI2},
        {"KI2 ambiguous", "▲７六歩    △３四歩    ▲５八金\n", 0, REC_FMT_KI2},
        {"KIF bad diagram", "|v香v桂|一\n手数----指手--\n", 0, REC_FMT_KIF},
        {"KIF bad variation", "手数----指手--\n1 ７六歩(77)\n変化：5手\n5 ７六歩(77)\n", 0, REC_FMT_KIF},
        {"CSA truncated", "PI\n+\n+77", 0, REC_FMT_CSA},
        {"CSA bad cell", "P1-KY-KE-GI-KI-OU-KI-GI-KE+XX\n", 0, REC_FMT_CSA},
        {"CSA no piece", "PI\n+\n+5554FU\n", 0, REC_FMT_CSA},
        {"JKF truncated", "{\"header\":{}, \"moves\":[{}, {\"move\":", 0, REC_FMT_JKF},
        {"JKF bad square", "{\"moves\":[{},{\"move\":{\"to\":{\"x\":10,\"y\":1},\"piece\":\"FU\"}}]}", 0,
         REC_FMT_JKF},
        {"USI bad move", "position startpos moves 7g7f 9z9z\n", 0, REC_FMT_USI},
        {"USI bad sfen", "position sfen xyz b - 1\n", 0, REC_FMT_USI},
        {"Western bad", "1. Q-7f\n", 0, REC_FMT_WESTERN},
        {"unknown", "hello world\n", 0, REC_FMT_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        rec_kifu_t *k = (rec_kifu_t *)1;
        rec_kifu_error_t e;
        size_t len = c[i].len ? c[i].len : strlen(c[i].text);
        int rc = rec_kifu_read(c[i].text, len, c[i].fmt, &k, &e);
        TESTS_CHECK(rc != 0 && k == NULL && e.msg[0], "%s: rc %d, message '%s'", c[i].label, rc, e.msg);
        if (c[i].fmt != REC_FMT_JKF && c[i].fmt != REC_FMT_UNKNOWN)
            TESTS_CHECK(e.line > 0 && e.column > 0, "%s: line %d column %d", c[i].label, e.line, e.column);
        if (rc == 0)
            rec_kifu_free(k);
    }
    /* every prefix of a good record: no crash, an error or a record */
    size_t n = strlen(kif_fork);
    for (size_t i = 0; i < n; i++) {
        rec_kifu_t *k = NULL;
        rec_kifu_error_t e;
        if (rec_kifu_read(kif_fork, i, REC_FMT_UNKNOWN, &k, &e) == 0)
            rec_kifu_free(k);
    }
}

/* ---------------------------------------------------------------- the shared corpus */
static rec_end_t end_of_validation(const char *s) {
    static const struct {
        const char *n;
        rec_end_t e;
    } m[] = {{"resign", REC_END_RESIGN},
             {"mate", REC_END_MATE},
             {"repetitionDraw", REC_END_SENNICHITE},
             {"timeout", REC_END_TIME_UP},
             {"foulLose", REC_END_ILLEGAL_LOSS},
             {"foulWin", REC_END_ILLEGAL_WIN},
             {"enteringOfKing", REC_END_KACHI},
             {"impass", REC_END_JISHOGI},
             {"interrupt", REC_END_ABORT},
             {"-", REC_END_NONE}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!strcmp(s, m[i].n))
            return m[i].e;
    return REC_END_NB; /* "any": not checked */
}

static void test_corpus(void) {
    char path[4096];
    if (tests_shared_path(path, sizeof path, "kifu/kifu_validation.tsv") != 0) {
        tests_skip_shared("kifu corpus");
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        tests_skip_shared("kifu_validation.tsv");
        return;
    }
    char line[8192];
    int files = 0, clean = 0, illegal = 0, trips = 0, trips_ok = 0;
    while (fgets(line, sizeof line, f)) {
        char *field[16];
        int nf = 0;
        for (char *p = strtok(line, "\t\n"); p && nf < 16; p = strtok(NULL, "\t\n"))
            field[nf++] = p;
        if (nf < 2)
            continue;
        const char *file = field[0], *status = field[1], *final = NULL, *end = NULL;
        int plies = -1;
        for (int i = 2; i < nf; i++) {
            if (!strncmp(field[i], "plies=", 6))
                plies = atoi(field[i] + 6);
            if (!strncmp(field[i], "finalSFEN=", 10))
                final = field[i] + 10;
            if (!strncmp(field[i], "end=", 4))
                end = field[i] + 4;
        }
        char rel[1024];
        snprintf(rel, sizeof rel, "kifu/%s", file);
        rec_kifu_t *k = NULL;
        rec_kifu_error_t e;
        int rc = read_shared(rel, &k, &e);
        files++;
        if (!TESTS_CHECK(rc == 0, "%s: read failed at %d:%d: %s", file, e.line, e.column, e.msg))
            continue;
        rec_replay_record_t r;
        kifu_test_replay(k, &r);
        if (!strcmp(status, "ok")) {
            size_t fl = final ? strlen(final) : 0;
            while (fl && final[fl - 1] != ' ')
                fl--; /* the move number may differ */
            int ok = r.illegal_ply == 0 && r.plies == plies && final && !strncmp(r.final_sfen, final, fl);
            TESTS_CHECK(ok, "%s: plies %d/%d illegal %d final %s want %s", file, r.plies, plies,
                        r.illegal_ply, r.final_sfen, final ? final : "");
            rec_end_t want = end ? end_of_validation(end) : REC_END_NB;
            /* %+/-ILLEGAL_ACTION: CSA v3.0 names the loser ("-": gote's illegal action, sente wins); the
               validation's foulWin/foulLose for these files is the opposite reading, so check the winner */
            int action = want == REC_END_ILLEGAL_WIN || want == REC_END_ILLEGAL_LOSS;
            if (action && strstr(k->result.word, "ILLEGAL_ACTION")) {
                int w = k->result.word[1] == '-' ? RUL_SENTE : RUL_GOTE;
                TESTS_CHECK(k->result.winner == w, "%s: winner %d for %s", file, k->result.winner,
                            k->result.word);
            } else if (want != REC_END_NB &&
                       !(want == REC_END_NONE && k->result.end == REC_END_ILLEGAL_WIN)) {
                TESTS_CHECK(k->result.end == want, "%s: end %s, validation says %s", file,
                            rec_kifu_end_name(k->result.end), end);
            }
            if (ok)
                clean++;
        } else if (!strncmp(status, "ILLEGAL@", 8)) {
            char u[8] = "";
            int ply = atoi(status + 8);
            const char *mv = strchr(status, ':');
            int ok = r.illegal_ply == ply && mv && !strcmp(r.illegal_usi, mv + 1) &&
                     r.illegal_why == RUL_WHY_LEAVES_KING_IN_CHECK;
            (void)u;
            TESTS_CHECK(ok, "%s: illegal move at %d (%s, %s), want %s", file, r.illegal_ply, r.illegal_usi,
                        rul_why_name(r.illegal_why), status);
            if (ok)
                illegal++;
        } else {
            /* mog-core-scala/csa/game/002.csa: sloppy board rows, read with a warning */
            TESTS_CHECK(k->nwarnings > 0 && r.illegal_ply == 0 && r.plies == k->lines[0].nmoves,
                        "%s: %d warnings, %d plies", file, k->nwarnings, r.plies);
        }
        for (int fm = REC_FMT_KIF; fm < REC_FMT_NB; fm++) {
            if (r.illegal_ply && fm == REC_FMT_KI2) { /* an illegal move has no KI2 form: it ends before it */
                ki2_cut_check(file, k, &r);
                continue;
            }
            trips++;
            trips_ok += round_trip(file, k, (rec_format_t)fm);
        }
        rec_kifu_free(k);
    }
    fclose(f);
    printf("\n    kifu corpus: %d files, %d replay clean, %d illegal at the right ply, %d/%d round trips\n",
           files, clean, illegal, trips_ok, trips);
}

/* Parser fixtures with their expected JKF (shogi-kifu-converter: X.kif / X.ki2 / X.csa beside X.json). */
static void test_fixtures(void) {
    static const char *const pairs[][2] = {
        {"fixtures/shogi-kifu-converter/kif/example.kif", "fixtures/shogi-kifu-converter/kif/example.json"},
        {"fixtures/shogi-kifu-converter/kif/forks.kif", "fixtures/shogi-kifu-converter/kif/forks.json"},
        {"fixtures/shogi-kifu-converter/kif/Shogidokoro.kif",
         "fixtures/shogi-kifu-converter/kif/Shogidokoro.json"},
        {"fixtures/shogi-kifu-converter/kif/piyo-shogi_KY.kif",
         "fixtures/shogi-kifu-converter/kif/piyo-shogi_KY.json"},
        {"fixtures/shogi-kifu-converter/kif/everyday_20211107.kif",
         "fixtures/shogi-kifu-converter/kif/everyday_20211107.json"},
        {"fixtures/shogi-kifu-converter/kif/everyday_20220604.kif",
         "fixtures/shogi-kifu-converter/kif/everyday_20220604.json"},
        {"fixtures/shogi-kifu-converter/kif/oui202106290101.kif",
         "fixtures/shogi-kifu-converter/kif/oui202106290101.json"},
        {"fixtures/shogi-kifu-converter/kif/empty.kif", "fixtures/shogi-kifu-converter/kif/empty.json"},
        {"fixtures/shogi-kifu-converter/ki2/simple.ki2", "fixtures/shogi-kifu-converter/ki2/simple.json"},
        {"fixtures/shogi-kifu-converter/ki2/4.ki2", "fixtures/shogi-kifu-converter/ki2/4.json"},
        {"fixtures/shogi-kifu-converter/csa/v22.csa", "fixtures/shogi-kifu-converter/csa/v22.json"},
        {"fixtures/shogi-kifu-converter/csa/floodgate.csa",
         "fixtures/shogi-kifu-converter/csa/floodgate.json"},
        {"fixtures/shogi-kifu-converter/csa/tsumeshogi.csa",
         "fixtures/shogi-kifu-converter/csa/tsumeshogi.json"},
        {"fixtures/shogi-kifu-converter/csa/initial_hirate.csa",
         "fixtures/shogi-kifu-converter/csa/initial_hirate.json"},
        {"fixtures/shogi-kifu-converter/csa/initial_ky.csa",
         "fixtures/shogi-kifu-converter/csa/initial_ky.json"},
        {"fixtures/shogi-kifu-converter/csa/initial_ka.csa",
         "fixtures/shogi-kifu-converter/csa/initial_ka.json"},
        {"fixtures/shogi-kifu-converter/csa/initial_hi.csa",
         "fixtures/shogi-kifu-converter/csa/initial_hi.json"},
        {"fixtures/shogi-kifu-converter/csa/initial_2.csa",
         "fixtures/shogi-kifu-converter/csa/initial_2.json"},
        {"fixtures/shogi-kifu-converter/csa/initial_4.csa",
         "fixtures/shogi-kifu-converter/csa/initial_4.json"},
        {"fixtures/shogi-kifu-converter/csa/initial_6.csa",
         "fixtures/shogi-kifu-converter/csa/initial_6.json"},
        {"fixtures/shogi-kifu-converter/csa/WCSC32_F7_NBS_DLS.csa",
         "fixtures/shogi-kifu-converter/csa/WCSC32_F7_NBS_DLS.json"},
    };
    char probe[4096];
    if (tests_shared_path(probe, sizeof probe, "fixtures/shogi-kifu-converter") != 0) {
        tests_skip_shared("parser fixtures");
        return;
    }
    int n = 0, ok_n = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        rec_kifu_t *a = NULL, *b = NULL;
        rec_kifu_error_t e;
        int ra = read_shared(pairs[i][0], &a, &e);
        TESTS_CHECK(ra == 0, "%s: %d:%d %s", pairs[i][0], e.line, e.column, e.msg);
        int rb = read_shared(pairs[i][1], &b, &e);
        TESTS_CHECK(rb == 0, "%s: %d:%d %s", pairs[i][1], e.line, e.column, e.msg);
        if (ra == 0 && rb == 0) {
            char why[256] = "";
            /* shogi-kifu-converter keeps no ending from a KI2 trailer: compare endings it does give */
            int ok = !strcmp(a->start_sfen, b->start_sfen) && same_lines(a, b, why, sizeof why) &&
                     (a->result.end == b->result.end || b->result.end == REC_END_NONE);
            TESTS_CHECK(ok, "%s vs its expected JKF: %s (start %s / %s, end %s / %s)", pairs[i][0], why,
                        a->start_sfen, b->start_sfen, rec_kifu_end_name(a->result.end),
                        rec_kifu_end_name(b->result.end));
            n++;
            ok_n += ok;
        }
        rec_kifu_free(a);
        rec_kifu_free(b);
    }
    printf("\n    parser fixtures: %d/%d agree with their expected JKF\n", ok_n, n);
}

/* Every parser fixture of the other projects reads (or is refused with a located error), never a crash;
 * cshogi's two time cases behave as its tests assert. */
static void test_all_fixtures_read(void) {
    static const char *const dirs[] = {"fixtures/json-kifu-format", "fixtures/kifu-for-js",
                                       "fixtures/shogihome",        "fixtures/shogi-kifu-converter",
                                       "fixtures/cshogi",           "fixtures/shogi-server",
                                       "fixtures/tsshogi"};
    char root[4096], cmd[4300];
    if (tests_shared_path(root, sizeof root, "fixtures") != 0) {
        tests_skip_shared("fixture files");
        return;
    }
    int files = 0, read_ok = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[4096];
        tests_shared_path(dir, sizeof dir, dirs[d]);
        snprintf(
            cmd, sizeof cmd,
            "find '%s' -type f \\( -iname '*.kif' -o -iname '*.kifu' -o -iname '*.ki2' -o -iname '*.ki2u' "
            "-o -iname '*.csa' -o -iname '*.jkf' \\) 2>/dev/null | sort",
            dir);
        FILE *p = popen(cmd, "r");
        char path[4096];
        while (p && fgets(path, sizeof path, p)) {
            path[strcspn(path, "\n")] = 0;
            rec_kifu_t *k = NULL;
            rec_kifu_error_t e;
            int rc = rec_kifu_read_file(path, REC_FMT_UNKNOWN, &k, &e);
            files++;
            if (rc == 0) {
                rec_replay_record_t r;
                kifu_test_replay(k, &r);
                read_ok++;
            }
            TESTS_CHECK(rc == 0 || (e.line > 0 && e.msg[0]), "%s: refused without a location: %s", path,
                        e.msg);
            rec_kifu_free(k);
        }
        if (p)
            pclose(p);
    }
    printf("\n    fixture files: %d of %d read\n", read_ok, files);
    TESTS_CHECK(files > 150 && read_ok == files, "%d of %d fixture files read", read_ok, files);
    rec_kifu_t *k = NULL;
    rec_kifu_error_t e;
    if (read_shared("fixtures/cshogi/ignores_time_without_a_preceding_move.csa", &k, &e) == 0) {
        TESTS_CHECK(k->lines[0].nmoves == 0 && k->nwarnings == 1,
                    "cshogi: a T line without a move is ignored");
        rec_kifu_free(k);
    }
    if (read_shared("fixtures/cshogi/records_time_after_endgame.csa", &k, &e) == 0) {
        TESTS_CHECK(k->result.end == REC_END_RESIGN && k->lines[0].end_time_ms == 1000,
                    "cshogi: the time after %%TORYO is the terminal's (%lld ms)",
                    (long long)k->lines[0].end_time_ms);
        rec_kifu_free(k);
    }
}

/* ---------------------------------------------------------------- bad input that would lose or invent moves
 */

/* Reads text expecting an error: rc, line and a message part; returns the record read up to the error
 * (its warnings), which the caller frees. */
static rec_kifu_t *read_bad_keep(const char *label, const char *text, rec_format_t fmt, int want_rc,
                                 int want_line, int want_col, const char *want_msg) {
    rec_kifu_t *k = (rec_kifu_t *)1, *part = NULL;
    rec_kifu_error_t e;
    int rc = rec_kifu_read_keep(text, strlen(text), fmt, &k, &e, &part);
    TESTS_CHECK(rc == want_rc && k == NULL, "%s: rc %d (want %d)", label, rc, want_rc);
    TESTS_CHECK(e.line == want_line && (want_col == 0 || e.column == want_col),
                "%s: at %d:%d, want %d:%d (%s)", label, e.line, e.column, want_line, want_col, e.msg);
    TESTS_CHECK(strstr(e.msg, want_msg) != NULL, "%s: message '%s' lacks '%s'", label, e.msg, want_msg);
    if (rc == REC_KIFU_OK)
        rec_kifu_free(k);
    return part;
}

static void read_bad(const char *label, const char *text, rec_format_t fmt, int want_rc, int want_line,
                     int want_col, const char *want_msg) {
    rec_kifu_free(read_bad_keep(label, text, fmt, want_rc, want_line, want_col, want_msg));
}

/* "kifucam ARGS" run in dir, stdout and stderr together (tests/tests.h). */
static int run_kifucam(const char *dir, const char *args, char *out, size_t size) {
    return tests_run_kifucam(dir, args, 1, out, size);
}

static void write_text(const char *dir, const char *name, const char *text, size_t len) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
}

/* 1. A .kif file (Shift_JIS) declares encoding=Shift_JIS; a .kifu file UTF-8. Both read back. */
static void test_bad_kif_encoding_declared(void) {
    char dir[] = "/tmp/kifucam-kifenc-XXXXXX";
    if (!mkdtemp(dir))
        return;
    rec_kifu_t *k = read_text("kif_basic", kif_basic, REC_FMT_KIF);
    static const char *const ext[2] = {"kif", "kifu"};
    static const char *const want[2] = {"#KIF version=2.0 encoding=Shift_JIS\n",
                                        "#KIF version=2.0 encoding=UTF-8\n"};
    for (int i = 0; k && i < 2; i++) {
        char path[4200], head[64] = "";
        snprintf(path, sizeof path, "%s/game.%s", dir, ext[i]);
        rec_kifu_error_t e;
        TESTS_CHECK(rec_kifu_write_file(k, path, REC_FMT_KIF, &e) == REC_KIFU_OK, "%s: %s", path, e.msg);
        FILE *f = fopen(path, "rb");
        if (f) {
            if (!fgets(head, sizeof head, f))
                head[0] = 0;
            fclose(f);
        }
        TESTS_CHECK(!strcmp(head, want[i]), ".%s starts '%s', want '%s'", ext[i], head, want[i]);
        rec_kifu_t *b = NULL;
        TESTS_CHECK(rec_kifu_read_file(path, REC_FMT_UNKNOWN, &b, &e) == REC_KIFU_OK && b &&
                        b->lines[0].nmoves == 6 && !strcmp(rec_kifu_header_get(b, "先手"), "先手さん"),
                    ".%s reads back: %s", ext[i], e.msg);
        rec_kifu_free(b);
        remove(path);
    }
    rec_kifu_free(k);
    rmdir(dir);
}

/* rec_kifu_write_file never replaces what is not a regular file of its own: a symbolic link is written
 * through (the link stays, its target gets the record), a FIFO is written into, a file of the user's
 * named PATH.tmp is left as it was, a directory is an error (found by the fresh user: convert renamed
 * its PATH.tmp over /dev/full, a link, a FIFO, and deleted the user's PATH.tmp). */
static void test_write_file_in_place(void) {
    char dir[] = "/tmp/kifucam-kifwrite-XXXXXX", path[4200], link[4200], tmp[4300], fifo[4200], buf[64];
    if (!mkdtemp(dir))
        return;
    rec_kifu_t *k = read_text("kif_basic", kif_basic, REC_FMT_KIF);
    rec_kifu_error_t e;
    struct stat st;
    snprintf(path, sizeof path, "%s/target.csa", dir);
    snprintf(link, sizeof link, "%s/link.csa", dir);
    write_text(dir, "target.csa", "old\n", 4);
    TESTS_CHECK(symlink("target.csa", link) == 0, "symlink %s", link);
    TESTS_CHECK(k && rec_kifu_write_file(k, link, REC_FMT_UNKNOWN, &e) == REC_KIFU_OK, "through a link: %s",
                e.msg);
    TESTS_CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link is still a link");
    FILE *f = fopen(path, "rb");
    buf[0] = 0;
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
    }
    TESTS_CHECK(strncmp(buf, "'CSA encoding=UTF-8", 19) == 0, "the link's target has the record: '%s'", buf);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    write_text(dir, "target.csa.tmp", "keep\n", 5);
    TESTS_CHECK(k && rec_kifu_write_file(k, path, REC_FMT_UNKNOWN, &e) == REC_KIFU_OK, "beside a .tmp: %s",
                e.msg);
    f = fopen(tmp, "rb");
    buf[0] = 0;
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
    }
    TESTS_CHECK(!strcmp(buf, "keep\n"), "the user's .tmp file kept: '%s'", buf);
    snprintf(fifo, sizeof fifo, "%s/fifo.csa", dir);
    if (mkfifo(fifo, 0600) == 0) {
        pid_t pid = fork();
        if (pid == 0) { /* the reader: counts the bytes */
            FILE *r = fopen(fifo, "rb");
            size_t n = 0;
            int c;
            while (r && (c = fgetc(r)) != EOF)
                n++;
            _exit(n > 100 ? 0 : 1);
        }
        TESTS_CHECK(k && rec_kifu_write_file(k, fifo, REC_FMT_UNKNOWN, &e) == REC_KIFU_OK, "into a FIFO: %s",
                    e.msg);
        int status = -1;
        waitpid(pid, &status, 0);
        TESTS_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the FIFO's reader got the record");
        TESTS_CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
    }
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/d.csa", dir);
    TESTS_CHECK(mkdir(sub, 0700) == 0 && rec_kifu_write_file(k, sub, REC_FMT_UNKNOWN, &e) == REC_KIFU_EIO &&
                    strstr(e.msg, "Is a directory"),
                "a directory: %s", e.msg);
    /* a name at the 255-byte limit: no room for ".tmp" after it, written through a short temporary */
    char longname[300] = "", longpath[4600];
    memset(longname, 'c', 251);
    memcpy(longname + 251, ".csa", 5);
    snprintf(longpath, sizeof longpath, "%s/%s", dir, longname);
    TESTS_CHECK(k && rec_kifu_write_file(k, longpath, REC_FMT_UNKNOWN, &e) == REC_KIFU_OK &&
                    stat(longpath, &st) == 0 && st.st_size > 100,
                "a 255-byte name: %s", e.msg);
    rec_kifu_free(k);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    TESTS_CHECK(system(cmd) == 0, "rm %s", dir);
}

/* 2. USI output keeps a resignation and an impasse declaration as kifucam's last token. */
static void test_bad_usi_keeps_result(void) {
    rec_kifu_t *k = read_text("kif_basic", kif_basic, REC_FMT_KIF);
    if (!k)
        return;
    char *t = NULL;
    size_t n;
    rec_kifu_error_t e;
    TESTS_CHECK(rec_kifu_write(k, REC_FMT_USI, &t, &n, &e) == REC_KIFU_OK && t && n > 8 &&
                    !strcmp(t + n - 8, " resign\n"),
                "usi of a resigned game ends with resign: '%s'", t ? t : "");
    rec_kifu_t *b = t ? read_text("usi back", t, REC_FMT_USI) : NULL;
    TESTS_CHECK(b && b->result.end == REC_END_RESIGN && b->result.winner == 1 && b->result.ply == 7,
                "usi back: end %s winner %d ply %d", b ? rec_kifu_end_name(b->result.end) : "-",
                b ? b->result.winner : -9, b ? b->result.ply : -9);
    round_trip("resign", k, REC_FMT_USI);
    free(t);
    rec_kifu_free(b);
    rec_kifu_set_result(k, REC_END_KACHI, NULL);
    TESTS_CHECK(rec_kifu_write(k, REC_FMT_USI, &t, &n, &e) == REC_KIFU_OK && t && n > 5 &&
                    !strcmp(t + n - 5, " win\n"),
                "usi of a declaration ends with win: '%s'", t ? t : "");
    free(t);
    round_trip("kachi", k, REC_FMT_USI);
    rec_kifu_t *z = rec_kifu_new(); /* no moves: "position startpos moves resign" */
    if (z) {
        rec_kifu_set_result(z, REC_END_RESIGN, NULL);
        round_trip("resign at once", z, REC_FMT_USI);
        rec_kifu_free(z);
    }
    rec_kifu_free(k);
}

/* 3. A KIF move line that cannot be read, followed by moves, is an error at that line (not a warning
 * and a truncated record); the warnings before it are kept. An unknown word at the end stays a warning. */
static void test_bad_kif_move_line(void) {
    rec_kifu_t *part =
        read_bad_keep("move number typo",
                      "手数----指手--\n   1 ７六歩(77)\n   2 ３四歩(33)\n  3O ２六歩(27)\n   4 ８四歩(83)\n",
                      REC_FMT_KIF, REC_KIFU_EPARSE, 4, 3, "3O ２六歩(27)");
    TESTS_CHECK(part && part->nwarnings >= 1, "move number typo: the warning before the error is kept");
    rec_kifu_free(part);
    part = read_bad_keep("foo for a move",
                         "手数----指手--\n   1 ７六歩(77)\nfoo\n   3 ２六歩(27)\n   4 ８四歩(83)\n",
                         REC_FMT_KIF, REC_KIFU_EPARSE, 3, 1, "'foo'");
    TESTS_CHECK(part && part->nwarnings >= 1 && strstr(part->warnings[0].msg, "ignored"),
                "foo: its warning is kept for the caller");
    rec_kifu_free(part);
    read_bad("KI2 foo for a move", "▲７六歩\nfoo\n▲２六歩\n", REC_FMT_KI2, REC_KIFU_EPARSE, 2, 1, "'foo'");
    rec_kifu_t *k =
        read_text("Time-up at the end", "手数----指手--\n   1 ７六歩(77)\n   2 Time-up\n", REC_FMT_KIF);
    TESTS_CHECK(k && k->lines[0].nmoves == 1 && k->result.end == REC_END_ERROR && k->nwarnings == 1,
                "an unknown ending word after the last move: a warning");
    rec_kifu_free(k);
    k = read_text("CSA bad time", "V2.2\nPI\n+\n+7776FU,Tx8\n-3334FU,T5\n", REC_FMT_CSA);
    TESTS_CHECK(k && k->lines[0].nmoves == 2 && k->lines[0].moves[0].time_ms == REC_TIME_NONE &&
                    k->lines[0].moves[1].time_ms == 5000 && k->nwarnings == 1 &&
                    strstr(k->warnings[0].msg, "Tx8"),
                "CSA 'Tx8': a warning and no time (not 0)");
    rec_kifu_free(k);
    /* a mistyped origin "(7x)" is an error, never read as the time; a time right after a drop is a time */
    read_bad("origin typo", "手数----指手--\n   1 ７六歩(7x)   ( 0:48/00:01:03)\n", REC_FMT_KIF,
             REC_KIFU_EPARSE, 2, 6, "");
    k = read_text("time right after a drop",
                  "手数----指手--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n"
                  "   4 同　銀(31)\n   5 ５五角打( 0:48/00:01:03)\n",
                  REC_FMT_KIF);
    TESTS_CHECK(k && k->lines[0].nmoves == 5 && k->lines[0].moves[4].time_ms == 48000,
                "time right after 角打: %lld ms",
                k && k->lines[0].nmoves == 5 ? (long long)k->lines[0].moves[4].time_ms : -1LL);
    rec_kifu_free(k);
}

/* 4. The piece named with an explicit origin must be the piece there (or its promoted kind). */
static void test_bad_piece_named(void) {
    read_bad("KIF gold for a pawn", "手数----指手--\n   1 ７六金(77)\n", REC_FMT_KIF, REC_KIFU_EMOVE, 2, 6,
             "the piece on 77 is a pawn, not a gold");
    read_bad("CSA gold for a pawn", "PI\n+\n+7776KI\n", REC_FMT_CSA, REC_KIFU_EMOVE, 3, 1,
             "the piece on 77 is a pawn, not a gold");
    read_bad("CSA rook for a bishop", "PI\n+\n+7776FU\n-3334FU\n+8822HI\n", REC_FMT_CSA, REC_KIFU_EMOVE, 5, 1,
             "is a bishop, not a rook");
    read_bad("Western gold for a pawn", "1. G7g-7f\n", REC_FMT_WESTERN, REC_KIFU_EMOVE, 1, 0, "not a gold");
    /* CSA names the piece after the move: UM for a promoting bishop; KIF 角成 and 成銀 style */
    rec_kifu_t *k = read_text("CSA promotion", "PI\n+\n+7776FU\n-3334FU\n+8822UM\n", REC_FMT_CSA);
    TESTS_CHECK(k && k->lines[0].nmoves == 3 && RUL_MOVE_IS_PROMO(k->lines[0].moves[2].move),
                "+8822UM promotes");
    rec_kifu_free(k);
    k = read_text("KIF promotion",
                  "手数----指手--\n 1 ７六歩(77)\n 2 ３四歩(33)\n 3 ２二角成(88)\n 4 同　銀(31)\n",
                  REC_FMT_KIF);
    TESTS_CHECK(k && k->lines[0].nmoves == 4, "２二角成(88) reads");
    rec_kifu_free(k);
}

/* 5. CSA position lines and sides are checked. */
static void test_bad_csa_position(void) {
    read_bad("PI99ZZ", "PI99ZZ\n+\n+7776FU\n", REC_FMT_CSA, REC_KIFU_EPARSE, 1, 5, "unknown piece 'ZZ'");
    read_bad("PI55FU", "PI55FU\n+\n+7776FU\n", REC_FMT_CSA, REC_KIFU_EPARSE, 1, 3, "the square is empty");
    read_bad("PI82KA", "PI82KA\n+\n", REC_FMT_CSA, REC_KIFU_EPARSE, 1, 3, "no KA on 82");
    read_bad("no position", "V2.2\nN+a\n", REC_FMT_CSA, REC_KIFU_EPARSE, 2, 1, "no starting position");
    read_bad("same side twice", "PI\n+\n+7776FU\n+3334FU\n", REC_FMT_CSA, REC_KIFU_EMOVE, 4, 1,
             "a move by sente (+), but it is gote's turn");
    rec_kifu_t *k = read_text("PI handicap", "PI82HI22KA\n-\n-3334FU\n", REC_FMT_CSA);
    TESTS_CHECK(k && k->lines[0].nmoves == 1, "PI82HI22KA: a two-piece handicap reads");
    rec_kifu_free(k);
}

/* A JKF move's "color" names its mover: a move by the side not to move is an error naming it, as CSA's
 * '+' / '-' (it was read as the other side's move, exit 0). */
static void test_bad_jkf_color(void) {
#define JKF_MV(c, fx, fy, tx, ty, p)                                                                         \
    "{\"move\":{\"color\":" #c ",\"from\":{\"x\":" #fx ",\"y\":" #fy "},\"to\":{\"x\":" #tx ",\"y\":" #ty    \
    "},\"piece\":\"" p "\"}}"
    /* gote's color on sente's first move (the piece on 77 is sente's, so the move itself resolves) */
    read_bad("jkf color 1 first", "{\"header\":{},\"moves\":[{}," JKF_MV(1, 7, 7, 7, 6, "FU") "]}",
             REC_FMT_JKF, REC_KIFU_EMOVE, 0, 0,
             "jkf: move entry 1 (FU 77-76) is a move by gote (color 1), but it is sente's turn");
    /* the same in a fork: the fork replaces move 2, gote's */
    read_bad(
        "jkf color in fork",
        "{\"header\":{},\"moves\":[{}," JKF_MV(
            0, 7, 7, 7, 6, "FU") ",{\"move\":{\"color\":1,\"from\":{\"x\":3,"
                                 "\"y\":3},\"to\":{\"x\":3,\"y\":4},\"piece\":\"FU\"},\"forks\":[[" JKF_MV(
                                     0, 8, 3, 8, 4, "FU") "]]}]}",
        REC_FMT_JKF, REC_KIFU_EMOVE, 0, 0,
        "move entry 0 (FU 83-84) is a move by sente (color 0), but it is gote's");
    read_bad("jkf color 2", "{\"header\":{},\"moves\":[{}," JKF_MV(2, 7, 7, 7, 6, "FU") "]}", REC_FMT_JKF,
             REC_KIFU_EPARSE, 0, 0, "bad 'color'");
    /* right colors, and a move without one (the schema requires it; read leniently) read as before */
    rec_kifu_t *k = read_text(
        "jkf colors",
        "{\"header\":{},\"moves\":[{}," JKF_MV(
            0, 7, 7, 7, 6,
            "FU") ","
                  "{\"move\":{\"from\":{\"x\":3,\"y\":3},\"to\":{\"x\":3,\"y\":4},\"piece\":\"FU\"}}]}",
        REC_FMT_JKF);
    char u[8] = "";
    if (k && k->lines[0].nmoves == 2)
        usi_of(k, 0, 1, u);
    TESTS_CHECK(k && k->lines[0].nmoves == 2 && !strcmp(u, "3c3d"), "jkf: 7g7f 3c3d read (second %s)", u);
    rec_kifu_free(k);
#undef JKF_MV
}

/* 6. A format named by the caller that the content does not hold is an error, not an empty record. */
static void test_bad_named_format(void) {
    const char *usi = "position startpos moves 7g7f 3c3d\n";
    read_bad("usi as kif", usi, REC_FMT_KIF, REC_KIFU_EPARSE, 1, 1, "no kif record found");
    read_bad("usi as csa", usi, REC_FMT_CSA, REC_KIFU_EPARSE, 1, 1, "no starting position");
    read_bad("kif as csa", kif_basic, REC_FMT_CSA, REC_KIFU_EPARSE, 20, 1, "no starting position");
    read_bad("csa as kif", "PI\n+\n+7776FU\n", REC_FMT_KIF, REC_KIFU_EPARSE, 1, 1, "looks like csa");
    rec_kifu_t *k = read_text("kif named kif", kif_basic, REC_FMT_KIF);
    rec_kifu_free(k);
}

/* 7. One input reader with one limit (8 MiB); directories refused by name. */
static void test_bad_input_limit(void) {
    char dir[] = "/tmp/kifucam-slurp-XXXXXX", path[4200];
    if (!mkdtemp(dir))
        return;
    char *buf = NULL;
    size_t len = 0;
    rec_kifu_error_t e;
    TESTS_CHECK(rec_kifu_slurp(dir, &buf, &len, &e) == REC_KIFU_EIO && strstr(e.msg, "is a directory"),
                "directory: '%s'", e.msg);
    snprintf(path, sizeof path, "%s/big.kif", dir);
    FILE *f = fopen(path, "wb");
    if (f) {
        static char chunk[1 << 16];
        memset(chunk, '\n', sizeof chunk);
        for (int i = 0; i < (REC_KIFU_MAX_INPUT >> 16); i++)
            fwrite(chunk, 1, sizeof chunk, f);
        fclose(f);
    }
    TESTS_CHECK(rec_kifu_slurp(path, &buf, &len, &e) == REC_KIFU_OK && len == REC_KIFU_MAX_INPUT,
                "exactly the limit reads: %s", e.msg);
    free(buf);
    buf = NULL;
    f = fopen(path, "ab");
    if (f) {
        fputc('\n', f);
        fclose(f);
    }
    TESTS_CHECK(rec_kifu_slurp(path, &buf, &len, &e) == REC_KIFU_EIO && buf == NULL &&
                    strstr(e.msg, "larger than 8 MiB"),
                "one byte over: '%s'", e.msg);
    TESTS_CHECK(strstr(e.msg, dir) == NULL, "the message leaves the path to the caller: '%s'", e.msg);
    char out[4096];
    int rc = run_kifucam(dir, "convert big.kif o.csa", out, sizeof out);
    if (rc >= 0) {
        char o[4200];
        snprintf(o, sizeof o, "%s/o.csa", dir);
        TESTS_CHECK(rc == 1 && strstr(out, "big.kif: larger than 8 MiB") && access(o, F_OK) != 0,
                    "convert of a big file: exit %d '%s'", rc, out);
        rc = run_kifucam(dir, "convert - o.csa < big.kif", out, sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, "-: larger than 8 MiB"), "convert of a big stdin: exit %d '%s'",
                    rc, out);
        rc = run_kifucam(dir, "replay big.kif", out, sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, "big.kif: larger than 8 MiB"),
                    "replay of a big file: exit %d '%s'", rc, out);
    }
    remove(path);
    rmdir(dir);
}

/* 8-10. kifucam's messages: more moves than the engine replays, a record with no ending, empty, binary
 * and UTF-16 files, a directory, a missing output folder, a full-width character in a SFEN. */
static void test_bad_cli_messages(void) {
    char dir[] = "/tmp/kifucam-cli-XXXXXX", out[8192];
    if (!mkdtemp(dir))
        return;
    if (run_kifucam(dir, "--help", out, sizeof out) < 0) {
        printf("\n    kifucam not found next to the test binary: skipped\n");
        rmdir(dir);
        return;
    }
    /* 8: 5000 moves */
    static const char *const shuffle[4] = {"2h3h", "8b7b", "3h2h", "7b8b"};
    size_t cap = 64 + 5000 * 5, n = 0;
    char *usi = malloc(cap);
    if (usi) {
        n = (size_t)snprintf(usi, cap, "position startpos moves");
        for (int i = 0; i < 5000; i++)
            n += (size_t)snprintf(usi + n, cap - n, " %s", shuffle[i % 4]);
        usi[n++] = '\n';
        write_text(dir, "long.usi", usi, n);
        free(usi);
    }
    int rc = run_kifucam(dir, "convert long.usi long.kifu", out, sizeof out);
    TESTS_CHECK(rc == 0, "convert of 5000 moves: exit %d '%s'", rc, out);
    rc = run_kifucam(dir, "replay long.kifu", out, sizeof out);
    TESTS_CHECK(rc == 1 && strstr(out, "long.kifu: more than 4096 moves") && !strstr(out, "column"),
                "replay of 5000 moves: exit %d '%s'", rc, out);
    /* 9: no ending */
    write_text(dir, "two.kifu", "手数----指手--\n   1 ７六歩(77)\n   2 ３四歩(33)\n",
               strlen("手数----指手--\n   1 ７六歩(77)\n   2 ３四歩(33)\n"));
    rc = run_kifucam(dir, "replay two.kifu", out, sizeof out);
    TESTS_CHECK(rc == 0 && strstr(out, "the record just stops after move 2"), "no ending, text: '%s'", out);
    rc = run_kifucam(dir, "replay two.kifu --json", out, sizeof out);
    TESTS_CHECK(rc == 0 && strstr(out, "\"end\": \"none\"") &&
                    strstr(out, "\"winner\": \"none\", \"agrees\""),
                "no ending, json: '%s'", out);
    rec_kifu_t *k = rec_kifu_new();
    TESTS_CHECK(k && k->result.end == REC_END_NONE && k->result.winner == -1, "a new record has no winner");
    rec_kifu_free(k);
    /* 10: files replay cannot read, and convert's messages */
    static const struct {
        const char *name, *data;
        size_t len;
        const char *cmd, *want;
    } c[] = {
        {"empty.kif", "", 0, "replay empty.kif", "kifucam replay: empty.kif: empty file: no game record"},
        {"u16.kif", "\xff\xfeh\0i\0", 6, "replay u16.kif", "u16.kif: UTF-16 text"},
        {"bin.kif", "\x01\x02\0\xff", 4, "replay bin.kif",
         "bin.kif: a binary file (NUL bytes), not a game record"},
        {"u16b.kif", "\xff\xfeh\0i\0", 6, "convert u16b.kif o.csa",
         "u16b.kif: line 1, column 1: UTF-16 text"},
        {"x.usi", "position startpos moves 7g7f\n", 0, "convert x.usi nodir/out.kif",
         "kifucam convert: nodir/out.kif: No such file or directory\n"},
        {NULL, NULL, 0, "convert . o.csa", "kifucam convert: .: is a directory, not a game record"},
        {NULL, NULL, 0, "replay .", "kifucam replay: .: is a directory, not a game record"},
        {"fw.usi", "position sfen \xef\xbc\x97 b - 1\n", 0, "replay fw.usi", "unknown piece '\\xEF'"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (c[i].name)
            write_text(dir, c[i].name, c[i].data, c[i].len ? c[i].len : strlen(c[i].data));
        rc = run_kifucam(dir, c[i].cmd, out, sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, c[i].want) && !strstr(out, "USI line"),
                    "'%s': exit %d '%s', want '%s'", c[i].cmd, rc, out, c[i].want);
    }
    /* 6: --from contradicting the content: an error and no output file */
    rc = run_kifucam(dir, "convert long.usi o6.csa --from kif", out, sizeof out);
    char p6[4200];
    snprintf(p6, sizeof p6, "%s/o6.csa", dir);
    TESTS_CHECK(rc == 1 && strstr(out, "no kif record found") && access(p6, F_OK) != 0,
                "--from kif on a USI file: exit %d '%s'", rc, out);
    /* 3: warnings before an error are printed */
    write_text(dir, "typo.kifu", "手数----指手--\n   1 ７六歩(77)\nfoo\n   3 ２六歩(27)\n",
               strlen("手数----指手--\n   1 ７六歩(77)\nfoo\n   3 ２六歩(27)\n"));
    rc = run_kifucam(dir, "convert typo.kifu o.csa", out, sizeof out);
    TESTS_CHECK(rc == 1 && strstr(out, "warning: typo.kifu: line 3: line ignored") &&
                    strstr(out, "typo.kifu: line 3, column 1: not a move line: 'foo'"),
                "warnings then the error: exit %d '%s'", rc, out);
    /* 11: an illegal move is said where it is read (its line, the move as written, why); converted to
       KI2 one more warning line (the file ends before it), to Western it is written with its origin */
    static const char ill[] = "V2.2\nPI\n+\n+7766FU\n-3334FU\n+2726FU\n-8384FU\n";
    write_text(dir, "ill.csa", ill, strlen(ill));
    rc = run_kifucam(dir, "convert ill.csa ill.ki2u", out, sizeof out);
    TESTS_CHECK(
        rc == 0 &&
            !strcmp(out,
                    "kifucam convert: warning: ill.csa: line 4: move 1 (+7766FU) is not legal: the piece "
                    "does not move so; kept as written\n"
                    "kifucam convert: warning: ill.ki2u: move 1 ▲６六歩(77) (7g6f) is illegal "
                    "(not_a_legal_move) and KI2 cannot state its origin: the moves end before it "
                    "with the mover's loss (まで0手で先手の反則負け) and a comment naming it; 3 later "
                    "moves left out (KIF, CSA, JKF, USI and Western keep them)\n"),
        "convert to KI2: exit %d '%s'", rc, out);
    rc = run_kifucam(dir, "convert ill.csa ill.txt", out, sizeof out);
    TESTS_CHECK(rc == 0 && !strcmp(out, "kifucam convert: warning: ill.csa: line 4: move 1 (+7766FU) is not "
                                        "legal: the piece does not move so; kept as written\n"),
                "convert to Western: exit %d '%s'", rc, out);
    rc = run_kifucam(dir, "convert ill.txt - --to usi", out, sizeof out);
    TESTS_CHECK(rc == 0 && !strcmp(out, "position startpos moves 7g6f 3c3d 2g2f 8c8d\n"),
                "Western back: exit %d '%s'", rc, out);
    /* a SFEN error message is valid UTF-8 */
    rul_pos_t pos;
    rul_error_t e;
    memset(&e, 0, sizeof e);
    TESTS_CHECK(rul_pos_from_sfen(&pos, "\xef\xbc\x97/9/9/9/9/9/9/9/9 b - 1", &e) != RUL_OK &&
                    strstr(e.msg, "'\\xEF'"),
                "sfen message: '%s'", e.msg);
    char rm[4200];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm) != 0)
        printf("could not remove %s\n", dir);
}

/* KIF move numbers that disagree with 手数＝ (a skipped number shifts every later one): one warning, at the
 * first, saying how many disagree (it was one warning per move); 手数＝ with junk after its digits is an
 * error naming line and column (it was read as 手数＝29). Fresh-user report. */
static void test_kif_move_number_checks(void) {
    rec_kifu_t *k = read_text("shifted numbers",
                              "手合割：平手\n手数＝29\n手数----指手--\n  30 ７六歩(77)\n  32 ３四歩(33)\n"
                              "  33 ２六歩(27)\n  34 ８四歩(83)\n",
                              REC_FMT_KIF);
    if (k) {
        TESTS_CHECK(
            k->nwarnings == 1 && k->warnings[0].line == 5 &&
                !strcmp(k->warnings[0].msg,
                        "move number 32 where 31 was expected (from 手数＝); 3 move numbers disagree in all"),
            "%d warnings, first line %d: %s", k->nwarnings, k->nwarnings ? k->warnings[0].line : 0,
            k->nwarnings ? k->warnings[0].msg : "");
        TESTS_CHECK(k->lines[0].nmoves == 4 && rec_kifu_start_number(k) == 30, "%d moves from %d",
                    k->lines[0].nmoves, rec_kifu_start_number(k));
    }
    rec_kifu_free(k);
    /* a single mismatch says nothing of a count */
    k = read_text("one number", "手数----指手--\n   1 ７六歩(77)\n   3 ３四歩(33)\n   3 ２六歩(27)\n",
                  REC_FMT_KIF);
    if (k)
        TESTS_CHECK(k->nwarnings == 1 && !strcmp(k->warnings[0].msg, "move number 3 where 2 was expected"),
                    "%d: %s", k->nwarnings, k->nwarnings ? k->warnings[0].msg : "");
    rec_kifu_free(k);
    static const struct {
        const char *text;
        int line, column;
        const char *msg;
    } BAD[] = {
        {"手合割：平手\n手数＝29x\n手数----指手--\n  30 ７六歩(77)\n", 2, 6,
         "手数＝29 followed by 'x': a move count is digits only"},
        {"手合割：平手\n手数＝２９ｘ\n  30 ７六歩(77)\n", 2, 6,
         "手数＝29 followed by 'ｘ': a move count is digits only"},
        {"手合割：平手\n  手数=29-\n  30 ７六歩(77)\n", 2, 8,
         "手数＝29 followed by '-': a move count is digits only"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        rec_kifu_error_t e;
        memset(&e, 0, sizeof e);
        k = NULL;
        int rc = rec_kifu_read(BAD[i].text, strlen(BAD[i].text), REC_FMT_KIF, &k, &e);
        TESTS_CHECK(rc == REC_KIFU_EPARSE && e.line == BAD[i].line && e.column == BAD[i].column &&
                        !strcmp(e.msg, BAD[i].msg),
                    "bad %zu: rc %d at %d:%d: %s", i, rc, e.line, e.column, e.msg);
        rec_kifu_free(k);
    }
    /* the caption's move after a space is still a caption */
    k = read_text("caption with move", "手合割：平手\n手数＝29　▲３七銀　まで\n  30 ７六歩(77)\n",
                  REC_FMT_KIF);
    if (k)
        TESTS_CHECK(rec_kifu_start_number(k) == 30, "start %d", rec_kifu_start_number(k));
    rec_kifu_free(k);
}

/* Every error path of the two USI readers (the kifu reader that convert uses, and replay's) names the
 * column of the offending text in the line: the marker's position in the input. The kifu reader gave a
 * bad SFEN's column counted from the SFEN, not the line (71 read as 57); and an unplayable move is an
 * illegal move by its number in both ("usi: bad move '5e5d'" in convert). Fresh-user report. */
static void test_usi_error_columns(void) {
    static const char SP[] = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGS";
    static const struct {
        const char *tail;   /* the line: "position sfen " SP tail, or a whole line when it starts with '!' */
        const char *marker; /* where the column points: its first occurrence after the SFEN's start */
        const char *kifu;   /* a fragment of the kifu reader's message */
        const char
            *replay; /* a fragment of replay's message, NULL: an illegal move (a result, not an error) */
    } C[] = {
        {"NX b - 1", "X", "usi: bad SFEN: unknown piece 'X'", "bad SFEN: unknown piece 'X'"},
        {"NL x - 1", "x", "side to move must be 'b' or 'w', found 'x'", "side to move must be 'b' or 'w'"},
        {"NL b - 1x moves 7g7f", "x ", "unexpected text 'x' after the move number", "unexpected text 'x'"},
        {"!position startpos moves 7g7f 3c3z", "3c3z", "usi: bad move '3c3z'", "bad move '3c3z'"},
        {"!  position   startpos moves 7g7f 3c3d3c3d3c3d3c3d", "3c3d3c3d", "a USI move is 4 or 5 characters",
         "a USI move is 4 or 5 characters"},
        {"!position startpos foo", "foo", "usi: expected 'moves', got 'foo'", "expected 'moves', got 'foo'"},
        {"!position startpos moves 7g7f resign 3c3d", "resign", "'resign' must be the last token",
         "'resign' must be the last token"},
        {"NL b - 30 moves 7g7f 3c3d 5e5d", "5e5d",
         "move 32 (5e5d) is illegal: not_a_legal_move (sente has no piece on 5e)", NULL},
        {"!position startpos moves 7g7f P*5e", "P*5e",
         "move 2 (P*5e) is illegal: not_a_legal_move (gote has no pawn in hand)", NULL},
    };
    rec_replay_t *r = NULL;
    CU_ASSERT_FATAL(rec_replay_create(&r) == REC_OK);
    for (size_t i = 0; i < sizeof C / sizeof *C; i++) {
        char line[256];
        if (C[i].tail[0] == '!')
            snprintf(line, sizeof line, "%s", C[i].tail + 1);
        else
            snprintf(line, sizeof line, "position sfen %s%s", SP, C[i].tail);
        const char *from = strstr(line, "sfen ") ? strstr(line, "sfen ") + 5 : line;
        const char *at = strstr(from, C[i].marker);
        CU_ASSERT_FATAL(at != NULL);
        int want = (int)(at - line) + 1;
        rec_kifu_t *k = NULL;
        rec_kifu_error_t e;
        memset(&e, 0, sizeof e);
        int rc = rec_kifu_read(line, strlen(line), REC_FMT_USI, &k, &e);
        TESTS_CHECK(rc != REC_KIFU_OK && e.line == 1 && e.column == want && strstr(e.msg, C[i].kifu),
                    "kifu reader '%s': rc %d at %d:%d (want column %d): %s", line, rc, e.line, e.column, want,
                    e.msg);
        rec_kifu_free(k);
        rec_error_t re;
        memset(&re, 0, sizeof re);
        rc = rec_replay_usi(r, line, NULL, &re);
        if (C[i].replay)
            TESTS_CHECK(rc == REC_EPARSE && re.column == want && strstr(re.msg, C[i].replay),
                        "replay '%s': rc %d column %d (want %d): %s", line, rc, re.column, want, re.msg);
        else /* replay: the same move, illegal, by the same number */
            TESTS_CHECK(rc == REC_OK && r->result.reason == RUL_REASON_ILLEGAL_MOVE &&
                            r->result.ply + r->first_move - 1 == atoi(strstr(C[i].kifu, "move ") + 5),
                        "replay '%s': rc %d reason %s move %d", line, rc, rul_reason_name(r->result.reason),
                        r->result.ply + r->first_move - 1);
    }
    rec_replay_destroy(r);
}

/* convert of a start position that replay refuses (3 bishops: more than a set has) says so in one line,
 * with replay's reason, and still writes it (it said nothing). Fresh-user report. */
static void test_convert_illegal_start(void) {
    char dir[] = "/tmp/kifucam-start-XXXXXX", out[8192];
    if (!mkdtemp(dir))
        return;
    if (run_kifucam(dir, "--help", out, sizeof out) < 0) {
        printf("\n    kifucam not found next to the test binary: skipped\n");
        rmdir(dir);
        return;
    }
    static const char usi[] =
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b B 1 moves 7g7f\n";
    write_text(dir, "b3.usi", usi, strlen(usi));
    int rc = run_kifucam(dir, "convert b3.usi b3.kifu", out, sizeof out);
    const char *want =
        "kifucam convert: warning: b3.usi: the start position is illegal (too_many_pieces: too many "
        "pieces: 3 bishops (a set has 2)): written as it is, but replay refuses it\n";
    TESTS_CHECK(rc == 0 && !strcmp(out, want), "convert: exit %d '%s'", rc, out);
    rc = run_kifucam(dir, "replay b3.kifu", out, sizeof out);
    TESTS_CHECK(rc == 1 &&
                    strstr(out, "start position is illegal: too_many_pieces: too many pieces: 3 bishops"),
                "replay of the converted file: exit %d '%s'", rc, out);
    /* a legal start says nothing */
    write_text(dir, "ok.usi", "position startpos moves 7g7f\n", strlen("position startpos moves 7g7f\n"));
    rc = run_kifucam(dir, "convert ok.usi ok.kifu", out, sizeof out);
    TESTS_CHECK(rc == 0 && out[0] == 0, "convert of a legal start: exit %d '%s'", rc, out);
    static const char *const files[] = {"b3.usi", "b3.kifu", "ok.usi", "ok.kifu"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* KI2 ends a variation before its illegal first move with a comment naming it; reading the KI2 back kept
 * the variation but lost the comment (a comment before a variation's first move was dropped). It is now
 * the line's comment, and KIF and KI2 write it back. Fresh-user report. */
static void test_ki2_variation_illegal_first_comment(void) {
    static const char kif[] =
        "手合割：平手\n手数----指手--\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２六歩(27)\n"
        "\n変化：2手\n   2 ５五飛(82)\n   3 ２六歩(27)\n";
    static const char note[] = "2手目の△５五飛(82)は反則手（指せない手）\n以降の1手は省略";
    rec_kifu_t *k = read_text("variation, illegal first move", kif, REC_FMT_KIF), *b = NULL, *c = NULL;
    char *ki2 = NULL, *kif2 = NULL;
    size_t n;
    rec_kifu_error_t e;
    if (!k)
        return;
    CU_ASSERT_FATAL(rec_kifu_write(k, REC_FMT_KI2, &ki2, &n, &e) == REC_KIFU_OK);
    TESTS_CHECK(strstr(ki2, "変化：2手\n*2手目の△５五飛(82)は反則手（指せない手）\n*以降の1手は省略\n") !=
                    NULL,
                "ki2: %s", ki2);
    b = read_text("the KI2 back", ki2, REC_FMT_KI2);
    if (b) {
        TESTS_CHECK(b->nlines == 2 && b->lines[1].start_ply == 2 && b->lines[1].nmoves == 0 &&
                        b->lines[1].end == REC_END_ILLEGAL_LOSS && b->lines[1].comment &&
                        !strcmp(b->lines[1].comment, note),
                    "KI2 read back: %d lines, comment '%s'", b->nlines,
                    b->nlines > 1 && b->lines[1].comment ? b->lines[1].comment : "(none)");
        /* KIF keeps it too, and reads it back */
        CU_ASSERT_FATAL(rec_kifu_write(b, REC_FMT_KIF, &kif2, &n, &e) == REC_KIFU_OK);
        TESTS_CHECK(
            strstr(
                kif2,
                "変化：2手\n*2手目の△５五飛(82)は反則手（指せない手）\n*以降の1手は省略\n   2 反則負け\n") !=
                NULL,
            "kif: %s", kif2);
        c = read_text("the KIF back", kif2, REC_FMT_KIF);
        if (c)
            TESTS_CHECK(c->nlines == 2 && c->lines[1].comment && !strcmp(c->lines[1].comment, note),
                        "KIF read back: comment '%s'",
                        c->nlines > 1 && c->lines[1].comment ? c->lines[1].comment : "(none)");
        /* JKF: on the variation's only entry, its special */
        char *jkf = NULL;
        CU_ASSERT_FATAL(rec_kifu_write(b, REC_FMT_JKF, &jkf, &n, &e) == REC_KIFU_OK);
        rec_kifu_t *j = read_text("the JKF back", jkf, REC_FMT_JKF);
        if (j)
            TESTS_CHECK(j->nlines == 2 && j->lines[1].end == REC_END_ILLEGAL_LOSS && j->lines[1].comment &&
                            !strcmp(j->lines[1].comment, note),
                        "JKF read back: comment '%s'",
                        j->nlines > 1 && j->lines[1].comment ? j->lines[1].comment : "(none)");
        rec_kifu_free(j);
        free(jkf);
    }
    free(ki2);
    free(kif2);
    rec_kifu_free(c);
    rec_kifu_free(b);
    rec_kifu_free(k);
}

/* A record whose moves would carry the position past SFEN's last move number (99999999) is refused by
 * every reader that takes a start number (USI, KIF 手数＝, Western [SFEN]) at the move's line and column:
 * its final SFEN and move numbers (100000000 ...) were written though no reader takes them back. One
 * move short of it reads, and its KIF writes and reads back. record --start refuses a number that leaves
 * no room for a game. Fresh-user report. */
static void test_number_limit(void) {
    static const char *const msg =
        "move 99999999 would leave a position numbered past 99999999, SFEN's last move "
        "number: a game from move 99999998 has room for 1 moves";
    static const struct {
        const char *text;
        rec_format_t fmt;
        int line, column;
    } BAD[] = {
        {"position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 99999998 moves 7g7f "
         "3c3d\n",
         REC_FMT_USI, 1, 97},
        {"手合割：平手\n手数＝99999997\n手数----指手--\n99999998 ７六歩(77)\n99999999 ３四歩(33)\n",
         REC_FMT_KIF, 5, 10},
        {"手合割：平手\n手数＝99999997\n▲７六歩 △３四歩\n", REC_FMT_KI2, 3, 7},
        {"[SFEN \"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 99999998\"]\n99999998. P-7f\n"
         "99999999. P-3d\n",
         REC_FMT_WESTERN, 3, 11},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        rec_kifu_t *k = NULL;
        rec_kifu_error_t e;
        memset(&e, 0, sizeof e);
        int rc = rec_kifu_read(BAD[i].text, strlen(BAD[i].text), BAD[i].fmt, &k, &e);
        TESTS_CHECK(rc == REC_KIFU_EPARSE && e.line == BAD[i].line && e.column == BAD[i].column &&
                        !strcmp(e.msg, msg),
                    "%s: rc %d at %d:%d: %s", rec_kifu_format_name(BAD[i].fmt), rc, e.line, e.column, e.msg);
        rec_kifu_free(k);
    }
    rec_kifu_t *k = read_text(
        "one move short", "手合割：平手\n手数＝99999997\n手数----指手--\n99999998 ７六歩(77)\n", REC_FMT_KIF);
    if (k) {
        char *usi = NULL;
        size_t n;
        rec_kifu_error_t e;
        CU_ASSERT_FATAL(rec_kifu_write(k, REC_FMT_USI, &usi, &n, &e) == REC_KIFU_OK);
        rec_kifu_t *b = read_text("its USI back", usi, REC_FMT_USI);
        TESTS_CHECK(b && b->lines[0].nmoves == 1 && rec_kifu_start_number(b) == 99999998, "USI: %s", usi);
        rec_kifu_free(b);
        free(usi);
    }
    rec_kifu_free(k);
    char dir[] = "/tmp/kifucam-limit-XXXXXX", out[8192];
    if (!mkdtemp(dir))
        return;
    int rc = run_kifucam(dir,
                         "record --source none.mp4 --start 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/"
                         "LNSGKGSNL b - 99999000'",
                         out, sizeof out);
    if (rc >= 0)
        TESTS_CHECK(
            rc == 1 && strstr(out, "move number 99999000 leaves no room for a game (4096 moves) under SFEN's "
                                   "last move number 99999999: at most 99995903"),
            "record --start: exit %d '%s'", rc, out);
    rmdir(dir);
}

int tests_register_kifu(void) {
    CU_pSuite s = CU_add_suite("recorder/kifu", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "KIF: headers, times, comments, bookmarks, 打(00), dates (R06 R16 R17)",
                     test_kif_basic) ||
        !CU_add_test(s, "KIF: 同 with any spacing (R18)", test_kif_same) ||
        !CU_add_test(s, "KIF: variations at two-digit plies, nested and siblings (R19)", test_kif_fork) ||
        !CU_add_test(s, "KIF: tolerant reading, board diagrams (R20)", test_kif_tolerant) ||
        !CU_add_test(s, "KIF: Shift_JIS, CRLF, BOM", test_shift_jis) ||
        !CU_add_test(s, "KI2: relative moves read and written", test_ki2) ||
        !CU_add_test(s, "KI2: JSA relative notation cases", test_ki2_relative) ||
        !CU_add_test(s, "Western notation (Hodges)", test_western) ||
        !CU_add_test(s, "CSA: hands in position lines, pawn-drop mate, times, specials (R14 R15 R21)",
                     test_csa_cases) ||
        !CU_add_test(s, "JKF and USI", test_jkf_usi) ||
        !CU_add_test(s, "builders, cumulative times, claims", test_builders) ||
        !CU_add_test(s, "a game taken up at move 30 keeps its numbering in every format that has one",
                     test_start_number) ||
        !CU_add_test(s,
                     "an illegal move is never written as another move (KI2 ends before it, Western names "
                     "its origin)",
                     test_illegal_written) ||
        !CU_add_test(s, "bad input: one error with line and column", test_bad_input) ||
        !CU_add_test(s, "corpus: replay and round trip of every game", test_corpus) ||
        !CU_add_test(s, "parser fixtures against their expected JKF", test_fixtures) ||
        !CU_add_test(s, "every parser fixture file reads", test_all_fixtures_read) ||
        !CU_add_test(s, "bad: .kif declares the Shift_JIS it is written in",
                     test_bad_kif_encoding_declared) ||
        !CU_add_test(s, "bad: USI output keeps resign / win", test_bad_usi_keeps_result) ||
        !CU_add_test(s, "a written file: links, FIFOs and a user's .tmp are not replaced",
                     test_write_file_in_place) ||
        !CU_add_test(s, "bad: an unreadable KIF move line followed by moves is an error",
                     test_bad_kif_move_line) ||
        !CU_add_test(s, "bad: the piece named must be on the origin square", test_bad_piece_named) ||
        !CU_add_test(s, "bad: CSA PI pieces, missing position, the same side twice", test_bad_csa_position) ||
        !CU_add_test(s, "bad: a JKF move whose color is not the side to move's", test_bad_jkf_color) ||
        !CU_add_test(s, "bad: a named format the content does not hold", test_bad_named_format) ||
        !CU_add_test(s, "bad: one input reader with an 8 MiB limit", test_bad_input_limit) ||
        !CU_add_test(s, "bad: kifucam messages (move limit, no ending, empty/binary/UTF-16, paths)",
                     test_bad_cli_messages) ||
        !CU_add_test(s, "KIF: move numbers against 手数＝ (one warning) and 手数＝ junk (an error)",
                     test_kif_move_number_checks) ||
        !CU_add_test(
            s, "USI: every error names the column of its text; an unplayable move is illegal, by number",
            test_usi_error_columns) ||
        !CU_add_test(s, "convert: a start position replay refuses is written with one warning",
                     test_convert_illegal_start) ||
        !CU_add_test(s, "KI2: the note on a variation's illegal first move reads back",
                     test_ki2_variation_illegal_first_comment) ||
        !CU_add_test(s, "no record carries the position past SFEN's last move number", test_number_limit))
        return -1;
    return 0;
}
