/* decode.c - reads a whole board as one position: the per-square classes of a reading are revised so
 * that no kind appears more often than a shogi set has pieces (FESA 1.2: 2 kings, 2 rooks, 2 bishops,
 * 4 golds, 4 silvers, 4 knights, 4 lances, 18 pawns; a promoted piece counts as its unpromoted kind),
 * at the smallest loss of log-probability. The classifier judges squares one at a time; a set cannot
 * hold a third rook, so when the squares say so, the least sure of them is the misread one. */
#include <math.h>
#include <string.h>

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
                if (a == c || base_of(a) == base_of(c) || read->prob[sq][a] < min_prob || !room_for(count, kings, a))
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
    read->min_conf = 1;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        if (read->conf[sq] < read->min_conf)
            read->min_conf = read->conf[sq];
    return VIS_OK;
}
