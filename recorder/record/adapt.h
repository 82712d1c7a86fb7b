/* adapt.h - per-game adaptation to the piece set on the board (rec_adapt_*).
 *
 * The square classifier is trained on rendered sets; a real set (another calligraphy, another wood)
 * is misread on some kinds, but the misreading is consistent: every pawn of one set looks alike. The
 * recorder knows what stands on every square once it has accepted the start or a move, so it keeps,
 * for each of the 29 classes, the mean of the embeddings (the 128 values the network's last layer
 * reads, vision.h VIS_FEAT_NB) of the crops it has seen of that class in this game: a prototype, as in
 * few-shot learning ("Prototypical Networks", Snell et al. 2017; nearest class mean, Mensink et al.
 * 2013). A new crop is then also judged by its cosine similarity to each prototype, and the
 * network's probabilities are reweighted by a softmax of those similarities:
 *
 *     p'(c) ~ p(c) * w(c),   w = softmax over {classes with a prototype} + {"novel"} of s / tau,
 *
 * where s(c) is the cosine of the crop's embedding to c's prototype, s(novel) = novel_sim, and a class
 * without a prototype (a promoted piece not yet seen) takes w(novel). A crop like no prototype leaves
 * the choice to the network among the unseen classes; a crop like the set's pawns is a pawn whatever
 * kind the network took it for.
 *
 * Before the first move the start is a hypothesis (FESA 9.1: the players set up a known position):
 * rec_adapt_apply's leave-one-out form judges each square by the prototypes of the other squares of
 * the supposed start, so a misread pawn is read as its 17 fellow pawns say, while a piece really out of
 * place (a gold where a silver belongs) still looks like the other kind.
 *
 * The defaults are measured in docs/EVALUATION.md ("The recording loop").
 * Conventions as tracker.h: REC_OK or a negative REC_E* code; one handle per game stream, used from
 * one thread at a time; no global state. Pure C, no pixels: the embeddings come from vision.
 */
#ifndef KIFUCAM_ADAPT_H
#define KIFUCAM_ADAPT_H

#include "recorder/kifu/replay.h"
#include "recorder/tracker/tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REC_FEAT_NB 128 /* values of one embedding (= VIS_FEAT_NB of vision.h) */

typedef struct {
    double tau;       /* temperature of the similarity softmax (cosine units), > 0; default 0.05 */
    double novel_sim; /* similarity of "a class not seen yet", -1..1; default 0.7 (between a crop's
                         cosine to its own class's prototype and to the nearest other one) */
    int min_examples; /* crops a class needs before its prototype is used, >= 1; default 1 */
    double own_sim;   /* leave-one-out (rec_adapt_apply's own): the similarity given to a crop's supposed
                         class when no other crop of it is there (a king, a rook: one of a kind on
                         each side), -1..1; default 0.85: the supposition holds unless the crop is
                         clearly like another class's crops */
} rec_adapt_params_t;

/* Fills *p with the defaults above. */
void rec_adapt_params_default(rec_adapt_params_t *p);

typedef struct rec_adapt rec_adapt_t;

/* Creates an empty adapter (no prototype: rec_adapt_apply leaves probabilities as they are). params
 * NULL: defaults. Errors: REC_ERANGE (out NULL or a parameter out of range), REC_ENOMEM. */
int rec_adapt_create(const rec_adapt_params_t *params, rec_adapt_t **out);

/* Frees a; NULL accepted. */
void rec_adapt_destroy(rec_adapt_t *a);

/* Forgets every prototype (another piece set, another camera). */
void rec_adapt_reset(rec_adapt_t *a);

/* Number of classes (0..29) that have a prototype. */
int rec_adapt_nclasses(const rec_adapt_t *a);

/* Adds n crops to the prototypes: feat[i] (REC_FEAT_NB values, any scale: each is normalised to unit
 * length; an all-zero one is skipped) is a crop of class cls[i] (0..28 as REC_OBS_CLASS; -1: skip).
 * Errors: REC_ERANGE (NULL, n < 0, a class out of range). */
int rec_adapt_learn(rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], const int *cls, int n);

/* Reweighs n rows of class probabilities prob[i][0..28] (each row summing to 1; rewritten in place,
 * still summing to 1) by the crops' similarity to the prototypes, as the file comment says. own may
 * be NULL; otherwise own[i] is the class crop i was learned as (-1: none), and that crop's own
 * contribution is left out of its class's prototype (leave-one-out: judging the crops a hypothesis was
 * learned from); a crop whose class then has fewer than min_examples crops (a king, one of a kind) gives
 * that class the similarity own_sim instead of novel_sim. Rows whose embedding is all zero, and every
 * row while no class has a prototype, are left as they are. Errors: REC_ERANGE (NULL, n < 0, own[i]
 * out of range). */
int rec_adapt_apply(const rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], float (*prob)[REC_OBS_CLASS_NB],
                    int n, const int *own);

/* ---- per-square memory: a square that looks as it did when its class was known ----
 * The recorder also remembers, square by square, the embedding of the last view whose position it
 * accepted and the class that stood there. A square whose crop has not changed since (vision keeps
 * the logits and embedding of a crop that did not change, so the cosine is 1; REC_ADAPT_SAME allows
 * for a pose found again a pixel off) still holds that piece: its row is pulled to that class. This
 * keeps an unmoved piece from being read anew whenever the prototypes grow (a knight of a set the
 * network takes for a promoted bishop, read as a knight through the game start, must not turn into
 * one when the game's first promoted bishop is learned). */
#define REC_ADAPT_SQUARES 81 /* squares remembered */
#define REC_ADAPT_SAME                                                                                       \
    0.97 /* cosine above which a crop is the one remembered (the same piece after the pose was found         \
            again, a pixel or two off), not another piece or an empty square */
#define REC_ADAPT_RECALL 0.98 /* share of a remembered square's row given to its remembered class */

/* Remembers n (<= REC_ADAPT_SQUARES) squares: square i looked like feat[i] and held class cls[i]
 * (0..28; -1: forget square i). Errors: REC_ERANGE (NULL, n out of 0..81, a class out of range). */
int rec_adapt_remember(rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], const int *cls, int n);

/* For each of n squares whose embedding has a cosine of at least REC_ADAPT_SAME to the remembered
 * one: prob[i] = REC_ADAPT_RECALL x (the remembered class) + (1 - REC_ADAPT_RECALL) x prob[i]. Other
 * rows stay. Returns REC_OK; errors: REC_ERANGE (NULL, n out of 0..81). */
int rec_adapt_recall(const rec_adapt_t *a, const float (*feat)[REC_FEAT_NB], float (*prob)[REC_OBS_CLASS_NB],
                     int n);

/* ---- red ink: promoted sides written in red ----
 * Many sets write the promoted side in red (と, 成銀, 馬, 龍 in red ink; the unpromoted side black),
 * and the network, trained mostly on grey-looking faces, reads a red 馬 of an unseen set as a 角 as
 * readily as the set's own 角 (their embeddings alike). The share of red-ink pixels of each square
 * (vision.h vis_board_read_t.red) is learned per class from the accepted views; once the start has
 * been learned (empty squares and at least six unpromoted kinds), a square whose red ink is at least
 * max(REC_ADAPT_RED_MIN, 2 x the reddest unpromoted class's mean + REC_ADAPT_RED_MARGIN) holds a
 * promoted piece: all but REC_ADAPT_RED_KEEP of each unpromoted kind's probability goes to its promoted
 * kind (a gold's to the four promoted kinds that move as a gold, in their proportion). A set whose
 * promoted sides are black, or whose every piece is red, gives no evidence either way. When the
 * squares read empty are redder than the learned empty squares by REC_ADAPT_RED_LIGHT (warmer light,
 * a hand's shadow), nothing is changed. */
#define REC_ADAPT_RED_MIN 0.05    /* the least share of red ink taken as evidence */
#define REC_ADAPT_RED_MARGIN 0.03 /* above twice the set's reddest unpromoted kind */
#define REC_ADAPT_RED_KEEP 0.02   /* share of an unpromoted kind's probability left to it */
#define REC_ADAPT_RED_LIGHT 0.02  /* empty squares this much redder than learned: the light changed */

/* Learns n squares' red ink red[i] (0..1) as class cls[i] (0..28; -1: skip). Errors: REC_ERANGE (NULL,
 * n < 0, a class out of range). */
int rec_adapt_learn_red(rec_adapt_t *a, const float *red, const int *cls, int n);

/* Moves the probability of n rows prob[i] (each summing to 1, rewritten in place, still summing to 1) to
 * the promoted kinds where red[i] says so, as above. Returns the number of rows changed (0 before a
 * start is learned); errors: REC_ERANGE (NULL, n < 0). */
int rec_adapt_apply_red(const rec_adapt_t *a, const float *red, float (*prob)[REC_OBS_CLASS_NB], int n);

#ifdef __cplusplus
}
#endif

#endif /* KIFUCAM_ADAPT_H */
