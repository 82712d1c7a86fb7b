/* test_threads.c - tests of vision/threads.c: a bad thread count is refused with a message, and the
 * 81-square read of the sample board photo gives the same classes and probabilities on one thread as
 * on two (the one-core numbers of make bench measure the same work). */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/tests.h"
#include "tests/vision/vision_test_util.h"
#include "vision/vision.h"

static void test_threads_bad_count(void) {
    char err[256] = "";
    CU_ASSERT_EQUAL(vis_threads_set(-1, err, sizeof err), VIS_E_ARG);
    TESTS_CHECK(strncmp(err, "vis_threads_set: ", 17) == 0, "message '%s'", err);
    CU_ASSERT_EQUAL(vis_threads_set(-5, NULL, 0), VIS_E_ARG);
}

static void test_threads_same_read(void) {
    char err[256] = "";
    cap_image_t img;
    vis_pose_t pose;
    vis_classifier_t *clf = NULL;
    vis_board_read_t *one = malloc(sizeof *one), *two = malloc(sizeof *two);

    CU_ASSERT_PTR_NOT_NULL_FATAL(one);
    CU_ASSERT_PTR_NOT_NULL_FATAL(two);
    if (vt_sample_board("one-thread read of sample_board.jpg", &img, &pose, &clf) != 0) {
        free(one);
        free(two);
        return;
    }

    CU_ASSERT_EQUAL(vis_threads_set(1, err, sizeof err), 0);
    CU_ASSERT_EQUAL(vis_classifier_read(clf, &img, &pose, one), 0);
    CU_ASSERT_EQUAL(vis_threads_set(2, err, sizeof err), 0);
    CU_ASSERT_EQUAL(vis_classifier_read(clf, &img, &pose, two), 0);
    int diff_cls = 0;
    float diff_p = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        diff_cls += one->cls[sq] != two->cls[sq];
        for (int k = 0; k < VIS_CLASS_NB; k++)
            if (fabsf(one->prob[sq][k] - two->prob[sq][k]) > diff_p)
                diff_p = fabsf(one->prob[sq][k] - two->prob[sq][k]);
    }
    TESTS_CHECK(diff_cls == 0, "%d squares read differently on 1 and 2 threads", diff_cls);
    TESTS_CHECK(diff_p < 1e-4f, "probabilities differ by %g between 1 and 2 threads", (double)diff_p);
    vis_classifier_destroy(clf);
    cap_image_free(&img);
    free(one);
    free(two);
}

int tests_register_vision_threads(void) {
    CU_pSuite s = CU_add_suite("vision/threads", NULL, NULL);
    if (s == NULL || !CU_add_test(s, "bad thread count", test_threads_bad_count) ||
        !CU_add_test(s, "same read on 1 and 2 threads", test_threads_same_read))
        return -1;
    return 0;
}
