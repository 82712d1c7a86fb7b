/* test_crops.c - `kifucam crops OUT_DIR DEST` end to end: tests/data/record-clip.mp4 (12 moves of a real
 * game, record-clip.usi) recorded by `kifucam record`, its crops exported, and every label checked
 * against the game replayed by rules/ (the start and each move's position), the crops read back by the
 * classifier as their labels, and bad input answered by one line. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "recorder/tracker/tracker.h"
#include "rules/rules.h"
#include "tests/tests.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

#define CLIP_MOVES 12
#define FRAMES (CLIP_MOVES + 1)
#define SIDE 48

/* The classes of the clip's positions, [ply][sq], and their hands, [ply][sente, gote][P L N S B R G],
 * from record-clip.usi replayed. Returns 0 or -1. */
static int clip_positions(int cls[FRAMES][81], int hands[FRAMES][2][7]) {
    char path[4096], line[2048];
    CU_ASSERT_FATAL(tests_project_path(path, sizeof path, "tests/data/record-clip.usi") == 0);
    FILE *f = fopen(path, "r");
    if (f == NULL || fgets(line, sizeof line, f) == NULL) {
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    rul_pos_t pos;
    rul_error_t err;
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL_FATAL(rul_pos_set_handicap(&pos, RUL_HC_EVEN), RUL_OK);
    char *mv = strstr(line, " moves ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mv);
    mv += 7;
    for (int ply = 0; ply < FRAMES; ply++) {
        for (int sq = 0; sq < 81; sq++)
            cls[ply][sq] = REC_OBS_CLASS(rul_pos_piece_at(&pos, sq));
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 7; k++)
                hands[ply][s][k] = rul_pos_hand(&pos, (rul_color_t)s, (rul_type_t)(k + 1));
        if (ply == CLIP_MOVES)
            break;
        char tok[8] = "";
        int n = 0;
        if (sscanf(mv, "%7s%n", tok, &n) != 1)
            return -1;
        mv += n;
        rul_move_t m;
        rul_undo_t undo;
        if (rul_move_from_usi(tok, &m, &err) != RUL_OK)
            return -1;
        rul_pos_do_move(&pos, m, &undo);
    }
    return 0;
}

/* Squares of the SFEN board field at the start of text that hold cls's piece (cls in square order). */
static int board_right(const char *text, const int cls[81]) {
    int right = 0, i = 0; /* i: SFEN order, rank 1 first, file 9 first in a rank */
    for (const char *p = text; *p && *p != ' ' && *p != '\n' && i < 81; p++) {
        if (*p == '/')
            continue;
        int n = *p >= '1' && *p <= '9' ? *p - '0' : 1;
        char tok[3] = {*p, 0, 0};
        if (*p == '+' && p[1])
            tok[1] = *++p;
        for (int k = 0; k < n && i < 81; k++, i++) {
            int vsq = (8 - i % 9) * 9 + i / 9;
            right += n > 1 || (tok[0] >= '1' && tok[0] <= '9') ? cls[vsq] == 0
                                                               : strcmp(vis_class_sfen(cls[vsq]), tok) == 0;
        }
    }
    return right;
}

static void test_crops_clip(void) {
    char dir[] = "/tmp/kifucam-crops-XXXXXX", model[4096], clip[4096], args[13000], out[8192], path[4400];
    int want[FRAMES][81], hands[FRAMES][2][7];
    CU_ASSERT_FATAL(tests_project_path(model, sizeof model, "models/squares.onnx") == 0);
    CU_ASSERT_FATAL(tests_project_path(clip, sizeof clip, "tests/data/record-clip.mp4") == 0);
    CU_ASSERT_EQUAL_FATAL(clip_positions(want, hands), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(args, sizeof args, "record --source '%s' --out '%s/rec' --model '%s' </dev/null", clip, dir,
             model);
    CU_ASSERT_EQUAL_FATAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    snprintf(args, sizeof args, "crops '%s/rec' '%s/crops' --model '%s'", dir, dir, model);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "1053 square crops and ") == out &&
                    strstr(out, " komadai crops of 13 frames") != NULL,
                "stdout: %s", out);

    /* every line: the right class for its square and ply; each of the 13 positions once */
    snprintf(path, sizeof path, "%s/crops/labels.csv", dir);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512];
    int lines = 0, wrong = 0, stand = 0, seen[FRAMES] = {0}, count[VIS_CLASS_NB] = {0};
    float *blob = malloc(sizeof *blob * 3 * SIDE * SIDE);
    float logits[VIS_CLASS_NB];
    int agree = 0;
    vis_classifier_t *c = NULL;
    CU_ASSERT_FATAL(blob != NULL && vis_classifier_open(model, &c) == 0);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_STRING_EQUAL(line, "file,class,piece,square,event,ply\n");
    while (fgets(line, sizeof line, f)) {
        char file[128], piece[4] = "", where[16];
        int cls, event, ply;
        if (sscanf(line, "%127[^,],%d,%3[^,],%15[^,],%d,%d", file, &cls, piece, where, &event, &ply) != 6 &&
            sscanf(line, "%127[^,],%d,,%15[^,],%d,%d", file, &cls, where, &event, &ply) != 5) {
            TESTS_CHECK(0, "labels.csv line '%s'", line);
            continue;
        }
        if (ply < 0 || ply >= FRAMES || cls < 0 || cls >= VIS_CLASS_NB) {
            wrong++;
            continue;
        }
        if (strstr(where, "-stand") != NULL) { /* a piece in hand: one the recorded hand holds */
            int s = strncmp(where, "gote", 4) == 0;
            stand++;
            wrong += cls < 1 || cls > 7 || hands[ply][s][cls - 1] == 0 || strstr(file, "komadai/") != file;
        } else {
            int square = atoi(where), sq = (square / 10 - 1) * 9 + square % 10 - 1;
            if (sq < 0 || sq >= 81) {
                wrong++;
                continue;
            }
            lines++;
            seen[ply] += sq == 0;
            count[cls]++;
            wrong += cls != want[ply][sq] || strcmp(piece, vis_class_sfen(cls)) != 0;
        }
        /* the crop as the network reads it */
        cap_image_t img = {0, 0, 0, NULL};
        char err[256];
        snprintf(path, sizeof path, "%s/crops/%s", dir, file);
        if (cap_image_load(path, &img, err, sizeof err) != 0 || img.width != SIDE || img.height != SIDE) {
            TESTS_CHECK(0, "%s: %s", file, err);
            cap_image_free(&img);
            continue;
        }
        for (int y = 0; y < SIDE; y++)
            for (int x = 0; x < SIDE; x++)
                for (int ch = 0; ch < 3; ch++)
                    blob[(ch * SIDE + y) * SIDE + x] = img.data[(size_t)y * img.stride + 3 * x + ch] / 255.0f;
        cap_image_free(&img);
        CU_ASSERT_EQUAL_FATAL(vis_classifier_run(c, blob, 1, logits), 0);
        int best = 0;
        for (int k = 1; k < VIS_CLASS_NB; k++)
            best = logits[k] > logits[best] ? k : best;
        agree += best == cls || (strstr(where, "-stand") != NULL && (best == cls || best == cls + 14));
    }
    fclose(f);
    TESTS_CHECK(lines == FRAMES * 81 && wrong == 0, "%d square lines, %d labels not the game's", lines,
                wrong);
    /* the bishops captured at moves 10 and 11 lie on the stands from then on (3 frames of gote's, 2 of
     * sente's): a stand is written only when its pieces read are its recorded hand */
    TESTS_CHECK(stand >= 1 && stand <= 5, "%d komadai crops", stand);
    for (int p = 0; p < FRAMES; p++)
        TESTS_CHECK(seen[p] == 1, "position after ply %d exported %d times", p, seen[p]);
    /* the game's pieces over its 13 positions: 9 sente pawns each time (117), a gote horse after 2b7g+ */
    CU_ASSERT_EQUAL(count[1], 117);
    CU_ASSERT_EQUAL(count[15], 117);
    CU_ASSERT_EQUAL(count[27], 1);
    /* the crops are cut where the squares are: the classifier (trained on this clip's kind of render)
     * reads them as their labels */
    TESTS_CHECK(agree >= (lines + stand) * 99 / 100, "the classifier reads %d of %d crops as labelled", agree,
                lines + stand);
    printf("\n    crops of the clip: %d squares, %d komadai; the classifier agrees on %d", lines, stand,
           agree);
    vis_classifier_destroy(c);
    free(blob);

    /* a frame on disk that cannot be decoded (cut short, as by a full disk): the run goes on without it, the
     * summary counts it apart and one warning line names the file */
    {
        char bad[4400], sh[24000];
        snprintf(bad, sizeof bad, "%s/rec-bad/evidence/move-003-after.jpg", dir);
        snprintf(sh, sizeof sh, "cp -r '%s/rec' '%s/rec-bad' && head -c 2000 '%s' > '%s.t' && mv '%s.t' '%s'",
                 dir, dir, bad, bad, bad, bad);
        CU_ASSERT_EQUAL_FATAL(system(sh), 0);
        snprintf(sh, sizeof sh, "crops '%s/rec-bad' '%s/crops-bad' --model '%s'", dir, dir, model);
        CU_ASSERT_EQUAL(tests_run_kifucam(".", sh, 0, out, sizeof out), 0);
        TESTS_CHECK(strstr(out, "972 square crops and ") == out &&
                        strstr(out, " komadai crops of 12 frames (the start and the moves) written to ") &&
                        strstr(out, "; left out: 0 frames (no frame or board place), 1 frames that cannot be "
                                    "decoded (named on stderr), ") != NULL,
                    "damaged frame, stdout: %s", out);
        snprintf(sh, sizeof sh, "crops '%s/rec-bad' '%s/crops-bad2' --model '%s'", dir, dir, model);
        CU_ASSERT_EQUAL(tests_run_kifucam(".", sh, 1, out, sizeof out), 0);
        char want[4600];
        snprintf(want, sizeof want, "kifucam crops: warning: %s: damaged JPEG: ", bad);
        char *w = strstr(out, want), *nl = w ? strchr(w, '\n') : NULL;
        TESTS_CHECK(w != NULL && nl != NULL && nl - w > 11 && strncmp(nl - 10, ": left out", 10) == 0 &&
                        strstr(nl, "warning") == NULL && strstr(out, "warning") == w + 15,
                    "damaged frame, stderr: %s", out);
    }
    /* DEST not empty: one line, exit 1, nothing written over */
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 1, out, sizeof out), 1);
    TESTS_CHECK(strstr(out, "kifucam crops: ") == out && strstr(out, "not empty") != NULL &&
                    strchr(out, '\n') == out + strlen(out) - 1,
                "stderr: %s", out);
    /* not a recording */
    snprintf(args, sizeof args, "crops '%s' '%s/other'", dir, dir);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 1, out, sizeof out), 1);
    TESTS_CHECK(strstr(out, "events.jsonl") != NULL && strchr(out, '\n') == out + strlen(out) - 1,
                "stderr: %s", out);
    CU_ASSERT_EQUAL(access(path, F_OK), 0);
    /* a recording with no move: one line, exit 1, and DEST left as it was (not made) */
    snprintf(args, sizeof args, "mkdir '%s/empty' && : > '%s/empty/events.jsonl'", dir, dir);
    CU_ASSERT_EQUAL_FATAL(system(args), 0);
    snprintf(args, sizeof args, "crops '%s/empty' '%s/none'", dir, dir);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 1, out, sizeof out), 1);
    TESTS_CHECK(strstr(out, "no start or move") != NULL, "stderr: %s", out);
    snprintf(args, sizeof args, "%s/none", dir);
    CU_ASSERT_NOT_EQUAL(access(args, F_OK), 0);

    /* the same recording as recognize's reference: its 13 frames learned, the last one read right */
    snprintf(args, sizeof args,
             "recognize '%s/rec/evidence/move-012-after.jpg' --reference '%s/rec' --model '%s'", dir, dir,
             model);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 1, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "the piece set learned from 13 frames of the recording") != NULL, "output: %s",
                out);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 0, out, sizeof out), 0);
    /* the clip is shot from gote's end: a photo alone reads it turned, owners swapped (the same game with
     * the colours swapped, which no photo tells apart; the recorder knew from the moves) */
    int turned[81], right;
    for (int sq = 0; sq < 81; sq++) {
        int c = want[CLIP_MOVES][80 - sq];
        turned[sq] = c == 0 ? 0 : c <= 14 ? c + 14 : c - 14;
    }
    right = board_right(out, turned);
    TESTS_CHECK(right == 81, "after move 12 read with the recording as reference: %d/81 right (%s)", right,
                out);
    /* a folder that is no recording: one line */
    snprintf(args, sizeof args,
             "recognize '%s/rec/evidence/move-012-after.jpg' --reference '%s/crops' --model '%s'", dir, dir,
             model);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", args, 1, out, sizeof out), 1);
    TESTS_CHECK(strstr(out, "a folder without events.jsonl") != NULL &&
                    strchr(out, '\n') == out + strlen(out) - 1,
                "stderr: %s", out);
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(args), 0);
}

/* 1 if the project file rel holds text. */
static int file_has(const char *rel, const char *text) {
    char path[4096];
    static char buf[1 << 18];
    if (tests_project_path(path, sizeof path, rel) != 0)
        return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strstr(buf, text) != NULL;
}

/* crops' one option, --model FILE, in kifucam --help (its crops line lacked it), crops --help, the man
 * page and docs/commands.md alike. */
static void test_crops_usage(void) {
    char out[8192];
    CU_ASSERT_EQUAL(tests_run_kifucam(".", "--help", 0, out, sizeof out), 0);
    TESTS_CHECK(strstr(out, "\n  crops OUT_DIR DEST [--model FILE]           a recording's labelled square "
                            "crops, for training\n") != NULL,
                "kifucam --help: %s", out);
    CU_ASSERT_EQUAL(tests_run_kifucam(".", "crops --help", 0, out, sizeof out), 0);
    TESTS_CHECK(strncmp(out, "usage: kifucam crops OUT_DIR DEST [--model FILE]\n", 49) == 0,
                "crops --help: %s", out);
    TESTS_CHECK(strstr(out, "--model FILE: ") != NULL, "crops --help: %s", out);
    CU_ASSERT(file_has("docs/kifucam.1", ".SS \"crops OUT_DIR DEST [--model FILE]\""));
    CU_ASSERT(
        file_has("docs/kifucam.1", ".B kifucam crops\n.I OUT_DIR DEST\n.RB [ \\-\\-model\n.IR FILE ]\n"));
    CU_ASSERT(file_has("docs/commands.md", "\nkifucam crops OUT_DIR DEST [--model FILE]\n"));
    CU_ASSERT(file_has("README.md", "\nkifucam crops OUT_DIR DEST [--model FILE]  "));
}

int tests_register_crops(void) {
    CU_pSuite s = CU_add_suite("recorder/crops", NULL, NULL);
    if (s == NULL || CU_add_test(s, "the test clip's recording to labelled crops", test_crops_clip) == NULL ||
        CU_add_test(s, "--model FILE in every usage of crops", test_crops_usage) == NULL)
        return -1;
    return 0;
}
