/* overlay.c - vis_overlay_write: the photo with the found grid and the read labels drawn on it, for
 * `kifucam recognize --overlay` and for looking at what vision saw. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vision/cvseam.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

int vis_overlay_write(const cap_image_t *img, const vis_pose_t *pose, const vis_board_read_t *read,
                      const char *path, char *err, size_t errlen) {
    const char *fn = "vis_overlay_write";
    static const unsigned char red[3] = {0, 0, 255}, green[3] = {0, 220, 0}, yellow[3] = {0, 220, 255};
    char cverr[300];
    int rc = VIS_OK;

    if (img == NULL || img->data == NULL || pose == NULL || path == NULL || img->width < 1 ||
        img->height < 1) {
        vis_set_err(err, errlen, fn, "bad argument");
        return VIS_E_ARG;
    }
    int w = img->width, h = img->height, stride = 3 * w;
    unsigned char *pix = malloc((size_t)stride * h);
    if (pix == NULL) {
        vis_set_err(err, errlen, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    for (int y = 0; y < h; y++)
        memcpy(pix + (size_t)y * stride, img->data + (size_t)y * img->stride, (size_t)stride);
    int thick = w > 1500 ? 3 : (w > 700 ? 2 : 1);
    for (int k = 0; k <= 9 && rc == VIS_OK; k++) {
        double x0, y0, x1, y1;
        if (vis_pose_to_image(pose, k, 0, &x0, &y0) == 0 && vis_pose_to_image(pose, k, 9, &x1, &y1) == 0 &&
            vis_cv_draw_line(pix, w, h, stride, x0, y0, x1, y1, red, thick, cverr, sizeof cverr) != 0)
            rc = VIS_E_CV;
        if (rc == VIS_OK && vis_pose_to_image(pose, 0, k, &x0, &y0) == 0 &&
            vis_pose_to_image(pose, 9, k, &x1, &y1) == 0 &&
            vis_cv_draw_line(pix, w, h, stride, x0, y0, x1, y1, red, thick, cverr, sizeof cverr) != 0)
            rc = VIS_E_CV;
    }
    if (read != NULL) {
        double ax, ay, bx, by;
        vis_pose_to_image(pose, 4, 4.5, &ax, &ay);
        vis_pose_to_image(pose, 5, 4.5, &bx, &by);
        double sq = (bx - ax) * (bx - ax) + (by - ay) * (by - ay);
        double scale = sq > 0 ? 0.012 * sqrt(sq) : 0.5;
        for (int sqi = 0; sqi < VIS_SQUARE_NB && rc == VIS_OK; sqi++) {
            int file = sqi / 9 + 1, rank = sqi % 9 + 1;
            const char *label = vis_class_sfen(read->cls[sqi]);
            double cx, cy;
            if (label == NULL || label[0] == '\0' ||
                vis_pose_to_image(pose, 9.5 - file, rank - 0.5, &cx, &cy) != 0)
                continue;
            const unsigned char *col =
                read->conf[sqi] >= 0.9f ? green : (read->conf[sqi] >= 0.5f ? yellow : red);
            if (vis_cv_draw_text(pix, w, h, stride, cx, cy, label, scale, col, cverr, sizeof cverr) != 0)
                rc = VIS_E_CV;
        }
    }
    if (rc == VIS_OK) {
        int wr = vis_cv_write_image(path, pix, w, h, stride, cverr, sizeof cverr);
        if (wr != 0)
            rc = wr == VIS_CV_E_IO ? VIS_E_IO : VIS_E_CV;
    }
    if (rc != VIS_OK)
        vis_set_err(err, errlen, fn, "%s", cverr);
    free(pix);
    return rc;
}

int vis_image_write(const cap_image_t *img, const char *path, char *err, size_t errlen) {
    char cverr[300] = "";
    if (img == NULL || img->data == NULL || path == NULL || img->width < 1 || img->height < 1) {
        vis_set_err(err, errlen, "vis_image_write", "bad argument");
        return VIS_E_ARG;
    }
    int wr = vis_cv_write_image(path, img->data, img->width, img->height, img->stride, cverr, sizeof cverr);
    if (wr == 0)
        return VIS_OK;
    vis_set_err(err, errlen, "vis_image_write", "%s", cverr);
    return wr == VIS_CV_E_IO ? VIS_E_IO : VIS_E_CV;
}
