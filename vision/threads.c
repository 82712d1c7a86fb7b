/* threads.c - how many threads vision's OpenCV calls may use (vis_threads_set), through the seam. */
#include "vision/cvseam.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

int vis_threads_set(int n, char *err, size_t errlen) {
    char cverr[300];
    if (n < 0) {
        vis_set_err(err, errlen, "vis_threads_set", "thread count %d < 0", n);
        return VIS_E_ARG;
    }
    if (vis_cv_set_threads(n, cverr, sizeof cverr) != VIS_CV_OK) {
        vis_set_err(err, errlen, "vis_threads_set", "%s", cverr);
        return VIS_E_CV;
    }
    return VIS_OK;
}
