/* bench_vision.c - vision timings on one core: the per-frame stability test on a 1920x1080 frame, the
 * board pose search, and (when models/squares.onnx exists) a full 81-square read in one batched dnn
 * call against the naive one-call-per-square baseline, in the same run.
 * usage: bench-vision PHOTO [MODEL] (make bench; PHOTO is ../shared/data's sample_board.jpg). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/capture.h"
#include "vision/vision.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
    char err[512] = "";
    cap_image_t photo, frame;
    vis_pose_t pose;
    vis_stability_t *st = NULL;
    vis_view_t v;
    int rc = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: bench-vision PHOTO [MODEL]\n");
        return 2;
    }
    if (cap_image_load(argv[1], &photo, err, sizeof err) != 0) {
        fprintf(stderr, "bench-vision: %s\n", err);
        return 2;
    }
    /* a 1080p frame with the photo in it (cropped to fit), the rest grey */
    frame.width = 1920;
    frame.height = 1080;
    frame.stride = 1920 * 3;
    frame.data = malloc((size_t)frame.stride * frame.height);
    if (frame.data == NULL)
        return 2;
    memset(frame.data, 90, (size_t)frame.stride * frame.height);
    int ch = photo.height < 1080 ? photo.height : 1080, cw = photo.width < 1920 ? photo.width : 1920;
    for (int y = 0; y < ch; y++)
        memcpy(frame.data + (size_t)y * frame.stride + 300 * 3, photo.data + (size_t)y * photo.stride,
               (size_t)(cw < 1620 ? cw : 1620) * 3);
    vis_pose_params_t pp;
    vis_pose_params_default(&pp);
    pp.work_size = 2048; /* the board covers 1000 of 1920 pixels: keep its lines sharp */
    pp.min_score = 0.5;  /* timing only: this pasted frame scores 0.58 (the photo alone 0.70) */
    double t0 = now_ms();
    if (vis_pose_find(&frame, &pp, &pose, err, sizeof err) != 0 || !pose.found) {
        fprintf(stderr, "bench-vision: no board in the 1080p frame (score %.2f %s)\n", pose.score, err);
        return 2;
    }
    double t_pose = now_ms() - t0;
    if (vis_stability_create(&pose, NULL, &st, err, sizeof err) != 0) {
        fprintf(stderr, "bench-vision: %s\n", err);
        return 2;
    }
    const int n = 2000;
    t0 = now_ms();
    for (int i = 0; i < n; i++)
        vis_stability_update(st, &frame, (int64_t)i * 33333, &v);
    double t_stab = (now_ms() - t0) / n;
    printf("vision bench, 1920x1080 frame, one core\n");
    printf("pose search: %.1f ms (once per board placement)\n", t_pose);
    printf("stability test: %.4f ms per frame (target < 3 ms), state %d\n", t_stab, v.state);
    vis_stability_destroy(st);

    const char *model = argc > 2 ? argv[2] : "models/squares.onnx";
    vis_classifier_t *clf = NULL;
    vis_board_read_t *rd = malloc(sizeof *rd);
    if (rd && vis_classifier_open(model, &clf) == 0) {
        const int reps = 10;
        vis_classifier_read(clf, &frame, &pose, rd); /* warm-up */
        t0 = now_ms();
        for (int i = 0; i < reps; i++)
            vis_classifier_read(clf, &frame, &pose, rd);
        double t_batch = (now_ms() - t0) / reps;
        t0 = now_ms();
        for (int i = 0; i < reps; i++)
            vis_classifier_read_naive(clf, &frame, &pose, rd);
        double t_naive = (now_ms() - t0) / reps;
        printf("full read (81 squares, one batched forward): %.2f ms (target < 20 ms)\n", t_batch);
        printf("naive read (81 forwards of one square): %.2f ms\n", t_naive);
        printf("ratio naive/batched: %.2f\n", t_naive / t_batch);
    } else {
        printf("full read: skipped (%s)\n", vis_classifier_errmsg(clf));
    }
    vis_classifier_destroy(clf);
    free(rd);
    free(frame.data);
    cap_image_free(&photo);
    return rc;
}
