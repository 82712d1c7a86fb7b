/* test_komadai.c - tests of vision/komadai.c: both stands of rendered frames (camera at either end)
 * counted exactly per kind, empty stands read as empty, a stand out of view is unknown (never "no
 * pieces"), count distributions that sum to 1, the SFEN hands field, bad arguments. The frames are
 * tests/data/komadai-*.jpg, rendered once by tests/data/make_komadai_fixtures.py, which also printed the
 * homographies below (the renderer's own canonical board -> image map, so that these tests read the
 * stands alone, whatever the pose search does). */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/tests.h"
#include "vision/vision.h"

typedef struct {
    const char *file;
    double H[9];                   /* canonical (u, v, 1) -> image (x, y, w) */
    int hand[2][VIS_HAND_KIND_NB]; /* [sente, gote][P L N S B R G] */
    const char *sfen;              /* the hands field */
} fixture_t;

static const fixture_t SENTE_END = {
    "tests/data/komadai-sente-end.jpg",
    {50.775193, -7.380970, 411.511600, 0, 53.937905, 77.785080, 0, -0.011533, 1},
    {{1, 0, 0, 0, 1, 0, 1}, {0, 1, 1, 1, 0, 0, 0}},
    "BGPsnl"};
static const fixture_t GOTE_END = {
    "tests/data/komadai-gote-end.jpg",
    {-61.154580, 20.794340, 915.195615, 0, -57.844148, 614.051407, 0, 0.032491, 1},
    {{1, 0, 0, 0, 1, 0, 1}, {0, 1, 1, 1, 0, 0, 0}},
    "BGPsnl"};
static const fixture_t EMPTY = {"tests/data/komadai-empty.jpg",
                                {33.254261, -2.896762, 250.355820, 0, 35.313841, 50.513254, 0, -0.007242, 1},
                                {{0}, {0}},
                                "-"};

static vis_classifier_t *open_model(void) {
    char path[4096];
    vis_classifier_t *c = NULL;
    tests_project_path(path, sizeof path, "models/squares.onnx");
    int rc = vis_classifier_open(path, &c);
    TESTS_CHECK(rc == 0, "%s", vis_classifier_errmsg(c));
    if (rc != 0) {
        vis_classifier_destroy(c);
        return NULL;
    }
    return c;
}

/* A pose for img from the fixture's homography, seen through a crop of img starting at pixel column x0
 * (the image is then the crop: its width is w). */
static void fixture_pose(const fixture_t *f, const cap_image_t *img, int x0, vis_pose_t *pose) {
    memset(pose, 0, sizeof *pose);
    memcpy(pose->H, f->H, sizeof pose->H);
    for (int j = 0; j < 3; j++) /* (x - x0) = row0 - x0 * row2 */
        pose->H[j] -= x0 * pose->H[6 + j];
    pose->found = 1;
    pose->frame_w = img->width;
    pose->frame_h = img->height;
}

static int load(const fixture_t *f, cap_image_t *img) {
    char path[4096], err[256] = "";
    tests_project_path(path, sizeof path, f->file);
    int rc = cap_image_load(path, img, err, sizeof err);
    TESTS_CHECK(rc == 0, "%s", err);
    return rc;
}

/* Every count of both stands as f says, rows summing to 1, the SFEN hands field. */
static void check_exact(const fixture_t *f) {
    cap_image_t img;
    vis_pose_t pose;
    vis_komadai_read_t r;
    char sfen[64] = "";
    vis_classifier_t *c = open_model();
    if (c == NULL || load(f, &img) != 0) {
        vis_classifier_destroy(c);
        return;
    }
    fixture_pose(f, &img, 0, &pose);
    CU_ASSERT_EQUAL_FATAL(vis_komadai_read(c, &img, &pose, NULL, &r), VIS_OK);
    for (int s = 0; s < 2; s++) {
        int pieces = 0;
        TESTS_CHECK(r.known[s] == 1, "%s: stand %d not seen", f->file, s);
        for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
            float sum = 0;
            for (int n = 0; n < VIS_HAND_COUNT_NB; n++)
                sum += r.prob[s][k][n];
            TESTS_CHECK(fabsf(sum - 1) < 1e-4f, "%s: stand %d kind %c: probabilities sum to %g", f->file, s,
                        "PLNSBRG"[k], (double)sum);
            TESTS_CHECK(r.count[s][k] == f->hand[s][k], "%s: stand %d kind %c: %d read, %d there", f->file, s,
                        "PLNSBRG"[k], r.count[s][k], f->hand[s][k]);
            TESTS_CHECK(fabsf(r.conf[s][k] - r.prob[s][k][r.count[s][k]]) < 1e-6f,
                        "conf is the count's probability");
            pieces += f->hand[s][k];
        }
        TESTS_CHECK(r.pieces[s] == pieces, "%s: stand %d: %d pieces detected, %d there", f->file, s,
                    r.pieces[s], pieces);
    }
    CU_ASSERT_EQUAL(vis_komadai_sfen(&r, sfen, sizeof sfen), VIS_OK);
    TESTS_CHECK(strcmp(sfen, f->sfen) == 0, "%s: hands '%s', expected '%s'", f->file, sfen, f->sfen);
    vis_classifier_destroy(c);
    cap_image_free(&img);
}

static void test_sente_end(void) { check_exact(&SENTE_END); }
static void test_gote_end(void) { check_exact(&GOTE_END); }

static void test_empty(void) { check_exact(&EMPTY); }

/* The same frame cut so that a stand's area leaves the view: that stand is unknown, all its
 * probabilities 0; the other is still read exactly. No SFEN hands field without both. */
static void test_out_of_view(void) {
    cap_image_t img, crop;
    vis_pose_t pose;
    vis_komadai_read_t r;
    char sfen[64];
    vis_classifier_t *c = open_model();
    if (c == NULL || load(&SENTE_END, &img) != 0) {
        vis_classifier_destroy(c);
        return;
    }
    /* columns 400..879: the board alone (gote's stand lies left of x = 400, sente's right of 880) */
    crop = img;
    crop.data = img.data + 400 * 3;
    crop.width = 480;
    fixture_pose(&SENTE_END, &crop, 400, &pose);
    CU_ASSERT_EQUAL_FATAL(vis_komadai_read(c, &crop, &pose, NULL, &r), VIS_OK);
    CU_ASSERT_EQUAL(r.known[0], 0);
    CU_ASSERT_EQUAL(r.known[1], 0);
    CU_ASSERT_EQUAL(r.windows, 0);
    float any = 0;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < VIS_HAND_KIND_NB; k++)
            for (int n = 0; n < VIS_HAND_COUNT_NB; n++)
                any += r.prob[s][k][n];
    TESTS_CHECK(any == 0, "an unknown stand has no count probabilities (sum %g)", (double)any);
    CU_ASSERT_EQUAL(vis_komadai_sfen(&r, sfen, sizeof sfen), VIS_E_ARG);

    /* columns 400..1279: sente's stand in view, gote's not */
    crop.width = img.width - 400;
    fixture_pose(&SENTE_END, &crop, 400, &pose);
    CU_ASSERT_EQUAL_FATAL(vis_komadai_read(c, &crop, &pose, NULL, &r), VIS_OK);
    CU_ASSERT_EQUAL(r.known[0], 1);
    CU_ASSERT_EQUAL(r.known[1], 0);
    for (int k = 0; k < VIS_HAND_KIND_NB; k++)
        TESTS_CHECK(r.count[0][k] == SENTE_END.hand[0][k], "sente %c: %d read, %d there", "PLNSBRG"[k],
                    r.count[0][k], SENTE_END.hand[0][k]);
    CU_ASSERT_EQUAL(vis_komadai_sfen(&r, sfen, sizeof sfen), VIS_E_ARG);
    vis_classifier_destroy(c);
    cap_image_free(&img);
}

static void test_bad_args(void) {
    cap_image_t img;
    vis_pose_t pose;
    vis_komadai_read_t r;
    vis_komadai_params_t p;
    vis_classifier_t *c = open_model();
    if (c == NULL || load(&EMPTY, &img) != 0) {
        vis_classifier_destroy(c);
        return;
    }
    fixture_pose(&EMPTY, &img, 0, &pose);
    CU_ASSERT_EQUAL(vis_komadai_read(NULL, &img, &pose, NULL, &r), VIS_E_ARG);
    CU_ASSERT_EQUAL(vis_komadai_read(c, NULL, &pose, NULL, &r), VIS_E_ARG);
    CU_ASSERT_EQUAL(vis_komadai_read(c, &img, &pose, NULL, NULL), VIS_E_ARG);
    vis_komadai_params_default(&p);
    p.stride = 0;
    CU_ASSERT_EQUAL(vis_komadai_read(c, &img, &pose, &p, &r), VIS_E_ARG);
    TESTS_CHECK(strncmp(vis_classifier_errmsg(c), "vis_komadai_read: ", 18) == 0, "message '%s'",
                vis_classifier_errmsg(c));
    vis_komadai_params_default(&p);
    p.sharpness = 0;
    CU_ASSERT_EQUAL(vis_komadai_read(c, &img, &pose, &p, &r), VIS_E_ARG);
    pose.found = 0;
    CU_ASSERT_EQUAL(vis_komadai_read(c, &img, &pose, NULL, &r), VIS_E_ARG);
    TESTS_CHECK(strstr(vis_classifier_errmsg(c), "no board") != NULL, "message '%s'",
                vis_classifier_errmsg(c));
    CU_ASSERT_EQUAL(vis_komadai_sfen(NULL, NULL, 0), VIS_E_ARG);
    /* a field that does not fit */
    memset(&r, 0, sizeof r);
    r.known[0] = r.known[1] = 1;
    r.count[0][0] = 12;
    r.count[1][5] = 1;
    char small[4];
    CU_ASSERT_EQUAL(vis_komadai_sfen(&r, small, sizeof small), VIS_E_ARG);
    char big[16];
    CU_ASSERT_EQUAL(vis_komadai_sfen(&r, big, sizeof big), VIS_OK);
    CU_ASSERT_STRING_EQUAL(big, "12Pr");
    vis_classifier_destroy(c);
    cap_image_free(&img);
}

int tests_register_vision_komadai(void) {
    CU_pSuite s = CU_add_suite("vision/komadai", NULL, NULL);
    if (s == NULL || !CU_add_test(s, "both stands, camera at sente's end", test_sente_end) ||
        !CU_add_test(s, "both stands, camera at gote's end", test_gote_end) ||
        !CU_add_test(s, "empty stands", test_empty) ||
        !CU_add_test(s, "a stand out of view is unknown", test_out_of_view) ||
        !CU_add_test(s, "bad arguments", test_bad_args))
        return -1;
    return 0;
}
