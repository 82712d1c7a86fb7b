/* test_record_meta.c - who plays where on `kifucam record`'s command line (recorder/cli/meta.c): the
 * options checked, one row of a pairings CSV file picked by --board, the options winning over it. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/cli/cli.h"
#include "tests/tests.h"

/* Parses argv (argv[0] "record") as record does; returns the first non-zero of cli_meta_option. */
static int parse(int argc, char **argv, rec_out_meta_t *m, const char **pairings) {
    memset(m, 0, sizeof *m);
    *pairings = NULL;
    for (int i = 1; i < argc; i++) {
        int r = cli_meta_option("record", argc, argv, &i, m, pairings);
        if (r <= 0)
            return r < 0 ? -1 : i;
    }
    return 0;
}

static void test_options(void) {
    rec_out_meta_t m;
    const char *pf;
    char *a1[] = {"record",       "--event",        "竜王戦",      "--round=2", "--board", "7",
                  "--sente-name", "Habu Yoshiharu", "--gote-name", "藤井聡太",  "--site",  "Kyoto"};
    CU_ASSERT_EQUAL(parse(12, a1, &m, &pf), 0);
    CU_ASSERT_STRING_EQUAL(m.event, "竜王戦");
    CU_ASSERT_STRING_EQUAL(m.round, "2");
    CU_ASSERT_STRING_EQUAL(m.board, "7");
    CU_ASSERT_STRING_EQUAL(m.sente, "Habu Yoshiharu");
    CU_ASSERT_STRING_EQUAL(m.gote, "藤井聡太");
    CU_ASSERT_STRING_EQUAL(m.site, "Kyoto");
    CU_ASSERT_PTR_NULL(pf);
    /* refused with one line: a control character, a name with no Shift_JIS form, given twice */
    char *a2[] = {"record", "--sente-name", "A\tB"};
    CU_ASSERT_EQUAL(parse(3, a2, &m, &pf), -1);
    char *a3[] = {"record", "--gote-name", "\xF0\x9F\x98\x80"};
    CU_ASSERT_EQUAL(parse(3, a3, &m, &pf), -1);
    char *a4[] = {"record", "--board", "1", "--board", "2"};
    CU_ASSERT_EQUAL(parse(5, a4, &m, &pf), -1);
    /* another option is left to the caller: its index */
    char *a5[] = {"record", "--board", "1", "--source", "x.mp4"};
    CU_ASSERT_EQUAL(parse(5, a5, &m, &pf), 3);
}

static void test_pairings(void) {
    char path[] = "/tmp/kifucam-pairings-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("board, sente ,gote,round,event\n"
          "1,Alice,Bob,1,Club Open\n"
          "12,\"Habu, Yoshiharu\",\"Kato \"\"Hifumin\"\" Hifumi\",1,Club Open\n"
          "13,藤井聡太,豊島将之,1,\n",
          f);
    fclose(f);
    rec_out_meta_t m;
    const char *pf;
    char *a1[] = {"record", "--pairings", path, "--board", "12"};
    CU_ASSERT_EQUAL(parse(5, a1, &m, &pf), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pf);
    CU_ASSERT_EQUAL(cli_meta_pairings("record", pf, &m), 0);
    CU_ASSERT_STRING_EQUAL(m.sente, "Habu, Yoshiharu");
    CU_ASSERT_STRING_EQUAL(m.gote, "Kato \"Hifumin\" Hifumi");
    CU_ASSERT_STRING_EQUAL(m.event, "Club Open");
    CU_ASSERT_STRING_EQUAL(m.round, "1");
    /* an option given wins over the file; an empty cell gives nothing */
    char *a2[] = {"record", "--pairings", path, "--board", "13", "--event", "Kansai Cup"};
    CU_ASSERT_EQUAL(parse(7, a2, &m, &pf), 0);
    CU_ASSERT_EQUAL(cli_meta_pairings("record", pf, &m), 0);
    CU_ASSERT_STRING_EQUAL(m.sente, "藤井聡太");
    CU_ASSERT_STRING_EQUAL(m.gote, "豊島将之");
    CU_ASSERT_STRING_EQUAL(m.event, "Kansai Cup");
    /* no such board, no --board, no file */
    char *a3[] = {"record", "--pairings", path, "--board", "99"};
    CU_ASSERT_EQUAL(parse(5, a3, &m, &pf), 0);
    CU_ASSERT_EQUAL(cli_meta_pairings("record", pf, &m), EXIT_USER);
    memset(&m, 0, sizeof m);
    CU_ASSERT_EQUAL(cli_meta_pairings("record", path, &m), EXIT_USER);
    snprintf(m.board, sizeof m.board, "1");
    CU_ASSERT_EQUAL(cli_meta_pairings("record", "/nonexistent/pairings.csv", &m), EXIT_USER);
    unlink(path);
}

/* Writes TEXT to a new temporary file at PATH (a mkstemp template). */
static void write_tmp(char *path, const char *text) {
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

static void test_pairings_refused(void) {
    rec_out_meta_t m;
    /* the board twice: which pair plays there is not known */
    char p1[] = "/tmp/kifucam-pairings-XXXXXX";
    write_tmp(p1, "board,sente,gote\n3,Alice,Bob\n4,Carol,Dave\n3,Erin,Frank\n");
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "3");
    CU_ASSERT_EQUAL(cli_meta_pairings("record", p1, &m), EXIT_USER);
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "4");
    CU_ASSERT_EQUAL(cli_meta_pairings("record", p1, &m), 0);
    CU_ASSERT_STRING_EQUAL(m.sente, "Carol");
    unlink(p1);
    /* the board's row cut short (a missing comma shifts the columns); another short row is not read */
    char p2[] = "/tmp/kifucam-pairings-XXXXXX";
    write_tmp(p2, "board,sente,gote,round\n5,Alice Bob,1\n6,Carol,Dave,1\n7,x\n");
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "5");
    CU_ASSERT_EQUAL(cli_meta_pairings("record", p2, &m), EXIT_USER);
    CU_ASSERT_STRING_EQUAL(m.gote, "");
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "6");
    CU_ASSERT_EQUAL(cli_meta_pairings("record", p2, &m), 0);
    CU_ASSERT_STRING_EQUAL(m.gote, "Dave");
    unlink(p2);
    /* a spreadsheet's "CSV UTF-8": a byte order mark, CRLF, column names in capitals and spaced */
    char p3[] = "/tmp/kifucam-pairings-XXXXXX";
    write_tmp(p3, "\xEF\xBB\xBF"
                  "Board, Sente , GOTE\r\n3,羽生善治,藤井聡太\r\n");
    memset(&m, 0, sizeof m);
    snprintf(m.board, sizeof m.board, "3");
    CU_ASSERT_EQUAL(cli_meta_pairings("record", p3, &m), 0);
    CU_ASSERT_STRING_EQUAL(m.sente, "羽生善治");
    CU_ASSERT_STRING_EQUAL(m.gote, "藤井聡太");
    unlink(p3);
    /* a header without a player's column: the pairing would name one player or none */
    static const char *const heads[] = {"board,sente\n3,Alice\n", "board\n3\n",
                                        "board,gote,round\n3,Bob,1\n"};
    for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++) {
        char p4[] = "/tmp/kifucam-pairings-XXXXXX";
        write_tmp(p4, heads[k]);
        memset(&m, 0, sizeof m);
        snprintf(m.board, sizeof m.board, "3");
        CU_ASSERT_EQUAL(cli_meta_pairings("record", p4, &m), EXIT_USER);
        CU_ASSERT_STRING_EQUAL(m.sente, "");
        unlink(p4);
    }
}

int tests_register_record_meta(void) {
    CU_pSuite s = CU_add_suite("recorder/record_meta", NULL, NULL);
    if (s == NULL)
        return -1;
    if (!CU_add_test(s, "--event --round --board --sente-name --gote-name", test_options) ||
        !CU_add_test(s, "--pairings: the row of --board", test_pairings) ||
        !CU_add_test(s, "--pairings: a board twice, a row cut short; a BOM and capitals",
                     test_pairings_refused))
        return -1;
    return 0;
}
