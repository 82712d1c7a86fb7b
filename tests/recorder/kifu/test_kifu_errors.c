/* test_kifu_errors.c - what a reader of a bad game record is told: the line and the token that caused
 * the error. A typo that makes a move illegal is named where it is (not 50 lines later, where a move
 * first becomes unreadable), a look-alike character is named with the one meant, a file cut in the
 * middle of a line is an error that says so, and `convert` warns of an illegal move it writes. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/kifu/kifu.h"
#include "tests/tests.h"

/* A KIF of a 14-move game (a ranging-rook opening), 9 header lines, move N on line 9 + N; move 11 is
 * replaced by typo11 when not NULL, move 3 by typo3; the file ends after cut bytes of the last move
 * line when cut >= 0 (no line end), else with 投了 and a line end. */
static size_t make_kif(char *buf, size_t size, const char *typo3, const char *typo11, int cut) {
    static const char *const moves[] = {"７六歩(77)", "３四歩(33)", "２六歩(27)", "４四歩(43)", "４八銀(39)",
                                        "３二銀(31)", "６八玉(59)", "４二飛(82)", "７八玉(68)", "６二玉(51)",
                                        "５六歩(57)", "７二玉(62)", "５五歩(56)", "５四歩(53)"};
    size_t n =
        (size_t)snprintf(buf, size,
                         "# ---- test ----\n開始日時：2024/01/01 10:00:00\n棋戦：test\n手合割：平手\n"
                         "先手：A\n後手：B\n備考：none\n場所：here\n手数----指手---------消費時間--\n");
    for (int i = 0; i < 14; i++) {
        const char *m = i == 2 && typo3 ? typo3 : i == 10 && typo11 ? typo11 : moves[i];
        char line[96];
        int len = snprintf(line, sizeof line, "%4d %s   ( 0:01/00:00:%02d)\n", i + 1, m, i + 1);
        if (i == 13 && cut >= 0)
            len = cut;
        memcpy(buf + n, line, (size_t)len);
        n += (size_t)len;
    }
    if (cut < 0)
        n += (size_t)snprintf(buf + n, size - n, "  15 投了\n");
    buf[n] = '\0';
    return n;
}

static int read_err(const char *data, size_t len, rec_format_t fmt, rec_kifu_error_t *e) {
    rec_kifu_t *k = NULL;
    int rc = rec_kifu_read(data, len, fmt, &k, e);
    rec_kifu_free(k);
    return rc;
}

/* ５五歩(57) for ５六歩(57): move 11 is illegal but readable, move 13 (５五歩(56)) has no piece: the
 * error is at move 13's line and names move 11's line and token; move 11 is also a warning. */
static void test_typo_kif(void) {
    char buf[4096];
    rec_kifu_error_t e;
    size_t n = make_kif(buf, sizeof buf, NULL, "５五歩(57)", -1);
    int rc = read_err(buf, n, REC_FMT_KIF, &e);
    TESTS_CHECK(rc != REC_KIFU_OK && e.line == 22 &&
                    strstr(e.msg, "after move 11 (５五歩(57)) at line 20, which is not legal: a typo there?"),
                "rc %d, line %d: %s", rc, e.line, e.msg);
    rec_kifu_t *k = NULL;
    n = make_kif(buf, sizeof buf, NULL, "５五歩(57)", -1);
    buf[strstr(buf, "  13 ") - buf] = '\0'; /* the record up to move 12: it reads, with the warning */
    CU_ASSERT_EQUAL_FATAL(rec_kifu_read(buf, strlen(buf), REC_FMT_KIF, &k, &e), REC_KIFU_OK);
    TESTS_CHECK(k->nwarnings >= 1 && k->warnings[0].line == 20 &&
                    !strcmp(k->warnings[0].msg,
                            "move 11 (５五歩(57)) is not legal: the piece does not move so; kept as written"),
                "%d warnings, the first at line %d: %s", k->nwarnings, k->nwarnings ? k->warnings[0].line : 0,
                k->nwarnings ? k->warnings[0].msg : "");
    CU_ASSERT(k->lines[0].moves[10].flags & REC_MOVE_ILLEGAL);
    rec_kifu_free(k);
}

/* The same typo in CSA (+5755FU for +5756FU): the error at +5655FU names it and its line. */
static void test_typo_csa(void) {
    static const char *const mv[] = {"+7776FU", "-3334FU", "+2726FU", "-4344FU", "+3948GI",
                                     "-3132GI", "+5968OU", "-8242HI", "+6878OU", "-5162OU",
                                     "+5755FU", "-6272OU", "+5655FU", "-5354FU"};
    char buf[2048];
    size_t n = (size_t)snprintf(buf, sizeof buf, "V2.2\nN+A\nN-B\nPI\n+\n");
    for (int i = 0; i < 14; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\nT1\n", mv[i]);
    rec_kifu_error_t e;
    int rc = read_err(buf, n, REC_FMT_CSA, &e);
    /* +5755FU is on line 5 + 2*10 + 1 = 26, +5655FU on line 30 */
    TESTS_CHECK(rc != REC_KIFU_OK && e.line == 30 && strstr(e.msg, "'+5655FU'") &&
                    strstr(e.msg, "after move 11 (+5755FU) at line 26, which is not legal"),
                "rc %d, line %d: %s", rc, e.line, e.msg);
}

/* 步 (U+6B65, the simplified form) for 歩: the error names the move as written and the look-alike. */
static void test_lookalike(void) {
    char buf[4096];
    rec_kifu_error_t e;
    size_t n = make_kif(buf, sizeof buf, "２六步(27)", NULL, -1);
    int rc = read_err(buf, n, REC_FMT_KIF, &e);
    TESTS_CHECK(rc == REC_KIFU_EPARSE && e.line == 12 &&
                    !strcmp(e.msg, "bad move '２六步(27)': '步' is a look-alike of 歩"),
                "rc %d, line %d: %s", rc, e.line, e.msg);
}

/* A KIF cut in the middle of its last line (a copy stopped short): an error on that line that says
 * the file ends there, whether the cut leaves part of the move, or only its number. */
static void test_cut(void) {
    static const struct {
        int cut;
        const char *msg;
    } C[] = {
        {11, "bad move '５四': not a move (read up to column 6) (the file ends on this line without a line "
             "end: cut short?)"},
        {5, "bad move: no move after the move number (the file ends on this line without a line end: cut "
            "short?)"},
        {16,
         "bad move '５四歩(5': not a move (read up to column 6) (the file ends on this line without a line "
         "end: cut short?)"},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        char buf[4096];
        rec_kifu_error_t e;
        size_t n = make_kif(buf, sizeof buf, NULL, NULL, C[i].cut);
        int rc = read_err(buf, n, REC_FMT_KIF, &e);
        TESTS_CHECK(rc == REC_KIFU_EPARSE && e.line == 23 && !strcmp(e.msg, C[i].msg),
                    "cut after %d bytes: rc %d, line %d: %s", C[i].cut, rc, e.line, e.msg);
    }
}

/* The command line: one clear line, exit 1 for the cut file; a record ending in an illegal move
 * converts with a warning that names it. */
static void test_cli(void) {
    char dir[] = "/tmp/kifucam-test-kifuerr-XXXXXX", buf[4096], out[2048], p[256];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    size_t n = make_kif(buf, sizeof buf, NULL, NULL, 11);
    snprintf(p, sizeof p, "%s/cut.kifu", dir);
    FILE *f = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(buf, 1, n, f);
    fclose(f);
    int rc = tests_run_kifucam(dir, "convert cut.kifu out.csa", 1, out, sizeof out);
    TESTS_CHECK(rc == 1 &&
                    !strcmp(out, "kifucam convert: cut.kifu: line 23, column 6: bad move '５四': not a "
                                 "move (read up to column 6) (the file ends on this line without a "
                                 "line end: cut short?)\n"),
                "exit %d: '%s'", rc, out);
    snprintf(p, sizeof p, "%s/end.csa", dir);
    f = fopen(p, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("V2.2\nPI\n+\n+7776FU\n-3334FU\n+2725FU\n", f);
    fclose(f);
    rc = tests_run_kifucam(dir, "convert end.csa end.txt", 1, out, sizeof out);
    TESTS_CHECK(rc == 0 && !strcmp(out, "kifucam convert: warning: end.csa: line 6: move 3 (+2725FU) is not "
                                        "legal: the piece does not move so; kept as written\n"),
                "exit %d: '%s'", rc, out);
    /* the input named as the output (here by another path): refused, the file unchanged */
    rc = tests_run_kifucam(dir, "convert end.csa ./end.csa --to kif", 1, out, sizeof out);
    TESTS_CHECK(rc == 1 && !strcmp(out, "kifucam convert: ./end.csa: IN and OUT are the same file; write to "
                                        "another name\n"),
                "exit %d: '%s'", rc, out);
    f = fopen(p, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "V2.2\nPI\n+\n+7776FU\n-3334FU\n+2725FU\n");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CU_ASSERT(system(cmd) == 0);
}

int tests_register_kifu_errors(void) {
    CU_pSuite s = CU_add_suite("recorder/kifu_errors", NULL, NULL);
    if (s == NULL ||
        CU_add_test(s, "a KIF typo named at its line, not where a move fails", test_typo_kif) == NULL ||
        CU_add_test(s, "a CSA typo named at its line", test_typo_csa) == NULL ||
        CU_add_test(s, "a look-alike character named", test_lookalike) == NULL ||
        CU_add_test(s, "a KIF cut mid-line is an error that says so", test_cut) == NULL ||
        CU_add_test(s, "convert: the cut file exits 1, an illegal last move warns, IN as OUT refused",
                    test_cli) == NULL)
        return -1;
    return 0;
}
