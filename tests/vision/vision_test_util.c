/* vision_test_util.c - see vision_test_util.h. */
#include "tests/vision/vision_test_util.h"

#include <CUnit/CUnit.h>

#include "tests/tests.h"

int vt_sample_board(const char *what, cap_image_t *img, vis_pose_t *pose, vis_classifier_t **clf) {
    char path[4096], err[256] = "";
    *clf = NULL;
    if (tests_shared_path(path, sizeof path, "photos/hash451722/sample_board.jpg") != 0) {
        tests_skip_shared(what);
        return -1;
    }
    CU_ASSERT_EQUAL_FATAL(cap_image_load(path, img, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(vis_pose_find(img, NULL, pose, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(pose->found, 1);
    tests_project_path(path, sizeof path, "models/squares.onnx");
    TESTS_CHECK(vis_classifier_open(path, clf) == 0, "%s", vis_classifier_errmsg(*clf));
    return 0;
}
