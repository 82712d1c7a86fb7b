/* vision_test_util.h - the sample board photo, its board and the classifier, as the vision tests need
 * them. */
#ifndef KIFUCAM_VISION_TEST_UTIL_H
#define KIFUCAM_VISION_TEST_UTIL_H

#include "capture/capture.h"
#include "vision/vision.h"

/* Loads ../shared/data/photos/hash451722/sample_board.jpg into *img (caller frees with
 * cap_image_free), finds its board into *pose (asserted found) and opens models/squares.onnx into
 * *clf (caller destroys). Returns 0; -1 when ../shared/data is absent (a skip line naming `what` is
 * printed, nothing to free). Fatal CUnit assertions on any other failure. */
int vt_sample_board(const char *what, cap_image_t *img, vis_pose_t *pose, vis_classifier_t **clf);

#endif /* KIFUCAM_VISION_TEST_UTIL_H */
