/* test_stability.c - tests of vision/stability.c on the sample board photo: the first frame, settling,
 * stable after stable_ms, a "hand" (a dark block reaching in from the side) moving then resting, and
 * stable again once it is gone; wrong frame sizes refused; the first stable picture of a board found
 * under a resting hand (first_stable_ms). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "tests/tests.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

static void test_stability_sequence(void) {
    char path[4096], err[256] = "";
    cap_image_t img, hand;
    vis_pose_t pose;
    vis_stability_t *st = NULL;
    vis_view_t v;

    if (tests_shared_path(path, sizeof path, "photos/hash451722/sample_board.jpg") != 0) {
        tests_skip_shared("stability on sample_board.jpg");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(cap_image_load(path, &img, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(vis_pose_find(&img, NULL, &pose, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(pose.found, 1);
    TESTS_CHECK(vis_stability_create(&pose, NULL, &st, err, sizeof err) == 0, "%s", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);

    hand = img;
    hand.data = malloc((size_t)img.stride * img.height);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hand.data);
    memcpy(hand.data, img.data, (size_t)img.stride * img.height);
    for (int y = 400; y < 560; y++) /* an arm from the left edge to the middle of the board */
        for (int x = 0; x < 520; x++)
            memset(hand.data + (size_t)y * hand.stride + (size_t)x * 3, 40, 3);

    static const struct {
        int hand;
        int64_t ms;
        int want;
    } seq[] = {{0, 0, VIS_VIEW_NONE},      {0, 100, VIS_VIEW_SETTLING},  {0, 500, VIS_VIEW_STABLE},
               {1, 533, VIS_VIEW_MOVING},  {1, 566, VIS_VIEW_HAND},      {1, 1500, VIS_VIEW_HAND},
               {0, 2033, VIS_VIEW_MOVING}, {0, 2066, VIS_VIEW_SETTLING}, {0, 2600, VIS_VIEW_STABLE}};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        int rc = vis_stability_update(st, seq[i].hand ? &hand : &img, seq[i].ms * 1000, &v);
        CU_ASSERT_EQUAL(rc, 0);
        TESTS_CHECK(v.state == seq[i].want, "frame %zu at %lld ms: state %d, want %d (moving %d changed %d)",
                    i, (long long)seq[i].ms, v.state, seq[i].want, v.moving_cells, v.changed_cells);
    }
    TESTS_CHECK(v.still_us == (2600 - 2066) * 1000, "still for %lld us", (long long)v.still_us);

    /* the light drops by 30 grey levels over the whole view (a lamp, auto-exposure): neither a move nor
     * a hand, the view stays still; the arm in that light is still a hand */
    cap_image_t dark = img, darkhand = hand;
    size_t bytes = (size_t)img.stride * img.height;
    dark.data = malloc(bytes);
    darkhand.data = malloc(bytes);
    CU_ASSERT_FATAL(dark.data != NULL && darkhand.data != NULL);
    for (size_t i = 0; i < bytes; i++) {
        dark.data[i] = (unsigned char)(img.data[i] > 30 ? img.data[i] - 30 : 0);
        darkhand.data[i] = (unsigned char)(hand.data[i] > 30 ? hand.data[i] - 30 : 0);
    }
    static const struct {
        int which; /* 0 dark, 1 dark with the arm */
        int64_t ms;
        int want;
    } seq2[] = {{0, 2633, -1 /* a step of the light: at most one frame of movement */},
                {0, 2666, VIS_VIEW_SETTLING},
                {0, 3200, VIS_VIEW_STABLE},
                {1, 3233, VIS_VIEW_MOVING},
                {1, 3266, VIS_VIEW_HAND},
                {0, 3300, VIS_VIEW_MOVING},
                {0, 3333, VIS_VIEW_SETTLING},
                {0, 3900, VIS_VIEW_STABLE}};
    for (size_t i = 0; i < sizeof seq2 / sizeof seq2[0]; i++) {
        CU_ASSERT_EQUAL(vis_stability_update(st, seq2[i].which ? &darkhand : &dark, seq2[i].ms * 1000, &v),
                        0);
        TESTS_CHECK(seq2[i].want < 0 ? v.state != VIS_VIEW_HAND && v.changed_cells == 0
                                     : v.state == seq2[i].want,
                    "darker light, frame %zu at %lld ms: state %d, want %d (moving %d changed %d)", i,
                    (long long)seq2[i].ms, v.state, seq2[i].want, v.moving_cells, v.changed_cells);
    }
    /* a black frame (the camera blacked out, a covered lens) is no change of light: not a still view */
    memset(dark.data, 0, bytes);
    CU_ASSERT_EQUAL(vis_stability_update(st, &dark, 4000 * 1000, &v), 0);
    CU_ASSERT_EQUAL(vis_stability_update(st, &dark, 4033 * 1000, &v), 0);
    TESTS_CHECK(v.state == VIS_VIEW_HAND,
                "a black frame after a stable view: state %d, want hand (changed %d)", v.state,
                v.changed_cells);
    free(dark.data);
    free(darkhand.data);

    cap_image_t small = img;
    small.width -= 1;
    CU_ASSERT_EQUAL(vis_stability_update(st, &small, 0, &v), VIS_E_ARG);
    vis_stability_destroy(st);

    /* the recorder's settings (stable_ms 0) on a board found again while the arm rests on it: the first
     * stable picture waits first_stable_ms, so it is the board once the arm has gone, not the arm (taken
     * after one still frame before, it made every later frame "hand" and the board was not read) */
    vis_stability_params_t rp;
    vis_stability_params_default(&rp);
    rp.stable_ms = 0;
    TESTS_CHECK(vis_stability_create(&pose, &rp, &st, err, sizeof err) == 0, "%s", err);
    static const struct {
        int hand;
        int64_t ms;
        int want;
    } seq3[] = {{1, 0, VIS_VIEW_NONE},      {1, 100, VIS_VIEW_SETTLING}, {1, 200, VIS_VIEW_SETTLING},
                {0, 300, VIS_VIEW_MOVING},  {0, 400, VIS_VIEW_SETTLING}, {0, 900, VIS_VIEW_STABLE},
                {0, 1000, VIS_VIEW_STABLE}, {1, 1100, VIS_VIEW_MOVING},  {1, 1200, VIS_VIEW_HAND}};
    for (size_t i = 0; st && i < sizeof seq3 / sizeof seq3[0]; i++) {
        CU_ASSERT_EQUAL(vis_stability_update(st, seq3[i].hand ? &hand : &img, seq3[i].ms * 1000, &v), 0);
        TESTS_CHECK(v.state == seq3[i].want,
                    "found again under a hand, frame %zu at %lld ms: state %d, want %d", i,
                    (long long)seq3[i].ms, v.state, seq3[i].want);
    }
    vis_stability_destroy(st);
    rp.first_stable_ms = 10001;
    CU_ASSERT_EQUAL(vis_stability_create(&pose, &rp, &st, err, sizeof err), VIS_E_ARG);
    rp.first_stable_ms = 500;
    rp.ref_still_ms = 10001;
    CU_ASSERT_EQUAL(vis_stability_create(&pose, &rp, &st, err, sizeof err), VIS_E_ARG);
    rp.ref_still_ms = 300;
    rp.hand_still_ms = -1;
    CU_ASSERT_EQUAL(vis_stability_create(&pose, &rp, &st, err, sizeof err), VIS_E_ARG);
    vis_stability_destroy(NULL);
    free(hand.data);
    cap_image_free(&img);
}

/* The recorder's settings (stable_ms 0, ref_still_ms 300, hand_still_ms 1000). A view is read after
 * one still frame, but it becomes the stable picture only once still for 300 ms: a piece-sized change
 * in the middle of the board (2 cells, no hand) is counted against the old picture until then. An
 * arm resting still for 1 s is taken as the board (STABLE, the new stable picture); once it has gone,
 * the board differs from that stale picture by the arm ("hand") until it too has been still for 1 s,
 * then it is read and the picture re-taken: no view stays "hand" for ever. */
static void test_stability_reference(void) {
    char path[4096], err[256] = "";
    cap_image_t img, hand, piece;
    vis_pose_t pose;
    vis_stability_t *st = NULL;
    vis_view_t v;

    if (tests_shared_path(path, sizeof path, "photos/hash451722/sample_board.jpg") != 0) {
        tests_skip_shared("stability reference on sample_board.jpg");
        return;
    }
    CU_ASSERT_EQUAL_FATAL(cap_image_load(path, &img, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(vis_pose_find(&img, NULL, &pose, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(pose.found, 1);
    size_t bytes = (size_t)img.stride * img.height;
    hand = img;
    piece = img;
    hand.data = malloc(bytes);
    piece.data = malloc(bytes);
    CU_ASSERT_FATAL(hand.data != NULL && piece.data != NULL);
    memcpy(hand.data, img.data, bytes);
    memcpy(piece.data, img.data, bytes);
    for (int y = 400; y < 560; y++) /* an arm from the left edge to the middle of the board */
        for (int x = 0; x < 520; x++)
            memset(hand.data + (size_t)y * hand.stride + (size_t)x * 3, 40, 3);
    /* a dark block over the middle square (5e): one or two of the thumbnail's cells, away from its edge */
    double x0, y0, x1, y1;
    CU_ASSERT_EQUAL_FATAL(vis_hom_apply(pose.H, 4.2, 4.2, &x0, &y0), 0);
    CU_ASSERT_EQUAL_FATAL(vis_hom_apply(pose.H, 4.8, 4.8, &x1, &y1), 0);
    for (int y = (int)y0; y < (int)y1; y++)
        for (int x = (int)x0; x < (int)x1; x++)
            memset(piece.data + (size_t)y * piece.stride + (size_t)x * 3, 20, 3);

    vis_stability_params_t rp;
    vis_stability_params_default(&rp);
    CU_ASSERT_EQUAL(rp.ref_still_ms, 300);
    CU_ASSERT_EQUAL(rp.hand_still_ms, 1000);
    rp.stable_ms = 0;
    TESTS_CHECK(vis_stability_create(&pose, &rp, &st, err, sizeof err) == 0, "%s", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    static const struct {
        int which; /* 0 the board, 1 the arm, 2 the block */
        int64_t ms;
        int want;
        int changed; /* -1: any number, -2: more than 0 */
    } seq[] = {{0, 0, VIS_VIEW_NONE, 0},       {0, 100, VIS_VIEW_SETTLING, 0}, {0, 500, VIS_VIEW_STABLE, 0},
               {2, 600, VIS_VIEW_MOVING, -2},  {2, 700, VIS_VIEW_STABLE, -2},  {2, 900, VIS_VIEW_STABLE, -2},
               {2, 1000, VIS_VIEW_STABLE, -2}, {2, 1100, VIS_VIEW_STABLE, 0},  {0, 1200, VIS_VIEW_MOVING, -2},
               {0, 1300, VIS_VIEW_STABLE, -2}, {0, 1700, VIS_VIEW_STABLE, -2}, {0, 1800, VIS_VIEW_STABLE, 0},
               {1, 1900, VIS_VIEW_MOVING, -1}, {1, 2000, VIS_VIEW_HAND, -2},   {1, 2900, VIS_VIEW_HAND, -2},
               {1, 3000, VIS_VIEW_STABLE, -2}, {1, 3100, VIS_VIEW_STABLE, 0},  {0, 3200, VIS_VIEW_MOVING, -1},
               {0, 3300, VIS_VIEW_HAND, -2},   {0, 4200, VIS_VIEW_HAND, -2},   {0, 4300, VIS_VIEW_STABLE, -2},
               {0, 4400, VIS_VIEW_STABLE, 0},  {1, 4500, VIS_VIEW_MOVING, -1}, {1, 4600, VIS_VIEW_HAND, -2}};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        const cap_image_t *f = seq[i].which == 1 ? &hand : seq[i].which == 2 ? &piece : &img;
        CU_ASSERT_EQUAL(vis_stability_update(st, f, seq[i].ms * 1000, &v), 0);
        int ok_changed = seq[i].changed == -1   ? 1
                         : seq[i].changed == -2 ? v.changed_cells > 0
                                                : v.changed_cells == seq[i].changed;
        TESTS_CHECK(v.state == seq[i].want && ok_changed,
                    "frame %zu at %lld ms: state %d, want %d; changed cells %d, want %d", i,
                    (long long)seq[i].ms, v.state, seq[i].want, v.changed_cells, seq[i].changed);
        if (seq[i].which == 2 && seq[i].changed == -2)
            TESTS_CHECK(v.changed_cells <= 2, "the block changed %d cells", v.changed_cells);
    }
    vis_stability_destroy(st);
    /* hand_still_ms 0: an arm resting for 3 s stays a hand */
    rp.hand_still_ms = 0;
    TESTS_CHECK(vis_stability_create(&pose, &rp, &st, err, sizeof err) == 0, "%s", err);
    CU_ASSERT_EQUAL(vis_stability_update(st, &img, 0, &v), 0);
    CU_ASSERT_EQUAL(vis_stability_update(st, &img, 600 * 1000, &v), 0);
    CU_ASSERT_EQUAL(v.state, VIS_VIEW_STABLE);
    CU_ASSERT_EQUAL(vis_stability_update(st, &hand, 700 * 1000, &v), 0);
    CU_ASSERT_EQUAL(vis_stability_update(st, &hand, 800 * 1000, &v), 0);
    CU_ASSERT_EQUAL(vis_stability_update(st, &hand, 3800 * 1000, &v), 0);
    CU_ASSERT_EQUAL(v.state, VIS_VIEW_HAND);
    vis_stability_destroy(st);
    free(piece.data);
    vis_stability_destroy(NULL);
    free(hand.data);
    cap_image_free(&img);
}

int tests_register_vision_stability(void) {
    CU_pSuite s = CU_add_suite("vision/stability", NULL, NULL);
    if (s == NULL || CU_add_test(s, "still, hand, still again", test_stability_sequence) == NULL ||
        CU_add_test(s, "the stable picture: still 300 ms, a stale one re-taken", test_stability_reference) ==
            NULL)
        return -1;
    return 0;
}
