/* test_recognize.c - `kifucam recognize` end to end (recorder/cli/main.c): real photos of
 * ../shared/data/photos (read at run time; skipped when absent) through the program as a user runs it:
 * the SFEN of na-o-ys board 1 (boards_sfen.txt, 1.txt), `--sente top` turning the reading of board 8
 * by 180 degrees with the colours swapped, and bad input answered by one line and exit status 1. */
#include <CUnit/CUnit.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "recorder/cli/cli.h"
#include "recorder/record/record.h"
#include "tests/tests.h"
#include "tests/vision/vision_test_util.h"

/* The 81 squares of an SFEN board field as tokens ("+p", "K", "" for empty), rank 1 first, file 9
 * first in a rank. Returns 0, or -1 if the field is not 9 ranks of 9. */
static int board_tokens(const char *field, char tok[81][3]) {
    int sq = 0, rank_len = 0, ranks = 1;
    for (const char *p = field; *p && *p != ' '; p++) {
        if (*p == '/') {
            if (rank_len != 9)
                return -1;
            rank_len = 0;
            ranks++;
        } else if (*p >= '1' && *p <= '9') {
            for (int i = 0; i < *p - '0' && sq < 81; i++, rank_len++)
                tok[sq++][0] = 0;
        } else if (sq < 81) {
            int n = 0;
            if (*p == '+')
                tok[sq][n++] = *p++;
            tok[sq][n++] = *p;
            tok[sq][n] = 0;
            sq++;
            rank_len++;
        }
    }
    return sq == 81 && ranks == 9 && rank_len == 9 ? 0 : -1;
}

/* The board field seen from the other end: square 80 - sq, owners (letter case) swapped. */
static void turn_tokens(char in[81][3], char out[81][3]) {
    for (int sq = 0; sq < 81; sq++) {
        strcpy(out[sq], in[80 - sq]);
        for (char *c = out[sq]; *c; c++)
            *c = isupper((unsigned char)*c) ? (char)tolower((unsigned char)*c)
                                            : (char)toupper((unsigned char)*c);
    }
}

static int photo(char *buf, size_t size, const char *name) {
    char rel[256];
    snprintf(rel, sizeof rel, "photos/na-o-ys/%s", name);
    return tests_shared_path(buf, size, rel) == 0 && access(buf, R_OK) == 0 ? 0 : -1;
}

static void test_board1_sfen(void) {
    char path[4096], args[4400], out[8192];
    if (photo(path, sizeof path, "board1_rectified_896x960.png") != 0) {
        tests_skip_shared("recognize: na-o-ys board 1");
        return;
    }
    snprintf(args, sizeof args, "recognize '%s'", path);
    int rc = tests_run_kifucam(".", args, 0, out, sizeof out);
    CU_ASSERT_EQUAL(rc, 0);
    /* boards_sfen.txt 1.txt; the stands are out of view (unknown: the hands field says "-") */
    TESTS_CHECK(strcmp(out, "lnsgk1snl/1r4gb1/p1ppppppp/9/9/9/PPPPPPP1P/1BG4R1/LNS1KGSNL b - 1\n") == 0,
                "board 1 read as '%s'", out);
    /* the JSON says the reading is a possible position */
    snprintf(args, sizeof args, "recognize '%s' --json", path);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "\"possible_position\": {\"ok\": true, \"why\": null}") != NULL, "json: %.300s",
                out);
    /* found by its lines, where it was: no note of a moved grid in the JSON */
    TESTS_CHECK(strstr(out, "\"pose\": {\"found_by\": \"lines\", \"grid_moved\": null, ") != NULL,
                "json: %.300s", strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
    snprintf(args, sizeof args, "recognize '%s'", path);
    /* the stands unknown are said on stderr, never printed as empty hands silently */
    rc = tests_run_kifucam(".", args, 1, out, sizeof out);
    TESTS_CHECK(strstr(out, "sente's komadai is not in view") != NULL, "stderr: %s", out);
    /* in words: unknown, not the SFEN's '-' (which an SFEN needs, and which would read as "none") */
    TESTS_CHECK(
        strstr(out, "\nkifucam recognize: warning: gote's komadai is not in view: gote's hand is unknown "
                    "(an SFEN cannot say so: its hands field leaves gote's pieces out, '-' when no hand "
                    "is read, which here does not mean none in hand)\n") != NULL ||
            strstr(out, "kifucam recognize: warning: gote's komadai is not in view: gote's hand is "
                        "unknown (an SFEN cannot say so: its hands field leaves gote's pieces out, '-' "
                        "when no hand is read, which here does not mean none in hand)\n") == out,
        "stderr: %s", out);
}

static void test_sente_top(void) {
    char path[4096], args[4400], bottom[8192], top[8192], tb[81][3], tt[81][3], turned[81][3];
    if (photo(path, sizeof path, "board8_rectified_448x480.png") != 0) {
        tests_skip_shared("recognize: na-o-ys board 8");
        return;
    }
    snprintf(args, sizeof args, "recognize '%s' --sente bottom", path);
    CU_ASSERT_EQUAL_FATAL(tests_run_kifucam(".", args, 0, bottom, sizeof bottom), 0);
    snprintf(args, sizeof args, "recognize '%s' --sente top", path);
    CU_ASSERT_EQUAL_FATAL(tests_run_kifucam(".", args, 0, top, sizeof top), 0);
    CU_ASSERT_EQUAL_FATAL(board_tokens(bottom, tb), 0);
    CU_ASSERT_EQUAL_FATAL(board_tokens(top, tt), 0);
    turn_tokens(tb, turned);
    int same = 0, differ = 0;
    for (int sq = 0; sq < 81; sq++) {
        same += strcmp(turned[sq], tt[sq]) == 0;
        differ += strcmp(tb[sq], tt[sq]) != 0;
    }
    /* the same read, turned: every square; and board 8 is not symmetric, so the text differs */
    TESTS_CHECK(same == 81, "--sente top is the bottom read turned on %d/81 squares:\n%s%s", same, bottom,
                top);
    CU_ASSERT(differ > 10);
    /* without --sente the image's lower side is sente's, as --sente bottom */
    snprintf(args, sizeof args, "recognize '%s'", path);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, top, sizeof top), 0);
    CU_ASSERT_STRING_EQUAL(top, bottom);
}

/* One line on stderr, nothing on stdout, exit status 1; the line names no library function (a user
 * reads "x.png: No such file or directory", not "cap_read_file: x.png: ..."). */
static void one_line_error(const char *args, const char *want) {
    char out[8192];
    int rc = tests_run_kifucam("/tmp", args, 0, out, sizeof out);
    TESTS_CHECK(rc == 1 && out[0] == 0, "kifucam %s: exit %d, stdout '%s'", args, rc, out);
    rc = tests_run_kifucam("/tmp", args, 1, out, sizeof out);
    char *nl = strchr(out, '\n');
    TESTS_CHECK(nl != NULL && nl[1] == 0 && strncmp(out, "kifucam recognize: ", 19) == 0 && strstr(out, want),
                "kifucam %s said '%s' (want one line with '%s')", args, out, want);
    TESTS_CHECK(strstr(out, "cap_") == NULL && strstr(out, "vis_") == NULL, "kifucam %s said '%s'", args,
                out);
}

/* A thick stroke from (x0, y0) to (x1, y1) in a grey BGR image. */
static void stroke(cap_image_t *im, double x0, double y0, double x1, double y1, int width, unsigned char v) {
    for (int t = 0; t <= 200; t++) {
        int cx = (int)(x0 + (x1 - x0) * t / 200), cy = (int)(y0 + (y1 - y0) * t / 200);
        for (int dy = -width / 2; dy <= width / 2; dy++)
            for (int dx = -width / 2; dx <= width / 2; dx++)
                if (cx + dx >= 0 && cy + dy >= 0 && cx + dx < im->width && cy + dy < im->height)
                    memset(im->data + (size_t)(cy + dy) * im->stride + 3 * (size_t)(cx + dx), v, 3);
    }
}

/* A 9x9 grid drawn on paper with a letter A in about half its squares: found by its lines, but its
 * "pieces" are more than a set holds and mostly one class (v16 reads the letters as 32 tokins and 7
 * bishops) or are read with little confidence (v6: median 0.15), so it is no board (it was printed as a
 * position of promoted pawns and bishops, exit 0). An empty drawn grid still reads as an empty board. */
static void test_letter_grid(void) {
    enum { W = 760, H = 800, X0 = 40, Y0 = 40, SW = 75, SH = 80 };
    char dir[] = "/tmp/kifucam-test-grid-XXXXXX", path[256], args[600], out[8192];
    cap_image_t im = {W, H, 3 * W, malloc((size_t)W * H * 3)};
    cap_codec_t *c = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(im.data);
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL && cap_codec_create(&c) == 0);
    for (int letters = 0; letters < 2; letters++) {
        memset(im.data, 235, (size_t)W * H * 3);
        for (int k = 0; k <= 9; k++) {
            stroke(&im, X0 + k * SW, Y0, X0 + k * SW, Y0 + 9 * SH, 2, 20);
            stroke(&im, X0, Y0 + k * SH, X0 + 9 * SW, Y0 + k * SH, 2, 20);
        }
        unsigned seed = 3;
        for (int f = 0; letters && f < 9; f++)
            for (int r = 0; r < 9; r++) {
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 16) % 100 >= 45)
                    continue;
                double x = X0 + f * SW + SW / 2.0, y = Y0 + r * SH;
                stroke(&im, x - 16, y + 62, x, y + 18, 4, 30);
                stroke(&im, x, y + 18, x + 16, y + 62, 4, 30);
                stroke(&im, x - 9, y + 44, x + 9, y + 44, 4, 30);
            }
        snprintf(path, sizeof path, "%s/grid%d.jpg", dir, letters);
        CU_ASSERT_EQUAL_FATAL(cap_jpeg_write(c, &im, 92, path), 0);
        snprintf(args, sizeof args, "recognize '%s'", path);
        int rc = tests_run_kifucam(".", args, 1, out, sizeof out);
        if (letters) /* one line: the notes and warnings of the reading are not printed (main_help) */
            TESTS_CHECK(rc == 1 && strstr(out, "no board found: a 9x9 grid was found") &&
                            strstr(out, "not taken as a board") && !strstr(out, " b - 1") &&
                            strchr(out, '\n') == out + strlen(out) - 1,
                        "letter grid: exit %d, '%s'", rc, out);
        else
            TESTS_CHECK(rc == 0 && strstr(out, "9/9/9/9/9/9/9/9/9 b - 1"), "empty grid: exit %d, '%s'", rc,
                        out);
    }
    cap_codec_destroy(c);
    free(im.data);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

/* Writes img without its left `left` % and its bottom `bottom` % as dir/cut.jpg (JPEG quality 95), its
 * path into cut (size n). Returns cap_jpeg_write's result. */
static int write_cut(cap_codec_t *c, const cap_image_t *img, int left, int bottom, const char *dir, char *cut,
                     size_t n) {
    int dx = img->width * left / 100;
    cap_image_t view = *img;
    view.data += 3 * (size_t)dx;
    view.width -= dx;
    view.height -= img->height * bottom / 100;
    snprintf(cut, n, "%s/cut.jpg", dir);
    return cap_jpeg_write(c, &view, 95, cut);
}

/* A board cut by the frame's edge: hash451722's photo without its left 15 % (file 9 past the edge). The
 * squares whose middles do not lie wholly in the image are unknown in the JSON (piece null, seen false,
 * what the image showed there read as) and listed in "unseen"; the outer line beyond file 9 is "past
 * the edge", with a warning that the files may be read over. The whole photo has none of this. */
static void test_cut_unseen(void) {
    char path[4096], dir[] = "/tmp/kifucam-test-cut-XXXXXX", cut[256], args[4400], err[256];
    static char out[65536];
    cap_image_t img;
    cap_codec_t *c = NULL;
    if (tests_shared_path(path, sizeof path, "photos/hash451722/sample_board.jpg") != 0 ||
        access(path, R_OK) != 0) {
        tests_skip_shared("recognize: hash451722 cut");
        return;
    }
    snprintf(args, sizeof args, "recognize '%s' --json", path);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "\"unseen\": []}") != NULL && strstr(out, "\"seen\": false") == NULL &&
                    strstr(out, "\"beyond_file9\": \"in view\", \"beyond_file1\": \"in view\"") != NULL,
                "whole photo: %.200s", strstr(out, "\"unseen\"") ? strstr(out, "\"unseen\"") : out);
    CU_ASSERT_FATAL(cap_image_load(path, &img, err, sizeof err) == 0 && mkdtemp(dir) != NULL &&
                    cap_codec_create(&c) == 0);
    CU_ASSERT_EQUAL_FATAL(write_cut(c, &img, 15, 0, dir, cut, sizeof cut), 0);
    snprintf(args, sizeof args, "recognize '%s' --json", cut);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(
        strstr(out,
               "\"unseen\": [\"91\", \"92\", \"93\", \"94\", \"95\", \"96\", \"97\", \"98\", \"99\"]}") !=
            NULL,
        "cut photo: %.200s", strstr(out, "\"unseen\"") ? strstr(out, "\"unseen\"") : out);
    /* the outer line beyond file 9 lies past the edge, the other three in view: said on stderr too */
    TESTS_CHECK(
        strstr(out, "\"outer_lines\": {\"beyond_file9\": \"past the edge\", \"beyond_file1\": \"in view\", "
                    "\"beyond_rank1\": \"in view\", \"beyond_rank9\": \"in view\"}") != NULL,
        "cut photo pose: %.300s", strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
    TESTS_CHECK(strstr(out, "{\"square\": \"91\", \"piece\": null, \"seen\": false, \"read_as\": ") != NULL &&
                    strstr(out, "{\"square\": \"51\", \"piece\": \"k\", \"seen\": true, ") != NULL,
                "cut photo squares: %.300s", strstr(out, "\"squares\"") ? strstr(out, "\"squares\"") : out);
    snprintf(args, sizeof args, "recognize '%s'", cut);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 1, out, sizeof out), 0);
    TESTS_CHECK(
        strstr(out, "warning: the grid's outer line beyond file 9 lies on the image's edge or past it") !=
            NULL,
        "cut photo, stderr: %.600s", out);
    /* cut at a corner (15 % off the left and the bottom): the grid found was a rank over, its rank-1 strip
     * above the board and across the image's top edge, judged on its part in view (vis_board_off_strips)
     * and moved back: rank 9 then runs across the bottom edge, unseen with file 9 */
    CU_ASSERT_EQUAL_FATAL(write_cut(c, &img, 15, 15, dir, cut, sizeof cut), 0);
    snprintf(args, sizeof args, "recognize '%s' --json", cut);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(
        strstr(out,
               "\"off_board_strips\": [{\"strip\": \"rank 1\", \"moved\": \"one row towards rank 9\"}]") !=
            NULL,
        "corner cut: %.300s", strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
    TESTS_CHECK(strstr(out, "/1+r5+r1/1+p+p+p+p+p+p+p+p/9/9/9/1PPPPPPPP/1S5R1/") != NULL,
                "corner cut: %.160s", out);
    cap_codec_destroy(c);
    cap_image_free(&img);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

/* A board cut by the frame's edge: sanjaykumar695's start position without its left 15 %. A grid that
 * took a line of the table's wood grain for the outer line beyond file 1 read every file one over, with
 * all four outer lines in view and nothing said. Now the grid is found with file 9 past the image's edge
 * (its lines scored where the squares are empty), or, found a file over, moved back because the strip
 * of squares past the board's edge does not look like the board (vis_board_off_strips); either way file
 * 9 is unseen, the files 8-1 read as they are, and stderr says the board may be cut there. */
static void test_cut_off_board(void) {
    char path[4096], dir[] = "/tmp/kifucam-test-offboard-XXXXXX", cut[256], args[4400], err[256];
    static char out[65536];
    cap_image_t img;
    cap_codec_t *c = NULL;
    if (tests_shared_path(path, sizeof path, "photos/sanjaykumar695/normal.jpg") != 0 ||
        access(path, R_OK) != 0) {
        tests_skip_shared("recognize: sanjaykumar695 cut");
        return;
    }
    CU_ASSERT_FATAL(cap_image_load(path, &img, err, sizeof err) == 0 && mkdtemp(dir) != NULL &&
                    cap_codec_create(&c) == 0);
    CU_ASSERT_EQUAL_FATAL(write_cut(c, &img, 15, 0, dir, cut, sizeof cut), 0);
    snprintf(args, sizeof args, "recognize '%s' --json", cut);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(
        (strstr(out, "\"off_board_strips\": []") != NULL ||
         strstr(out,
                "\"off_board_strips\": [{\"strip\": \"file 1\", \"moved\": \"one file towards file 9\"}]") !=
             NULL) &&
            strstr(out, "\"beyond_file9\": \"past the edge\"") != NULL,
        "cut: %.300s", strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
    /* files 8-1 as they are: gote's first rank and pawns where the start position has them, file 9 unseen */
    TESTS_CHECK(strstr(out, "\"sfen\": \"1nsgkgsnl/") != NULL &&
                    strstr(out, "pppppppp/9/9/9/1PPPPPPPP/") != NULL,
                "cut: %.120s", out);
    TESTS_CHECK(
        strstr(out,
               "\"unseen\": [\"91\", \"92\", \"93\", \"94\", \"95\", \"96\", \"97\", \"98\", \"99\"]}") !=
            NULL,
        "cut: %.200s", strstr(out, "\"unseen\"") ? strstr(out, "\"unseen\"") : out);
    snprintf(args, sizeof args, "recognize '%s'", cut);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 1, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "warning: the squares of file 1 do not look like the board") != NULL ||
                    strstr(out, "warning: the grid's outer line beyond file 9 lies on the image's edge or "
                                "past it: if the board is cut there") != NULL,
                "cut, stderr: %.600s", out);
    /* cut at a corner too (15 % off the left and the bottom): a grid a file or a rank over (its strip on
     * the board's black border and the table) is moved back, never left so; rank 9 then runs across
     * the image's edge and is unseen with file 9 */
    CU_ASSERT_EQUAL_FATAL(write_cut(c, &img, 15, 15, dir, cut, sizeof cut), 0);
    snprintf(args, sizeof args, "recognize '%s' --json", cut);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "\"moved\": null") == NULL &&
                    strstr(out, "\"beyond_file9\": \"past the edge\"") != NULL &&
                    strstr(out, "\"beyond_rank9\": \"past the edge\"") != NULL,
                "corner cut: %.300s", strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
    TESTS_CHECK(strstr(out, "\"sfen\": \"1nsgkgsnl/") != NULL &&
                    strstr(out, "/1pppppppp/9/9/9/1PPPPPPPP/1B5R1/") != NULL,
                "corner cut: %.120s", out);
    TESTS_CHECK(strstr(out,
                       "\"unseen\": [\"19\", \"29\", \"39\", \"49\", \"59\", \"69\", \"79\", \"89\", \"91\", "
                       "\"92\", \"93\", \"94\", \"95\", \"96\", \"97\", \"98\", \"99\"]}") != NULL,
                "corner cut: %.200s", strstr(out, "\"unseen\"") ? strstr(out, "\"unseen\"") : out);
    /* the whole photo: no strip off the board */
    snprintf(args, sizeof args, "recognize '%s' --json", path);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "\"off_board_strips\": []") != NULL, "whole photo: %.300s",
                strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
    cap_codec_destroy(c);
    cap_image_free(&img);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

static void test_bad_input(void) {
    char dir[] = "/tmp/kifucam-test-recognize-XXXXXX", path[4200], args[4400];
    if (mkdtemp(dir) == NULL)
        return;
    snprintf(path, sizeof path, "%s/notes.png", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("not a picture\n", f);
        fclose(f);
    }
    snprintf(args, sizeof args, "recognize '%s'", path);
    one_line_error(args, "notes.png");
    snprintf(args, sizeof args, "recognize '%s/none.jpg'", dir);
    one_line_error(args, "none.jpg: No such file or directory");
    snprintf(path, sizeof path, "%s/bad.jpg", dir);
    if ((f = fopen(path, "wb")) != NULL) { /* a JPEG header and nothing after it */
        fputs("\xff\xd8\xff\xe0garbage", f);
        fclose(f);
    }
    snprintf(args, sizeof args, "recognize '%s'", path);
    one_line_error(args, "bad.jpg: ");
    /* a FIFO named like a photo: refused at once (opening it waited for a writer forever) */
    snprintf(path, sizeof path, "%s/pipe.png", dir);
    if (mkfifo(path, 0600) == 0) {
        snprintf(args, sizeof args, "recognize '%s'", path);
        one_line_error(args, "pipe.png: not a regular file");
    }
    one_line_error("recognize x.png --sente diag", "bottom, top, left or right");
    one_line_error("recognize", "missing IMAGE");
    one_line_error("recognize ''", "missing IMAGE");
    /* an option given twice: which one was meant cannot be told (the last one won silently before) */
    one_line_error("recognize x.png --overlay a.png --overlay=b.png", "option --overlay given twice");
    one_line_error("recognize x.png --sente top --json --sente bottom", "option --sente given twice");
    /* an unknown option is named so, as in every command; a name starting with '-' goes after "--" */
    one_line_error("recognize --bogus x.png", "unknown option '--bogus'");
    one_line_error("recognize -kifucam-none.jpg", "unknown option '-kifucam-none.jpg'");
    one_line_error("recognize --json -- -kifucam-none.jpg", "-kifucam-none.jpg: No such file or directory");
    one_line_error("recognize -- -kifucam-none.jpg more.jpg", "unexpected argument 'more.jpg'");
    {
        /* a path of 2,000 bytes: the line keeps its reason (error buffers were 512 bytes) */
        char longp[2100], largs[2300];
        memset(longp, 'd', sizeof longp);
        memcpy(longp, "/kifucam-none/", 14);
        memcpy(longp + 2000, ".png", 5);
        snprintf(largs, sizeof largs, "recognize %s", longp);
        one_line_error(largs, "dd.png: No such file or directory");
    }
    {
        static const char *const cases[][2] = {
            /* a forgotten value: the next option is not taken as the folder's name */
            {"record --source a.mp4 --out --fps 5",
             "kifucam record: option --out needs a value, not the option '--fps'"},
            {"record --source a.mp4 --bogus", "kifucam record: unknown option '--bogus'"},
            {"probe --bogus", "kifucam probe: unknown option '--bogus'"},
            {"convert -- -kifucam-none.kif out.csa",
             "kifucam convert: -kifucam-none.kif: No such file or directory"},
            {"convert -kifucam-none.kif out.csa", "kifucam convert: unknown option '-kifucam-none.kif'"},
            {"impasse", "[--json]"},
            /* --out: a folder is made, but no tree for a mistyped path, and never over a file */
            {"record --source /tmp --out /kifucam-none/deep/dir",
             "kifucam record: --out /kifucam-none/deep/dir: the folder '/kifucam-none/deep' does not exist"},
            {"record --source /tmp --out /etc/passwd",
             "kifucam record: --out /etc/passwd: exists and is not a folder"},
            {"probe -- -kifucam-none.mp4", "kifucam probe: -kifucam-none.mp4: "},
            /* the model file: what is wrong with it, and how to give another */
            {"record --source /tmp --model /kifucam-none.onnx",
             "kifucam record: /kifucam-none.onnx: no such file; the square classifier is given by --model "
             "FILE"},
            {"record --source /tmp --model /etc/passwd",
             "kifucam record: /etc/passwd: not an ONNX network; the"},
            {"record --source /tmp --model /dev/null", "kifucam record: /dev/null: not a regular file; the"},
            /* an empty value (an unset shell variable), a file where a folder should be */
            {"record --source '' --out /tmp/o",
             "kifucam record: option --source needs a value, not an empty one"},
            {"record --source a.mp4 --out=", "kifucam record: option --out needs a value, not an empty one"},
            {"recognize x.jpg --model ''",
             "kifucam recognize: option --model needs a value, not an empty one"},
            {"record --source /tmp --out /etc/passwd/sub",
             "kifucam record: --out /etc/passwd/sub: '/etc/passwd' is not a folder"},
            /* one wording and the whole list of names, both commands */
            {"record --source /tmp --handicap bogus",
             "kifucam record: --handicap 'bogus': not a handicap (even, lance, right-lance, bishop, rook, "
             "rook-lance, 2-piece, 3-piece, 4-piece, 5-piece, left-5-piece, 6-piece, left-7-piece, "
             "right-7-piece, "
             "8-piece, 10-piece)"},
            {"recognize x.jpg --handicap bogus",
             "kifucam recognize: --handicap 'bogus': not a handicap (even, lance, "},
            /* --resume goes on from the recording's own start */
            {"record --source /tmp --resume /tmp --start startpos",
             "kifucam record: --resume continues a recording from its own start: --start cannot be given "
             "with it"},
            /* --live [ADDR:]PORT: an address that is no IP literal, an IPv6 one without brackets, no port */
            {"record --source /tmp --live example.org:8765",
             "kifucam record: --live 'example.org:8765': 'example.org' is not an IP address"},
            {"record --source /tmp --live ::1:8765",
             "kifucam record: --live '::1:8765': an IPv6 address is written [ADDR]:PORT"},
            {"record --source /tmp --live 127.0.0.1:",
             "kifucam record: --live '127.0.0.1:': must be [ADDR:]PORT, a TCP port 1-65535"},
            /* an option before the command, the whole usage of perft */
            {"--bogus", "kifucam: unknown option '--bogus'"},
            {"perft", "kifucam perft: missing DEPTH (usage: kifucam perft [--sfen SFEN] [--divide] DEPTH)"},
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            char out[8192];
            int rc = tests_run_kifucam("/tmp", cases[k][0], 1, out, sizeof out);
            TESTS_CHECK(rc == 1 && strstr(out, cases[k][1]) && strchr(out, '\n') == out + strlen(out) - 1,
                        "kifucam %s: exit %d, '%s' (want one line with '%s')", cases[k][0], rc, out,
                        cases[k][1]);
        }
    }
    {
        /* a model whose output is NaN (tests/data/make_nan_model.py): refused when loaded, no position made
         */
        char out[8192];
        int rc = tests_run_kifucam(
            ".", "record --source samples/sample-clip.mp4 --model tests/data/nan-model.onnx", 1, out,
            sizeof out);
        TESTS_CHECK(
            rc == 1 &&
                strstr(out, "nan-model.onnx: not a usable square classifier: its output is not a number"),
            "NaN model: exit %d, '%s'", rc, out);
    }
    {
        /* an --out folder that was there before: a failed run (no board) leaves it as it was, and a kifu of
         * another game in it is refused, not written over */
        char dir[] = "/tmp/kifucam-test-outdir-XXXXXX", args[256], out[8192], ls[512];
        CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
        snprintf(args, sizeof args, "record --source tests/data/record-noboard.mp4 --out %s", dir);
        int rc = tests_run_kifucam(".", args, 1, out, sizeof out);
        snprintf(ls, sizeof ls, "rmdir %s", dir); /* fails unless the folder is empty */
        TESTS_CHECK(rc == 1 && strstr(out, "no board found") && system(ls) == 0,
                    "no board, --out there before: exit %d, '%s'", rc, out);
        /* ... with a source.jsonl of its own: not appended to (a later run would continue its lines) */
        CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
        snprintf(ls, sizeof ls, "echo '{\"type\": \"mine\"}' > %s/source.jsonl", dir);
        CU_ASSERT_FATAL(system(ls) == 0);
        rc = tests_run_kifucam(".", args, 1, out, sizeof out);
        snprintf(ls, sizeof ls,
                 "test \"$(cat %s/source.jsonl)\" = '{\"type\": \"mine\"}' && rm %s/source.jsonl && rmdir %s",
                 dir, dir, dir);
        TESTS_CHECK(rc == 1 && system(ls) == 0, "no board, a source.jsonl there before: exit %d, '%s'", rc,
                    out);
        CU_ASSERT_FATAL(mkdir(dir, 0700) == 0);
        snprintf(ls, sizeof ls, "cp samples/sample-game.usi %s/game.usi", dir);
        CU_ASSERT_FATAL(system(ls) == 0);
        snprintf(args, sizeof args, "record --source samples/sample-clip.mp4 --out %s", dir);
        rc = tests_run_kifucam(".", args, 1, out, sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, "already holds game.usi, which this recording would write over") &&
                        strchr(out, '\n') == out + strlen(out) - 1,
                    "game.usi there: exit %d, '%s'", rc, out);
        snprintf(ls, sizeof ls, "cmp -s samples/sample-game.usi %s/game.usi && rm %s/game.usi && rmdir %s",
                 dir, dir, dir);
        CU_ASSERT_EQUAL(system(ls), 0);
    }
    {
        /* an --out folder that cannot be made (its parent exists): the error names it, not its evidence/ */
        char out[8192];
        int rc = tests_run_kifucam(".", "record --source samples/sample-clip.mp4 --out /proc/kifucam-none", 1,
                                   out, sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, "kifucam record: /proc/kifucam-none: ") &&
                        !strstr(out, "evidence"),
                    "--out in /proc: exit %d, '%s'", rc, out);
    }
    {
        /* --handicap rook on the even-game sample: no game, and the run says why with exit 1 (a wrong
         * start is the operator's error, not a recording) */
        char dir[] = "/tmp/kifucam-test-rook-XXXXXX", args[256], out[16384], rm[300];
        CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
        snprintf(args, sizeof args, "record --source samples/sample-clip.mp4 --out %s/r --handicap rook",
                 dir);
        int rc = tests_run_kifucam(".", args, 1, out, sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, "kifucam record: no game recorded: the board looks like the even "
                                           "start, not the --handicap given"),
                    "--handicap rook on an even game: exit %d, '%s'", rc, out);
        snprintf(rm, sizeof rm, "rm -rf %s", dir);
        CU_ASSERT_EQUAL(system(rm), 0);
    }
    {
        /* an empty model file (a failed copy): not a network, not "cannot read" */
        char path[] = "/tmp/kifucam-empty-XXXXXX", cmd[128], out[8192];
        int fd = mkstemp(path);
        CU_ASSERT_FATAL(fd >= 0);
        close(fd);
        snprintf(cmd, sizeof cmd, "record --source /tmp --model %s", path);
        int rc = tests_run_kifucam("/tmp", cmd, 1, out, sizeof out);
        TESTS_CHECK(rc == 1 &&
                        strstr(out, "not an ONNX network (an empty file); the square classifier is given by"),
                    "empty model: exit %d, '%s'", rc, out);
        unlink(path);
    }
    {
        char out[8192];
        int rc = tests_run_kifucam("/tmp", "record --source a.mp4 --out /tmp/o --source=b.mp4", 1, out,
                                   sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, "option --source given twice") &&
                        strchr(out, '\n') == out + strlen(out) - 1,
                    "kifucam record --source twice: exit %d, '%s'", rc, out);
        /* record's error line names the file and the problem, not the library functions on the way */
        char rargs[4600];
        snprintf(rargs, sizeof rargs, "record --source '%s/notes.png' --out '%s/rec'", dir, dir);
        rc = tests_run_kifucam(".", rargs, 1, out, sizeof out); /* where models/squares.onnx is */
        TESTS_CHECK(rc == 1 && strstr(out, "notes.png: not an image") && !strstr(out, "cap_"),
                    "kifucam record on a text file: exit %d, '%s'", rc, out);
    }
    {
        char msg[] = "cap_source_open: cap_image_load: a.png: cap_jpeg_decode: bad; recap_x: kept";
        rec_plain_message(msg);
        CU_ASSERT_STRING_EQUAL(msg, "a.png: bad; recap_x: kept");
    }
    CU_ASSERT_EQUAL(cli_opt_repeated((char *[]){"recognize", "--model", "--model", NULL}, 2, "--model"), 1);
    CU_ASSERT_EQUAL(cli_opt_repeated((char *[]){"recognize", "--modelx", "--model", NULL}, 2, "--model"), 0);
    CU_ASSERT_EQUAL(cli_opt_repeated((char *[]){"recognize", "--model=a", "--model", NULL}, 2, "--model"), 1);
    CU_ASSERT_EQUAL(cli_opt_repeated((char *[]){"recognize", "--model", NULL}, 1, "--model"), 0);
    /* an overlay that cannot be written: said before the photo is read (a typo costs one line) */
    snprintf(args, sizeof args, "recognize '%s/none.jpg' --overlay '%s/no-such-folder/o.png'", dir, dir);
    one_line_error(args, "does not exist");
    snprintf(args, sizeof args, "recognize '%s/none.jpg' --overlay '%s/o.txt'", dir, dir);
    one_line_error(args, "ending in .png");
    /* the photo itself: refused before it is read, and left as it was */
    char same[256];
    snprintf(same, sizeof same, "%s/same.png", dir);
    FILE *sf = fopen(same, "w");
    if (sf) {
        fputs("the photo\n", sf);
        fclose(sf);
        snprintf(args, sizeof args, "recognize '%s' --overlay '%s'", same, same);
        one_line_error(args, "IMAGE itself");
        char back[32] = "";
        sf = fopen(same, "r");
        TESTS_CHECK(sf && fgets(back, sizeof back, sf) && strcmp(back, "the photo\n") == 0,
                    "IMAGE overwritten: '%s'", back);
        if (sf)
            fclose(sf);
        remove(same);
    }
    /* a folder that says writable (to root) but takes no file: /proc */
    snprintf(args, sizeof args, "recognize '%s/none.jpg' --overlay /proc/kifucam-overlay.png", dir);
    one_line_error(args, "/proc");
    /* a blank frame: no board, never a made-up position */
    char cmd[4600];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -loglevel error -y -f lavfi -i color=c=white:s=640x480 -frames:v 1 '%s/blank.png'", dir);
    if (system(cmd) == 0) {
        char cwd[2048]; /* one_line_error runs in /tmp: the model by its absolute path (it is loaded first) */
        if (getcwd(cwd, sizeof cwd) == NULL)
            snprintf(cwd, sizeof cwd, ".");
        snprintf(args, sizeof args, "recognize '%s/blank.png' --model '%s/models/squares.onnx'", dir, cwd);
        one_line_error(args, "no board found");
        /* a missing model is said before the search, whatever the photo shows */
        snprintf(args, sizeof args, "recognize '%s/blank.png' --model /kifucam-none.onnx", dir);
        one_line_error(args, "/kifucam-none.onnx: no such file");
        /* record: no board found, or a control socket that cannot be made: exit 1 and no folder left */
        static const char *const rec_fail[2][2] = {
            {"", "no board found in 1 frames"},
            {" --control /kifucam-none/ctl", "--control /kifucam-none/ctl"}};
        for (int k = 0; k < 2; k++) {
            char out[8192], rec[4200];
            snprintf(rec, sizeof rec, "%s/rec%d", dir, k);
            snprintf(args, sizeof args, "record --source '%s/blank.png' --out '%s'%s", dir, rec,
                     rec_fail[k][0]);
            int rc = tests_run_kifucam(".", args, 1, out, sizeof out);
            TESTS_CHECK(rc == 1 && strstr(out, rec_fail[k][1]) && access(rec, F_OK) != 0,
                        "kifucam %s: exit %d, '%s', folder %s", args, rc, out,
                        access(rec, F_OK) ? "gone" : "left");
        }
        /* an image too thin for a board: the user's input, not an internal failure (exit 2 before) */
        snprintf(cmd, sizeof cmd,
                 "ffmpeg -loglevel error -y -f lavfi -i color=c=gray:s=3000x10 -frames:v 1 "
                 "'%s/thin.png'",
                 dir);
        if (system(cmd) == 0) {
            snprintf(args, sizeof args, "recognize '%s/thin.png'", dir);
            one_line_error(args, "too thin");
        }
    } else {
        printf("\n    skipped: ffmpeg not available (recognize: blank frame)\n");
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("\n    could not remove %s\n", dir);
}

/* record of a folder holding a blank frame and a file that is no picture: no board (exit 1), the error
 * says frames could not be decoded, and the output folder stays with the source.jsonl lines the
 * warning about them points to (a failed run otherwise leaves nothing behind). */
static void test_record_undecodable(void) {
    char dir[] = "/tmp/kifucam-test-undecodable-XXXXXX", cmd[9000], args[9000], out[8192], rec[4200],
         jl[4300];
    if (mkdtemp(dir) == NULL)
        return;
    snprintf(rec, sizeof rec, "%s/rec", dir);
    snprintf(cmd, sizeof cmd,
             "mkdir '%s/junk' && ffmpeg -loglevel error -y -f lavfi -i color=c=white:s=640x480 -frames:v 1 "
             "'%s/junk/a.png' && echo text > '%s/junk/b.png'",
             dir, dir, dir);
    if (system(cmd) != 0) {
        printf("\n    skipped: ffmpeg not available (record: a folder with a non-picture)\n");
    } else {
        snprintf(args, sizeof args, "record --source '%s/junk' --out '%s'", dir, rec);
        int rc = tests_run_kifucam(".", args, 1, out, sizeof out), corrupt = 0;
        snprintf(jl, sizeof jl, "%s/source.jsonl", rec);
        FILE *f = fopen(jl, "r");
        char line[1024];
        while (f && fgets(line, sizeof line, f))
            corrupt += strstr(line, "corrupt_frames") != NULL;
        if (f)
            fclose(f);
        TESTS_CHECK(rc == 1 &&
                        strstr(out, "no board found in 1 frames (and frames that could not be decoded") &&
                        corrupt > 0,
                    "exit %d, '%s', %d corrupt_frames lines kept", rc, out, corrupt);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("\n    could not remove %s\n", dir);
}

/* A board small in a large frame: sanjaykumar695/normal.jpg (the even start, top-down) scaled to 1600
 * pixels in a 6000x4000 frame of table colour (made by ffmpeg at run time: the photo has no licence to be
 * copied). Its grid is found one row off (the board's printed border taken for an outer line: the grid a
 * row over scores as well, pose confidence about 0.1) and reads no possible position there; recognize reads
 * the grid moved by one square each way and takes the one that reads a position (recorder/cli/main.c
 * try_shifted_grids). Before, it printed the reading a row off (a row of table, the first rank lost: 36
 * pieces, most squares wrong). */
static void test_grid_row_off(void) {
    char dir[] = "/tmp/kifucam-test-recognize-XXXXXX", src[4096], cmd[9000], args[4400], out[8192];
    char tok[81][3], want[81][3];
    if (tests_shared_path(src, sizeof src, "photos/sanjaykumar695/normal.jpg") != 0 ||
        access(src, R_OK) != 0) {
        tests_skip_shared("recognize: a board small in a large frame");
        return;
    }
    if (mkdtemp(dir) == NULL)
        return;
    snprintf(cmd, sizeof cmd,
             "ffmpeg -loglevel error -y -i '%s' -vf 'scale=1600:1600,pad=6000:4000:2000:1000:"
             "color=0x836E5B' -q:v 3 '%s/small.jpg'",
             src, dir);
    if (system(cmd) != 0) {
        printf("\n    skipped: ffmpeg not available (recognize: a board small in a large frame)\n");
    } else {
        snprintf(args, sizeof args, "recognize '%s/small.jpg'", dir);
        CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
        CU_ASSERT_EQUAL_FATAL(board_tokens("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL", want),
                              0);
        int right = 0;
        if (board_tokens(out, tok) == 0)
            for (int sq = 0; sq < 81; sq++)
                right += strcmp(tok[sq], want[sq]) == 0;
        TESTS_CHECK(right >= 79, "the even start read with %d/81 squares right: %s", right, out);
        snprintf(args, sizeof args, "recognize '%s/small.jpg'", dir);
        tests_run_kifucam(".", args, 1, out, sizeof out);
        TESTS_CHECK(strstr(out, "moved one row towards rank 9") != NULL, "stderr: %.600s", out);
        /* the JSON says so too, for a program that shows the position */
        snprintf(args, sizeof args, "recognize '%s/small.jpg' --json", dir);
        CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
        TESTS_CHECK(strstr(out, "\"grid_moved\": {\"towards\": \"one row towards rank 9\", \"pieces\": ") !=
                        NULL,
                    "json: %.300s", strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
        /* read from the other end (--sente top), the same move of the grid is towards rank 1 */
        snprintf(args, sizeof args, "recognize '%s/small.jpg' --json --sente top", dir);
        CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
        TESTS_CHECK(strstr(out, "\"grid_moved\": {\"towards\": \"one row towards rank 1\", \"pieces\": ") !=
                        NULL,
                    "json: %.300s", strstr(out, "\"pose\"") ? strstr(out, "\"pose\"") : out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("\n    could not remove %s\n", dir);
}

/* tests/data/pose-end-gote45-8-piece.jpg (rendered, tests/data/README.md): the 8-piece handicap seen 45
 * degrees from vertical at gote's end. The lines towards the camera converge over about 35 degrees
 * with no narrow peak of Hough votes, while the three full ranks and the empty ones make every line
 * across strong: the board must still be found, and read whole (the giver's side nearest). */
static void test_end_view_handicap(void) {
    char path[4096], args[4400], out[8192];
    CU_ASSERT_FATAL(tests_project_path(path, sizeof path, "tests/data/pose-end-gote45-8-piece.jpg") == 0);
    snprintf(args, sizeof args, "recognize '%s'", path);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(strcmp(out, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/9/3GKG3 b - 1\n") == 0, "read as '%s'",
                out);
}

/* vis_board_by_pieces on the sample board photo (hash451722, MIT: 40 pieces): its grid, as if its line
 * score had fallen under min_score, is a board by its pieces; the same grid scored under
 * VIS_BY_PIECES_MIN_SCORE is not; moved 4 squares (half of it out of the frame) it is not; a blank
 * frame under the same grid reads no piece and is not. */
static void test_board_by_pieces(void) {
    cap_image_t img;
    vis_pose_t pose, p;
    vis_classifier_t *clf = NULL;
    vis_board_read_t *rd = malloc(sizeof *rd);
    int n = -1;
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    if (vt_sample_board("board by its pieces on sample_board.jpg", &img, &pose, &clf) != 0) {
        free(rd);
        return;
    }
    p = pose;
    p.found = 0;
    p.score = 0.55;
    CU_ASSERT_EQUAL(vis_board_by_pieces(clf, &img, &p, rd, &n), 1);
    CU_ASSERT_EQUAL(p.found, 1);
    TESTS_CHECK(n >= VIS_BY_PIECES_MIN_PIECES && n <= 40,
                "%d confident pieces on the sample board (40 pieces; 17 measured)", n);
    CU_ASSERT_EQUAL(memcmp(p.H, pose.H, sizeof p.H), 0);
    p = pose;
    p.found = 0;
    p.score = VIS_BY_PIECES_MIN_SCORE - 0.01;
    CU_ASSERT_EQUAL(vis_board_by_pieces(clf, &img, &p, rd, &n), 0);
    CU_ASSERT_EQUAL(p.found, 0);
    p = pose;
    p.found = 0;
    p.score = 0.55;
    vis_pose_shift(&p, 4, 0);
    CU_ASSERT_EQUAL(vis_board_by_pieces(clf, &img, &p, rd, &n), 0);
    CU_ASSERT_EQUAL(p.found, 0);
    memset(img.data, 128, (size_t)img.stride * img.height);
    p = pose;
    p.found = 0;
    p.score = 0.55;
    CU_ASSERT_EQUAL(vis_board_by_pieces(clf, &img, &p, rd, &n), 0);
    TESTS_CHECK(n < VIS_BY_PIECES_MIN_PIECES, "a blank frame: %d confident pieces", n);
    vis_classifier_destroy(clf);
    cap_image_free(&img);
    free(rd);
}

/* record --out into a folder an earlier recording wrote: its review.html, its evidence/ frames or a later
 * game's kifu (game2.kif) are refused like its game.* (they were written over); an empty evidence/ is not
 * (a run that recorded nothing leaves one). Fresh-user report. */
static void test_out_earlier_recording(void) {
    static const struct {
        const char *setup; /* shell lines run in the folder */
        const char *named; /* what the error names */
        const char *check; /* shell test that the file is untouched */
    } C[] = {
        {"echo '<html>old</html>' > review.html",
         "already holds review.html (an earlier recording's), which this "
         "recording would write over",
         "test \"$(cat review.html)\" = '<html>old</html>'"},
        {"mkdir evidence && echo old > evidence/0001-before.jpg",
         "already holds evidence/0001-before.jpg (an earlier recording's frames), which this recording would "
         "write over",
         "test \"$(cat evidence/0001-before.jpg)\" = old"},
        {"echo old > game2.kif", "already holds game2.kif, which this recording would write over",
         "test \"$(cat game2.kif)\" = old"},
    };
    for (size_t i = 0; i < sizeof C / sizeof *C; i++) {
        char dir[] = "/tmp/kifucam-test-earlier-XXXXXX", args[512], out[8192], sh[1024];
        CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
        snprintf(sh, sizeof sh, "cd %s && %s", dir, C[i].setup);
        CU_ASSERT_FATAL(system(sh) == 0);
        snprintf(args, sizeof args, "record --source samples/sample-clip.mp4 --out %s", dir);
        int rc = tests_run_kifucam(".", args, 1, out, sizeof out);
        TESTS_CHECK(rc == 1 && strstr(out, C[i].named) && strchr(out, '\n') == out + strlen(out) - 1,
                    "%s: exit %d, '%s'", C[i].setup, rc, out);
        snprintf(sh, sizeof sh, "cd %s && %s && test ! -e events.jsonl && test ! -e game.kif", dir,
                 C[i].check);
        TESTS_CHECK(system(sh) == 0, "%s: the folder changed", C[i].setup);
        snprintf(sh, sizeof sh, "rm -rf '%s'", dir);
        CU_ASSERT(system(sh) == 0);
    }
    /* an empty evidence/ is no earlier recording: the run goes on (and fails here for its own reason) */
    char dir[] = "/tmp/kifucam-test-earlier-XXXXXX", args[512], out[8192], sh[600];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(sh, sizeof sh, "mkdir %s/evidence", dir);
    CU_ASSERT_FATAL(system(sh) == 0);
    snprintf(args, sizeof args, "record --source tests/data/record-noboard.mp4 --out %s", dir);
    int rc = tests_run_kifucam(".", args, 1, out, sizeof out);
    TESTS_CHECK(rc == 1 && strstr(out, "no board found") && !strstr(out, "already holds"),
                "empty evidence/: exit %d, '%s'", rc, out);
    snprintf(sh, sizeof sh, "rm -rf '%s'", dir);
    CU_ASSERT(system(sh) == 0);
}

/* Runs "kifucam ARGS" in dir and checks that it said exactly want (one line, its '\n' included) on stderr,
 * nothing on stdout, with exit status 1. */
static void exact_error(const char *dir, const char *args, const char *want) {
    char out[8192];
    int rc = tests_run_kifucam(dir, args, 0, out, sizeof out);
    TESTS_CHECK(rc == 1 && out[0] == 0, "kifucam %s: exit %d, stdout '%s'", args, rc, out);
    rc = tests_run_kifucam(dir, args, 1, out, sizeof out);
    TESTS_CHECK(rc == 1 && strcmp(out, want) == 0, "kifucam %s: exit %d, said '%s' (want '%s')", args, rc,
                out, want);
}

/* Every command the same way: an option given twice is refused with "option --X given twice" and exit 1,
 * a flag (--json, --realtime, ...) as an option with a value (some commands took a flag twice silently),
 * and a bad value is one line that names its option and the value as given: "--OPTION 'VALUE': why" (a
 * bad --start or --reference-sfen was "bad SFEN 'bogus b - 1'", naming no option and showing text the
 * user never wrote). */
static void test_twice_and_bad_values(void) {
    static const char *const cases[][2] = {
        {"replay x.usi --json --json", "kifucam replay: option --json given twice\n"},
        {"replay x.usi --rule 27 --rule=24", "kifucam replay: option --rule given twice\n"},
        {"impasse startpos --json --json", "kifucam impasse: option --json given twice\n"},
        {"perft --divide --divide 1", "kifucam perft: option --divide given twice\n"},
        {"perft --sfen startpos --sfen startpos 1", "kifucam perft: option --sfen given twice\n"},
        {"moves --usi 'position startpos' --usi 'position startpos'",
         "kifucam moves: option --usi given twice\n"},
        {"convert a.kif b.csa --to csa --to kif", "kifucam convert: option --to given twice\n"},
        {"probe x.mp4 --seconds 1 --seconds 2", "kifucam probe: option --seconds given twice\n"},
        {"recognize x.jpg --json --json", "kifucam recognize: option --json given twice\n"},
        {"crops a b --model m --model m", "kifucam crops: option --model given twice\n"},
        {"record --source x.mp4 --realtime --realtime", "kifucam record: option --realtime given twice\n"},
        {"record --source x.mp4 --no-adapt --no-adapt", "kifucam record: option --no-adapt given twice\n"},
        {"record --source x.mp4 --no-turned --no-turned", "kifucam record: option --no-turned given twice\n"},
        {"hall --mqtt a --port 1 --port 2", "kifucam hall: option --port given twice\n"},
        /* a bad value: the option, the value as given, why */
        {"record --source x.mp4 --start bogus",
         "kifucam record: --start 'bogus': bad SFEN: column 2: unknown piece 'o'\n"},
        {"record --source x.mp4 --start '9/9/9/9/9/9/9/9/9 b - 1'",
         "kifucam record: --start '9/9/9/9/9/9/9/9/9 b - 1': not a position a game can start from: "
         "no_king: sente has no king\n"},
        {"perft --sfen 'lnsg b - 1' 1",
         "kifucam perft: --sfen 'lnsg b - 1': bad SFEN: column 5: rank 1 has 4 "
         "squares, not 9\n"},
        {"moves --sfen 'lnsgkgsnl/9/9/9/9/9/9/9/9 x - 1'",
         "kifucam moves: --sfen 'lnsgkgsnl/9/9/9/9/9/9/9/9 x - 1': bad SFEN: column 27: side to move must be "
         "'b' or 'w', found 'x'\n"},
        {"replay x.usi --rule 9", "kifucam replay: --rule '9': must be 27, 24 or count\n"},
        {"impasse startpos --rule 9", "kifucam impasse: --rule '9': must be 27, 24 or count\n"},
        {"record --source x.mp4 --rule count", "kifucam record: --rule 'count': must be 27 or 24\n"},
        {"record --source x.mp4 --fps 0", "kifucam record: --fps '0': must be a number of frames per second, "
                                          "0.1-1000\n"},
        {"record --source x.mp4 --resync 9999",
         "kifucam record: --resync '9999': must be 0 (never) or a number of seconds, 0.1-3600\n"},
        {"record --source x.mp4 --degrade 2",
         "kifucam record: --degrade '2': must be a number from 0 to 1\n"},
        {"probe x.mp4 --seconds -1",
         "kifucam probe: --seconds '-1': must be a number of seconds in (0, 3600]\n"},
        {"hall --mqtt a --port 99999", "kifucam hall: --port '99999': must be a TCP port, 0-65535\n"},
        {"convert a.kif b --to zz",
         "kifucam convert: --to 'zz': unknown format (kif ki2 csa jkf usi western)\n"},
        {"convert a.kif b.csa --from zz",
         "kifucam convert: --from 'zz': unknown format (kif ki2 csa jkf usi western)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        exact_error("/tmp", cases[k][0], cases[k][1]);
    /* --reference-sfen: a board field alone is completed with " b - 1" before it is read; the line shows
     * what was given, with the option's name */
    char dir[] = "/tmp/kifucam-test-refsfen-XXXXXX", path[256], args[600];
    cap_image_t im = {400, 400, 1200, malloc(400 * 400 * 3)};
    cap_codec_t *c = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(im.data);
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL && cap_codec_create(&c) == 0);
    memset(im.data, 128, 400 * 400 * 3);
    snprintf(path, sizeof path, "%s/grey.jpg", dir);
    CU_ASSERT_EQUAL_FATAL(cap_jpeg_write(c, &im, 90, path), 0);
    snprintf(args, sizeof args, "recognize %s --reference %s --reference-sfen lnsgkgsnl/9", path, path);
    exact_error(
        ".", args,
        "kifucam recognize: --reference-sfen 'lnsgkgsnl/9': bad SFEN: the board field ends too soon (9 ranks "
        "of 9 squares, '/' between them)\n");
    snprintf(args, sizeof args, "recognize %s --reference %s --reference-sfen lnsgkgsnx/9", path, path);
    exact_error(".", args,
                "kifucam recognize: --reference-sfen 'lnsgkgsnx/9': bad SFEN: column 9: unknown piece 'x'\n");
    cap_codec_destroy(c);
    free(im.data);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

/* recognize reads one photo (docs/commands.md): a video file was read as its first frame (exit 0, a
 * position of whatever that frame showed), a camera URI was "No such file or directory". Each is refused
 * with one line saying so; cap_image_load itself refuses a video (CAP_E_FORMAT), and still reads a PNG. */
static void test_not_a_photo(void) {
    static const char *const cases[][2] = {
        {"recognize samples/sample-clip.mp4",
         "kifucam recognize: samples/sample-clip.mp4: a video file, not a still image: recognize reads one "
         "photo (JPEG, PNG, BMP, TIFF, WebP, PPM or GIF); videos and cameras are for kifucam record\n"},
        {"recognize v4l2:/dev/video0",
         "kifucam recognize: v4l2:/dev/video0: a camera or a stream, not a photo file: recognize reads one "
         "photo (JPEG, PNG, BMP, TIFF, WebP, PPM or GIF); videos and cameras are for kifucam record\n"},
        {"recognize rtsp://camera.local/stream",
         "kifucam recognize: rtsp://camera.local/stream: a camera or a stream, not a photo file: recognize "
         "reads one photo (JPEG, PNG, BMP, TIFF, WebP, PPM or GIF); videos and cameras are for kifucam "
         "record\n"},
        {"recognize /dev/null",
         "kifucam recognize: /dev/null: a device, not a photo file: recognize reads one photo (JPEG, PNG, "
         "BMP, TIFF, WebP, PPM or GIF); videos and cameras are for kifucam record\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        exact_error(".", cases[k][0], cases[k][1]);
    /* the same video under a photo's name: refused by what it holds */
    char dir[] = "/tmp/kifucam-test-video-XXXXXX", sh[300], err[512];
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(sh, sizeof sh, "cp samples/sample-clip.mp4 %s/clip.png", dir);
    CU_ASSERT_EQUAL_FATAL(system(sh), 0);
    snprintf(sh, sizeof sh, "%s/clip.png", dir);
    cap_image_t img = {0, 0, 0, NULL};
    CU_ASSERT_EQUAL(cap_image_load(sh, &img, err, sizeof err), CAP_E_FORMAT);
    TESTS_CHECK(strstr(err, "clip.png: a video file, not a still image") != NULL, "cap_image_load: %s", err);
    cap_image_free(&img);
    /* a still through libav (not a JPEG) still loads */
    cap_image_t im = {64, 48, 192, calloc(64 * 48, 3)};
    CU_ASSERT_PTR_NOT_NULL_FATAL(im.data);
    snprintf(sh, sizeof sh, "%s/still.png", dir);
    char why[256];
    CU_ASSERT_EQUAL_FATAL(vis_image_write(&im, sh, why, sizeof why), VIS_OK);
    CU_ASSERT_EQUAL(cap_image_load(sh, &img, err, sizeof err), 0);
    CU_ASSERT(img.width == 64 && img.height == 48);
    cap_image_free(&img);
    free(im.data);
    snprintf(sh, sizeof sh, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(sh), 0);
}

int tests_register_recognize(void) {
    CU_pSuite s = CU_add_suite("recorder/recognize", NULL, NULL);
    if (s == NULL || CU_add_test(s, "na-o-ys board 1: its SFEN", test_board1_sfen) == NULL ||
        CU_add_test(s, "--sente top: the reading turned", test_sente_top) == NULL ||
        CU_add_test(s, "bad input: one line, exit 1", test_bad_input) == NULL ||
        CU_add_test(s, "record: undecodable frames named, their lines kept", test_record_undecodable) ==
            NULL ||
        CU_add_test(s, "every command: an option twice, a bad value named", test_twice_and_bad_values) ==
            NULL ||
        CU_add_test(s, "a video, a camera, a device: not a photo", test_not_a_photo) == NULL ||
        CU_add_test(s, "a drawn grid with letters: no board", test_letter_grid) == NULL ||
        CU_add_test(s, "a cut photo: the squares past the edge unknown in the JSON", test_cut_unseen) ==
            NULL ||
        CU_add_test(s, "a cut photo read a file over: the strip off the board moves the grid back",
                    test_cut_off_board) == NULL ||
        CU_add_test(s, "45 degrees from an end, a handicap: the converging lines found",
                    test_end_view_handicap) == NULL ||
        CU_add_test(s, "a grid found a row off: moved to where it reads a position", test_grid_row_off) ==
            NULL ||
        CU_add_test(s, "a grid under the line score: a board by its pieces", test_board_by_pieces) == NULL ||
        CU_add_test(s, "record --out: an earlier recording's review.html, evidence/ or game2.kif is refused",
                    test_out_earlier_recording) == NULL)
        return -1;
    return 0;
}
