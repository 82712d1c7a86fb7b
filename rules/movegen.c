/* movegen.c - legal move generation, attacks, do/undo, perft, and why a move is illegal (FESA 1.2, 3). */
#include "rules/rules_internal.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- attacks */

/* 1 if piece pc standing at distance dist (1 = adjacent) in direction d from a square attacks that
 * square, i.e. pc moves in direction DIR_OPP[d]. */
static inline int hits(int pc, int d, int dist) {
    int od = DIR_OPP[d];
    if ((SLIDE_MASK[pc] >> od) & 1)
        return 1;
    return dist == 1 && ((STEP_MASK[pc] >> od) & 1);
}

int rul_internal_attacked(const rul_pos_t *pos, int cell, int by, int ignore_cell) {
    const uint8_t *mb = pos->mb;
    const int bybit = by ? RUL_GOTE_BIT : 0;
    for (int d = 0; d < 8; d++) {
        int off = DIR_OFF[d], t = cell + off, dist = 1;
        while (mb[t] == RUL_PIECE_NONE || t == ignore_cell) {
            t += off;
            dist++;
        }
        int pc = mb[t];
        if (pc == RUL_MB_WALL || (pc & RUL_GOTE_BIT) != bybit)
            continue;
        if (hits(pc, d, dist))
            return 1;
    }
    /* A knight of colour by at c attacks c + KNIGHT_OFF[by]; so look at cell - offset. */
    for (int k = 0; k < 2; k++)
        if (mb[cell - KNIGHT_OFF[by][k]] == RUL_PIECE(by, RUL_KNIGHT))
            return 1;
    return 0;
}

int rul_pos_attacked(const rul_pos_t *pos, int sq, rul_color_t by) {
    if (sq < 0 || sq >= RUL_SQ_NB)
        return 0;
    return rul_internal_attacked(pos, cell_of_sq(sq), by & 1, -1);
}

int rul_pos_in_check(const rul_pos_t *pos) {
    int k = pos->king_mb[pos->side];
    return k && rul_internal_attacked(pos, k, pos->side ^ 1, -1);
}

/* ---------------------------------------------------------------- generation */

/* Generation context: checks and pins of the side to move, computed once per position. */
typedef struct {
    const rul_pos_t *pos;
    rul_move_t *out; /* NULL: count only */
    int n;
    int us, them;
    int ksq; /* our king's cell, 0 if none */
    int nchecks;
    uint8_t pin[RUL_MB_NB];    /* 1 + axis direction for a pinned piece of ours, else 0 */
    uint8_t target[RUL_MB_NB]; /* in single check: 1 on the checker and the squares between */
    int in_check;
} gen_t;

static inline void emit(gen_t *g, rul_move_t m) {
    if (g->out)
        g->out[g->n] = m;
    g->n++;
}

/* Adds the board move from -> to of a piece of type t, with and without promotion as allowed
 * (FESA 3.2: optional in the zone, compulsory where the piece could never move again). */
static inline void add_board_move(gen_t *g, int from, int to, int t) {
    int fsq = sq_of_cell(from), tsq = sq_of_cell(to);
    if (t <= RUL_ROOK && t != RUL_NO_TYPE) { /* promotable: P L N S B R */
        int rt = rel_rank(g->us, MB_RANK(to)), rf = rel_rank(g->us, MB_RANK(from));
        if (rt <= 3 || rf <= 3) {
            emit(g, RUL_MOVE_MAKE(fsq, tsq, 1));
            if (((t == RUL_PAWN || t == RUL_LANCE) && rt == 1) || (t == RUL_KNIGHT && rt <= 2))
                return;
        }
    }
    emit(g, RUL_MOVE_MAKE(fsq, tsq, 0));
}

/* 1 if a piece of ours at 'from' may move in direction d given pins. */
static inline int pin_ok(const gen_t *g, int from, int d) {
    int p = g->pin[from];
    return !p || p - 1 == d || DIR_OPP[p - 1] == d;
}

static void compute_checks_pins(gen_t *g) {
    const uint8_t *mb = g->pos->mb;
    const int ksq = g->ksq, them = g->them;
    const int thembit = them ? RUL_GOTE_BIT : 0;
    g->nchecks = 0;
    int check_cell = 0, check_dir = -1;
    for (int d = 0; d < 8; d++) {
        int off = DIR_OFF[d], t = ksq + off, dist = 1;
        while (mb[t] == RUL_PIECE_NONE) {
            t += off;
            dist++;
        }
        int pc = mb[t];
        if (pc == RUL_MB_WALL)
            continue;
        if ((pc & RUL_GOTE_BIT) == thembit) {
            if (hits(pc, d, dist)) {
                g->nchecks++;
                check_cell = t;
                check_dir = d;
            }
            continue;
        }
        /* Our piece: pinned if the next piece beyond it is an enemy slider along this line. */
        int t2 = t + off;
        while (mb[t2] == RUL_PIECE_NONE)
            t2 += off;
        int pc2 = mb[t2];
        if (pc2 != RUL_MB_WALL && (pc2 & RUL_GOTE_BIT) == thembit && ((SLIDE_MASK[pc2] >> DIR_OPP[d]) & 1))
            g->pin[t] = (uint8_t)(d + 1);
    }
    for (int k = 0; k < 2; k++) {
        int c = ksq - KNIGHT_OFF[them][k];
        if (mb[c] == RUL_PIECE(them, RUL_KNIGHT)) {
            g->nchecks++;
            check_cell = c;
            check_dir = -1;
        }
    }
    g->in_check = g->nchecks > 0;
    if (g->nchecks == 1) {
        memset(g->target, 0, sizeof g->target);
        g->target[check_cell] = 1;
        if (check_dir >= 0)
            for (int t = ksq + DIR_OFF[check_dir]; t != check_cell; t += DIR_OFF[check_dir])
                g->target[t] = 2; /* an empty square between: interposition */
    }
}

static void gen_king(gen_t *g) {
    const uint8_t *mb = g->pos->mb;
    const int ksq = g->ksq, usbit = g->us ? RUL_GOTE_BIT : 0;
    for (int d = 0; d < 8; d++) {
        int t = ksq + DIR_OFF[d], pc = mb[t];
        if (pc == RUL_MB_WALL || (pc && (pc & RUL_GOTE_BIT) == usbit))
            continue;
        if (!rul_internal_attacked(g->pos, t, g->them, ksq))
            emit(g, RUL_MOVE_MAKE(sq_of_cell(ksq), sq_of_cell(t), 0));
    }
}

/* Board moves of every piece of ours except the king. */
static void gen_pieces(gen_t *g) {
    const uint8_t *mb = g->pos->mb;
    const int us = g->us, usbit = us ? RUL_GOTE_BIT : 0;
    const int check = g->nchecks == 1;
    for (int file = 1; file <= 9; file++) {
        for (int from = MB(file, 1); from <= MB(file, 9); from++) {
            int pc = mb[from];
            if (!pc || (pc & RUL_GOTE_BIT) != usbit)
                continue;
            int t = RUL_PIECE_TYPE(pc);
            if (t == RUL_KING)
                continue;
            if (t == RUL_KNIGHT) {
                if (g->pin[from])
                    continue; /* a pinned knight can never stay on the line */
                for (int k = 0; k < 2; k++) {
                    int to = from + KNIGHT_OFF[us][k], tp = mb[to];
                    if (tp == RUL_MB_WALL || (tp && (tp & RUL_GOTE_BIT) == usbit))
                        continue;
                    if (check && !g->target[to])
                        continue;
                    add_board_move(g, from, to, t);
                }
                continue;
            }
            unsigned step = STEP_MASK[pc], slide = SLIDE_MASK[pc];
            for (int d = 0; d < 8; d++) {
                unsigned bit = 1u << d;
                if (!((step | slide) & bit) || !pin_ok(g, from, d))
                    continue;
                int off = DIR_OFF[d];
                if (slide & bit) {
                    for (int to = from + off;; to += off) {
                        int tp = mb[to];
                        if (tp == RUL_MB_WALL || (tp && (tp & RUL_GOTE_BIT) == usbit))
                            break;
                        if (!check || g->target[to])
                            add_board_move(g, from, to, t);
                        if (tp)
                            break;
                    }
                } else {
                    int to = from + off, tp = mb[to];
                    if (tp == RUL_MB_WALL || (tp && (tp & RUL_GOTE_BIT) == usbit))
                        continue;
                    if (check && !g->target[to])
                        continue;
                    add_board_move(g, from, to, t);
                }
            }
        }
    }
}

/* 1 if dropping our pawn on 'to' mates the opponent (FESA 3.11(c), uchifuzume). Called only when the
 * drop gives check, i.e. 'to' is directly in front of the enemy king. */
static int pawn_drop_mates(const rul_pos_t *pos, int to_sq) {
    rul_pos_t p = *pos;
    rul_undo_t u;
    rul_pos_do_move(&p, RUL_MOVE_DROP(RUL_PAWN, to_sq), &u);
    return rul_internal_gives_no_escape(&p);
}

static void gen_drops(gen_t *g) {
    const rul_pos_t *pos = g->pos;
    int types[RUL_HAND_NB], nt = 0;
    for (int t = RUL_LANCE; t <= RUL_GOLD; t++)
        if (rul_pos_hand(pos, (rul_color_t)g->us, (rul_type_t)t))
            types[nt++] = t;
    int have_pawn = rul_pos_hand(pos, (rul_color_t)g->us, RUL_PAWN) > 0;
    if (!nt && !have_pawn)
        return;
    const int us = g->us, check = g->nchecks == 1;
    const int pawn_fwd = us == RUL_SENTE ? -1 : 1;
    const int their_king = pos->king_mb[g->them];
    for (int file = 1; file <= 9; file++) {
        int pawn_ok = have_pawn;
        if (pawn_ok) /* FESA 3.11(a) nifu: only our own unpromoted pawns count */
            for (int r = 1; r <= 9; r++)
                if (pos->mb[MB(file, r)] == RUL_PIECE(us, RUL_PAWN)) {
                    pawn_ok = 0;
                    break;
                }
        for (int rank = 1; rank <= 9; rank++) {
            int to = MB(file, rank);
            if (pos->mb[to] || (check && g->target[to] != 2))
                continue;
            int rr = rel_rank(us, rank), tsq = sq_of_cell(to);
            /* FESA 3.11(b): no drop where the piece could never move. */
            if (pawn_ok && rr > 1) {
                if (to + pawn_fwd == their_king && pawn_drop_mates(pos, tsq))
                    ; /* FESA 3.11(c) */
                else
                    emit(g, RUL_MOVE_DROP(RUL_PAWN, tsq));
            }
            for (int k = 0; k < nt; k++) {
                int t = types[k];
                if ((t == RUL_LANCE && rr == 1) || (t == RUL_KNIGHT && rr <= 2))
                    continue;
                emit(g, RUL_MOVE_DROP(t, tsq));
            }
        }
    }
}

/* Sets up a generation context for the side to move of pos; out NULL counts only. */
static void gen_init(gen_t *g, const rul_pos_t *pos, rul_move_t *out) {
    g->pos = pos;
    g->out = out;
    g->n = 0;
    g->us = pos->side;
    g->them = pos->side ^ 1;
    g->ksq = pos->king_mb[g->us];
    g->nchecks = 0;
    g->in_check = 0;
    memset(g->pin, 0, sizeof g->pin);
}

static int generate(const rul_pos_t *pos, rul_move_t *out) {
    gen_t g;
    gen_init(&g, pos, out);
    if (g.ksq) {
        compute_checks_pins(&g);
        gen_king(&g);
        if (g.nchecks >= 2)
            return g.n;
    }
    gen_pieces(&g);
    gen_drops(&g);
    return g.n;
}

void rul_gen_legal(const rul_pos_t *pos, rul_movelist_t *list) { list->count = generate(pos, list->moves); }

int rul_count_legal(const rul_pos_t *pos) { return generate(pos, NULL); }

/* After a pawn drop that gives check: 1 if the side to move (the one checked) has no legal move. The
 * checker is a pawn, adjacent and not a slider, so no drop or interposition can help: only king moves
 * and captures of the pawn. */
int rul_internal_gives_no_escape(const rul_pos_t *pos) {
    gen_t g;
    gen_init(&g, pos, NULL);
    compute_checks_pins(&g);
    gen_king(&g);
    if (g.n)
        return 0;
    gen_pieces(&g);
    return g.n == 0;
}

int rul_pos_is_mate(const rul_pos_t *pos) { return rul_pos_in_check(pos) && rul_count_legal(pos) == 0; }

int rul_pos_no_legal_move(const rul_pos_t *pos) { return rul_count_legal(pos) == 0; }

static rul_why_t judge(const rul_pos_t *pos, rul_move_t m);

/* Judges the one move instead of generating them all (the tracker asks about thousands of candidate
 * actions per view); tests check it agrees with rul_gen_legal on every generated and random move. */
int rul_is_legal(const rul_pos_t *pos, rul_move_t m) { return judge(pos, m) == RUL_WHY_LEGAL; }

/* ---------------------------------------------------------------- do / undo */

#ifdef RUL_DEBUG
#include <assert.h>
/* Debug builds (the sanitizer build defines RUL_DEBUG): after every do/undo the incremental key and
 * king cells must equal a recomputation, and no hand may exceed the pieces of a set (Stockfish's
 * pos_is_ok, YaneuraOu's LEGAL_ALL checks). */
static void debug_check(const rul_pos_t *pos) {
    rul_pos_t q = *pos;
    rul_pos_rehash(&q);
    assert(q.key == pos->key);
    assert(q.king_mb[0] == pos->king_mb[0] && q.king_mb[1] == pos->king_mb[1]);
    for (int c = 0; c < 2; c++)
        for (int t = 1; t <= RUL_HAND_NB; t++)
            assert(rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)t) <= SET_COUNT[t]);
}
#define DEBUG_CHECK(pos) debug_check(pos)
#else
#define DEBUG_CHECK(pos) ((void)0)
#endif

void rul_pos_do_move(rul_pos_t *pos, rul_move_t m, rul_undo_t *u) {
    const int us = pos->side;
    const int to = cell_of_sq(RUL_MOVE_TO(m));
    uint64_t key = pos->key;
    u->move = m;
    u->key = key;
    if (RUL_MOVE_IS_DROP(m)) {
        int t = RUL_MOVE_DROP_TYPE(m);
        rul_piece_t pc = RUL_PIECE(us, t);
        u->moved = pc;
        u->captured = RUL_PIECE_NONE;
        pos->mb[to] = pc;
        pos->hand[us][t - 1]--;
        key += zob_board(pc, to);
        key -= zob_hand(us, t);
    } else {
        const int from = cell_of_sq(RUL_MOVE_FROM(m));
        rul_piece_t pc = pos->mb[from], cap = pos->mb[to];
        u->moved = pc;
        u->captured = cap;
        if (cap) {
            int ct = type_base(RUL_PIECE_TYPE(cap));
            key -= zob_board(cap, to);
            if (ct != RUL_KING) { /* a king taken (FESA 9.5) ends the game; it never goes in hand */
                pos->hand[us][ct - 1]++;
                key += zob_hand(us, ct);
            } else {
                pos->king_mb[us ^ 1] = 0;
            }
        }
        rul_piece_t npc = RUL_MOVE_IS_PROMO(m) ? (rul_piece_t)(pc + RUL_PROMOTED) : pc;
        key += zob_board(npc, to) - zob_board(pc, from);
        pos->mb[from] = RUL_PIECE_NONE;
        pos->mb[to] = npc;
        if (RUL_PIECE_TYPE(pc) == RUL_KING)
            pos->king_mb[us] = (uint8_t)to;
    }
    pos->side = (uint8_t)(us ^ 1);
    pos->ply++;
    pos->key = us == RUL_SENTE ? key + ZOB_SIDE : key - ZOB_SIDE;
    DEBUG_CHECK(pos);
}

void rul_pos_undo_move(rul_pos_t *pos, const rul_undo_t *u) {
    const int us = pos->side ^ 1;
    const rul_move_t m = u->move;
    const int to = cell_of_sq(RUL_MOVE_TO(m));
    if (RUL_MOVE_IS_DROP(m)) {
        pos->mb[to] = RUL_PIECE_NONE;
        pos->hand[us][RUL_MOVE_DROP_TYPE(m) - 1]++;
    } else {
        const int from = cell_of_sq(RUL_MOVE_FROM(m));
        pos->mb[from] = u->moved;
        pos->mb[to] = u->captured;
        if (u->captured) {
            int ct = type_base(RUL_PIECE_TYPE(u->captured));
            if (ct != RUL_KING)
                pos->hand[us][ct - 1]--;
            else
                pos->king_mb[us ^ 1] = (uint8_t)to;
        }
        if (RUL_PIECE_TYPE(u->moved) == RUL_KING)
            pos->king_mb[us] = (uint8_t)from;
    }
    pos->side = (uint8_t)us;
    pos->ply--;
    pos->key = u->key;
    DEBUG_CHECK(pos);
}

/* ---------------------------------------------------------------- perft */

static uint64_t perft_rec(rul_pos_t *pos, int depth) {
    rul_movelist_t list;
    rul_gen_legal(pos, &list);
    if (depth == 1)
        return (uint64_t)list.count;
    uint64_t n = 0;
    rul_undo_t u;
    for (int i = 0; i < list.count; i++) {
        rul_pos_do_move(pos, list.moves[i], &u);
        n += perft_rec(pos, depth - 1);
        rul_pos_undo_move(pos, &u);
    }
    return n;
}

uint64_t rul_perft(rul_pos_t *pos, int depth) {
    if (depth < 1 || depth > RUL_PERFT_MAX_DEPTH)
        return 0;
    return perft_rec(pos, depth);
}

/* ---------------------------------------------------------------- USI move text */

static const char DROP_LETTER[8] = {'?', 'P', 'L', 'N', 'S', 'B', 'R', 'G'};

void rul_move_to_usi(rul_move_t m, char buf[6]) {
    int to = RUL_MOVE_TO(m), n = 0;
    if (m == RUL_MOVE_NONE || to >= RUL_SQ_NB) {
        memcpy(buf, "none", 5);
        return;
    }
    if (RUL_MOVE_IS_DROP(m)) {
        int t = RUL_MOVE_DROP_TYPE(m);
        buf[n++] = t >= 1 && t <= 7 ? DROP_LETTER[t] : '?';
        buf[n++] = '*';
    } else {
        int from = RUL_MOVE_FROM(m);
        if (from >= RUL_SQ_NB) {
            memcpy(buf, "none", 5);
            return;
        }
        buf[n++] = (char)('0' + RUL_SQ_FILE(from));
        buf[n++] = (char)('a' + RUL_SQ_RANK(from) - 1);
    }
    buf[n++] = (char)('0' + RUL_SQ_FILE(to));
    buf[n++] = (char)('a' + RUL_SQ_RANK(to) - 1);
    if (!RUL_MOVE_IS_DROP(m) && RUL_MOVE_IS_PROMO(m))
        buf[n++] = '+';
    buf[n] = 0;
}

static int parse_square(const char *s, int *sq) {
    if (s[0] < '1' || s[0] > '9' || s[1] < 'a' || s[1] > 'i')
        return 0;
    *sq = RUL_SQ(s[0] - '0', s[1] - 'a' + 1);
    return 1;
}

int rul_move_from_usi(const char *s, rul_move_t *m, rul_error_t *err) {
    int from, to;
    if (err) {
        err->msg[0] = 0;
        err->column = 0;
    }
    if (!s || !s[0])
        goto bad;
    if (s[1] == '*') {
        int t = 0;
        for (int k = 1; k <= 7; k++)
            if (s[0] == DROP_LETTER[k])
                t = k;
        if (!t || !s[2] || !parse_square(s + 2, &to) || s[4])
            goto bad;
        *m = RUL_MOVE_DROP(t, to);
        return RUL_OK;
    }
    if (!parse_square(s, &from) || !s[2] || !parse_square(s + 2, &to))
        goto bad;
    if (s[4] && (s[4] != '+' || s[5]))
        goto bad;
    if (from == to)
        goto bad;
    *m = RUL_MOVE_MAKE(from, to, s[4] == '+');
    return RUL_OK;
bad:
    if (err) {
        int i = 0;
        /* name the first character that breaks the USI move syntax */
        if (s) {
            static const char *SHAPE_BOARD = "1a1a+";
            int drop = s[0] && s[1] == '*';
            for (i = 0; s[i]; i++) {
                int ok;
                if (drop)
                    ok = i == 0   ? strchr("PLNSBRG", s[i]) != NULL && s[i] != 0
                         : i == 1 ? 1
                         : i == 2 ? (s[i] >= '1' && s[i] <= '9')
                         : i == 3 ? (s[i] >= 'a' && s[i] <= 'i')
                                  : 0;
                else
                    ok = i > 4                   ? 0
                         : SHAPE_BOARD[i] == '1' ? (s[i] >= '1' && s[i] <= '9')
                         : SHAPE_BOARD[i] == 'a' ? (s[i] >= 'a' && s[i] <= 'i')
                                                 : s[i] == '+';
                if (!ok)
                    break;
            }
        }
        err->column = i + 1;
        snprintf(err->msg, sizeof err->msg, "usi move '%.16s': bad character at column %d", s ? s : "",
                 i + 1);
    }
    return RUL_EPARSE;
}

/* ---------------------------------------------------------------- why a move is illegal */

const char *rul_why_name(rul_why_t why) {
    switch (why) {
    case RUL_WHY_LEGAL: return "legal";
    case RUL_WHY_NIFU: return "nifu";
    case RUL_WHY_PAWN_DROP_MATE: return "pawn_drop_mate";
    case RUL_WHY_LEAVES_KING_IN_CHECK: return "leaves_king_in_check";
    case RUL_WHY_NO_FURTHER_MOVE: return "no_further_move";
    case RUL_WHY_NOT_A_LEGAL_MOVE: return "not_a_legal_move";
    }
    return "unknown";
}

/* 1 if the piece on 'from' can move to 'to' by its own way of moving, with the path clear
 * (FESA 3.3-3.10), ignoring checks. */
static int reaches(const rul_pos_t *pos, int from, int to) {
    int pc = pos->mb[from], us = RUL_PIECE_COLOR(pc);
    if (RUL_PIECE_TYPE(pc) == RUL_KNIGHT)
        return to == from + KNIGHT_OFF[us][0] || to == from + KNIGHT_OFF[us][1];
    for (int d = 0; d < 8; d++) {
        int off = DIR_OFF[d];
        if ((STEP_MASK[pc] >> d) & 1 && from + off == to)
            return 1;
        if ((SLIDE_MASK[pc] >> d) & 1)
            for (int t = from + off; pos->mb[t] != RUL_MB_WALL; t += off) {
                if (t == to)
                    return 1;
                if (pos->mb[t])
                    break;
            }
    }
    return 0;
}

rul_why_t rul_why_illegal(const rul_pos_t *pos, rul_move_t m) { return judge(pos, m); }

/* The rules a single move must satisfy, in the order a reason is given: the move's own shape
 * (FESA 3.3-3.10), dead squares and compulsory promotion (3.2, 3.11(b)), nifu (3.11(a)), the mover's
 * king (1.2), pawn-drop mate (3.11(c)). */
static rul_why_t judge(const rul_pos_t *pos, rul_move_t m) {
    const int us = pos->side;
    int tsq = RUL_MOVE_TO(m);
    if (m >> 16 || tsq >= RUL_SQ_NB)
        return RUL_WHY_NOT_A_LEGAL_MOVE;
    int to = cell_of_sq(tsq), rr = rel_rank(us, RUL_SQ_RANK(tsq));
    if (RUL_MOVE_IS_DROP(m)) {
        int t = RUL_MOVE_DROP_TYPE(m);
        if (RUL_MOVE_IS_PROMO(m) || t < 1 || t > RUL_HAND_NB ||
            !rul_pos_hand(pos, (rul_color_t)us, (rul_type_t)t) || pos->mb[to])
            return RUL_WHY_NOT_A_LEGAL_MOVE;
        if (((t == RUL_PAWN || t == RUL_LANCE) && rr == 1) || (t == RUL_KNIGHT && rr <= 2))
            return RUL_WHY_NO_FURTHER_MOVE;
        if (t == RUL_PAWN)
            for (int r = 1; r <= 9; r++)
                if (pos->mb[MB(RUL_SQ_FILE(tsq), r)] == RUL_PIECE(us, RUL_PAWN))
                    return RUL_WHY_NIFU;
    } else {
        int fsq = RUL_MOVE_FROM(m);
        if (fsq >= RUL_SQ_NB)
            return RUL_WHY_NOT_A_LEGAL_MOVE;
        int from = cell_of_sq(fsq), pc = pos->mb[from];
        if (!pc || RUL_PIECE_COLOR(pc) != us || (pos->mb[to] && RUL_PIECE_COLOR(pos->mb[to]) == us) ||
            !reaches(pos, from, to))
            return RUL_WHY_NOT_A_LEGAL_MOVE;
        int t = RUL_PIECE_TYPE(pc);
        if (RUL_MOVE_IS_PROMO(m) && (t > RUL_ROOK || (rr > 3 && rel_rank(us, RUL_SQ_RANK(fsq)) > 3)))
            return RUL_WHY_NOT_A_LEGAL_MOVE;
        if (!RUL_MOVE_IS_PROMO(m) &&
            (((t == RUL_PAWN || t == RUL_LANCE) && rr == 1) || (t == RUL_KNIGHT && rr <= 2)))
            return RUL_WHY_NO_FURTHER_MOVE;
    }
    /* Pseudo-legal: it must not leave or put our king in check, nor be a pawn drop that mates. */
    rul_pos_t p = *pos;
    rul_undo_t u;
    rul_pos_do_move(&p, m, &u);
    if (p.king_mb[us] && rul_internal_attacked(&p, p.king_mb[us], us ^ 1, -1))
        return RUL_WHY_LEAVES_KING_IN_CHECK;
    if (RUL_MOVE_IS_DROP(m) && RUL_MOVE_DROP_TYPE(m) == RUL_PAWN && pos->king_mb[us ^ 1] &&
        to + (us == RUL_SENTE ? -1 : 1) == pos->king_mb[us ^ 1] && rul_internal_gives_no_escape(&p))
        return RUL_WHY_PAWN_DROP_MATE;
    return RUL_WHY_LEGAL;
}
