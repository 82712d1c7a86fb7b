/* test_classify.c - tests of vis_classifier_read_changed (vision/classify.c) on the sample board
 * photo: the first reading sends all 81 squares, the same picture again none (same probabilities),
 * a square painted over is sent again with a reading equal to a full one's, max_diff 0 and another
 * pose send all 81; bad arguments refused. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/tests.h"
#include "tests/vision/vision_test_util.h"
#include "vision/vision.h"

static float max_prob_diff(const vis_board_read_t *a, const vis_board_read_t *b, int sq) {
    float d = 0;
    for (int k = 0; k < VIS_CLASS_NB; k++)
        if (fabsf(a->prob[sq][k] - b->prob[sq][k]) > d)
            d = fabsf(a->prob[sq][k] - b->prob[sq][k]);
    return d;
}

static void test_read_changed(void) {
    cap_image_t img;
    vis_pose_t pose, moved;
    vis_classifier_t *clf = NULL;
    vis_board_read_t *full = malloc(sizeof *full), *inc = malloc(sizeof *inc);
    int n = -1;

    CU_ASSERT_PTR_NOT_NULL_FATAL(full);
    CU_ASSERT_PTR_NOT_NULL_FATAL(inc);
    if (vt_sample_board("incremental read of sample_board.jpg", &img, &pose, &clf) != 0) {
        free(full);
        free(inc);
        return;
    }

    CU_ASSERT_EQUAL_FATAL(vis_classifier_read_changed(clf, &img, &pose, 0.008, inc, &n), VIS_OK);
    CU_ASSERT_EQUAL(n, 81);
    CU_ASSERT_EQUAL_FATAL(vis_classifier_read(clf, &img, &pose, full), VIS_OK);
    float d = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        if (max_prob_diff(full, inc, sq) > d)
            d = max_prob_diff(full, inc, sq);
    TESTS_CHECK(d < 1e-5f, "first incremental read differs from a full one by %g", (double)d);

    /* the same picture: nothing to send, the same reading */
    CU_ASSERT_EQUAL(vis_classifier_read_changed(clf, &img, &pose, 0.008, inc, &n), VIS_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(memcmp(inc->cls, full->cls, sizeof inc->cls), 0);

    /* paint the middle of square 5e (sq 40) dark, as a piece arriving would change it */
    double x0, y0, x1, y1;
    CU_ASSERT_EQUAL_FATAL(vis_pose_to_image(&pose, 4.2, 4.2, &x0, &y0), 0);
    CU_ASSERT_EQUAL_FATAL(vis_pose_to_image(&pose, 4.8, 4.8, &x1, &y1), 0);
    for (int y = (int)y0; y <= (int)y1; y++)
        for (int x = (int)x0; x <= (int)x1; x++)
            memset(img.data + (size_t)y * img.stride + (size_t)x * 3, 20, 3);
    CU_ASSERT_EQUAL(vis_classifier_read_changed(clf, &img, &pose, 0.008, inc, &n), VIS_OK);
    TESTS_CHECK(n >= 1 && n <= 9, "%d squares sent for one painted square", n);
    CU_ASSERT_EQUAL_FATAL(vis_classifier_read(clf, &img, &pose, full), VIS_OK);
    TESTS_CHECK(max_prob_diff(full, inc, 40) < 1e-5f, "5e differs from a full read by %g",
                (double)max_prob_diff(full, inc, 40));
    CU_ASSERT_EQUAL(inc->cls[40], full->cls[40]);

    /* max_diff 0, and a pose moved by a pixel: all 81 */
    CU_ASSERT_EQUAL(vis_classifier_read_changed(clf, &img, &pose, 0, inc, &n), VIS_OK);
    CU_ASSERT_EQUAL(n, 81);
    moved = pose;
    moved.H[2] += 1.0;
    CU_ASSERT_EQUAL(vis_classifier_read_changed(clf, &img, &moved, 0.008, inc, &n), VIS_OK);
    CU_ASSERT_EQUAL(n, 81);

    /* bad arguments */
    CU_ASSERT_EQUAL(vis_classifier_read_changed(clf, &img, &pose, 1.5, inc, &n), VIS_E_ARG);
    CU_ASSERT_EQUAL(vis_classifier_read_changed(clf, &img, &pose, 0.01, inc, NULL), VIS_E_ARG);
    vis_classifier_destroy(clf);
    cap_image_free(&img);
    free(full);
    free(inc);
}

int tests_register_vision_classify(void) {
    CU_pSuite s = CU_add_suite("vision/classify", NULL, NULL);
    if (s == NULL || CU_add_test(s, "only changed squares are read again", test_read_changed) == NULL)
        return -1;
    return 0;
}
