/* test_adapt.c - recorder/record/adapt.c (per-game prototypes of the piece set's classes reweigh the
 * network's reading) on synthetic embeddings, and rec_trk_turn_board (recorder/tracker/tracker.c): the
 * start's squares taken as misread turn with the board when sente turns out to sit at the other end. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/record/adapt.h"
#include "recorder/tracker/tracker.h"
#include "rules/rules.h"
#include "tests/tests.h"

/* ---------------------------------------------------------------- synthetic embeddings */

/* Classes used below (REC_OBS_CLASS numbering). */
enum { C_EMPTY = 0, C_PAWN = 1, C_ROOK = 6, C_GOLD = 7, C_KING = 8, C_PROPAWN = 9, C_GOTE_KING = 22 };

/* A uniform number in [-1, 1) from *s (xorshift32; the state is the caller's). */
static double noise_unit(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return (double)*s / 2147483648.0 - 1.0;
}

/* f = scale * (unit vector e_dir + amp * uniform noise on every value). */
static void embed(float *f, int dir, double amp, double scale, uint32_t *s) {
    for (int k = 0; k < REC_FEAT_NB; k++)
        f[k] = (float)(scale * ((k == dir ? 1.0 : 0.0) + amp * noise_unit(s)));
}

/* A row of probabilities: the given (class, p) pairs, the rest of 1 spread evenly over the others. */
static void prob_row(float *row, int n, const int *cls, const double *p) {
    double rest = 1.0;
    for (int i = 0; i < n; i++)
        rest -= p[i];
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        row[c] = (float)(rest / (REC_OBS_CLASS_NB - n));
    for (int i = 0; i < n; i++)
        row[cls[i]] = (float)p[i];
}

static double row_sum(const float *row) {
    double s = 0;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        s += row[c];
    return s;
}

static int row_argmax(const float *row) {
    int best = 0;
    for (int c = 1; c < REC_OBS_CLASS_NB; c++)
        if (row[c] > row[best])
            best = c;
    return best;
}

/* The training set of most tests: nper crops each of class 1 (sente P) near e0, class 7 (sente G)
 * near e1 and class 0 (empty) near e2 (noise 0.05, scales 1..3: learn normalises). feat must hold
 * 3 * nper rows, cls as many. Returns the number of rows. */
static int make_training(float (*feat)[REC_FEAT_NB], int *cls, int nper, uint32_t *s) {
    static const int K[3] = {C_PAWN, C_GOLD, C_EMPTY};
    int n = 0;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < nper; i++, n++) {
            embed(feat[n], j, 0.05, 1.0 + i % 3, s);
            cls[n] = K[j];
        }
    return n;
}

/* Cosine of embedding f to the mean of the unit vectors of the rows of feat whose cls is c. */
static double cos_to_mean(const float *f, const float (*feat)[REC_FEAT_NB], const int *cls, int n, int c) {
    double m[REC_FEAT_NB] = {0}, dot = 0, nf = 0, nm = 0;
    for (int i = 0; i < n; i++) {
        if (cls[i] != c)
            continue;
        double l = 0;
        for (int k = 0; k < REC_FEAT_NB; k++)
            l += (double)feat[i][k] * feat[i][k];
        for (int k = 0; k < REC_FEAT_NB; k++)
            m[k] += feat[i][k] / sqrt(l);
    }
    for (int k = 0; k < REC_FEAT_NB; k++) {
        dot += f[k] * m[k];
        nf += (double)f[k] * f[k];
        nm += m[k] * m[k];
    }
    return dot / sqrt(nf * nm);
}

/* With no prototype (a new adapter, or one that learned only skipped crops) apply leaves every row
 * bit-identical, and nclasses is 0. */
static void test_adapt_no_prototype(void) {
    rec_adapt_t *a = NULL;
    float(*feat)[REC_FEAT_NB] = calloc(4, sizeof *feat);
    float(*prob)[REC_OBS_CLASS_NB] = calloc(4, sizeof *prob);
    float(*copy)[REC_OBS_CLASS_NB] = calloc(4, sizeof *copy);
    int cls[4] = {C_PAWN, -1, C_GOLD, -1};
    uint32_t s = 12345;
    CU_ASSERT_FATAL(feat && prob && copy);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &a), REC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    for (int i = 0; i < 4; i++) {
        embed(feat[i], i, 0.1, 1.0, &s);
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            prob[i][c] = (float)((c * 7 + i * 3) % 11 + 1);
        double t = row_sum(prob[i]);
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            prob[i][c] = (float)(prob[i][c] / t);
    }
    memcpy(copy, prob, 4 * sizeof *prob);
    CU_ASSERT_EQUAL(rec_adapt_nclasses(a), 0);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])feat, prob, 4, NULL), REC_OK);
    TESTS_CHECK(memcmp(prob, copy, 4 * sizeof *prob) == 0, "new adapter: probabilities unchanged");
    /* class 1 and 7 crops are all-zero here, the others are cls -1: nothing is learned */
    float(*zero)[REC_FEAT_NB] = calloc(4, sizeof *zero);
    CU_ASSERT_FATAL(zero != NULL);
    memcpy(zero[1], feat[1], sizeof zero[1]);
    memcpy(zero[3], feat[3], sizeof zero[3]);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])zero, cls, 4), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 0, "zero and cls -1 crops skipped: %d classes",
                rec_adapt_nclasses(a));
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])feat, prob, 4, NULL), REC_OK);
    TESTS_CHECK(memcmp(prob, copy, 4 * sizeof *prob) == 0, "nothing learned: probabilities unchanged");
    rec_adapt_destroy(a);
    free(zero);
    free(feat);
    free(prob);
    free(copy);
}

/* A crop like the learned pawns is read as a pawn although the network says gold at 0.9: class 1 comes
 * out > 0.9, equal to p(c) * softmax(cos / tau) computed here, the row summing to 1. */
static void test_adapt_reweighs_to_prototype(void) {
    enum { NPER = 4, N = 3 * NPER };
    rec_adapt_params_t p;
    rec_adapt_t *a = NULL;
    float(*feat)[REC_FEAT_NB] = calloc(N + 1, sizeof *feat);
    float(*prob)[REC_OBS_CLASS_NB] = calloc(1, sizeof *prob);
    float(*orig)[REC_OBS_CLASS_NB] = calloc(1, sizeof *orig);
    int cls[N];
    uint32_t s = 777;
    CU_ASSERT_FATAL(feat && prob && orig);
    rec_adapt_params_default(&p);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(&p, &a), REC_OK);
    int n = make_training(feat, cls, NPER, &s);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])feat, cls, n), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 3, "3 classes with a prototype (%d)", rec_adapt_nclasses(a));

    float *f = feat[N]; /* the crop to judge: near e0, like the pawns */
    embed(f, 0, 0.05, 2.0, &s);
    prob_row(prob[0], 2, (const int[]){C_GOLD, C_PAWN}, (const double[]){0.9, 0.05});
    memcpy(orig, prob, sizeof *prob);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])f, prob, 1, NULL), REC_OK);
    TESTS_CHECK(row_argmax(prob[0]) == C_PAWN && prob[0][C_PAWN] > 0.9f,
                "pawn-like crop read as class %d, p(pawn) %.4f (gold %.4f)", row_argmax(prob[0]),
                prob[0][C_PAWN], prob[0][C_GOLD]);
    TESTS_CHECK(prob[0][C_GOLD] < 1e-3f, "gold ruled out by its prototype: %.6f", prob[0][C_GOLD]);
    TESTS_CHECK(fabs(row_sum(prob[0]) - 1) < 1e-5, "row sums to 1 (%.7f)", row_sum(prob[0]));

    /* the same by the formula: w(c) = exp(cos(c) / tau) for c with a prototype, exp(novel_sim / tau)
     * otherwise */
    double want[REC_OBS_CLASS_NB], tot = 0;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++) {
        double z = (c == C_PAWN || c == C_GOLD || c == C_EMPTY)
                       ? cos_to_mean(f, (const float(*)[REC_FEAT_NB])feat, cls, n, c)
                       : p.novel_sim;
        want[c] = orig[0][c] * exp((z - 1) / p.tau);
        tot += want[c];
    }
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        TESTS_CHECK(fabs(prob[0][c] - want[c] / tot) < 1e-5, "class %d: %.7f, formula %.7f", c, prob[0][c],
                    want[c] / tot);
    rec_adapt_destroy(a);
    free(feat);
    free(prob);
    free(orig);
}

/* A crop like no prototype (near e5) keeps the network's choice among the classes with no prototype:
 * +P (class 9) at 0.6 stays first, rescaled by the novel weight as those classes all are. */
static void test_adapt_novel_class(void) {
    enum { NPER = 4, N = 3 * NPER };
    rec_adapt_t *a = NULL;
    float(*feat)[REC_FEAT_NB] = calloc(N + 1, sizeof *feat);
    float(*prob)[REC_OBS_CLASS_NB] = calloc(1, sizeof *prob);
    float(*orig)[REC_OBS_CLASS_NB] = calloc(1, sizeof *orig);
    int cls[N];
    uint32_t s = 4242;
    CU_ASSERT_FATAL(feat && prob && orig);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &a), REC_OK);
    int n = make_training(feat, cls, NPER, &s);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])feat, cls, n), REC_OK);
    float *f = feat[N];
    embed(f, 5, 0.05, 1.0, &s);
    prob_row(prob[0], 3, (const int[]){C_PROPAWN, C_PAWN, C_GOLD}, (const double[]){0.6, 0.2, 0.1});
    memcpy(orig, prob, sizeof *prob);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])f, prob, 1, NULL), REC_OK);
    TESTS_CHECK(row_argmax(prob[0]) == C_PROPAWN, "novel crop: class %d first (want 9), p(+P) %.4f",
                row_argmax(prob[0]), prob[0][C_PROPAWN]);
    /* pawn, gold and empty (cosine ~0 against the novel 0.7) all but vanish; the other classes keep
     * their ratios: p'(+P) = 0.6 / (sum of p over classes without a prototype) */
    double unseen = 1 - orig[0][C_PAWN] - orig[0][C_GOLD] - orig[0][C_EMPTY];
    TESTS_CHECK(fabs(prob[0][C_PROPAWN] - orig[0][C_PROPAWN] / unseen) < 1e-4, "p(+P) %.6f, want %.6f",
                prob[0][C_PROPAWN], orig[0][C_PROPAWN] / unseen);
    TESTS_CHECK(prob[0][C_PAWN] < 1e-4f && prob[0][C_GOLD] < 1e-4f, "seen classes unlike the crop: %.6f %.6f",
                prob[0][C_PAWN], prob[0][C_GOLD]);
    TESTS_CHECK(fabs(prob[0][C_ROOK] / prob[0][C_PROPAWN] - orig[0][C_ROOK] / orig[0][C_PROPAWN]) < 1e-5,
                "unseen classes keep their ratio");
    TESTS_CHECK(fabs(row_sum(prob[0]) - 1) < 1e-5, "row sums to 1 (%.7f)", row_sum(prob[0]));
    rec_adapt_destroy(a);
    free(feat);
    free(prob);
    free(orig);
}

/* Leave-one-out: the only king crop judged with own = 8 has no king prototype left, so nothing says
 * what a king looks like: its row is left as the network read it (judged against the other classes
 * alone it would be pushed off its own class: a correct start's king read as a lance). A pawn judged
 * with own = 1 (3 other pawns left) equals what an adapter that never learned it gives (1e-6); without
 * own the king's own prototype says "king" (the cases differ, so the comparisons can fail). */
static void test_adapt_leave_one_out(void) {
    enum { NPER = 4, N = 3 * NPER };
    rec_adapt_t *a = NULL, *b = NULL;
    float(*feat)[REC_FEAT_NB] = calloc(N + 1, sizeof *feat);
    float(*pa)[REC_OBS_CLASS_NB] = calloc(1, sizeof *pa);
    float(*pb)[REC_OBS_CLASS_NB] = calloc(1, sizeof *pb);
    float(*pself)[REC_OBS_CLASS_NB] = calloc(1, sizeof *pself);
    int cls[N + 1];
    uint32_t s = 99;
    CU_ASSERT_FATAL(feat && pa && pb && pself);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &a), REC_OK);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &b), REC_OK);
    int n = make_training(feat, cls, NPER, &s);
    embed(feat[n], 3, 0.05, 1.0, &s); /* the one king, near e3 */
    cls[n] = C_KING;
    CU_ASSERT_EQUAL(rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])feat, cls, n + 1), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_learn(b, (const float(*)[REC_FEAT_NB])feat, cls, n), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 4 && rec_adapt_nclasses(b) == 3,
                "classes: %d with the king, %d without", rec_adapt_nclasses(a), rec_adapt_nclasses(b));

    const float(*king)[REC_FEAT_NB] = (const float(*)[REC_FEAT_NB])feat + n;
    prob_row(pa[0], 3, (const int[]){C_KING, C_GOTE_KING, C_GOLD}, (const double[]){0.4, 0.3, 0.2});
    memcpy(pb, pa, sizeof *pa);
    memcpy(pself, pa, sizeof *pa);
    int own = C_KING;
    CU_ASSERT_EQUAL(rec_adapt_apply(a, king, pa, 1, &own), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_apply(b, king, pb, 1, NULL), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, king, pself, 1, NULL), REC_OK);
    /* the lone king keeps its supposed class (own_sim 0.85 against the gote king's novel 0.7, and no
     * other prototype near): K / gote K = 0.4 / 0.3 x exp((0.85 - 0.7) / 0.05) */
    TESTS_CHECK(fabs(pa[0][C_KING] / pa[0][C_GOTE_KING] - 0.4 / 0.3 * exp(0.15 / 0.05)) < 1e-3,
                "K / gote K = %.4f, want %.4f", pa[0][C_KING] / pa[0][C_GOTE_KING], 0.4 / 0.3 * exp(3.0));
    TESTS_CHECK(pa[0][C_KING] > 0.9f, "the lone king stays a king (p(K) %.5f)", pa[0][C_KING]);
    TESTS_CHECK(fabs(pb[0][C_KING] / pb[0][C_GOTE_KING] - 0.4 / 0.3) < 1e-3,
                "without the supposition both kings are novel alike (%.4f)",
                pb[0][C_KING] / pb[0][C_GOTE_KING]);
    /* ... unless it is clearly like another class's crops: a "king" crop that looks like the golds */
    float(*goldlike)[REC_FEAT_NB] = calloc(1, sizeof *goldlike);
    CU_ASSERT_FATAL(goldlike != NULL);
    embed(goldlike[0], 1, 0.05, 1.0, &s);
    prob_row(pa[0], 3, (const int[]){C_KING, C_GOTE_KING, C_GOLD}, (const double[]){0.4, 0.3, 0.2});
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])goldlike, pa, 1, &own), REC_OK);
    TESTS_CHECK(pa[0][C_GOLD] > 2 * pa[0][C_KING], "a gold-like crop reads gold (G %.4f, K %.4f)",
                pa[0][C_GOLD], pa[0][C_KING]);
    rec_adapt_params_t bad;
    rec_adapt_t *none = NULL;
    rec_adapt_params_default(&bad);
    bad.own_sim = 1.5;
    TESTS_CHECK(rec_adapt_create(&bad, &none) == REC_ERANGE && none == NULL, "own_sim 1.5 refused");
    free(goldlike);
    TESTS_CHECK(pself[0][C_KING] > 0.99f, "judged by its own prototype the king is sure: %.5f",
                pself[0][C_KING]);
    /* a pawn judged without itself: 3 pawns left, the same as an adapter that never learned it */
    rec_adapt_t *c3 = NULL;
    int cls_np[N + 1];
    memcpy(cls_np, cls, sizeof cls_np);
    cls_np[0] = -1; /* crop 0 is a pawn (make_training: class 1 first) */
    CU_ASSERT_EQUAL_FATAL(cls[0], C_PAWN);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &c3), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_learn(c3, (const float(*)[REC_FEAT_NB])feat, cls_np, n + 1), REC_OK);
    prob_row(pa[0], 2, (const int[]){C_GOLD, C_PAWN}, (const double[]){0.6, 0.3});
    memcpy(pb, pa, sizeof *pa);
    own = C_PAWN;
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])feat, pa, 1, &own), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_apply(c3, (const float(*)[REC_FEAT_NB])feat, pb, 1, NULL), REC_OK);
    double maxd = 0;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        maxd = fmax(maxd, fabs((double)pa[0][c] - pb[0][c]));
    TESTS_CHECK(maxd < 1e-6 && pa[0][C_PAWN] > 0.9f,
                "leave-one-out pawn = adapter without it (max diff %.3g, p(P) %.4f)", maxd, pa[0][C_PAWN]);
    TESTS_CHECK(fabs(row_sum(pa[0]) - 1) < 1e-5, "row sums to 1 (%.7f)", row_sum(pa[0]));
    rec_adapt_destroy(c3);
    rec_adapt_destroy(a);
    rec_adapt_destroy(b);
    free(feat);
    free(pa);
    free(pb);
    free(pself);
}

/* An all-zero embedding row is left unchanged while prototypes exist; crops of cls -1 are not
 * counted; after reset nclasses is 0 and apply changes nothing. */
static void test_adapt_zero_skip_reset(void) {
    enum { NPER = 3, N = 3 * NPER };
    rec_adapt_t *a = NULL;
    float(*feat)[REC_FEAT_NB] = calloc(N + 2, sizeof *feat);
    float(*prob)[REC_OBS_CLASS_NB] = calloc(2, sizeof *prob);
    float(*orig)[REC_OBS_CLASS_NB] = calloc(2, sizeof *orig);
    int cls[N + 2];
    uint32_t s = 31337;
    CU_ASSERT_FATAL(feat && prob && orig);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &a), REC_OK);
    int n = make_training(feat, cls, NPER, &s);
    for (int i = 0; i < NPER; i++)
        cls[NPER + i] = -1; /* the golds are not learned */
    CU_ASSERT_EQUAL(rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])feat, cls, n), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 2, "cls -1 skipped: %d classes (want 2)", rec_adapt_nclasses(a));
    /* row 0 all zero, row 1 like a pawn */
    memset(feat[N], 0, sizeof feat[N]);
    embed(feat[N + 1], 0, 0.05, 1.0, &s);
    for (int i = 0; i < 2; i++)
        prob_row(prob[i], 2, (const int[]){C_GOLD, C_PAWN}, (const double[]){0.7, 0.2});
    memcpy(orig, prob, 2 * sizeof *prob);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])feat + N, prob, 2, NULL), REC_OK);
    TESTS_CHECK(memcmp(prob[0], orig[0], sizeof prob[0]) == 0, "all-zero embedding: row unchanged");
    TESTS_CHECK(prob[1][C_PAWN] > 0.9f, "the pawn-like row beside it is reweighed (p(pawn) %.4f)",
                prob[1][C_PAWN]);
    /* a gold-like crop: gold has no prototype (its crops were cls -1), so gold keeps the novel weight */
    embed(feat[N + 1], 1, 0.05, 1.0, &s);
    memcpy(prob, orig, 2 * sizeof *prob);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])feat + N, prob, 2, NULL), REC_OK);
    TESTS_CHECK(row_argmax(prob[1]) == C_GOLD, "gold (unlearned) stays first: class %d", row_argmax(prob[1]));
    /* reset */
    rec_adapt_reset(a);
    TESTS_CHECK(rec_adapt_nclasses(a) == 0, "after reset: %d classes", rec_adapt_nclasses(a));
    memcpy(prob, orig, 2 * sizeof *prob);
    embed(feat[N + 1], 0, 0.05, 1.0, &s);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])feat + N, prob, 2, NULL), REC_OK);
    TESTS_CHECK(memcmp(prob, orig, 2 * sizeof *prob) == 0, "after reset: probabilities unchanged");
    /* learning again after reset works */
    CU_ASSERT_EQUAL(
        rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])feat + N, (const int[]){C_PAWN, C_ROOK}, 2), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 1, "after reset, one non-zero crop learned: %d classes",
                rec_adapt_nclasses(a));
    rec_adapt_destroy(a);
    free(feat);
    free(prob);
    free(orig);
}

/* Bad arguments: NULL pointers, n < 0, class or own 29 or -2 give REC_ERANGE and change nothing; create
 * with tau <= 0, novel_sim out of -1..1 or min_examples 0 gives REC_ERANGE and *out NULL. */
static void test_adapt_bad_args(void) {
    rec_adapt_params_t p;
    rec_adapt_t *a = NULL, *e = NULL, *dummy = NULL;
    float(*feat)[REC_FEAT_NB] = calloc(2, sizeof *feat);
    float(*prob)[REC_OBS_CLASS_NB] = calloc(2, sizeof *prob);
    float(*orig)[REC_OBS_CLASS_NB] = calloc(2, sizeof *orig);
    const float(*cf)[REC_FEAT_NB] = (const float(*)[REC_FEAT_NB])feat;
    uint32_t s = 5;
    CU_ASSERT_FATAL(feat && prob && orig);

    CU_ASSERT_EQUAL(rec_adapt_create(NULL, NULL), REC_ERANGE);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &dummy), REC_OK); /* a valid pointer to see *out cleared */
    static const struct {
        double tau, novel;
        int min;
        const char *label;
    } BAD[] = {{0, 0.7, 1, "tau 0"},
               {-0.05, 0.7, 1, "tau < 0"},
               {NAN, 0.7, 1, "tau NaN"},
               {0.05, 2, 1, "novel_sim 2"},
               {0.05, -1.5, 1, "novel_sim -1.5"},
               {0.05, 0.7, 0, "min_examples 0"},
               {0.05, 0.7, -3, "min_examples -3"}};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        rec_adapt_params_default(&p);
        p.tau = BAD[i].tau;
        p.novel_sim = BAD[i].novel;
        p.min_examples = BAD[i].min;
        rec_adapt_t *out = dummy;
        int rc = rec_adapt_create(&p, &out);
        TESTS_CHECK(rc == REC_ERANGE && out == NULL, "%s: rc %d, out %s", BAD[i].label, rc,
                    out ? "set" : "NULL");
        rec_adapt_destroy(out == dummy ? NULL : out);
    }
    rec_adapt_destroy(dummy);
    /* the edges of the ranges are accepted */
    rec_adapt_params_default(&p);
    p.novel_sim = -1;
    CU_ASSERT_EQUAL(rec_adapt_create(&p, &a), REC_OK);
    rec_adapt_destroy(a);
    p.novel_sim = 1;
    CU_ASSERT_EQUAL(rec_adapt_create(&p, &a), REC_OK);
    rec_adapt_destroy(a);
    a = NULL;

    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &a), REC_OK);
    embed(feat[0], 0, 0.05, 1.0, &s);
    embed(feat[1], 1, 0.05, 1.0, &s);
    int good[2] = {C_PAWN, C_GOLD};
    /* learn */
    CU_ASSERT_EQUAL(rec_adapt_learn(NULL, cf, good, 2), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, NULL, good, 2), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, cf, NULL, 2), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, cf, good, -1), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, cf, (const int[]){C_PAWN, 29}, 2), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, cf, (const int[]){C_PAWN, -2}, 2), REC_ERANGE);
    TESTS_CHECK(rec_adapt_nclasses(a) == 0, "refused learns learned nothing: %d classes",
                rec_adapt_nclasses(a));
    CU_ASSERT_EQUAL(rec_adapt_learn(a, cf, good, 0), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 0, "n = 0 learned nothing: %d classes", rec_adapt_nclasses(a));
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &e), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_learn(e, cf, (const int[]){0, 28}, 2), REC_OK); /* the range's edges */
    TESTS_CHECK(rec_adapt_nclasses(e) == 2, "classes 0 and 28 learned: %d", rec_adapt_nclasses(e));
    CU_ASSERT_EQUAL(rec_adapt_apply(e, cf, prob, 2, (const int[]){0, 28}), REC_OK); /* own's edges */
    rec_adapt_destroy(e);
    CU_ASSERT_EQUAL(rec_adapt_learn(a, cf, good, 2), REC_OK);
    /* apply */
    prob_row(prob[0], 1, (const int[]){C_GOLD}, (const double[]){0.9});
    prob_row(prob[1], 1, (const int[]){C_PAWN}, (const double[]){0.9});
    memcpy(orig, prob, 2 * sizeof *prob);
    CU_ASSERT_EQUAL(rec_adapt_apply(NULL, cf, prob, 2, NULL), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, NULL, prob, 2, NULL), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, cf, NULL, 2, NULL), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, cf, prob, -1, NULL), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, cf, prob, 2, (const int[]){-1, 29}), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, cf, prob, 2, (const int[]){-2, -1}), REC_ERANGE);
    TESTS_CHECK(memcmp(prob, orig, 2 * sizeof *prob) == 0, "refused applies changed nothing");
    CU_ASSERT_EQUAL(rec_adapt_apply(a, cf, prob, 0, NULL), REC_OK);
    TESTS_CHECK(memcmp(prob, orig, 2 * sizeof *prob) == 0, "n = 0 changes nothing");
    CU_ASSERT_EQUAL(rec_adapt_apply(a, cf, prob, 2, (const int[]){-1, -1}), REC_OK);
    TESTS_CHECK(row_argmax(prob[0]) == C_PAWN && row_argmax(prob[1]) == C_GOLD,
                "valid apply after the refusals reweighs (%d, %d)", row_argmax(prob[0]), row_argmax(prob[1]));
    /* NULL handles */
    rec_adapt_destroy(NULL);
    rec_adapt_reset(NULL);
    CU_ASSERT_EQUAL(rec_adapt_nclasses(NULL), 0);
    rec_adapt_destroy(a);
    free(feat);
    free(prob);
    free(orig);
}

/* min_examples 3: a class with 2 crops has no prototype (not counted, does not reweigh: the result
 * equals that of an adapter that never saw it); its third crop makes it count. */
static void test_adapt_min_examples(void) {
    rec_adapt_params_t p;
    rec_adapt_t *a = NULL, *b = NULL;
    float(*feat)[REC_FEAT_NB] = calloc(7, sizeof *feat);
    float(*pa)[REC_OBS_CLASS_NB] = calloc(1, sizeof *pa);
    float(*pb)[REC_OBS_CLASS_NB] = calloc(1, sizeof *pb);
    float(*orig)[REC_OBS_CLASS_NB] = calloc(1, sizeof *orig);
    int cls[6] = {C_PAWN, C_PAWN, C_PAWN, C_GOLD, C_GOLD, C_GOLD};
    uint32_t s = 2024;
    CU_ASSERT_FATAL(feat && pa && pb && orig);
    rec_adapt_params_default(&p);
    p.min_examples = 3;
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(&p, &a), REC_OK);
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(&p, &b), REC_OK);
    for (int i = 0; i < 6; i++)
        embed(feat[i], i < 3 ? 0 : 1, 0.05, 1.0, &s);
    /* a: 3 pawns and 2 golds; b: the 3 pawns only */
    CU_ASSERT_EQUAL(rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])feat, cls, 5), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_learn(b, (const float(*)[REC_FEAT_NB])feat, cls, 3), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 1, "2 golds do not make a prototype: %d classes",
                rec_adapt_nclasses(a));

    /* a gold-like crop that the network reads as gold 0.5, pawn 0.3 */
    embed(feat[6], 1, 0.05, 1.0, &s);
    prob_row(pa[0], 2, (const int[]){C_GOLD, C_PAWN}, (const double[]){0.5, 0.3});
    memcpy(pb, pa, sizeof *pa);
    memcpy(orig, pa, sizeof *pa);
    const float(*g)[REC_FEAT_NB] = (const float(*)[REC_FEAT_NB])feat + 6;
    CU_ASSERT_EQUAL(rec_adapt_apply(a, g, pa, 1, NULL), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_apply(b, g, pb, 1, NULL), REC_OK);
    double maxd = 0;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        maxd = fmax(maxd, fabs((double)pa[0][c] - pb[0][c]));
    TESTS_CHECK(maxd < 1e-6, "2 golds do not reweigh: max diff %.3g from the adapter without them", maxd);
    /* gold (no prototype) keeps the novel weight, the unlike pawn prototype removes pawn */
    double unseen = 1 - orig[0][C_PAWN];
    TESTS_CHECK(fabs(pa[0][C_GOLD] - orig[0][C_GOLD] / unseen) < 1e-4, "p(gold) %.6f, want %.6f",
                pa[0][C_GOLD], orig[0][C_GOLD] / unseen);

    /* the third gold makes a prototype: now gold is sure */
    CU_ASSERT_EQUAL(rec_adapt_learn(a, (const float(*)[REC_FEAT_NB])feat + 5, cls + 5, 1), REC_OK);
    TESTS_CHECK(rec_adapt_nclasses(a) == 2, "3 golds: %d classes", rec_adapt_nclasses(a));
    memcpy(pa, orig, sizeof *pa);
    CU_ASSERT_EQUAL(rec_adapt_apply(a, g, pa, 1, NULL), REC_OK);
    TESTS_CHECK(pa[0][C_GOLD] > 0.99f, "with a gold prototype p(gold) %.5f", pa[0][C_GOLD]);
    /* leave-one-out: the third gold judged without itself leaves 2 golds, below min_examples again:
     * gold is then the supposed class with no prototype (own_sim 0.85), the pawns unlike it */
    memcpy(pb, orig, sizeof *pb);
    int own = C_GOLD;
    CU_ASSERT_EQUAL(rec_adapt_apply(a, (const float(*)[REC_FEAT_NB])feat + 5, pb, 1, &own), REC_OK);
    TESTS_CHECK(pb[0][C_GOLD] > 0.9f && pb[0][C_GOLD] / pb[0][C_EMPTY] > 0.5 / (0.2 / 27) * 10,
                "leave-one-out leaves 2 golds: gold kept as supposed (p(gold) %.6f)", pb[0][C_GOLD]);
    rec_adapt_destroy(a);
    rec_adapt_destroy(b);
    free(feat);
    free(pa);
    free(pb);
    free(orig);
}

/* ---------------------------------------------------------------- rec_trk_turn_board */

/* out = in turned by 180 degrees: square sq reads what in read on 80 - sq, owners swapped (hands too). */
static void obs_turn(rec_obs_t *out, const rec_obs_t *in) {
    *out = *in;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        int from = RUL_SQ_NB - 1 - sq;
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            out->sq_prob[sq][REC_OBS_SWAP(c)] = in->sq_prob[from][c];
        out->sq_unknown[sq] = in->sq_unknown[from];
    }
    for (int col = 0; col < RUL_COLOR_NB; col++) {
        memcpy(out->hand_prob[col], in->hand_prob[1 - col], sizeof out->hand_prob[col]);
        out->hand_known[col] = in->hand_known[1 - col];
    }
}

/* The classifier reads the piece on sq as class `seen` (0.97) instead of `want` (0.03): log(0.97 / 0.03)
 * is over the tracker's fit_max (3 nats), so the start is "taken as misread" (at 0.9 it simply fits). */
static void obs_misread(rec_obs_t *o, int sq, int want, int seen) {
    memset(o->sq_prob[sq], 0, sizeof o->sq_prob[sq]);
    o->sq_prob[sq][seen] = 0.97f;
    o->sq_prob[sq][want] = 0.03f;
}

/* Feeds n frames of o (view as set in o) from *ts, 100 ms apart. */
static void feed_frames(rec_trk_t *t, rec_obs_t *o, int64_t *ts, int n) {
    for (int i = 0; i < n; i++) {
        o->ts_us = *ts;
        *ts += 100000;
        CU_ASSERT_EQUAL(rec_trk_feed(t, o, NULL), REC_OK);
    }
}

/* The view the tracker gets of the real position `real` once sente is known to sit at the far end:
 * the camera sees `real` turned, with the physical piece on the camera's 1g (the real 9c gote pawn)
 * misread as a rook of the camera's near side; the recorder turns that camera view back. */
static void turned_view(rec_obs_t *fed, rec_obs_t *cam, const rul_pos_t *real) {
    rec_obs_from_pos(fed, real);
    fed->hand_known[RUL_SENTE] = fed->hand_known[RUL_GOTE] = 0;
    obs_turn(cam, fed);                                    /* what the camera sees */
    CU_ASSERT(cam->sq_prob[RUL_SQ(1, 7)][C_PAWN] == 1.0f); /* the real 9c gote pawn, near side */
    obs_misread(cam, RUL_SQ(1, 7), C_PAWN, C_ROOK);
    obs_turn(fed, cam); /* ... turned back: the misread sits on 9c as a gote rook */
}

/* Runs the stream of the bug: the even start (camera frame, 1g's pawn read as a rook) starts the game
 * "taken as misread"; then sente turns out to sit at the far end: the later views come turned, and
 * turn says whether rec_trk_turn_board is called before them. Sente plays 7g7f, gote 3c3d. Returns
 * the tracker (caller destroys). */
static rec_trk_t *run_turned_stream(int turn) {
    rec_trk_t *t = NULL;
    rul_pos_t pos;
    rul_undo_t u;
    rul_move_t m;
    rec_obs_t *o = malloc(sizeof *o), *cam = malloc(sizeof *cam);
    int64_t ts = 1000000;
    static const char *const moves[] = {"7g7f", "3c3d"};
    CU_ASSERT_FATAL(o && cam);
    CU_ASSERT_EQUAL_FATAL(rec_trk_create(NULL, NULL, &t), REC_OK);
    CU_ASSERT_EQUAL_FATAL(rul_pos_from_sfen(&pos, RUL_SFEN_STARTPOS, NULL), RUL_OK);
    rec_obs_clear(o);
    rec_obs_from_pos(o, &pos);
    o->hand_known[RUL_SENTE] = o->hand_known[RUL_GOTE] = 0;
    obs_misread(o, RUL_SQ(1, 7), C_PAWN, C_ROOK);
    o->view = REC_VIEW_STABLE;
    feed_frames(t, o, &ts, 20);
    if (turn)
        rec_trk_turn_board(t);
    for (int i = 0; i < 2; i++) {
        o->view = REC_VIEW_HAND;
        feed_frames(t, o, &ts, 2);
        CU_ASSERT_FATAL(rul_move_from_usi(moves[i], &m, NULL) == RUL_OK && rul_is_legal(&pos, m));
        rul_pos_do_move(&pos, m, &u);
        turned_view(o, cam, &pos);
        o->view = REC_VIEW_STABLE;
        feed_frames(t, o, &ts, 10);
    }
    free(o);
    free(cam);
    return t;
}

static const rec_trk_event_t *first_of(const rec_trk_t *t, int type) {
    for (int i = 0; i < rec_trk_nevents(t); i++)
        if (rec_trk_event(t, i)->type == type)
            return rec_trk_event(t, i);
    return NULL;
}

/* Per-square memory: a square whose embedding is the one remembered is pulled to its remembered class
 * (0.98 of the row + 0.02 of what it was); a changed crop, a forgotten square and reset are left alone;
 * bad arguments are refused. */
static void test_adapt_remember_recall(void) {
    rec_adapt_t *a = NULL;
    uint32_t seed = 99;
    static float feat[REC_ADAPT_SQUARES][REC_FEAT_NB], now[REC_ADAPT_SQUARES][REC_FEAT_NB];
    static float prob[REC_ADAPT_SQUARES][REC_OBS_CLASS_NB];
    int cls[REC_ADAPT_SQUARES];
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &a), REC_OK);
    for (int i = 0; i < REC_ADAPT_SQUARES; i++) {
        embed(feat[i], i % REC_FEAT_NB, 0.05, 1.0, &seed);
        cls[i] = i < 9 ? C_PAWN : i == 40 ? -1 : C_EMPTY;
    }
    CU_ASSERT_EQUAL(rec_adapt_remember(a, (const float(*)[REC_FEAT_NB])feat, cls, REC_ADAPT_SQUARES), REC_OK);
    memcpy(now, feat, sizeof now);
    for (int k = 0; k < REC_FEAT_NB; k++)
        now[3][k] *= 2.5f;                /* same direction, other scale: the same crop */
    embed(now[4], 100, 0.05, 1.0, &seed); /* another crop on square 4 */
    for (int i = 0; i < REC_ADAPT_SQUARES; i++) {
        int c2[1] = {C_GOLD};
        double p2[1] = {0.9};
        prob_row(prob[i], 1, c2, p2); /* the network says gold 0.9 everywhere */
    }
    CU_ASSERT_EQUAL(rec_adapt_recall(a, (const float(*)[REC_FEAT_NB])now, prob, REC_ADAPT_SQUARES), REC_OK);
    CU_ASSERT_DOUBLE_EQUAL(prob[0][C_PAWN], 0.98 + 0.02 * (0.1 / 28), 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(prob[0][C_GOLD], 0.02 * 0.9, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(prob[3][C_PAWN], 0.98 + 0.02 * (0.1 / 28), 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(prob[20][C_EMPTY], 0.98 + 0.02 * (0.1 / 28), 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(prob[4][C_GOLD], 0.9, 1e-6);  /* changed crop: as it was */
    CU_ASSERT_DOUBLE_EQUAL(prob[40][C_GOLD], 0.9, 1e-6); /* forgotten square */
    CU_ASSERT_DOUBLE_EQUAL(row_sum(prob[0]), 1.0, 1e-5);
    rec_adapt_reset(a);
    CU_ASSERT_EQUAL(rec_adapt_recall(a, (const float(*)[REC_FEAT_NB])now, prob, REC_ADAPT_SQUARES), REC_OK);
    CU_ASSERT_DOUBLE_EQUAL(prob[0][C_PAWN], 0.98 + 0.02 * (0.1 / 28), 1e-5); /* unchanged after reset */
    CU_ASSERT_DOUBLE_EQUAL(prob[0][C_GOLD], 0.02 * 0.9, 1e-5);
    CU_ASSERT_EQUAL(rec_adapt_remember(a, (const float(*)[REC_FEAT_NB])feat, cls, REC_ADAPT_SQUARES + 1),
                    REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_remember(NULL, (const float(*)[REC_FEAT_NB])feat, cls, 1), REC_ERANGE);
    cls[0] = REC_OBS_CLASS_NB;
    CU_ASSERT_EQUAL(rec_adapt_remember(a, (const float(*)[REC_FEAT_NB])feat, cls, 1), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_recall(a, (const float(*)[REC_FEAT_NB])now, prob, -1), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_recall(a, NULL, prob, 1), REC_ERANGE);
    rec_adapt_destroy(a);
}

/* The start taken with a misread square, then the board found turned: with rec_trk_turn_board the
 * misread square (1g sente R -> 9c gote R) turns too and 7g7f, 3c3d are recorded; without it 7g7f is
 * not the first move recorded. */
static void test_turn_board_misread(void) {
    rec_trk_t *t = run_turned_stream(1);
    const rec_trk_event_t *se = first_of(t, REC_TEV_SETUP_ERROR), *gs = first_of(t, REC_TEV_GAME_START);
    TESTS_CHECK(se != NULL && strstr(se->detail, "1g: expected sente P, seen sente R") != NULL &&
                    strstr(se->detail, "taken as misread (1 square)") != NULL,
                "setup error names 1g and takes it as misread: %s", se ? se->detail : "none");
    TESTS_CHECK(gs != NULL && se != NULL && gs->seq > se->seq && gs->handicap == RUL_HC_EVEN,
                "then the even game starts (%s)", gs ? gs->sfen : "no game_start");
    const rec_trk_event_t *mv = first_of(t, REC_TEV_MOVE);
    TESTS_CHECK(mv != NULL && strcmp(mv->usi, "7g7f") == 0 && mv->ply == 1,
                "turned: first move %s (want 7g7f)", mv ? mv->usi : "none");
    int nmove = 0, nunc = 0;
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type == REC_TEV_MOVE) {
            TESTS_CHECK(strcmp(e->usi, nmove == 0 ? "7g7f" : "3c3d") == 0, "move %d: %s", nmove + 1, e->usi);
            nmove++;
        }
        nunc += e->type == REC_TEV_UNCERTAIN;
    }
    TESTS_CHECK(nmove == 2 && nunc == 0, "turned: %d moves (want 2), %d uncertain", nmove, nunc);
    TESTS_CHECK(rec_trk_state(t) == REC_TRK_PLAYING && rec_trk_game(t)->nply == 2, "game goes on at ply %d",
                rec_trk_game(t) ? rec_trk_game(t)->nply : -1);
    rec_trk_destroy(t);

    /* the same stream without rec_trk_turn_board: the start's misread square stays on 1g, the view's
     * gote rook on 9c contradicts every explanation */
    t = run_turned_stream(0);
    mv = first_of(t, REC_TEV_MOVE);
    TESTS_CHECK(mv == NULL || strcmp(mv->usi, "7g7f") != 0, "not turned: first move %s must not be 7g7f",
                mv ? mv->usi : "none");
    rec_trk_destroy(t);

    rec_trk_turn_board(NULL); /* accepted */
}

/* Red ink: after a start whose pieces are black (red 0.01 on every square), a square with red 0.2 read
 * as a gote bishop becomes a gote promoted bishop, a red gold-like face one of the promoted golds in
 * their proportion, a square under the threshold (max(0.05, 2 x 0.01 + 0.03)) and the empty squares stay;
 * before a start is learned, with the empty squares redder (the light changed), for a set whose every
 * piece is red, and after reset, nothing changes. */
static void test_adapt_red_ink(void) {
    enum { GB = 19, GPB = 27, S_PS = 12, S_PN = 11 };
    rec_adapt_t *a = NULL;
    static float prob[REC_ADAPT_SQUARES][REC_OBS_CLASS_NB], before[REC_ADAPT_SQUARES][REC_OBS_CLASS_NB];
    float red[REC_ADAPT_SQUARES];
    int cls[REC_ADAPT_SQUARES];
    CU_ASSERT_EQUAL_FATAL(rec_adapt_create(NULL, &a), REC_OK);
    for (int i = 0; i < REC_ADAPT_SQUARES; i++) {
        cls[i] = i % 9; /* empty and the eight sente kinds */
        red[i] = 0.01f;
        int c[1] = {C_EMPTY};
        double p[1] = {0.9};
        prob_row(prob[i], 1, c, p);
    }
    { /* square 0: a gote bishop 0.6, promoted 0.1; square 1 the same, red under the threshold; square 2 a
         gold 0.8, promoted silver 0.1, promoted knight 0.05 */
        int c0[2] = {GB, GPB}, c2[3] = {C_GOLD, S_PS, S_PN};
        double p0[2] = {0.6, 0.1}, p2[3] = {0.8, 0.1, 0.05};
        prob_row(prob[0], 2, c0, p0);
        prob_row(prob[1], 2, c0, p0);
        prob_row(prob[2], 3, c2, p2);
    }
    float red_now[REC_ADAPT_SQUARES];
    for (int i = 0; i < REC_ADAPT_SQUARES; i++)
        red_now[i] = 0.01f;
    red_now[0] = 0.2f;
    red_now[1] = 0.045f;
    red_now[2] = 0.3f;
    memcpy(before, prob, sizeof prob);
    CU_ASSERT_EQUAL(rec_adapt_apply_red(a, red_now, prob, REC_ADAPT_SQUARES), 0); /* no start learned */
    CU_ASSERT(memcmp(before, prob, sizeof prob) == 0);
    CU_ASSERT_EQUAL(rec_adapt_learn_red(a, red, cls, REC_ADAPT_SQUARES), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_apply_red(a, red_now, prob, REC_ADAPT_SQUARES), 2);
    CU_ASSERT_DOUBLE_EQUAL(prob[0][GB], 0.6 * 0.02, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(prob[0][GPB], 0.1 + 0.6 * 0.98, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(row_sum(prob[0]), 1.0, 1e-5);
    CU_ASSERT(memcmp(before[1], prob[1], sizeof prob[1]) == 0);
    CU_ASSERT_DOUBLE_EQUAL(prob[2][C_GOLD], 0.8 * 0.02, 1e-6);
    /* prob_row spread the 0.05 left over the other 26 classes; P, L, N, S gave theirs to their promoted
     * kinds first, then the gold's goes to the four in proportion */
    double rest = 0.05 / 26, ps = 0.1 + 0.98 * rest, pn = 0.05 + 0.98 * rest,
           golds = ps + pn + 2 * 1.98 * rest;
    CU_ASSERT_DOUBLE_EQUAL(prob[2][S_PS], ps + 0.8 * 0.98 * ps / golds, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(prob[2][S_PN], pn + 0.8 * 0.98 * pn / golds, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(row_sum(prob[2]), 1.0, 1e-5);
    CU_ASSERT(memcmp(before[40], prob[40], sizeof prob[40]) == 0);

    /* the squares read empty redder than learned by more than REC_ADAPT_RED_LIGHT: the light changed */
    memcpy(prob, before, sizeof prob);
    for (int i = 3; i < REC_ADAPT_SQUARES; i++)
        red_now[i] = 0.04f;
    CU_ASSERT_EQUAL(rec_adapt_apply_red(a, red_now, prob, REC_ADAPT_SQUARES), 0);
    CU_ASSERT(memcmp(before, prob, sizeof prob) == 0);
    for (int i = 3; i < REC_ADAPT_SQUARES; i++)
        red_now[i] = 0.01f;

    /* a set whose every piece is red: 0.3 is its black */
    rec_adapt_reset(a);
    CU_ASSERT_EQUAL(rec_adapt_apply_red(a, red_now, prob, REC_ADAPT_SQUARES), 0); /* reset: nothing */
    for (int i = 0; i < REC_ADAPT_SQUARES; i++)
        red[i] = cls[i] == C_EMPTY ? 0.01f : 0.3f;
    CU_ASSERT_EQUAL(rec_adapt_learn_red(a, red, cls, REC_ADAPT_SQUARES), REC_OK);
    CU_ASSERT_EQUAL(rec_adapt_apply_red(a, red_now, prob, REC_ADAPT_SQUARES), 0);
    CU_ASSERT(memcmp(before, prob, sizeof prob) == 0);

    CU_ASSERT_EQUAL(rec_adapt_learn_red(NULL, red, cls, 1), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_learn_red(a, red, cls, -1), REC_ERANGE);
    cls[0] = REC_OBS_CLASS_NB;
    CU_ASSERT_EQUAL(rec_adapt_learn_red(a, red, cls, 1), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_apply_red(a, NULL, prob, 1), REC_ERANGE);
    CU_ASSERT_EQUAL(rec_adapt_apply_red(NULL, red, prob, 1), REC_ERANGE);
    rec_adapt_destroy(a);
}

int tests_register_adapt(void) {
    CU_pSuite s = CU_add_suite("adapt", NULL, NULL);
    if (s == NULL)
        return -1;
    if (!CU_add_test(s, "no prototype: probabilities unchanged", test_adapt_no_prototype) ||
        !CU_add_test(s, "a crop like a prototype takes its class", test_adapt_reweighs_to_prototype) ||
        !CU_add_test(s, "a novel crop keeps the network's unseen class", test_adapt_novel_class) ||
        !CU_add_test(s, "leave-one-out", test_adapt_leave_one_out) ||
        !CU_add_test(s, "zero embeddings, cls -1, reset", test_adapt_zero_skip_reset) ||
        !CU_add_test(s, "bad arguments", test_adapt_bad_args) ||
        !CU_add_test(s, "min_examples", test_adapt_min_examples) ||
        !CU_add_test(s, "remember / recall a square's look", test_adapt_remember_recall) ||
        !CU_add_test(s, "turned board: misread start square turns too", test_turn_board_misread) ||
        !CU_add_test(s, "red ink: a promoted side in red", test_adapt_red_ink))
        return -1;
    return 0;
}
