/* rules_internal.h - tables and helpers shared by the rules engine's .c files; not part of the API. */
#ifndef KIFUCAM_RULES_INTERNAL_H
#define KIFUCAM_RULES_INTERNAL_H

#include "rules/rules.h"

/* Mailbox cell of square (file, rank): file * 13 + rank + 1; ranks 1..9 sit in rows 2..10. */
#define MB(file, rank) ((file)*RUL_MB_W + (rank) + 1)
#define MB_FILE(c) ((c) / RUL_MB_W)
#define MB_RANK(c) ((c) % RUL_MB_W - 1)

/* Directions as mailbox offsets: 0 up (towards rank 1), 1 down, 2 file-1, 3 file+1,
 * 4 up+file-1, 5 up+file+1, 6 down+file-1, 7 down+file+1. Opposite of d is DIR_OPP[d]. */
static const int DIR_OFF[8] = {-1,           +1,          -RUL_MB_W, +RUL_MB_W, -1 - RUL_MB_W, -1 + RUL_MB_W,
                               1 - RUL_MB_W, 1 + RUL_MB_W};
static const int DIR_OPP[8] = {1, 0, 3, 2, 7, 6, 5, 4};

/* Step and slide direction masks (bit d = direction d) indexed by piece code (type | gote bit).
 * Sente moves "up"; gote's masks are sente's mirrored (0<->1, 4<->6, 5<->7). FESA 3.3-3.10. */
static const uint8_t STEP_MASK[32] = {
    /* sente: -, P, L, N, S, B, R, G, K, +P, +L, +N, +S, +B, +R */
    0, 0x01, 0, 0, 0xF1, 0, 0, 0x3F, 0xFF, 0x3F, 0x3F, 0x3F, 0x3F, 0x0F, 0xF0, 0,
    /* gote */
    0, 0x02, 0, 0, 0xF2, 0, 0, 0xCF, 0xFF, 0xCF, 0xCF, 0xCF, 0xCF, 0x0F, 0xF0, 0};
static const uint8_t SLIDE_MASK[32] = {0, 0, 0x01, 0, 0, 0xF0, 0x0F, 0, 0, 0, 0, 0, 0, 0xF0, 0x0F, 0,
                                       0, 0, 0x02, 0, 0, 0xF0, 0x0F, 0, 0, 0, 0, 0, 0, 0xF0, 0x0F, 0};

/* Knight jumps by colour: two ranks forward, one file either way. */
static const int KNIGHT_OFF[2][2] = {{-2 - RUL_MB_W, -2 + RUL_MB_W}, {2 - RUL_MB_W, 2 + RUL_MB_W}};

/* Points of a piece type for impasse counting (FESA 5.3): R, B promoted or not 5, king 0, others 1. */
static const int IMPASSE_POINTS[RUL_TYPE_NB] = {0, 1, 1, 1, 1, 5, 5, 1, 0, 1, 1, 1, 1, 5, 5};

/* Pieces of each unpromoted kind in a full set (both players): P L N S B R G K. */
static const int SET_COUNT[9] = {0, 18, 4, 4, 4, 2, 2, 4, 2};

static inline int cell_of_sq(int sq) { return MB(sq / 9 + 1, sq % 9 + 1); }
static inline int sq_of_cell(int c) { return (MB_FILE(c) - 1) * 9 + MB_RANK(c) - 1; }

/* Unpromoted kind of a type (a captured piece reverts, FESA 3.2). */
static inline int type_base(int t) { return t > RUL_KING ? t - RUL_PROMOTED : t; }

/* Relative rank for colour c: 1 = the far rank (rank 1 for sente, rank 9 for gote). */
static inline int rel_rank(int c, int rank) { return c == RUL_SENTE ? rank : 10 - rank; }

/* Zobrist constants: splitmix64 of a fixed seed, computed on demand (no mutable tables). The key is a
 * sum (mod 2^64) of board keys, count x hand keys and the side key, as in YaneuraOu, so that it can
 * be updated incrementally by adding and subtracting. */
static inline uint64_t zob_mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
static inline uint64_t zob_board(int piece, int cell) {
    return zob_mix(0x4B49465543414Dull ^ ((uint64_t)piece << 8 | (uint64_t)cell));
}
static inline uint64_t zob_hand(int color, int type) {
    return zob_mix(0x48414E44ull ^ ((uint64_t)(color * 8 + type) << 16));
}
#define ZOB_SIDE 0xA3B195354A39B70Dull

/* Internal helpers (movegen.c). rul_internal_attacked: 1 if cell is attacked by colour 'by', treating
 * ignore_cell (-1 for none) as empty (a king's own cell when testing where it may go). */
int rul_internal_attacked(const rul_pos_t *pos, int cell, int by, int ignore_cell);
int rul_internal_gives_no_escape(const rul_pos_t *pos);

#endif
