/* classify.c - the square classifier (vis_classifier_*): warps the board as models/README.md says,
 * cuts the 81 crops (1.3 squares, centred, 48x48, BGR/255 NCHW), runs the ONNX network once on the
 * batch through the OpenCV seam, and turns the logits into per-square probabilities; also the naive
 * one-call-per-square baseline, the orientation choice and the SFEN board field. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vision/cvseam.h"
#include "vision/vis_internal.h"
#include "vision/vision.h"

#define CROP 48            /* network input side, pixels */
#define SQ_W 48.0          /* warped square width, pixels */
#define SQ_H (48.0 * 1.09) /* warped square height: a real square is about 1.09x taller than wide */
#define MARGIN 0.5         /* warped border around the grid, squares (README asks for >= 0.15) */
#define BATCH_MAX (4 * VIS_SQUARE_NB)

struct vis_classifier {
    vis_cv_net_t *net;
    char err[4608];
    int ww, wh;          /* warped board size */
    unsigned char *warp; /* ww x wh BGR */
    unsigned char *crop; /* CROP x CROP BGR */
    float *blob;         /* BATCH_MAX x 3 x CROP x CROP */
    int nout;            /* values per crop the network gives: VIS_CLASS_NB, or + VIS_FEAT_NB */
    float *logits;       /* BATCH_MAX x nout */
    /* vis_classifier_read_changed: each square's crop and logits when the network last read it */
    float *ref_blob;   /* 81 x 3 x CROP x CROP, NULL until the first incremental read */
    float *ref_logits; /* 81 x nout */
    double ref_H[9];   /* the pose those crops were cut with */
    int ref_valid;     /* 1 once ref_* hold a full read */
    int turned;        /* vis_classifier_set_turned: read_changed also reads each crop upside down */
    int side;          /* the network's input side, pixels (the ONNX graph input's): CROP, or smaller */
    float *small;      /* the crops shrunk to side x side when side < CROP (grown as needed) */
    size_t small_cap;  /* floats small holds */
};

static const char *const class_sfen[VIS_CLASS_NB] = {
    "",  "P", "L", "N", "S", "B", "R", "G", "K",  "+P", "+L", "+N", "+S", "+B", "+R",
    "p", "l", "n", "s", "b", "r", "g", "k", "+p", "+l", "+n", "+s", "+b", "+r"};

const char *vis_class_sfen(int cls) { return (cls >= 0 && cls < VIS_CLASS_NB) ? class_sfen[cls] : NULL; }

int vis_classifier_input_side(const vis_classifier_t *c) { return c ? c->side : 0; }

const char *vis_classifier_errmsg(const vis_classifier_t *c) { return c ? c->err : "out of memory"; }

void vis_classifier_destroy(vis_classifier_t *c) {
    if (c == NULL)
        return;
    vis_cv_net_free(c->net);
    free(c->warp);
    free(c->crop);
    free(c->blob);
    free(c->logits);
    free(c->ref_blob);
    free(c->ref_logits);
    free(c->small);
    free(c);
}

/* Protocol-buffer wire format (protobuf.dev, "Encoding"): a varint at *p (below end) into *v; 0 on a
 * malformed or truncated one. */
static int pb_varint(const unsigned char **p, const unsigned char *end, unsigned long long *v) {
    *v = 0;
    for (int shift = 0; *p < end && shift < 64; shift += 7) {
        unsigned char b = *(*p)++;
        *v |= (unsigned long long)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

/* The first field number `field` of length-delimited type (wire type 2) in the message [*p, *end): on
 * success [*p, *end) becomes that field's bytes and 1 is returned; 0 if it is absent or the message is
 * malformed. */
static int pb_enter(const unsigned char **p, const unsigned char **end, unsigned field) {
    const unsigned char *q = *p;
    unsigned long long key, v;
    while (q < *end && pb_varint(&q, *end, &key)) {
        unsigned wt = (unsigned)(key & 7);
        if (wt == 0) {
            if (!pb_varint(&q, *end, &v))
                return 0;
        } else if (wt == 1 || wt == 5) {
            if ((size_t)(*end - q) < (wt == 1 ? 8u : 4u))
                return 0;
            q += wt == 1 ? 8 : 4;
        } else if (wt == 2) {
            if (!pb_varint(&q, *end, &v) || v > (unsigned long long)(*end - q))
                return 0;
            if ((key >> 3) == field) {
                *p = q;
                *end = q + v;
                return 1;
            }
            q += v;
        } else {
            return 0;
        }
    }
    return 0;
}

/* A TensorShapeProto.Dimension [p, end): its dim_value (field 1, varint), or -1 for a named (dim_param)
 * or malformed one. */
static long long onnx_dim_value(const unsigned char *p, const unsigned char *end) {
    unsigned long long key, v;
    long long val = -1;
    while (p < end && pb_varint(&p, end, &key)) {
        if ((key & 7) == 0 && pb_varint(&p, end, &v)) {
            if ((key >> 3) == 1)
                val = (long long)v;
        } else if ((key & 7) == 2 && pb_varint(&p, end, &v) && v <= (unsigned long long)(end - p)) {
            p += v;
        } else {
            return -1;
        }
    }
    return val;
}

/* The input side an ONNX square classifier declares in the file's bytes onnx[0..len-1]: its graph's first
 * input (the data; weights listed as inputs by old exporters come after it), N x 3 x S x S (onnx.proto:
 * ModelProto.graph = 7, GraphProto.input = 11, ValueInfoProto.type = 2, TypeProto.tensor_type = 1,
 * Tensor.shape = 2, TensorShapeProto.dim = 1, Dimension.dim_value = 1). Returns S, -1 for another
 * 4-dimensional shape (not 3 channels, not square), or CROP when that input declares no 4-dimensional
 * shape of known height and width. */
static int onnx_input_side(const unsigned char *onnx, size_t len) {
    static const unsigned path[] = {7, 11, 2, 1, 2}; /* graph, input, type, tensor_type, shape */
    const unsigned char *p = onnx, *end = onnx + len;
    for (size_t i = 0; i < sizeof path / sizeof path[0]; i++)
        if (!pb_enter(&p, &end, path[i]))
            return CROP;
    long long dims[4];
    int nd = 0;
    for (const unsigned char *d = p, *d_end = end; nd < 5 && pb_enter(&d, &d_end, 1);
         d = d_end, d_end = end, nd++)
        if (nd < 4)
            dims[nd] = onnx_dim_value(d, d_end);
    if (nd != 4 || dims[2] <= 0 || dims[3] <= 0)
        return CROP;
    return dims[1] == 3 && dims[2] == dims[3] && dims[2] <= 4096 ? (int)dims[2] : -1;
}

/* Shrinks n planes of CROP x CROP floats to side x side by averaging, as PyTorch's adaptive_avg_pool2d
 * (F.interpolate mode "area", which models/train.py --size uses): output cell i covers input cells
 * floor(i * CROP / side) .. ceil((i + 1) * CROP / side) - 1 in each direction. */
static void shrink_planes(const float *in, int n, int side, float *out) {
    int lo[CROP], hi[CROP];
    for (int i = 0; i < side; i++) {
        lo[i] = i * CROP / side;
        hi[i] = ((i + 1) * CROP + side - 1) / side;
    }
    for (int k = 0; k < n; k++, in += CROP * CROP, out += side * side)
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++) {
                float sum = 0;
                for (int yy = lo[y]; yy < hi[y]; yy++)
                    for (int xx = lo[x]; xx < hi[x]; xx++)
                        sum += in[yy * CROP + xx];
                out[y * side + x] = sum / (float)((hi[y] - lo[y]) * (hi[x] - lo[x]));
            }
}

int vis_classifier_open(const char *model_path, vis_classifier_t **out) {
    const char *fn = "vis_classifier_open";
    vis_classifier_t *c;
    int rc = VIS_OK, got = 0;

    if (out == NULL)
        return VIS_E_ARG;
    *out = c = calloc(1, sizeof *c);
    if (c == NULL)
        return VIS_E_NOMEM;
    if (model_path == NULL) {
        vis_set_err(c->err, sizeof c->err, fn, "NULL model path");
        return VIS_E_ARG;
    }
    c->ww = (int)lround(SQ_W * (9 + 2 * MARGIN));
    c->wh = (int)lround(SQ_H * (9 + 2 * MARGIN));
    c->warp = malloc((size_t)c->ww * c->wh * 3);
    c->crop = malloc((size_t)CROP * CROP * 3);
    c->blob = malloc(sizeof *c->blob * (size_t)BATCH_MAX * 3 * CROP * CROP);
    c->logits = malloc(sizeof *c->logits * (size_t)BATCH_MAX * (VIS_CLASS_NB + VIS_FEAT_NB));
    if (!c->warp || !c->crop || !c->blob || !c->logits) {
        vis_set_err(c->err, sizeof c->err, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    char cverr[4400];
    rc = vis_cv_net_load(model_path, &c->net, cverr, sizeof cverr);
    if (rc != VIS_CV_OK) {
        vis_set_err(c->err, sizeof c->err, fn, "%s", cverr);
        return rc == VIS_CV_E_IO ? VIS_E_IO : VIS_E_MODEL;
    }
    /* one trial run: the network must give 29 values (logits) or 29 + 128 (logits, embedding) for a
     * 1x3xSxS input, S the side its graph declares (48 unless smaller) */
    size_t onnx_len;
    const unsigned char *onnx = vis_cv_net_bytes(c->net, &onnx_len);
    c->side = onnx_input_side(onnx, onnx_len);
    if (c->side < 8 || c->side > CROP) {
        if (c->side > 0)
            vis_set_err(c->err, sizeof c->err, fn,
                        "%s: not a square classifier for kifucam's crops: it declares a "
                        "%dx%d input, and the crops are 48x48 (or shrunk to a side of 8 to 48)",
                        model_path, c->side, c->side);
        else
            vis_set_err(c->err, sizeof c->err, fn,
                        "%s: not a square classifier: its input is not N x 3 x S x S "
                        "(three colour channels of a square crop)",
                        model_path);
        return VIS_E_MODEL;
    }
    memset(c->blob, 0, sizeof *c->blob * 3 * CROP * CROP);
    c->nout = VIS_CLASS_NB + VIS_FEAT_NB;
    rc = vis_cv_net_forward(c->net, c->blob, 1, 3, c->side, c->side, c->logits, c->nout, &got, cverr,
                            sizeof cverr);
    if (rc != VIS_CV_OK && got == VIS_CLASS_NB) {
        c->nout = VIS_CLASS_NB;
        rc = vis_cv_net_forward(c->net, c->blob, 1, 3, c->side, c->side, c->logits, c->nout, &got, cverr,
                                sizeof cverr);
    }
    if (rc != VIS_CV_OK) {
        if (got > 0)
            vis_set_err(
                c->err, sizeof c->err, fn,
                "%s: not a square classifier: it gives %d values a crop, not 29 (logits) or %d (logits "
                "and embedding)",
                model_path, got, VIS_CLASS_NB + VIS_FEAT_NB);
        else
            vis_set_err(c->err, sizeof c->err, fn,
                        "%s: not a square classifier for 1x3x%dx%d crops (OpenCV cannot "
                        "run it on such an input: its layers expect another shape)",
                        model_path, c->side, c->side);
        return VIS_E_MODEL;
    }
    for (int k = 0; k < c->nout; k++)
        if (!isfinite(c->logits[k])) {
            vis_set_err(c->err, sizeof c->err, fn,
                        "%s: not a usable square classifier: its output is not a number "
                        "(NaN or infinity) for a blank crop",
                        model_path);
            return VIS_E_MODEL;
        }
    return VIS_OK;
}

/* Warps img with pose into c->warp and cuts the 81 crops of scale x scale squares (1.3: the README crop)
 * into blob (81 x 3 x 48 x 48), in square order sq = (file-1)*9 + (rank-1). */
static int cut_crops_at(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose, double scale,
                        float *blob) {
    cap_image_t dst = {c->ww, c->wh, 3 * c->ww, c->warp};
    char err[300];
    if (vis_pose_warp(img, pose, MARGIN, &dst, err, sizeof err) != VIS_OK) {
        snprintf(c->err, sizeof c->err, "%s", err);
        return VIS_E_CV;
    }
    double sw = (double)c->ww / (9 + 2 * MARGIN), sh = (double)c->wh / (9 + 2 * MARGIN);
    double x0 = MARGIN * sw, y0 = MARGIN * sh;
    for (int col = 0; col < 9; col++)
        for (int row = 0; row < 9; row++) {
            int file = 9 - col, rank = row + 1, sq = (file - 1) * 9 + (rank - 1);
            double cx = x0 + (col + 0.5) * sw, cy = y0 + (row + 0.5) * sh;
            int left = (int)lround(cx - 0.5 * scale * sw), top = (int)lround(cy - 0.5 * scale * sh);
            int w = (int)lround(scale * sw), h = (int)lround(scale * sh);
            if (left < 0)
                left = 0;
            if (top < 0)
                top = 0;
            if (left + w > c->ww)
                w = c->ww - left;
            if (top + h > c->wh)
                h = c->wh - top;
            if (vis_cv_resize_bgr(c->warp + (size_t)top * dst.stride + (size_t)left * 3, w, h, dst.stride,
                                  c->crop, CROP, CROP, 3 * CROP, err, sizeof err) != VIS_CV_OK) {
                snprintf(c->err, sizeof c->err, "%s", err);
                return VIS_E_CV;
            }
            float *b = blob + (size_t)sq * 3 * CROP * CROP;
            for (int y = 0; y < CROP; y++)
                for (int x = 0; x < CROP; x++)
                    for (int ch = 0; ch < 3; ch++)
                        b[(size_t)ch * CROP * CROP + y * CROP + x] =
                            c->crop[(y * CROP + x) * 3 + ch] / 255.0f;
        }
    return VIS_OK;
}

static int cut_crops(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose, float *blob) {
    return cut_crops_at(c, img, pose, 1.3, blob);
}

float vis_red_ink(const float *crop, int side) {
    const float *B = crop, *G = crop + (size_t)side * side, *R = crop + (size_t)2 * side * side;
    int lo = (int)lround(side * (0.5 - 0.5 / 1.3)), hi = side - lo, n = 0, red = 0;
    for (int y = lo; y < hi; y++)
        for (int x = lo; x < hi; x++) {
            int i = y * side + x;
            float r = R[i], g = G[i], b = B[i], mn = g < b ? g : b;
            n++;
            /* red the largest; hue 60 (g - b) / (r - mn) degrees within 15 of 0 */
            if (r >= 0.3f && r > g && r > b && r - mn >= 0.4f * r && fabsf(g - b) <= 0.25f * (r - mn))
                red++;
        }
    return n ? (float)red / (float)n : 0;
}

/* Each square's red ink (vis_red_ink) from the 81 crops at blob, in the read's square order. */
static void fill_red(const float *blob, vis_board_read_t *out) {
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        out->red[sq] = vis_red_ink(blob + (size_t)sq * 3 * CROP * CROP, CROP);
}

/* Softmax of the 81 network rows (nout values each: logits, then the embedding if nout > 29) into out
 * (prob, cls, conf, min_conf, has_feat, feat). */
static void fill_read(const float *logits, int nout, vis_board_read_t *out) {
    out->has_feat = nout == VIS_CLASS_NB + VIS_FEAT_NB;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        const float *l = logits + (size_t)sq * nout;
        if (out->has_feat)
            memcpy(out->feat[sq], l + VIS_CLASS_NB, sizeof out->feat[sq]);
        else
            memset(out->feat[sq], 0, sizeof out->feat[sq]);
        float mx = l[0], sum = 0;
        for (int k = 1; k < VIS_CLASS_NB; k++)
            if (l[k] > mx)
                mx = l[k];
        for (int k = 0; k < VIS_CLASS_NB; k++)
            sum += out->prob[sq][k] = expf(l[k] - mx);
        for (int k = 0; k < VIS_CLASS_NB; k++)
            out->prob[sq][k] /= sum;
    }
    vis_board_read_argmax(out);
}

/* Class k (0..28) of the other owner: a piece pointing up seen upside down points down; empty stays. */
static int other_owner(int k) { return k == 0 ? 0 : (k <= 14 ? k + 14 : k - 14); }

void vis_board_read_merge_turned(vis_board_read_t *read, const vis_board_read_t *turned) {
    if (read == NULL || turned == NULL)
        return;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        const float *t = turned->prob[VIS_SQUARE_NB - 1 - sq];
        double p[VIS_CLASS_NB], sum = 0;
        for (int k = 0; k < VIS_CLASS_NB; k++) {
            p[k] = sqrt((double)read->prob[sq][k] * (double)t[other_owner(k)]);
            sum += p[k];
        }
        for (int k = 0; k < VIS_CLASS_NB; k++)
            read->prob[sq][k] = sum > 0 ? (float)(p[k] / sum) : read->prob[sq][k];
    }
    vis_board_read_argmax(read);
}

void vis_board_read_turn(vis_board_read_t *read) {
    if (read == NULL)
        return;
    for (int sq = 0; sq < (VIS_SQUARE_NB + 1) / 2; sq++) {
        int o = VIS_SQUARE_NB - 1 - sq;
        float a[VIS_CLASS_NB], b[VIS_CLASS_NB], fa[VIS_FEAT_NB];
        memcpy(a, read->prob[sq], sizeof a);
        memcpy(b, read->prob[o], sizeof b);
        for (int k = 0; k < VIS_CLASS_NB; k++) {
            read->prob[sq][k] = b[other_owner(k)];
            read->prob[o][k] = a[other_owner(k)];
        }
        memcpy(fa, read->feat[sq], sizeof fa);
        memcpy(read->feat[sq], read->feat[o], sizeof fa);
        memcpy(read->feat[o], fa, sizeof fa);
        float r = read->red[sq];
        read->red[sq] = read->red[o];
        read->red[o] = r;
    }
    read->orientation = (read->orientation + 2) % 4;
    vis_board_read_argmax(read);
}

void vis_board_read_argmax(vis_board_read_t *read) {
    if (read == NULL)
        return;
    read->min_conf = 1;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int best = 0;
        for (int k = 1; k < VIS_CLASS_NB; k++)
            if (read->prob[sq][k] > read->prob[sq][best])
                best = k;
        read->cls[sq] = best;
        read->conf[sq] = read->prob[sq][best];
        if (read->conf[sq] < read->min_conf)
            read->min_conf = read->conf[sq];
    }
}

static int check_args(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose, const void *out,
                      const char *fn) {
    if (c == NULL)
        return VIS_E_ARG;
    if (c->net == NULL || img == NULL || img->data == NULL || pose == NULL || out == NULL || !pose->found) {
        vis_set_err(c->err, sizeof c->err, fn, "%s",
                    pose && !pose->found ? "no board in the pose" : "bad argument");
        return VIS_E_ARG;
    }
    return VIS_OK;
}

/* Runs the network on n crops: out gets n x c->nout values. A value that is not a number (a broken
 * model) is VIS_E_MODEL: no probability is made of it. */
static int forward(vis_classifier_t *c, const float *blob, int n, float *logits, const char *fn) {
    char err[300];
    if (c->side < CROP) { /* a network for smaller crops: the 48-pixel crops shrunk as it was trained */
        size_t need = (size_t)n * 3 * (size_t)c->side * (size_t)c->side;
        if (need > c->small_cap) {
            float *m = realloc(c->small, sizeof *m * need);
            if (m == NULL) {
                vis_set_err(c->err, sizeof c->err, fn, "out of memory");
                return VIS_E_NOMEM;
            }
            c->small = m;
            c->small_cap = need;
        }
        shrink_planes(blob, 3 * n, c->side, c->small);
        blob = c->small;
    }
    if (vis_cv_net_forward(c->net, blob, n, 3, c->side, c->side, logits, c->nout, NULL, err, sizeof err) !=
        0) {
        vis_set_err(c->err, sizeof c->err, fn, "%s", err);
        return VIS_E_CV;
    }
    for (size_t i = 0; i < (size_t)n * (size_t)c->nout; i++)
        if (!isfinite(logits[i])) {
            vis_set_err(c->err, sizeof c->err, fn,
                        "the square classifier's output for crop %zu of %d is not a number "
                        "(NaN or infinity): the model is broken",
                        i / (size_t)c->nout + 1, n);
            return VIS_E_MODEL;
        }
    return VIS_OK;
}

void vis_classifier_set_err(vis_classifier_t *c, const char *fn, const char *fmt, ...) {
    char msg[300];
    va_list ap;
    if (c == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vis_set_err(c->err, sizeof c->err, fn, "%s", msg);
}

int vis_classifier_run(vis_classifier_t *c, const float *blob, int n, float *logits) {
    const char *fn = "vis_classifier_run";
    if (c == NULL)
        return VIS_E_ARG;
    if (c->net == NULL || blob == NULL || logits == NULL || n < 1) {
        vis_set_err(c->err, sizeof c->err, fn, "bad argument");
        return VIS_E_ARG;
    }
    if (c->nout == VIS_CLASS_NB)
        return forward(c, blob, n, logits, fn);
    float *all = malloc(sizeof *all * (size_t)n * c->nout); /* logits and embeddings: keep the logits */
    if (all == NULL) {
        vis_set_err(c->err, sizeof c->err, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    int rc = forward(c, blob, n, all, fn);
    for (int i = 0; i < n && rc == VIS_OK; i++)
        memcpy(logits + (size_t)i * VIS_CLASS_NB, all + (size_t)i * c->nout, sizeof *logits * VIS_CLASS_NB);
    free(all);
    return rc;
}

int vis_classifier_run_feat(vis_classifier_t *c, const float *blob, int n, float *logits, float *feat) {
    const char *fn = "vis_classifier_run_feat";
    if (c == NULL)
        return VIS_E_ARG;
    if (c->net == NULL || blob == NULL || logits == NULL || feat == NULL || n < 1) {
        vis_set_err(c->err, sizeof c->err, fn, "bad argument");
        return VIS_E_ARG;
    }
    if (c->nout != VIS_CLASS_NB + VIS_FEAT_NB) {
        vis_set_err(c->err, sizeof c->err, fn, "the model gives no embeddings");
        return VIS_E_MODEL;
    }
    float *all = malloc(sizeof *all * (size_t)n * c->nout);
    if (all == NULL) {
        vis_set_err(c->err, sizeof c->err, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    int rc = forward(c, blob, n, all, fn);
    for (int i = 0; i < n && rc == VIS_OK; i++) {
        memcpy(logits + (size_t)i * VIS_CLASS_NB, all + (size_t)i * c->nout, sizeof *logits * VIS_CLASS_NB);
        memcpy(feat + (size_t)i * VIS_FEAT_NB, all + (size_t)i * c->nout + VIS_CLASS_NB,
               sizeof *feat * VIS_FEAT_NB);
    }
    free(all);
    return rc;
}

int vis_classifier_read(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                        vis_board_read_t *out) {
    const char *fn = "vis_classifier_read";
    int rc = check_args(c, img, pose, out, fn);
    if (rc == VIS_OK)
        rc = cut_crops(c, img, pose, c->blob);
    if (rc == VIS_OK)
        rc = forward(c, c->blob, VIS_SQUARE_NB, c->logits, fn);
    if (rc == VIS_OK) {
        fill_read(c->logits, c->nout, out);
        fill_red(c->blob, out);
        out->orientation = 0;
        out->orient_margin = 0;
    }
    return rc;
}

int vis_classifier_crops(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                         unsigned char *out) {
    const char *fn = "vis_classifier_crops";
    int rc = check_args(c, img, pose, out, fn);
    if (rc == VIS_OK)
        rc = cut_crops(c, img, pose, c->blob);
    for (int sq = 0; rc == VIS_OK && sq < VIS_SQUARE_NB; sq++) {
        const float *b = c->blob + (size_t)sq * 3 * CROP * CROP;
        unsigned char *o = out + (size_t)sq * 3 * CROP * CROP;
        for (int y = 0; y < CROP; y++)
            for (int x = 0; x < CROP; x++)
                for (int ch = 0; ch < 3; ch++)
                    o[(y * CROP + x) * 3 + ch] =
                        (unsigned char)lroundf(b[(size_t)ch * CROP * CROP + y * CROP + x] * 255.0f);
    }
    return rc;
}

int vis_classifier_read_changed(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                                double max_diff, vis_board_read_t *out, int *nread) {
    const char *fn = "vis_classifier_read_changed";
    const size_t cs = (size_t)3 * CROP * CROP;
    int rc = check_args(c, img, pose, out, fn);
    if (rc == VIS_OK && (nread == NULL || !(max_diff >= 0 && max_diff <= 1))) {
        snprintf(c->err, sizeof c->err, "%s: NULL nread or max_diff out of 0..1", fn);
        rc = VIS_E_ARG;
    }
    if (rc != VIS_OK)
        return rc;
    if (c->ref_blob == NULL) {
        c->ref_blob = malloc(sizeof *c->ref_blob * VIS_SQUARE_NB * cs);
        c->ref_logits = malloc(sizeof *c->ref_logits * VIS_SQUARE_NB * c->nout);
        if (c->ref_blob == NULL || c->ref_logits == NULL) {
            free(c->ref_blob);
            free(c->ref_logits);
            c->ref_blob = NULL;
            c->ref_logits = NULL;
            snprintf(c->err, sizeof c->err, "%s: out of memory", fn);
            return VIS_E_NOMEM;
        }
        c->ref_valid = 0;
    }
    if ((rc = cut_crops(c, img, pose, c->blob)) != VIS_OK)
        return rc;
    int full = !c->ref_valid || max_diff == 0 || memcmp(c->ref_H, pose->H, sizeof c->ref_H) != 0;
    int idx[VIS_SQUARE_NB], n = 0;
    float *packed = c->blob + (size_t)VIS_SQUARE_NB * cs; /* the batch of the squares to read */
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        const float *now = c->blob + (size_t)sq * cs, *ref = c->ref_blob + (size_t)sq * cs;
        int read = full;
        if (!read) {
            double d = 0;
            for (size_t i = 0; i < cs; i++)
                d += fabsf(now[i] - ref[i]);
            read = d / (double)cs > max_diff;
        }
        if (read) {
            memcpy(packed + (size_t)n * cs, now, sizeof *now * cs);
            idx[n++] = sq;
        }
    }
    int turned = c->turned && n > 0;
    if (turned) /* each crop again upside down, after the n crops (n <= 81: fits in BATCH_MAX) */
        for (int i = 0; i < n; i++)
            for (int ch = 0; ch < 3; ch++) {
                const float *src = packed + (size_t)i * cs + (size_t)ch * CROP * CROP;
                float *dst = packed + (size_t)(n + i) * cs + (size_t)ch * CROP * CROP;
                for (int j = 0; j < CROP * CROP; j++)
                    dst[j] = src[CROP * CROP - 1 - j];
            }
    if (n > 0 && (rc = forward(c, packed, turned ? 2 * n : n, c->logits, fn)) != VIS_OK) {
        c->ref_valid = 0;
        return rc;
    }
    if (turned) /* the normalised geometric mean of the two softmaxes is the softmax of the mean logits */
        for (int i = 0; i < n; i++) {
            float *l = c->logits + (size_t)i * c->nout;
            const float *t = c->logits + (size_t)(n + i) * c->nout;
            for (int k = 0; k < VIS_CLASS_NB; k++)
                l[k] = 0.5f * (l[k] + t[other_owner(k)]);
        }
    for (int i = 0; i < n; i++) {
        memcpy(c->ref_blob + (size_t)idx[i] * cs, c->blob + (size_t)idx[i] * cs, sizeof *c->ref_blob * cs);
        memcpy(c->ref_logits + (size_t)idx[i] * c->nout, c->logits + (size_t)i * c->nout,
               sizeof *c->ref_logits * c->nout);
    }
    memcpy(c->ref_H, pose->H, sizeof c->ref_H);
    c->ref_valid = 1;
    fill_read(c->ref_logits, c->nout, out);
    fill_red(c->blob, out);
    out->orientation = 0;
    out->orient_margin = 0;
    *nread = n;
    return VIS_OK;
}

void vis_classifier_set_turned(vis_classifier_t *c, int on) {
    if (c != NULL && c->turned != !!on) {
        c->turned = !!on;
        c->ref_valid = 0; /* the stored logits were made the other way: read all 81 next time */
    }
}

int vis_classifier_read_naive(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                              vis_board_read_t *out) {
    const char *fn = "vis_classifier_read_naive";
    int rc = check_args(c, img, pose, out, fn);
    if (rc == VIS_OK)
        rc = cut_crops(c, img, pose, c->blob);
    for (int sq = 0; sq < VIS_SQUARE_NB && rc == VIS_OK; sq++)
        rc = forward(c, c->blob + (size_t)sq * 3 * CROP * CROP, 1, c->logits + (size_t)sq * c->nout, fn);
    if (rc == VIS_OK) {
        fill_read(c->logits, c->nout, out);
        fill_red(c->blob, out);
        out->orientation = 0;
        out->orient_margin = 0;
    }
    return rc;
}

int vis_classifier_orient(vis_classifier_t *c, const cap_image_t *img, vis_pose_t *pose,
                          vis_board_read_t *out) {
    const char *fn = "vis_classifier_orient";
    double ll[4] = {0, 0, 0, 0};
    int rc = check_args(c, img, pose, out, fn);
    for (int r = 0; r < 4 && rc == VIS_OK; r++) {
        vis_pose_t p = *pose;
        vis_pose_rotate(&p, r);
        rc = cut_crops(c, img, &p, c->blob + (size_t)r * VIS_SQUARE_NB * 3 * CROP * CROP);
    }
    if (rc == VIS_OK)
        rc = forward(c, c->blob, 4 * VIS_SQUARE_NB, c->logits, fn);
    if (rc != VIS_OK)
        return rc;
    for (int r = 0; r < 4; r++) {
        fill_read(c->logits + (size_t)r * VIS_SQUARE_NB * c->nout, c->nout, out);
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            ll[r] += log(out->conf[sq] + 1e-6);
    }
    /* Pieces pointing sideways read badly: the axis (0/2 or 1/3) with the likelier reading wins. Within
     * an axis the two turns read equally well (turning the board by 180 degrees swaps the owners, and
     * who moved first is not on the board): the turn that keeps the image's lower side at the bottom is
     * taken for 0/2, the likelier one for 1/3. */
    double a02 = ll[0] > ll[2] ? ll[0] : ll[2], a13 = ll[1] > ll[3] ? ll[1] : ll[3];
    int best = a02 >= a13 ? 0 : (ll[1] >= ll[3] ? 1 : 3);
    /* The opposite turn's reading is the same squares seen upside down: average the two (test-time
     * turn; models/MODEL_CARD.md measured it on the real photos and piece sets). */
    vis_board_read_t *opp = malloc(sizeof *opp);
    if (opp == NULL) {
        vis_set_err(c->err, sizeof c->err, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    fill_read(c->logits + (size_t)((best + 2) % 4) * VIS_SQUARE_NB * c->nout, c->nout, opp);
    fill_read(c->logits + (size_t)best * VIS_SQUARE_NB * c->nout, c->nout, out);
    fill_red(c->blob + (size_t)best * VIS_SQUARE_NB * 3 * CROP * CROP, out);
    vis_board_read_merge_turned(out, opp);
    free(opp);
    out->orientation = best;
    out->orient_margin = a02 >= a13 ? a02 - a13 : a13 - a02;
    vis_pose_rotate(pose, best);
    return VIS_OK;
}

int vis_classifier_read_scales(vis_classifier_t *c, const cap_image_t *img, const vis_pose_t *pose,
                               vis_board_read_t *read) {
    const char *fn = "vis_classifier_read_scales";
    static const double scales[2] = {1.15, 1.45};
    const size_t one = (size_t)VIS_SQUARE_NB * 3 * CROP * CROP;
    int rc = check_args(c, img, pose, read, fn);
    for (int i = 0; i < 4 && rc == VIS_OK; i++) { /* scale i / 2, turned by 180 degrees when i is odd */
        vis_pose_t p = *pose;
        vis_pose_rotate(&p, 2 * (i % 2));
        rc = cut_crops_at(c, img, &p, scales[i / 2], c->blob + (size_t)i * one);
    }
    if (rc == VIS_OK)
        rc = forward(c, c->blob, 4 * VIS_SQUARE_NB, c->logits, fn);
    if (rc != VIS_OK)
        return rc;
    vis_board_read_t *r = malloc(2 * sizeof *r);
    if (r == NULL) {
        vis_set_err(c->err, sizeof c->err, fn, "out of memory");
        return VIS_E_NOMEM;
    }
    double lp[VIS_SQUARE_NB][VIS_CLASS_NB];
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        for (int k = 0; k < VIS_CLASS_NB; k++)
            lp[sq][k] = log((double)read->prob[sq][k] + 1e-30);
    for (int s = 0; s < 2; s++) {
        fill_read(c->logits + (size_t)(2 * s) * VIS_SQUARE_NB * c->nout, c->nout, &r[0]);
        fill_read(c->logits + (size_t)(2 * s + 1) * VIS_SQUARE_NB * c->nout, c->nout, &r[1]);
        vis_board_read_merge_turned(&r[0], &r[1]);
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            for (int k = 0; k < VIS_CLASS_NB; k++)
                lp[sq][k] += log((double)r[0].prob[sq][k] + 1e-30);
    }
    free(r);
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) { /* normalised geometric mean of the three */
        double mx = lp[sq][0], sum = 0, p[VIS_CLASS_NB];
        for (int k = 1; k < VIS_CLASS_NB; k++)
            if (lp[sq][k] > mx)
                mx = lp[sq][k];
        for (int k = 0; k < VIS_CLASS_NB; k++)
            sum += p[k] = exp((lp[sq][k] - mx) / 3);
        for (int k = 0; k < VIS_CLASS_NB; k++)
            read->prob[sq][k] = (float)(p[k] / sum);
    }
    vis_board_read_argmax(read);
    return VIS_OK;
}

/* vis_board_sfen's failure: buf left "" (it was left unterminated), VIS_E_ARG. */
static int sfen_too_long(char *buf) {
    buf[0] = '\0';
    return VIS_E_ARG;
}

int vis_board_sfen(const vis_board_read_t *read, char *buf, size_t size) {
    size_t n = 0;
    if (read == NULL || buf == NULL || size == 0)
        return VIS_E_ARG;
    for (int rank = 1; rank <= 9; rank++) {
        int empty = 0;
        for (int file = 9; file >= 1; file--) {
            int cls = read->cls[(file - 1) * 9 + (rank - 1)];
            const char *s = vis_class_sfen(cls);
            if (s == NULL || cls == 0) {
                empty++;
                continue;
            }
            if (empty) {
                if (n + 1 >= size)
                    return sfen_too_long(buf);
                buf[n++] = (char)('0' + empty);
                empty = 0;
            }
            size_t l = strlen(s);
            if (n + l >= size)
                return sfen_too_long(buf);
            memcpy(buf + n, s, l);
            n += l;
        }
        if (empty) {
            if (n + 1 >= size)
                return sfen_too_long(buf);
            buf[n++] = (char)('0' + empty);
        }
        if (rank < 9) {
            if (n + 1 >= size)
                return sfen_too_long(buf);
            buf[n++] = '/';
        }
    }
    buf[n] = '\0';
    return VIS_OK;
}

/* The median of the values 0..255 counted in hist (n values, n > 0). */
static int hist_median(const unsigned *hist, unsigned n) {
    unsigned acc = 0;
    for (int v = 0; v < 256; v++)
        if ((acc += hist[v]) * 2 >= n)
            return v;
    return 255;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int vis_board_off_strips(const cap_image_t *img, const vis_pose_t *pose, const vis_board_read_t *read,
                         int off[4], char *err, size_t errlen) {
    enum { S = 32, LO = 6, HI = 26 }; /* warp pixels a square; the middle 0.6 of a square: LO..HI-1 */
    const char *fn = "vis_board_off_strips";
    if (off)
        memset(off, 0, 4 * sizeof *off);
    if (img == NULL || img->data == NULL || pose == NULL || !pose->found || read == NULL || off == NULL) {
        vis_set_err(err, errlen, fn, "bad argument");
        return VIS_E_ARG;
    }
    unsigned char *bgr = malloc((size_t)9 * S * 9 * S * 3), *grey = malloc((size_t)9 * S * 9 * S);
    int rc = VIS_OK;
    if (bgr == NULL || grey == NULL) {
        vis_set_err(err, errlen, fn, "out of memory");
        rc = VIS_E_NOMEM;
        goto out;
    }
    cap_image_t dst = {9 * S, 9 * S, 9 * S * 3, bgr};
    char cverr[300];
    if ((rc = vis_pose_warp(img, pose, 0, &dst, err, errlen)) != VIS_OK)
        goto out;
    if (vis_cv_bgr_to_grey(bgr, 9 * S, 9 * S, 9 * S * 3, grey, 9 * S, 9 * S, 9 * S, cverr, sizeof cverr) !=
        0) {
        vis_set_err(err, errlen, fn, "%s", cverr);
        rc = VIS_E_CV;
        goto out;
    }
    /* per square (col = u, row = v): seen whole, the median tone of its middle's pixels in the image, and
     * their share of the middle (an outer square cut by the image's edge is judged on its part in view:
     * a grid a line over puts its outer line on the table, often across the edge of a cut photo) */
    int tone[9][9], seen[9][9];
    unsigned char inmask[9][9][HI - LO][HI - LO]; /* 32 KB */
    double share[9][9];
    for (int row = 0; row < 9; row++)
        for (int col = 0; col < 9; col++) {
            seen[row][col] = vis_pose_square_seen(pose, img->width, img->height, col, row);
            unsigned hist[256] = {0}, n = 0;
            for (int y = row * S + LO; y < row * S + HI; y++)
                for (int x = col * S + LO; x < col * S + HI; x++) {
                    double ix, iy;
                    int inside = seen[row][col] ||
                                 (vis_pose_to_image(pose, (x + 0.5) / S, (y + 0.5) / S, &ix, &iy) == VIS_OK &&
                                  ix >= 0 && iy >= 0 && ix < img->width && iy < img->height);
                    inmask[row][col][y - row * S - LO][x - col * S - LO] = (unsigned char)inside;
                    if (inside) {
                        hist[grey[(size_t)y * 9 * S + x]]++;
                        n++;
                    }
                }
            share[row][col] = (double)n / ((HI - LO) * (HI - LO));
            tone[row][col] = n > 0 ? hist_median(hist, n) : 0;
        }
    for (int side = 0; side < 4; side++) {
        /* the board's tone near the strip: the empty squares (0.5 or more) of the nearest line 1-3 squares
         * in that has 3 of them (light that varies across the board, a broad shadow, changes little
         * over so few squares; a board's edge or a table changes at once) */
        double ref = -1;
        for (int depth = 1; depth <= 3 && ref < 0; depth++) {
            int t[9], n = 0;
            for (int i = 0; i < 9; i++) {
                int col = side == 0 ? depth : side == 1 ? 8 - depth : i;
                int row = side == 2 ? depth : side == 3 ? 8 - depth : i, sq = (8 - col) * 9 + row;
                if (seen[row][col] && read->cls[sq] == 0 && read->conf[sq] >= 0.5f)
                    t[n++] = tone[row][col];
            }
            if (n >= 3) {
                qsort(t, (size_t)n, sizeof *t, cmp_int);
                ref = t[n / 2];
            }
        }
        if (ref < 1)
            continue;
        int t[9], n = 0, marked = 0;
        for (int i = 0; i < 9; i++) {
            int col = side == 0 ? 0 : side == 1 ? 8 : i, row = side == 2 ? 0 : side == 3 ? 8 : i;
            int sq = (8 - col) * 9 + row;
            if (share[row][col] < 0.7 || read->cls[sq] != 0)
                continue;
            t[n++] = tone[row][col];
            int odd = 0, npx = 0;
            for (int y = row * S + LO; y < row * S + HI; y++)
                for (int x = col * S + LO; x < col * S + HI; x++) {
                    if (!inmask[row][col][y - row * S - LO][x - col * S - LO])
                        continue;
                    int g = grey[(size_t)y * 9 * S + x];
                    odd += g < 0.6 * ref || g > 1.6 * ref;
                    npx++;
                }
            marked += odd >= 0.15 * npx;
        }
        if (n < 3)
            continue;
        qsort(t, (size_t)n, sizeof *t, cmp_int);
        double ratio = t[n / 2] / ref;
        off[side] = ratio < 0.7 || ratio > 1.43 || marked >= 0.6 * n;
    }
out:
    free(bgr);
    free(grey);
    return rc;
}
