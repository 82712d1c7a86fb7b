/* decode.c - reads a whole board as one position: the per-square classes of a reading are revised so
 * that no kind appears more often than a shogi set has pieces (FESA 1.2: 2 kings, 2 rooks, 2 bishops,
 * 4 golds, 4 silvers, 4 knights, 4 lances, 18 pawns; a promoted piece counts as its unpromoted kind),
 * at the smallest loss of log-probability. The classifier judges squares one at a time; a set cannot
 * hold a third rook, so when the squares say so, the least sure of them is the misread one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vision/vis_internal.h"
#include "vision/vision.h"

/* pieces of each base kind in one set, in the order of the classes 1..8 (P L N S B R G K) */
static const int set_count[8] = {18, 4, 4, 4, 2, 2, 4, 2};

/* Base kind 0..7 (P L N S B R G K) of class c (1..28); -1 for empty. */
static int base_of(int c) {
    if (c <= 0 || c >= VIS_CLASS_NB)
        return -1;
    int k = (c - 1) % 14;
    return k < 8 ? k : k - 8;
}

static int owner_of(int c) { return c >= 15 ? 1 : 0; }

/* 1 if the counts allow one more piece of class c (kings: one a side). */
static int room_for(const int count[8], const int kings[2], int c) {
    int b = base_of(c);
    if (b < 0)
        return 1;
    if (b == 7)
        return kings[owner_of(c)] < 1;
    return count[b] < set_count[b];
}

/* Sets read->min_conf to the smallest of read->conf. */
static void set_min_conf(vis_board_read_t *read) {
    read->min_conf = 1;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        if (read->conf[sq] < read->min_conf)
            read->min_conf = read->conf[sq];
}

static int over_limit(const int count[8], const int kings[2], int c) {
    int b = base_of(c);
    if (b < 0)
        return 0;
    if (b == 7)
        return kings[owner_of(c)] > 1;
    return count[b] > set_count[b];
}

int vis_board_constrain(vis_board_read_t *read, double min_prob, int changed[VIS_SQUARE_NB], int *nchanged) {
    if (read == NULL || nchanged == NULL || !(min_prob >= 0 && min_prob <= 1))
        return VIS_E_ARG;
    int count[8] = {0}, kings[2] = {0};
    unsigned char mark[VIS_SQUARE_NB] = {0};
    *nchanged = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int c = read->cls[sq], b = base_of(c);
        if (c < 0 || c >= VIS_CLASS_NB)
            return VIS_E_ARG;
        if (b == 7)
            kings[owner_of(c)]++;
        else if (b >= 0)
            count[b]++;
    }
    for (int iter = 0; iter < VIS_SQUARE_NB; iter++) {
        int best_sq = -1, best_to = -1;
        double best_cost = INFINITY;
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
            int c = read->cls[sq];
            if (!over_limit(count, kings, c))
                continue;
            double lp = log((double)read->prob[sq][c] + 1e-12);
            for (int a = 0; a < VIS_CLASS_NB; a++) {
                if (a == c || base_of(a) == base_of(c) || read->prob[sq][a] < min_prob ||
                    !room_for(count, kings, a))
                    continue;
                double cost = lp - log((double)read->prob[sq][a] + 1e-12);
                if (cost < best_cost) {
                    best_cost = cost;
                    best_sq = sq;
                    best_to = a;
                }
            }
        }
        if (best_sq < 0)
            break; /* nothing over the limits, or nowhere to go */
        int c = read->cls[best_sq], b = base_of(c), nb = base_of(best_to);
        if (b == 7)
            kings[owner_of(c)]--;
        else
            count[b]--;
        if (nb == 7)
            kings[owner_of(best_to)]++;
        else if (nb >= 0)
            count[nb]++;
        read->cls[best_sq] = best_to;
        read->conf[best_sq] = read->prob[best_sq][best_to];
        if (!mark[best_sq]) {
            mark[best_sq] = 1;
            if (changed)
                changed[*nchanged] = best_sq;
            (*nchanged)++;
        }
    }
    set_min_conf(read);
    return VIS_OK;
}

/* ---------------------------------------------------------------- the board and both stands as one set */

#define DEAD_LP -30.0 /* log-probability given to a class that can never stand on its square */
#define NIFU_COST                                                                                            \
    8.0 /* nats per unpromoted pawn beyond one of an owner on a file (FESA 5.2: never legal)                 \
         */

/* 1 if class c (1..28) on square sq (file - 1) * 9 + rank - 1 could never move again (FESA 5.1, "dead
 * pieces": a pawn or lance on its owner's last rank, a knight on its last two). */
static int dead_on(int c, int sq) {
    int rank = sq % 9 + 1, b = base_of(c), promoted = c > 0 && (c - 1) % 14 >= 8,
        far = owner_of(c) ? 10 - rank : rank;
    if (b < 0 || promoted)
        return 0;
    return ((b == 0 || b == 1) && far == 1) || (b == 2 && far <= 2);
}

static int is_pawn(int c) { return c == 1 || c == 15; }

#define KIND_FLOOR                                                                                           \
    0.03 /* least probability of a kind for a stand piece: the turned readings of held-out                   \
          * stand pieces get 74 % of the kinds right (vision.h, turn_deg) */
#define LOG_MIN_PROB                                                                                         \
    -2.5257286443082556      /* log(0.08): a square is never given a class the network all but               \
                              * rules out (vis_board_constrain's min_prob in recognize) */
#define BOARD_ALONE_COST 4.0 /* nats of square changes at most for "the board holds the whole set" */
#define PHANTOM_COST                                                                                         \
    12.5 /* nats for a piece on a stand that no detection stands for: more than recognize allows in all, so  \
          * that a missing piece is not invented unless the stands are read otherwise */

typedef struct {
    double lp[VIS_SQUARE_NB][VIS_CLASS_NB]; /* square log-probabilities, dead classes cut */
    int cls[VIS_SQUARE_NB];
    int np[2];                                              /* detections per stand */
    double lk[2][VIS_KOMADAI_PIECES_MAX][VIS_HAND_KIND_NB]; /* log kind probabilities (floored) */
    double lpres[2][VIS_KOMADAI_PIECES_MAX], lnone[2][VIS_KOMADAI_PIECES_MAX];
    int kind[2][VIS_KOMADAI_PIECES_MAX]; /* kind 0..6 taken for a detection, -1: not a piece */
    int mult[2][VIS_KOMADAI_PIECES_MAX]; /* pieces it stands for, 1..VIS_STACK_NB (a stack) */
    int phantom[2][VIS_HAND_KIND_NB];    /* pieces on a stand that no detection stands for */
    int dev[9];      /* pieces of base kind k on the board and in both hands minus the target set's (0..6);
                        7, 8: sente's, gote's kings on the board minus one */
    int pawns[2][9]; /* unpromoted pawns per owner and file */
} joint_t;

static int dev_index(int c) {
    int b = base_of(c);
    return b < 0 ? -1 : b == 7 ? 7 + owner_of(c) : b;
}

static int total_dev(const int dev[9]) {
    int t = 0;
    for (int k = 0; k < 9; k++)
        t += dev[k] < 0 ? -dev[k] : dev[k];
    return t;
}

/* Nifu cost of the pawns counts after adding d (+1, -1) pawns of owner o on file f. */
static double nifu_delta(const joint_t *j, int o, int f, int d) {
    int n = j->pawns[o][f], m = n + d;
    return NIFU_COST * ((m > 1 ? m - 1 : 0) - (n > 1 ? n - 1 : 0));
}

/* Log-probability of detection i of stand s in its present state. */
static double det_lp(const joint_t *j, int s, int i, int kind, int mult) {
    return kind < 0 ? j->lnone[s][i] : j->lpres[s][i] + j->lk[s][i][kind] + log(vis_stack_prior[mult - 1]);
}

/* Deviation left if kind a loses na pieces and kind b gains nb (-1: none). */
static int dev_after(const int dev[9], int a, int na, int b, int nb) {
    int d[9];
    memcpy(d, dev, sizeof d);
    if (a >= 0)
        d[a] -= na;
    if (b >= 0)
        d[b] += nb;
    return total_dev(d);
}

/* One candidate change of the repair. */
typedef struct {
    double rate, cost;
    int what;             /* 0 none, 1 square, 2 detection, 3 phantom */
    int sq, to;           /* square sq -> class to */
    int s, i, kind, mult; /* detection (s, i) -> kind (-1 none), mult; phantom of stand s: kind, mult +-1 */
} change_t;

static void consider(change_t *best, double cost, int gain, change_t c) {
    if (gain <= 0 || cost / gain >= best->rate)
        return;
    c.rate = cost / gain;
    c.cost = cost;
    *best = c;
}

/* Greedy repair of j toward deviation 0 (j->dev already relative to its target): the change that
 * removes the most deviation per nat of log-probability, at most 300 changes. Returns the nats given up;
 * j->dev is all 0 on return when the read could be made one set. */
static double repair(joint_t *j) {
    double cost = 0;
    for (int iter = 0; iter < 300; iter++) {
        int before = total_dev(j->dev);
        change_t best = {INFINITY, 0, 0, 0, 0, 0, 0, 0, 0};
        if (before == 0)
            break;
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
            int c = j->cls[sq], dc = dev_index(c);
            for (int a = 0; a < VIS_CLASS_NB; a++) {
                int da = dev_index(a);
                if (a == c || da == dc || j->lp[sq][a] < LOG_MIN_PROB)
                    continue;
                double cst = j->lp[sq][c] - j->lp[sq][a];
                if (is_pawn(c))
                    cst += nifu_delta(j, owner_of(c), sq / 9, -1);
                if (is_pawn(a))
                    cst += nifu_delta(j, owner_of(a), sq / 9, +1);
                consider(&best, cst, before - dev_after(j->dev, dc, 1, da, 1),
                         (change_t){0, 0, 1, sq, a, 0, 0, 0, 0});
            }
        }
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < j->np[s]; i++) {
                int k = j->kind[s][i], m = j->mult[s][i];
                double now = det_lp(j, s, i, k, m);
                for (int b = -1; b < VIS_HAND_KIND_NB; b++) {
                    if (b == k)
                        continue;
                    int nm = b < 0 ? 0 : k < 0 ? 1 : m;
                    consider(&best, now - det_lp(j, s, i, b, nm ? nm : 1),
                             before - dev_after(j->dev, k, k < 0 ? 0 : m, b, nm),
                             (change_t){0, 0, 2, 0, 0, s, i, b, nm ? nm : 1});
                }
                for (int d = -1; k >= 0 && d <= 1; d += 2)
                    if (m + d >= 1 && m + d <= VIS_STACK_NB)
                        consider(&best, now - det_lp(j, s, i, k, m + d),
                                 before - dev_after(j->dev, k, -d, -1, 0),
                                 (change_t){0, 0, 2, 0, 0, s, i, k, m + d});
            }
            for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
                consider(&best, PHANTOM_COST, before - dev_after(j->dev, -1, 0, k, 1),
                         (change_t){0, 0, 3, 0, 0, s, 0, k, 1});
                if (j->phantom[s][k] > 0)
                    consider(&best, -PHANTOM_COST, before - dev_after(j->dev, k, 1, -1, 0),
                             (change_t){0, 0, 3, 0, 0, s, 0, k, -1});
            }
        }
        if (best.what == 0)
            break;
        cost += best.cost;
        if (best.what == 1) {
            int c = j->cls[best.sq], dc = dev_index(c), da = dev_index(best.to);
            if (dc >= 0)
                j->dev[dc]--;
            if (da >= 0)
                j->dev[da]++;
            if (is_pawn(c))
                j->pawns[owner_of(c)][best.sq / 9]--;
            if (is_pawn(best.to))
                j->pawns[owner_of(best.to)][best.sq / 9]++;
            j->cls[best.sq] = best.to;
        } else if (best.what == 2) {
            int k = j->kind[best.s][best.i], m = j->mult[best.s][best.i];
            if (k >= 0)
                j->dev[k] -= m;
            if (best.kind >= 0)
                j->dev[best.kind] += best.mult;
            j->kind[best.s][best.i] = best.kind;
            j->mult[best.s][best.i] = best.mult;
        } else {
            j->phantom[best.s][best.kind] += best.mult;
            j->dev[best.kind] += best.mult;
        }
    }
    return cost;
}

/* The hand counts of j: detections taken for pieces, with their stacks, and the pieces no detection
 * stands for. */
static void hand_counts(const joint_t *j, int out[2][VIS_HAND_KIND_NB]) {
    for (int s = 0; s < 2; s++) {
        memcpy(out[s], j->phantom[s], sizeof out[s]);
        for (int i = 0; i < j->np[s]; i++)
            if (j->kind[s][i] >= 0)
                out[s][j->kind[s][i]] += j->mult[s][i];
    }
}

int vis_position_decode(vis_board_read_t *read, vis_komadai_read_t *hands, const int set[VIS_HAND_KIND_NB],
                        double max_cost, vis_position_fix_t *fix) {
    static const int even[VIS_HAND_KIND_NB] = {18, 4, 4, 4, 2, 2, 4}; /* FESA 1.1 */
    const int *set_hand = set ? set : even;
    joint_t *j;
    int cls0[VIS_SQUARE_NB], hc[2][VIS_HAND_KIND_NB];
    double dead = 0, sq_cost;
    if (read == NULL || hands == NULL || fix == NULL || !(max_cost >= 0) || !hands->known[0] ||
        !hands->known[1])
        return VIS_E_ARG;
    for (int k = 0; set && k < VIS_HAND_KIND_NB; k++)
        if (set[k] < 0 || set[k] > even[k])
            return VIS_E_ARG;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        if (read->cls[sq] < 0 || read->cls[sq] >= VIS_CLASS_NB)
            return VIS_E_ARG;
    memset(fix, 0, sizeof *fix);
    fix->cost = INFINITY;
    if ((j = calloc(1, sizeof *j)) == NULL)
        return VIS_E_NOMEM;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int c = read->cls[sq];
        for (int a = 0; a < VIS_CLASS_NB; a++)
            j->lp[sq][a] = dead_on(a, sq) ? DEAD_LP : log((double)read->prob[sq][a] + 1e-12);
        if (dead_on(c, sq)) { /* a dead piece read: the most probable class that can stand there */
            int b = 0;
            for (int a = 1; a < VIS_CLASS_NB; a++)
                if (j->lp[sq][a] > j->lp[sq][b])
                    b = a;
            dead += log((double)read->prob[sq][c] + 1e-12) - j->lp[sq][b];
            c = b;
        }
        int d = dev_index(c);
        cls0[sq] = j->cls[sq] = c;
        if (d >= 0)
            j->dev[d]++;
        if (is_pawn(c))
            j->pawns[owner_of(c)][sq / 9]++;
    }
    j->dev[7]--;
    j->dev[8]--;
    for (int s = 0; s < 2; s++) {
        /* each detection present (p >= 0.5) is one piece of its likeliest kind, as the count read */
        j->np[s] = hands->pieces[s] < VIS_KOMADAI_PIECES_MAX ? hands->pieces[s] : VIS_KOMADAI_PIECES_MAX;
        for (int i = 0; i < j->np[s]; i++) {
            double pr = hands->piece_present[s][i], bk = -1;
            j->lpres[s][i] = log(pr + 1e-12);
            j->lnone[s][i] = log(1 - pr + 1e-12);
            j->kind[s][i] = -1;
            j->mult[s][i] = 1;
            for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
                double q = hands->piece_kind[s][i][k];
                j->lk[s][i][k] = log(q > KIND_FLOOR ? q : KIND_FLOOR);
                if (pr >= 0.5 && q > bk && q > 0) {
                    bk = q;
                    j->kind[s][i] = k;
                }
            }
            if (j->kind[s][i] >= 0)
                j->dev[j->kind[s][i]]++;
        }
    }
    for (int k = 0; k < VIS_HAND_KIND_NB; k++)
        j->dev[k] -= set_hand[k];
    double cost = dead + repair(j);
    fix->complete = total_dev(j->dev) == 0;
    if (fix->complete)
        fix->cost = cost;
    hand_counts(j, hc);
    /* a board that holds the whole set (as read, or within BOARD_ALONE_COST of changes to its squares)
     * leaves nothing for the stands: what they seem to hold (wood grain, a table's edge, another board)
     * is no piece, whatever dropping it costs */
    sq_cost = dead;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        sq_cost += j->lp[sq][cls0[sq]] - j->lp[sq][j->cls[sq]];
    int board_alone = fix->complete && sq_cost <= BOARD_ALONE_COST;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < VIS_HAND_KIND_NB; k++)
            board_alone = board_alone && hc[s][k] == 0;
    fix->applied = fix->complete && (fix->cost <= max_cost || board_alone);
    if (fix->applied) {
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            if (j->cls[sq] != read->cls[sq]) {
                fix->squares[fix->nsquares++] = sq;
                read->cls[sq] = j->cls[sq];
                read->conf[sq] = read->prob[sq][j->cls[sq]];
            }
        set_min_conf(read);
        for (int s = 0; s < 2; s++) {
            hands->min_conf[s] = 1;
            for (int k = 0; k < VIS_HAND_KIND_NB; k++) {
                fix->hand_delta[s][k] = hc[s][k] - hands->count[s][k];
                hands->count[s][k] = hc[s][k];
                hands->conf[s][k] =
                    hands->prob[s][k][hc[s][k] < VIS_HAND_COUNT_NB ? hc[s][k] : VIS_HAND_COUNT_NB - 1];
                if (hands->conf[s][k] < hands->min_conf[s])
                    hands->min_conf[s] = hands->conf[s][k];
            }
        }
    }
    free(j);
    return VIS_OK;
}
