/* vision.h - kifucam's vision module: finds the board in a frame (pose), decides which side is sente
 * (orientation), tells whether the view is stable (a hand in the way, moving, still for N ms), and
 * reads the 81 squares with the ONNX square classifier of models/, the two komadai, and a whole photo
 * as one position (vis_photo_read).
 *
 * Coordinates. "Canonical board coordinates" (u, v) are in square units: u = 0..9 from the left edge
 * of the grid to the right, v = 0..9 from the top edge to the bottom, as seen from sente's side (sente
 * at the bottom). The square of file f (1..9) and rank r (1..9) covers u in [9-f, 10-f], v in
 * [r-1, r]. Squares are indexed as kifu notation maps: sq = (f-1)*9 + (r-1), 1一 = 0 ... 9九 = 80
 * (rules/ numbers them so too). Image coordinates are pixels of the frame, x right, y down, (0,0) the
 * centre of the top-left pixel.
 *
 * Errors: functions return 0 or a negative VIS_E_* code; failing functions write a one-line reason,
 * prefixed with the function's name, into the caller's err buffer (errlen bytes, NUL-terminated when
 * errlen > 0) or keep it in their handle (vis_classifier_errmsg). "No board found" is not an error: the
 * pose comes back with found = 0. Nothing here keeps global mutable state; a handle is used from one
 * thread at a time. Images are capture's BGR8 views (cap_image_t), borrowed for the call only.
 *
 * Design: docs/vision.md; measurements: docs/EVALUATION.md. */
#ifndef KIFUCAM_VISION_H
#define KIFUCAM_VISION_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "rules/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    VIS_OK = 0,
    VIS_E_ARG = -1,   /* NULL pointer, empty image, parameter out of range (the message says which) */
    VIS_E_NOMEM = -2, /* out of memory */
    VIS_E_CV = -3,    /* OpenCV raised an exception (message has its text) */
    VIS_E_IO = -4,    /* a file could not be read or written */
    VIS_E_MODEL = -5  /* the model file is not a network of the expected shape */
};

/* The name of a return code ("VIS_E_CV", ...), for logs; "VIS_E?" for any other value. Never NULL. */
const char *vis_strerror(int rc);

#define VIS_SQUARE_NB 81       /* squares of the board */
#define VIS_CLASS_NB 29        /* square classes: see vis_class_sfen */
#define VIS_SFEN_BOARD_MAX 171 /* bytes of the longest SFEN board field with its NUL (vis_board_sfen) */
#define VIS_FEAT_NB 128        /* values of a crop's embedding (the classifier's global average pool) */

/* ---------------------------------------------------------------- board pose */

/* Tunables of vis_pose_find. Fill with vis_pose_params_default(). */
typedef struct vis_pose_params {
    int work_size;    /* longest side of the grey working image, pixels, 256..2048; default 1024 (a larger
                       * frame is shrunk, a smaller one enlarged) */
    double min_area;  /* smallest board accepted, fraction of the frame area, 0..1; default 0.03 */
    double min_score; /* smallest grid score accepted as a board, 0..1 (see vis_pose_t.score); default 0.60
                       * (sub-grids and half-seen boards score 0.4-0.55, real boards 0.7-1.0) */
    double min_score_fill; /* the same for a grid whose corners are the frame's corners (within a fifth of
                            * a square): a photo already straightened and cut at the outer lines, whose
                            * outer lines cannot be seen and whose pieces hide much of the rest; 0..1,
                            * default 0.45 */
    int max_lines;         /* Hough lines kept per direction, 8..64; default 28 */
    double aspect;         /* height / width of one square on the real board, 0.8..1.4; default 1.09 */
    int min_level;         /* the least black-hat level (grey levels, 1..255) a pixel needs to count as on a
                            * line; the level is the map's 90th percentile, at least this; default 12 */
    int faint_level;       /* when no board is found: a second search for faint lines (a low-contrast board, a
                            * dim or shadowed one under sensor noise), on the grey image smoothed by a
                            * Gaussian of faint_blur source pixels, with this least level (1..255; 0: no
                            * second search); its pose is taken if found, or if its best grid scores higher;
                            * default 6. A blank, noise or half-seen frame is still no board */
    double faint_blur;     /* sigma of that smoothing, pixels of the source image, 0.3..3; default 0.7 */
} vis_pose_params_t;

/* Where the board is in one frame. */
typedef struct vis_pose {
    int found;            /* 1 if a 9x9 grid was found with score >= min_score, else 0 (other fields
                           * then describe the best candidate, if any, for diagnostics) */
    double score;         /* grid score, 0..1: the share of sampled grid-line points that lie on dark
                           * thin lines minus the share of points half a square off the lines that do
                           * (the two most-hit half lines left out: ranks of pieces; the lines
                           * beside and across squares that hold something left out when 20 or more
                           * are empty; less a penalty when even and odd lines differ, a comb of a
                           * fraction of the spacing) */
    double confidence;    /* 0..1, the smaller of a map of score (0 below min_score, 0.5 at it, 1 from
                           * min_score + 0.4 (1 - min_score) up) and of the registration margin (the
                           * score's margin over its threshold less the best such margin of the grid
                           * moved one square along either axis; 0.5 at 0.03, 1 from 0.06): low when
                           * a grid a row or a file over fits as well */
    double H[9];          /* canonical (u, v, 1) -> image (x, y, w), row-major; x/w, y/w are pixels */
    double Hinv[9];       /* image -> canonical, the inverse of H */
    double corners[4][2]; /* image pixels of the grid corners (u,v) = (0,0), (9,0), (9,9), (0,9) */
    double rms_px;        /* root mean square distance, pixels, between the 100 fitted grid-line
                           * crossings and H's; < 1.5 for a flat board in a sharp photo */
    int rotation;         /* quarter turns applied by vis_pose_rotate since found (0..3) */
    int frame_w, frame_h; /* size of the frame this pose was found in, pixels */
} vis_pose_t;

/* Fills *p with the defaults given above. p must not be NULL. */
void vis_pose_params_default(vis_pose_params_t *p);

/* Finds the board grid in img (BGR8). params may be NULL for the defaults. On return 0, *pose holds
 * the result: pose->found says whether a board was seen (a board half out of view, a blank or noise
 * frame give found = 0). Before orientation is decided, (u, v) = (0, 0) is the grid corner nearest the
 * image's top-left, and v grows toward the image's bottom. Takes 0.2-1 s on one core (work_size
 * 1024; 2.4 s at 2048), twice that when the first search finds nothing and the faint-line search runs
 * (faint_level), three times when that finds nothing either and a search for blurred lines runs (a
 * black-hat square 1.6 times wider; its grid taken only with the whole board in view), so it runs when
 * the board is placed or moved, not per frame. Errors: VIS_E_ARG,
 * VIS_E_NOMEM, VIS_E_CV, with the reason in err. */
int vis_pose_find(const cap_image_t *img, const vis_pose_params_t *params, vis_pose_t *pose, char *err,
                  size_t errlen);

/* Turns the canonical frame of pose by `quarter_turns` x 90 degrees (any integer; 1 = the side that
 * was at the board's left, u = 0, comes to the bottom). H, Hinv and corners are updated, rotation
 * counts the turns modulo 4. Used once the orientation (where sente sits) is known. */
void vis_pose_rotate(vis_pose_t *pose, int quarter_turns);

/* Moves the grid of pose by whole squares in its own canonical frame: the new square (u, v) is the old
 * (u + du, v + dv) (du = 1: one file towards u = 9, the image's right for an unturned pose; dv = 1: one
 * row towards v = 9). H, Hinv and corners are updated; score, confidence and rms_px are left as they
 * were (they describe the grid that was found). Used to try a grid a row or a file off, the classic
 * failure of a grid found from lines (a printed border taken for the outer line). */
void vis_pose_shift(vis_pose_t *pose, int du, int dv);

/* A pose from the grid's four corners in image pixels, in vis_pose_t.corners' order ((u, v) = (0, 0),
 * (9, 0), (9, 9), (0, 9): clockwise on the image), e.g. as a recording's events.jsonl keeps them
 * ("board_px"), for a frame of frame_w x frame_h pixels: found 1, H and Hinv through the corners, score,
 * confidence and rms_px 0. Errors: VIS_E_ARG (NULL, a size under 1, a corner not finite, corners not
 * clockwise or folded). */
int vis_pose_from_corners(const double corners[4][2], int frame_w, int frame_h, vis_pose_t *pose);

/* Maps canonical (u, v) to image pixels (*x, *y) with pose->H. Returns 0, or VIS_E_ARG if the point
 * lies on or behind the camera's horizon. */
int vis_pose_to_image(const vis_pose_t *pose, double u, double v, double *x, double *y);

/* 1 if the middle 0.6 x 0.6 of the square whose corner is canonical (u0, v0) (column u0, row v0, 0..8)
 * lies wholly in a w x h pixel frame under pose (its four corners map to pixels 0 <= x < w, 0 <= y < h):
 * the square is seen. A square cut by the frame's edge through its middle holds too little of a piece
 * to be read (kifucam recognize's unseen squares; vis_board_off_strips). */
int vis_pose_square_seen(const vis_pose_t *pose, int w, int h, int u0, int v0);

/* Warps the board to a top-down picture: dst is the caller's BGR8 view (any size; canonical u = 0..9
 * maps to x = 0..dst->width, v = 0..9 to y = 0..dst->height, so a board-shaped picture has height =
 * width * aspect). margin is extra canonical squares shown on every side (0 = the grid only).
 * Errors: VIS_E_ARG, VIS_E_CV. */
int vis_pose_warp(const cap_image_t *img, const vis_pose_t *pose, double margin, cap_image_t *dst, char *err,
                  size_t errlen);

/* ---------------------------------------------------------------- stability */

/* What the per-frame test says about the view. */
enum {
    VIS_VIEW_NONE = 0, /* no reference yet (the first frame) */
    VIS_VIEW_HAND,     /* something covers part of the board or a komadai and stays (a hand, an arm) */
    VIS_VIEW_MOVING,   /* the picture changes from frame to frame */
    VIS_VIEW_SETTLING, /* still, but not for stable_ms yet */
    VIS_VIEW_STABLE,   /* still for at least stable_ms (a hand view: hand_still_ms): safe to read */
    VIS_VIEW_NB
};

/* Tunables of the stability test. Fill with vis_stability_params_default(). */
typedef struct vis_stability_params {
    int cell_px;            /* thumbnail pixels per board square, 4..20; default 10 (90x90 board) */
    double komadai_squares; /* width of the area beside each side of the board also watched, canonical
                             * squares, 0..5; default 3 (0 = the board only) */
    double motion_level;    /* mean absolute grey difference (0..255) within one cell of the thumbnail
                             * between two frames above which that cell is "moving"; default 14 */
    double change_level;    /* same, against the last stable picture, above which a cell is "changed";
                             * default 18 */
    int hand_cells;         /* changed cells touching the edge of the watched area, or more changed
                             * cells than 3 x this anywhere, that make a still view "hand in view"; default 3 */
    int stable_ms;          /* milliseconds still before STABLE, 0..10000; default 400 */
    int first_stable_ms;    /* the same for the first STABLE of a test (no stable picture yet to tell a
                             * hand by), 0..10000, the larger of it and stable_ms counts; default 500: a
                             * board found again while a hand rested on it for two frames took that
                             * picture as the board's, and every frame after it as "hand" for 2.4 s, so
                             * the recorder read three moves as one hidden route, two of them wrong */
    int ref_still_ms;       /* milliseconds still before a STABLE view becomes the stable picture that
                             * later views are compared with, 0..10000; default 300 (a view read after
                             * one still frame may still hold a hand that has paused) */
    int hand_still_ms;      /* milliseconds a "hand" view must stay still before it is taken as the
                             * board (the stable picture was stale: it held a hand since gone, or a
                             * piece moved unseen): STABLE and taken as the stable picture, 0..60000,
                             * 0 = never; default 1000 */
} vis_stability_params_t;

/* Result of one frame. */
typedef struct vis_view {
    int state;         /* VIS_VIEW_* */
    int64_t still_us;  /* microseconds since the view last moved (0 while moving) */
    int moving_cells;  /* cells that changed since the previous frame */
    int changed_cells; /* cells that differ from the last stable picture */
    double motion;     /* largest per-cell mean absolute difference to the previous frame, 0..255 */
} vis_view_t;

typedef struct vis_stability vis_stability_t; /* opaque: thumbnails of the last frames */

/* Fills *p with the defaults given above. p must not be NULL. */
void vis_stability_params_default(vis_stability_params_t *p);

/* Creates a stability tracker for frames of frame_w x frame_h pixels seen with pose (the lookup of
 * the thumbnail's pixels is computed once here). params may be NULL for the defaults. On success
 * *out is a new handle, freed with vis_stability_destroy. Errors: VIS_E_ARG (bad params, pose not
 * found), VIS_E_NOMEM; the reason in err. */
int vis_stability_create(const vis_pose_t *pose, const vis_stability_params_t *params, vis_stability_t **out,
                         char *err, size_t errlen);

/* Frees the tracker. NULL is allowed. */
void vis_stability_destroy(vis_stability_t *st);

/* Feeds one frame (same size as at creation; ts_us its timestamp in microseconds, increasing) and
 * says what the view is doing in *view. Costs one pass over the thumbnail's pixels (no OpenCV, no
 * allocation): well under 1 ms for a 1080p frame. Errors: VIS_E_ARG (wrong size, NULL). */
int vis_stability_update(vis_stability_t *st, const cap_image_t *frame, int64_t ts_us, vis_view_t *view);

/* ---------------------------------------------------------------- square classifier */

/* Per-square reading of a board. */
typedef struct vis_board_read {
    float prob[VIS_SQUARE_NB][VIS_CLASS_NB]; /* softmax probabilities per square, each row sums to 1 */
    int cls[VIS_SQUARE_NB];                  /* the most probable class per square, 0..28 */
    float conf[VIS_SQUARE_NB];               /* its probability, 0..1 */
    float min_conf;                          /* the smallest conf over the 81 squares */
    int orientation;                         /* quarter turns chosen by vis_classifier_orient (0..3) */
    double orient_margin;                    /* log-likelihood of the chosen turn minus the next best */
    int has_feat;                            /* 1: feat holds each square's embedding; 0: the model gives
                                                only logits (an older squares.onnx), feat is all 0 */
    float feat[VIS_SQUARE_NB][VIS_FEAT_NB];  /* per square, the 128 values (>= 0, not normalised) the
                                                network's last layer reads: crops of one piece look
                                                alike here even where the classes are misread (the
                                                recorder's per-game adaptation, recorder/record/adapt.h) */
    float red[VIS_SQUARE_NB];                /* per square, the share (0..1) of the square's own pixels
                                                (the crop's middle) in red ink: hue within 15 degrees of
                                                red, saturation >= 0.4, value >= 0.3 (vis_red_ink). Many
                                                sets write promoted sides in red; the wood of a board is
                                                orange (about 28 degrees) */
} vis_board_read_t;

/* The share of red-ink pixels (vis_board_read_t.red) in the middle side x side / 1.3 of one crop of
 * side x side pixels, planar B, G, R floats in 0..1 (the classifier's input layout). */
float vis_red_ink(const float *crop, int side);

typedef struct vis_classifier vis_classifier_t; /* opaque: the loaded network and its buffers */

/* The SFEN letters of class c (0..28): "" for empty (0), "P" "L" "N" "S" "B" "R" "G" "K" "+P" "+L"
 * "+N" "+S" "+B" "+R" for sente (1..14), the same in lower case for gote (15..28); NULL if out of range.
 * Static strings. */
const char *vis_class_sfen(int cls);

/* Loads the square classifier from an ONNX file (models/README.md gives its input and classes). On
 * success *out is a new handle; on failure the code is returned and *out is still a handle holding only
 * the reason (vis_classifier_errmsg), which the caller must also destroy; *out is NULL only when memory
 * ran out. Errors: VIS_E_ARG, VIS_E_IO (no such file), VIS_E_MODEL (not a network that gives 29 values,
 * or 29 + VIS_FEAT_NB (logits, then the embedding), for a 1x3xSxS input), VIS_E_NOMEM. S is the input side
 * the ONNX graph declares for its first N x 3 x S x S input (8..48; 48 when it declares none): the crops
 * are always cut at 48 x 48 and, for S < 48, shrunk to S x S by averaging before the network reads them
 * (PyTorch's adaptive average pooling, as models/train.py --size trains). */
int vis_classifier_open(const char *model_path, vis_classifier_t **out);

/* The input side S, pixels, of c's network (see vis_classifier_open); 0 for NULL c. */
int vis_classifier_input_side(const vis_classifier_t *c);

/* Frees the classifier. NULL is allowed. */
void vis_classifier_destroy(vis_classifier_t *c);

/* The last error message of c, never NULL ("" if none, "out of memory" for NULL c). Borrowed: valid
 * until the next call on c. */
const char *vis_classifier_errmsg(const vis_classifier_t *c);

/* Reads the 81 squares of img seen with pose: cuts each square's crop as models/README.md says, and
 * runs the network ONCE on the batch of 81. Fills *out (orientation 0, orient_margin 0).
 * Errors: VIS_E_ARG (pose not found, NULL), VIS_E_CV, VIS_E_NOMEM (message in c). */
int vis_classifier_read(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                        vis_board_read_t *out);

/* The 81 crops of img seen with pose exactly as vis_classifier_read cuts them for the network
 * (models/README.md: 1.3 squares, 48 x 48 BGR8), into out (81 x 48 x 48 x 3 bytes, the caller's), in
 * square order: what the network reads, for exporting labelled training crops (kifucam crops).
 * Errors: as vis_classifier_read. */
int vis_classifier_crops(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                         unsigned char *out);

/* The same reading for a camera that does not move: only the squares whose crop changed since the
 * network last read them go through it (in one batch); the others keep the probabilities of that
 * read. A square is read again when the mean absolute difference of its crop (48 x 48 x 3, values
 * 0..1) to the crop of its last read exceeds max_diff (0..1; 0 reads all 81 and renews every
 * reference; the recorder uses 0.008, docs/EVALUATION.md). A slow drift is caught, since
 * each square is compared with its own last read, not with the previous frame. The first call, and
 * any call with a pose other than the last one (its H differs), reads all 81. *nread gets the
 * number of squares the network read (0..81). Fills *out as vis_classifier_read. The reference
 * crops live in c (about 2.3 MB, allocated on the first call). Errors: as vis_classifier_read, and
 * VIS_E_ARG for NULL nread or max_diff out of range. */
int vis_classifier_read_changed(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                                double max_diff, vis_board_read_t *out, int *nread);

/* Test-time turn for vis_classifier_read_changed (off when opened): with on != 0 each square the network
 * reads is read twice, as cut and turned by 180 degrees (the other owner's view of it), and its logits
 * are the mean of the two (owners swapped for the turned one): the same product of experts as
 * vis_classifier_orient's, for the squares that changed, at twice their network cost. feat stays the
 * crop's own. Changing it makes the next read_changed read all 81. NULL c: nothing. */
void vis_classifier_set_turned(vis_classifier_t *c, int on);

/* The same reading, with one network call per square (81 calls): the naive baseline of `make bench`.
 * Gives the same probabilities as vis_classifier_read up to float rounding. */
int vis_classifier_read_naive(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                              vis_board_read_t *out);

/* Decides which side is sente: reads the board under each of the 4 quarter turns of the pose (one
 * batch of 324 crops) and keeps the turn whose reading is the most likely, with a prior for a
 * sensible position (kings on both sides, more own pieces on one's own side). Rotates *pose by that
 * turn (vis_pose_rotate) and fills *out with the reading in the new frame (out->orientation = turn,
 * out->orient_margin = its margin). out->prob is that turn's reading merged with the opposite turn's
 * (vis_board_read_merge_turned: each crop also seen upside down, at no extra cost); out->feat is the
 * chosen turn's own. Errors: as vis_classifier_read, VIS_E_NOMEM. */
int vis_classifier_orient(vis_classifier_t *c, const cap_image_t *img, vis_pose_t *pose,
                          vis_board_read_t *out);

/* Test-time scales (kifucam recognize): read, the reading of pose at the README crop (1.3 squares) merged
 * with its turned reading (as vis_classifier_orient gives it), is merged with the readings at crops of
 * 1.15 and 1.45 squares (each with its crop turned by 180 degrees, vis_board_read_merge_turned): each
 * class's probability becomes the normalised geometric mean of the three; cls, conf and min_conf are
 * set again; feat, orientation and orient_margin are kept. One network call of 324 crops (about three
 * times a reading). Errors: VIS_E_ARG (NULL, no board in pose), VIS_E_CV,
 * VIS_E_NOMEM, with vis_classifier_errmsg; read is then unchanged. */
int vis_classifier_read_scales(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                               vis_board_read_t *read);

/* Writes the SFEN board field of a reading (e.g. "lnsgkgsnl/1r5b1/..."), one class per square from
 * read->cls, into buf (size bytes; VIS_SFEN_BOARD_MAX is always enough: 81 promoted pieces and 8 '/'
 * take 170). Returns 0, or VIS_E_ARG if it does not fit (buf is then ""). */
int vis_board_sfen(const vis_board_read_t *read, char *buf, size_t size);

/* Which outer strips of the grid are not the board's surface: a grid one file or rank over, whose outer
 * line lies on a table's wood grain or a border beyond the board, has a strip of squares that hold the
 * board's edge and the table (the network reads them as empty, at little confidence), and since its
 * outer lines are all there nothing else tells it apart. Strip side: 0 the squares along u = 0 (file 9
 * when read is oriented), 1 along u = 9 (file 1), 2 along v = 0 (rank 1), 3 along v = 9 (rank 9), the
 * order of the outer lines. For each square the grey tone of its middle (0.6 x 0.6 square) is measured
 * over the part of it in the image; the board's tone beside a strip is the median over the squares
 * seen whole that read holds empty with 0.5 or more on the nearest line 1, 2 or 3 squares in that has
 * 3 of them (light that varies across a board, a broad shadow, changes little over so few squares). A
 * strip is off the board (off[side] = 1) when 3 or more of its squares are empty in read with 70 % or
 * more of their middle in the image (a grid a rank over often puts its outer strip across the edge of a
 * cut photo), and either their median tone is under 0.7 or over 1.43 times that tone, or 60 % or more of
 * them have 15 % or more of that part under 0.6 or over 1.6 times it (a dark border band or a table
 * crossing them). No such line: the strip is not judged (0). img: BGR8; pose: found; read: of that pose.
 * Returns VIS_OK, VIS_E_ARG (NULL, no board), VIS_E_NOMEM, VIS_E_CV (reason in err). */
int vis_board_off_strips(const cap_image_t *img, const vis_pose_t *pose, const vis_board_read_t *read,
                         int off[4], char *err, size_t errlen);

/* Test-time turn: merges into read the reading of the same board seen turned by 180 degrees (turned:
 * square sq there is square 80 - sq here, and its owners are swapped, since a piece pointing up turned
 * upside down points down). Each class's probability becomes the normalised geometric mean of the two
 * readings' (a product of experts: a class both readings find likely stays likely); then cls, conf and
 * min_conf are set again (vis_board_read_argmax). feat, orientation and orient_margin are left as they
 * are. NULL arguments: nothing. */
void vis_board_read_merge_turned(vis_board_read_t *read, const vis_board_read_t *turned);

/* Turns a reading by 180 degrees in place: what the same crops say of the board seen from its other end
 * (square sq becomes 80 - sq, owners swapped: a piece pointing up seen upside down points down; feat
 * follows its square, orientation + 2 modulo 4), then cls, conf and min_conf again. Who sits at which end
 * is not in a photo: the position turned is the same game with the colours swapped, so a caller told
 * where sente sits (kifucam recognize --sente) turns the reading with this and the pose with
 * vis_pose_rotate(pose, 2). NULL: nothing. */
void vis_board_read_turn(vis_board_read_t *read);

/* Sets read->cls, conf and min_conf from read->prob (the most probable class of each square, the first
 * on a tie): after a reading's probabilities were reweighed (the recorder's piece-set adaptation).
 * read NULL: nothing. */
void vis_board_read_argmax(vis_board_read_t *read);

/* ---------------------------------------------------------------- komadai (piece stands) */

#define VIS_HAND_KIND_NB 7   /* kinds that can be in hand: P L N S B R G (index 0..6 = rules' types 1..7) */
#define VIS_HAND_COUNT_NB 19 /* counts 0..18 (18 pawns is the most of one kind) */
#define VIS_KOMADAI_PIECES_MAX 40 /* detections kept per stand (a set has 38 pieces that can be in hand) */

/* Where to look for the stands and how to read them. Fill with vis_komadai_params_default(). The search
 * area of sente's stand is, in canonical board coordinates, u in [9 + gap, 9 + gap + width] and v in
 * [9 + below - height, 9 + below]: beside the board on sente's right, level with sente's end. Gote's is
 * the same area turned by 180 degrees about the board's centre (u, v) -> (9 - u, 9 - v). */
typedef struct vis_komadai_params {
    double gap;              /* squares between the grid's edge and the search area, 0..3; default 0.3 */
    double width;            /* width of the search area, squares, 1..10; default 4.5 */
    double height;           /* height of the search area, squares, 1..12; default 5.5 */
    double below;            /* how far the area reaches past the grid's near edge (v = 9 for sente), squares,
                              * -6..6; default 1.0 (docs/EVALUATION.md) */
    double min_visible;      /* smallest share of the search area inside the frame for a stand to be read,
                              * 0..1; default 0.7 (less: that stand is "unknown"; the area is larger than a
                              * stand, so a stand at the frame's edge may still be read) */
    double piece_size;       /* size of a piece on the stand relative to one on the board, 0.5..1.5; default
                              * 0.9 (the renderer's stands, models/render/game.py): the warp is scaled so that
                              * a piece fills a classifier crop as a piece on the board does */
    int ink_level;           /* black-hat grey level (0..255) above which a pixel is a stroke or an outline;
                              * default 25 */
    double ink_density;      /* smallest share of stroke pixels in the central 0.8 x 0.8 piece of a window
                              * for the classifier to look at it, 0..1; default 0.08 */
    double stride;           /* step between windows, squares, 0.1..1; default 0.25 */
    int max_windows;         /* most windows classified per stand (the inkiest first), 1..1000; default 160 */
    double min_piece;        /* smallest probability of "not empty" for a window to count as a piece, 0..1;
                              * default 0.6 */
    double nms_radius;       /* two pieces are counted apart only if their windows' centres are at least
                              * this far apart, squares, 0.1..2; default 0.7 (a window 0.5 square off a
                              * piece still sees it) */
    double turn_deg;         /* each piece kept is classified again turned by -turn_deg and +turn_deg,
                              * degrees, 0..45 (0: not); default 12 (the renderer turns stand pieces by
                              * N(0, 12) degrees) */
    double same_kind_radius; /* a window read as the same kind as a kept piece is suppressed within this
                              * radius, squares, 0.1..2 (>= nms_radius to matter); default 0.7 */
    double sharpness;        /* each count distribution is raised to this power and renormalised, (0, 1]:
                              * 1 keeps the classifier's confidence, less flattens it (temperature
                              * scaling, for a consumer that adds the log-probabilities to other evidence);
                              * default 1 */
} vis_komadai_params_t;

/* The reading of both stands. Player index 0 = sente, 1 = gote, in the pose's canonical frame. */
typedef struct vis_komadai_read {
    int known[2]; /* 1: that stand's search area was in view and read; 0: unknown (the fields below
                   * are then all 0 for it: unknown is never "no pieces") */
    float prob[2][VIS_HAND_KIND_NB]
              [VIS_HAND_COUNT_NB];   /* [player][kind][n]: probability that the stand
                                      * holds n pieces of kind (each row sums to 1 where known) */
    int count[2][VIS_HAND_KIND_NB];  /* the count read: each piece detected (present with probability
                                      * >= 0.5) goes to its most probable kind, as one piece */
    float conf[2][VIS_HAND_KIND_NB]; /* prob of that count, 0..1 (not always the row's largest: the
                                      * row allows for stacks) */
    float min_conf[2];               /* the smallest conf of the 7 kinds of that stand */
    int pieces[2]; /* pieces detected on that stand (after suppression of overlapping windows) */
    float piece_present[2][VIS_KOMADAI_PIECES_MAX]; /* per detection i < pieces[s]: probability that it
                                                     * is a piece at all (1 - p(empty) of its window) */
    float piece_kind[2][VIS_KOMADAI_PIECES_MAX]
                    [VIS_HAND_KIND_NB]; /* and of each kind P L N S B R G,
                                         * summing to 1 (the evidence the counts were made of) */
    int windows;                        /* windows classified in all (one network call for both stands) */
} vis_komadai_read_t;

/* Fills *p with the defaults given above. p must not be NULL. */
void vis_komadai_params_default(vis_komadai_params_t *p);

/* Reads both komadai of img seen with pose (found, oriented: sente at the bottom of the canonical
 * frame). For each stand whose search area is in view: warps the area top-down (41 pixels a square at
 * piece_size 0.9, gote's turned by 180 degrees so that every piece points up), finds the inky windows
 * (black-hat of the grey warp, straight strokes of 0.9 square or more left out: outlines of stands and
 * tables) on a grid of `stride`, classifies all windows of both stands with the square classifier c
 * in ONE network call, keeps windows likely to hold a piece, suppresses overlapping ones (greedy, by
 * probability, nms_radius), classifies each kept piece again turned by +-turn_deg (a second call for
 * both stands), gives each piece a kind distribution (the mean of its neighbouring windows' and its
 * turned crops' classifier probabilities, summed over both owners and over the promoted form: a piece in
 * hand is unpromoted and belongs to the stand, whichever way it points) and turns the pieces into
 * per-kind count distributions (each piece is of kind k with its probability and stands for 1-5 pieces
 * with a fixed prior 0.70/0.18/0.07/0.03/0.02: a stack whose top piece hides the others is seen as one
 * piece, a known shortfall of the counts read, which the distributions leave room for). params may be
 * NULL for the defaults. Errors: VIS_E_ARG (pose not found, bad params, NULL), VIS_E_NOMEM, VIS_E_CV
 * (message in vis_classifier_errmsg(c)). */
int vis_komadai_read(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                     const vis_komadai_params_t *params, vis_komadai_read_t *out);

/* vis_komadai_read, and the straight 48 x 48 BGR8 crop of each piece it detected, pointing up (gote's
 * stand turned by 180 degrees), centred where it was detected, as a square's crop frames its piece:
 * piece i < out->pieces[s] of stand s at crops + (s * VIS_KOMADAI_PIECES_MAX + i) * 48 * 48 * 3 (the
 * caller's, 2 * VIS_KOMADAI_PIECES_MAX crops). For exporting labelled training crops (kifucam crops).
 * crops NULL: vis_komadai_read. Errors: as vis_komadai_read. */
int vis_komadai_read_crops(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                           const vis_komadai_params_t *params, vis_komadai_read_t *out, unsigned char *crops);

/* Writes the SFEN hands field of a reading (e.g. "2Pb", "-" when both stands are empty) from out->count
 * into buf (size bytes; 64 is always enough). Returns 0, VIS_E_ARG if a stand is unknown (there is no
 * SFEN for an unknown hand) or it does not fit. */
int vis_komadai_sfen(const vis_komadai_read_t *read, char *buf, size_t size);

/* Revises a reading into a possible set of pieces: while some kind is read more often than a set has
 * pieces (FESA 1.2: 2 rooks, 2 bishops, 4 golds, silvers, knights and lances, 18 pawns, counting a
 * promoted piece as its unpromoted kind; one king a side), the square whose class costs least
 * log-probability to give up moves to its most probable class that still fits and that the network
 * gives at least min_prob (0..1); repeated until nothing is over or nothing fits (at most 81 changes).
 * A class the network all but rules out is not forced on a square: the read then stays over the limits
 * and is reported as not a possible position (recognize uses min_prob 0.08). Hands are not known: the limits
 * are for the board alone. Updates read->cls, conf and min_conf (prob is kept). The squares changed, each
 * once, in the order changed, go to changed[0..*nchanged-1] (changed may be NULL; room for 81). Errors:
 * VIS_E_ARG (NULL read or nchanged, min_prob out of range, a class out of range). */
int vis_board_constrain(vis_board_read_t *read, double min_prob, int changed[VIS_SQUARE_NB], int *nchanged);

/* What vis_position_decode did. */
typedef struct vis_position_fix {
    int applied;  /* 1: read and hands were revised into the set (below); 0: left as they were */
    int complete; /* 1: the set could be reached at all */
    double cost;  /* log-probability given up, nats (INFINITY when not complete) */
    int nsquares; /* squares whose class was changed, listed in squares[0..nsquares-1] */
    int squares[VIS_SQUARE_NB];
    int hand_delta[2][VIS_HAND_KIND_NB]; /* count written minus count read, per stand and kind */
} vis_position_fix_t;

/* Reads the board and both stands as ONE position of a game: every piece of the set is on the board or
 * on a stand (FESA 1.1 and 3.1: 40 pieces, a captured piece stays visible on its captor's komadai;
 * counting a promoted piece as its kind), each side has one king on the board, no pawn, lance or knight
 * stands where it could never move and no player has two unpromoted pawns on a file (FESA 3.11, 9.4).
 * Greedy repair (why: docs/vision.md): the change that removes the most deviation from the set per nat of
 * log-probability (read->prob; the stands' detections, hands->piece_present and piece_kind, each kind
 * at least 0.03 likely) is made, repeated: a square's class (never to a class the network gives less
 * than 0.08), a detection's kind, its being a stack (prior 0.70 / 0.18 / 0.07 / 0.03 / 0.02 for 1-5
 * pieces) or no piece, or a piece no detection stands for (12.5 nats: never within recognize's budget,
 * so no piece is invented). A class that can never stand on its square costs 30 nats, a second
 * unpromoted pawn on a file 8. set[k] is how many pieces of kind k (P L N S B R G) the game has in all,
 * board and hands (NULL: the even game's 18 4 4 4 2 2 4; a handicap game's is smaller: the caller says
 * which, since a missing rook and bishop are too easy an explanation of a misread stand). When it costs
 * at most max_cost nats (recognize uses 12), or when the board alone holds the whole set (its squares
 * changed by at most 4 nats) so that whatever the stands seem to hold is no piece (wood grain, a table's
 * edge) whatever dropping it costs, read (cls, conf, min_conf; prob kept) and hands (count,
 * conf, min_conf; prob and the detections kept) are revised and fix says what changed; otherwise both
 * are left as they were (fix->applied 0: pieces out of view, a problem diagram, another set, or a read
 * too far off). Both stands must be known. Errors: VIS_E_ARG (NULL read, hands or fix, a stand unknown,
 * max_cost < 0, a class out of range, set[k] below 0 or above the even game's), VIS_E_NOMEM. */
int vis_position_decode(vis_board_read_t *read, vis_komadai_read_t *hands, const int set[VIS_HAND_KIND_NB],
                        double max_cost, vis_position_fix_t *fix);

/* ---------------------------------------------------------------- the grid checked by its pieces */

/* A grid whose line score is under vis_pose_find's min_score (blur, a dim board) is taken as a board
 * when its squares say so: pose (not found, its best candidate) scores at least
 * VIS_BY_PIECES_MIN_SCORE, the grid and the crops' reach (0.15 square beyond it) lie inside the frame,
 * and vis_classifier_orient reads at least VIS_BY_PIECES_MIN_PIECES squares as pieces with
 * VIS_BY_PIECES_MIN_CONF confidence or more. Taken, *pose and *rd are as vis_classifier_orient leaves
 * them (found, turned; the reading of that turn). *npieces: the confident pieces counted (0 if not
 * read). Returns 1 (a board), 0 (not; *pose unchanged), -1 with c's error (vis_classifier_errmsg). */
#define VIS_BY_PIECES_MIN_SCORE 0.45
#define VIS_BY_PIECES_MIN_PIECES 12
#define VIS_BY_PIECES_MIN_CONF 0.8
int vis_board_by_pieces(vis_classifier_t *c, const cap_image_t *img, vis_pose_t *pose, vis_board_read_t *rd,
                        int *npieces);

/* The move vis_grid_shift made: (du, dv) squares (vis_pose_shift); towards, in words ("one row towards
 * rank 9", a static string); the pieces on the board read there and before. */
typedef struct vis_grid_shift {
    int du, dv;
    const char *towards;
    int pieces, pieces_before;
} vis_grid_shift_t;

/* A grid found barely (pose->confidence under 0.6) can sit a row or a file off. When rd (the reading of
 * *pose by vis_classifier_orient) is no possible position (after vis_board_constrain at 1 %,
 * rul_pos_validate with both kings: FESA 1.2, 9.4), the grid moved one square each way (8 neighbours)
 * is read too (the crop and the crop turned by 180 degrees, merged), and of the moves whose reading is
 * a possible position with at least as many pieces, the one with the most pieces, then the likeliest,
 * is taken: *pose and *rd become the move's (rd's orientation kept), *out says which. Costs 16 readings,
 * only then. Returns 1 (moved), 0 (kept; *out zeroed), -1 with c's error (*rd unchanged unless a move
 * was already taken). Design: docs/vision.md. */
int vis_grid_shift(vis_classifier_t *c, const cap_image_t *img, vis_pose_t *pose, vis_board_read_t *rd,
                   vis_grid_shift_t *out);

/* The words of gs's move for the grid as it is now: *at_shift is the pose vis_grid_shift left, *now the
 * same grid turned since (vis_pose_rotate). Returns a static string; gs->towards when nothing was moved
 * or an argument is NULL ("" for a NULL gs). */
const char *vis_grid_shift_towards(const vis_grid_shift_t *gs, const vis_pose_t *at_shift,
                                   const vis_pose_t *now);

/* vis_classifier_orient, then vis_grid_shift: the first reading of a found grid, as `kifucam recognize`
 * and the recorder's loop make it. Returns 1 (the grid was moved: *gs says how), 0, -1 with c's error. */
int vis_board_orient_shift(vis_classifier_t *c, const cap_image_t *img, vis_pose_t *pose,
                           vis_board_read_t *rd, vis_grid_shift_t *gs);

/* ---------------------------------------------------------------- one photo */

/* Tunables of vis_photo_read. Fill with vis_photo_params_default(). */
typedef struct vis_photo_params {
    int sente_side;          /* the side of the image where sente sits (VIS_SIDE_*), or -1 (default): as
                              * found (the image's lower side, the better-reading quarter turn) */
    rul_handicap_t handicap; /* the game whose set the board and both stands must hold; default even */
    double max_fix_cost;     /* the most log-probability (nats) the one-set reading may give up; default 12 */
    /* Called once the squares are read (three crop sizes, embeddings in read->feat) and before the
     * one-set reading: may reweigh the rows of read->prob (each still summing to 1), e.g. by a piece
     * set learned from another photo (kifucam recognize --reference); cls, conf and min_conf are set
     * again from prob after it. NULL (default): none. user is passed through. */
    void (*reweigh)(vis_board_read_t *read, void *user);
    void *reweigh_user;
} vis_photo_params_t;

/* Sides of the image, clockwise from the bottom (vis_photo_params_t.sente_side). */
enum { VIS_SIDE_BOTTOM, VIS_SIDE_RIGHT, VIS_SIDE_TOP, VIS_SIDE_LEFT };

/* What a photo turned out to hold (vis_photo_t.outcome). */
typedef enum {
    VIS_PHOTO_BOARD,     /* a board, read */
    VIS_PHOTO_THIN,      /* the image is too thin to hold a 9x9 board (vis_photo_fits) */
    VIS_PHOTO_NO_GRID,   /* no grid scored as a board, nor read as one by its pieces */
    VIS_PHOTO_ONE_MARK,  /* a grid whose "pieces" are one mark repeated: excess and top say it */
    VIS_PHOTO_NOT_PIECES /* a grid whose "pieces" are read unsure: npieces_read and median_conf say it */
} vis_photo_outcome_t;

/* The median confidence a grid's squares read as pieces need, when the reading is no possible
 * position, for the grid to be a board (VIS_PHOTO_NOT_PIECES under it). */
#define VIS_PHOTO_NOT_PIECES_CONF 0.25

/* Where a grid's outer line lies (vis_photo_t.outer): in view (the image goes on beyond it), on the
 * image's edge (a straightened photo cut at its outer lines), or past the edge. */
enum { VIS_OUTER_IN, VIS_OUTER_EDGE, VIS_OUTER_PAST };

/* One photo read: the board, the stands, and every revision and doubt as data (what recognize says).
 * Squares are indexed as VIS_SQUARE_NB; stands and kinds as vis_komadai_read_t. */
typedef struct vis_photo {
    vis_photo_outcome_t outcome;
    vis_pose_t pose;               /* the grid read (found, turned as told by sente_side, moved as said) */
    vis_board_read_t board;        /* the squares as finally read (revised as fix and constrained say) */
    vis_komadai_read_t hands;      /* both stands (revised as fix says); a stand out of view: known 0 */
    char sfen[VIS_SFEN_BOARD_MAX]; /* the SFEN board field of board */
    char hands_sfen[64];           /* the SFEN hands field; a stand out of view adds nothing */
    int by_pieces, npieces;        /* 1: taken by vis_board_by_pieces, with npieces confident pieces */
    int shifted;                   /* 1: the grid was moved by vis_grid_shift, as shift says */
    vis_grid_shift_t shift;        /* towards: the words for the grid as finally turned */
    int read_across;               /* 1: the pieces pointed across sente_side: read again turned */
    const char *off_strip[2];      /* files, ranks: the outer strip that is not the board, or NULL */
    const char *off_moved[2];      /* ... and the move made for it (NULL: only said) */
    int outer[4];                  /* VIS_OUTER_*: beyond file 9, file 1, rank 1, rank 9 */
    unsigned char unseen[VIS_SQUARE_NB]; /* 1: the square's middle is not wholly in the image */
    int decoded;                         /* 1: both stands in view, the one-set reading was tried (fix) */
    vis_position_fix_t fix;              /* what vis_position_decode did */
    int was_cls[VIS_SQUARE_NB];          /* each square's class before the one-set revisions */
    int hands_read[2][VIS_HAND_KIND_NB]; /* the stands' counts before them */
    int handicap_unused;                 /* 1: a handicap was given but a stand was out of view */
    int nconstrained;                    /* squares revised by vis_board_constrain (no one set)... */
    int constrained[VIS_SQUARE_NB];      /* ... in the order revised */
    char impossible[256];                /* why board and hands are no possible position, "" if one */
    int excess, top;                     /* VIS_PHOTO_ONE_MARK: pieces beyond a set, the largest class */
    int npieces_read;                    /* squares read as pieces (when impossible) */
    double median_conf;                  /* their median confidence (when impossible) */
} vis_photo_t;

/* Fills *p with the defaults above. */
void vis_photo_params_default(vis_photo_params_t *p);

/* 1 if img's shape can hold a 9x9 board (its short side at least 1/64 of its long one), 0 if not. */
int vis_photo_fits(const cap_image_t *img);

/* Reads one photo with the square classifier c: finds the grid (vis_pose_find, again at work size
 * 2048 for a large photo; by its pieces when it scores under the threshold), orients and moves it
 * (vis_board_orient_shift), turns it as params->sente_side says, moves it off a strip that is not the
 * board (vis_board_off_strips), reads the squares at three crop sizes and both stands, revises them
 * into one set (vis_position_decode, or vis_board_constrain at 8 %), and judges the reading (a possible
 * position; a grid that is no board). params may be NULL for the defaults. *out (the caller's) is
 * filled; its outcome says whether a board was read. Returns 0, or VIS_E_ARG, VIS_E_NOMEM, VIS_E_CV
 * with the reason in err (errlen bytes). Design: docs/vision.md. */
int vis_photo_read(vis_classifier_t *c, const cap_image_t *img, const vis_photo_params_t *params,
                   vis_photo_t *out, char *err, size_t errlen);

/* ---------------------------------------------------------------- overlay */

/* Draws on a copy of img the grid of pose (red) and, when read is not NULL, each occupied square's
 * SFEN letters at its centre (green: conf >= 0.9, yellow: >= 0.5, red: below), and writes it to path
 * (PNG, or the format of path's extension). img is not changed. Errors: VIS_E_ARG, VIS_E_NOMEM,
 * VIS_E_IO (not written), VIS_E_CV; the reason in err. */
int vis_overlay_write(const cap_image_t *img, const vis_pose_t *pose, const vis_board_read_t *read,
                      const char *path, char *err, size_t errlen);

/* Writes img (BGR8) to path as PNG, or in the format of path's extension (OpenCV's imwrite). Errors:
 * VIS_E_ARG, VIS_E_IO (not written), VIS_E_CV; the reason in err. */
int vis_image_write(const cap_image_t *img, const char *path, char *err, size_t errlen);

/* ---------------------------------------------------------------- threads */

/* Sets how many threads vision's OpenCV work (warps, resizes, the dnn forward) may use: 0 or 1 = one
 * thread, the caller's; n > 1 = up to n. Affects the whole process (OpenCV's own setting,
 * cv::setNumThreads); the default is OpenCV's (one per CPU the process may run on). `make bench` sets 1
 * to time one core. Errors: VIS_E_ARG (n < 0), VIS_E_CV; the reason in err. */
int vis_threads_set(int n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* KIFUCAM_VISION_H */
