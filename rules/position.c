/* position.c - the position: SFEN in and out, Zobrist keys, handicap starts, validation (FESA 9.4). */
#include "rules/rules_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void set_err(rul_error_t *err, int column, const char *fmt, ...) {
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->column = column;
}

/* A byte of the SFEN for a message: itself when printable ASCII, else a hex escape ("\xEF"), so that a
 * message never holds a broken UTF-8 sequence. */
static const char *shown(int ch, char buf[8]) {
    ch &= 0xFF;
    if (ch == 0)
        snprintf(buf, 8, " ");
    else if (ch >= 0x20 && ch < 0x7F)
        snprintf(buf, 8, "%c", ch);
    else
        snprintf(buf, 8, "\\x%02X", (unsigned)ch);
    return buf;
}

void rul_pos_clear(rul_pos_t *pos) {
    memset(pos, 0, sizeof *pos);
    memset(pos->mb, RUL_MB_WALL, sizeof pos->mb);
    for (int f = 1; f <= 9; f++)
        for (int r = 1; r <= 9; r++)
            pos->mb[MB(f, r)] = RUL_PIECE_NONE;
    pos->side = RUL_SENTE;
    pos->ply = 1;
    pos->key = rul_pos_compute_key(pos);
}

uint64_t rul_pos_compute_key(const rul_pos_t *pos) {
    uint64_t k = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        int c = cell_of_sq(sq);
        if (pos->mb[c])
            k += zob_board(pos->mb[c], c);
    }
    for (int c = 0; c < 2; c++)
        for (int t = 1; t <= RUL_HAND_NB; t++)
            k += (uint64_t)pos->hand[c][t - 1] * zob_hand(c, t);
    if (pos->side == RUL_GOTE)
        k += ZOB_SIDE;
    return k;
}

void rul_pos_rehash(rul_pos_t *pos) {
    pos->king_mb[0] = pos->king_mb[1] = 0;
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        int c = cell_of_sq(sq);
        if (RUL_PIECE_TYPE(pos->mb[c]) == RUL_KING)
            pos->king_mb[RUL_PIECE_COLOR(pos->mb[c])] = (uint8_t)c;
    }
    pos->key = rul_pos_compute_key(pos);
}

int rul_pos_set_hand(rul_pos_t *pos, rul_color_t c, rul_type_t t, int n) {
    if ((unsigned)c >= RUL_COLOR_NB || t < RUL_PAWN || t > RUL_GOLD || n < 0 || n > 18)
        return RUL_ERANGE;
    const int old = pos->hand[c][t - 1];
    pos->hand[c][t - 1] = (uint8_t)n;
    pos->key += (uint64_t)(int64_t)(n - old) * zob_hand(c, t);
    return RUL_OK;
}

int rul_pos_same(const rul_pos_t *a, const rul_pos_t *b) {
    return a->side == b->side && memcmp(a->mb, b->mb, sizeof a->mb) == 0 &&
           memcmp(a->hand, b->hand, sizeof a->hand) == 0;
}

rul_piece_t rul_pos_piece_at(const rul_pos_t *pos, int sq) {
    if (sq < 0 || sq >= RUL_SQ_NB)
        return RUL_PIECE_NONE;
    return pos->mb[cell_of_sq(sq)];
}

int rul_pos_set_piece(rul_pos_t *pos, int sq, rul_piece_t pc) {
    if (sq < 0 || sq >= RUL_SQ_NB || (pc & ~(RUL_GOTE_BIT | 15)) || RUL_PIECE_TYPE(pc) >= RUL_TYPE_NB ||
        (pc != RUL_PIECE_NONE && RUL_PIECE_TYPE(pc) == RUL_NO_TYPE))
        return RUL_ERANGE;
    pos->mb[cell_of_sq(sq)] = pc;
    rul_pos_rehash(pos);
    return RUL_OK;
}

int rul_pos_king_sq(const rul_pos_t *pos, rul_color_t c) {
    int cell = pos->king_mb[c & 1];
    return cell ? sq_of_cell(cell) : RUL_SQ_NONE;
}

/* SFEN letters of the unpromoted kinds, indexed by type. */
static const char TYPE_LETTER[9] = {'?', 'P', 'L', 'N', 'S', 'B', 'R', 'G', 'K'};

static int letter_type(int ch) {
    for (int t = 1; t <= RUL_KING; t++)
        if (toupper(ch) == TYPE_LETTER[t])
            return t;
    return 0;
}

/* Parses the board field starting at s[i]; advances *ip. USI protocol: ranks a..i separated by '/',
 * each from file 9 to file 1, digits for empty squares, '+' before a promotable piece. */
static int parse_board(rul_pos_t *pos, const char *s, int *ip, rul_error_t *err) {
    char cb[8];
    int i = *ip;
    for (int rank = 1; rank <= 9; rank++) {
        int file = 9;
        while (s[i] && s[i] != '/' && s[i] != ' ') {
            int ch = (unsigned char)s[i];
            if (ch >= '1' && ch <= '9') {
                file -= ch - '0';
                if (file < 0) {
                    set_err(err, i + 1, "sfen: column %d: rank %d has more than 9 squares at '%c'", i + 1,
                            rank, ch);
                    return RUL_EPARSE;
                }
                i++;
                continue;
            }
            int promoted = 0;
            if (ch == '+') {
                promoted = 1;
                i++;
                ch = (unsigned char)s[i];
            }
            int t = letter_type(ch);
            if (!t) {
                set_err(err, i + 1, "sfen: column %d: unknown piece '%s'", i + 1, shown(ch, cb));
                return RUL_EPARSE;
            }
            if (promoted && (t == RUL_GOLD || t == RUL_KING)) {
                set_err(err, i + 1, "sfen: column %d: '%c' cannot be promoted", i + 1, ch);
                return RUL_EPARSE;
            }
            if (file < 1) {
                set_err(err, i + 1, "sfen: column %d: rank %d has more than 9 squares at '%c'", i + 1, rank,
                        ch);
                return RUL_EPARSE;
            }
            int color = islower(ch) ? RUL_GOTE : RUL_SENTE;
            if (t == RUL_KING && pos->king_mb[color]) {
                set_err(err, i + 1, "sfen: column %d: a second %s king '%c'", i + 1, color ? "gote" : "sente",
                        ch);
                return RUL_EPARSE;
            }
            if (t == RUL_KING)
                pos->king_mb[color] = (uint8_t)MB(file, rank);
            pos->mb[MB(file, rank)] = RUL_PIECE(color, t + (promoted ? RUL_PROMOTED : 0));
            file--;
            i++;
        }
        if (file != 0) {
            set_err(err, i + 1, "sfen: column %d: rank %d has %d squares, not 9", i + 1, rank, 9 - file);
            return RUL_EPARSE;
        }
        if (rank < 9) {
            if (s[i] != '/') {
                set_err(err, i + 1, "sfen: column %d: expected '/' after rank %d, found %s", i + 1, rank,
                        s[i] ? "a space" : "the end");
                return RUL_EPARSE;
            }
            i++;
        }
    }
    if (s[i] == '/') {
        set_err(err, i + 1, "sfen: column %d: more than 9 ranks", i + 1);
        return RUL_EPARSE;
    }
    *ip = i;
    return RUL_OK;
}

static int parse_hands(rul_pos_t *pos, const char *s, int *ip, rul_error_t *err) {
    char cb[8];
    int i = *ip;
    if (s[i] == '-') {
        *ip = i + 1;
        return RUL_OK;
    }
    if (!s[i] || s[i] == ' ') {
        set_err(err, i + 1, "sfen: column %d: missing hands field ('-' for none)", i + 1);
        return RUL_EPARSE;
    }
    while (s[i] && s[i] != ' ') {
        int start = i, n = 1;
        if (isdigit((unsigned char)s[i])) {
            n = 0;
            while (isdigit((unsigned char)s[i]) && n < 100)
                n = n * 10 + (s[i++] - '0');
            if (n < 1 || n > 18) {
                set_err(err, start + 1, "sfen: column %d: bad count %d in hands", start + 1, n);
                return RUL_EPARSE;
            }
        }
        int ch = (unsigned char)s[i];
        int t = letter_type(ch);
        if (!t || t == RUL_KING) {
            set_err(err, i + 1, "sfen: column %d: '%s' cannot be in hand", i + 1, shown(ch, cb));
            return RUL_EPARSE;
        }
        int color = islower(ch) ? RUL_GOTE : RUL_SENTE;
        int have = rul_pos_hand(pos, (rul_color_t)color, (rul_type_t)t);
        if (have + n > 18) {
            set_err(err, i + 1, "sfen: column %d: too many '%c' in hand", i + 1, ch);
            return RUL_EPARSE;
        }
        rul_pos_set_hand(pos, (rul_color_t)color, (rul_type_t)t, have + n);
        i++;
    }
    *ip = i;
    return RUL_OK;
}

int rul_pos_from_sfen(rul_pos_t *pos, const char *sfen, rul_error_t *err) {
    char cb[8];
    if (err) {
        err->msg[0] = 0;
        err->column = 0;
    }
    if (!sfen) {
        set_err(err, 0, "sfen: no text");
        return RUL_EPARSE;
    }
    rul_pos_t p;
    rul_pos_clear(&p);
    int i = 0, rc;
    while (sfen[i] == ' ')
        i++;
    if (strncmp(sfen + i, "startpos", 8) == 0 && (sfen[i + 8] == 0 || sfen[i + 8] == ' ')) {
        int j = i + 8;
        while (sfen[j] == ' ')
            j++;
        if (sfen[j]) {
            set_err(err, j + 1, "sfen: column %d: unexpected text after 'startpos'", j + 1);
            return RUL_EPARSE;
        }
        return rul_pos_from_sfen(pos, RUL_SFEN_STARTPOS, err);
    }
    if (strncmp(sfen + i, "sfen ", 5) == 0)
        i += 5;
    while (sfen[i] == ' ')
        i++;
    if ((rc = parse_board(&p, sfen, &i, err)) != RUL_OK)
        return rc;
    if (sfen[i] != ' ') {
        set_err(err, i + 1, "sfen: column %d: missing side to move ('b' or 'w')", i + 1);
        return RUL_EPARSE;
    }
    while (sfen[i] == ' ')
        i++;
    if ((sfen[i] != 'b' && sfen[i] != 'w') || (sfen[i + 1] && sfen[i + 1] != ' ')) {
        set_err(err, i + 1, "sfen: column %d: side to move must be 'b' or 'w', found '%s'", i + 1,
                shown(sfen[i], cb));
        return RUL_EPARSE;
    }
    p.side = sfen[i] == 'w' ? RUL_GOTE : RUL_SENTE;
    i++;
    if (sfen[i] != ' ') {
        set_err(err, i + 1, "sfen: column %d: missing hands field ('-' for none)", i + 1);
        return RUL_EPARSE;
    }
    while (sfen[i] == ' ')
        i++;
    if ((rc = parse_hands(&p, sfen, &i, err)) != RUL_OK)
        return rc;
    while (sfen[i] == ' ')
        i++;
    if (sfen[i]) {
        int start = i;
        long n = 0;
        while (isdigit((unsigned char)sfen[i]) && n <= RUL_SFEN_MAX_NUMBER)
            n = n * 10 + (sfen[i++] - '0');
        if (i == start || n < 1 || n > RUL_SFEN_MAX_NUMBER) {
            set_err(err, start + 1, "sfen: column %d: bad move number at '%s'", start + 1,
                    shown(sfen[start], cb));
            return RUL_EPARSE;
        }
        p.ply = (int)n;
        while (sfen[i] == ' ')
            i++;
        if (sfen[i]) {
            set_err(err, i + 1, "sfen: column %d: unexpected text '%s' after the move number", i + 1,
                    shown(sfen[i], cb));
            return RUL_EPARSE;
        }
    }
    rul_pos_rehash(&p);
    *pos = p;
    return RUL_OK;
}

int rul_pos_to_sfen(const rul_pos_t *pos, char *buf, size_t size) {
    char out[256];
    size_t n = 0;
    for (int rank = 1; rank <= 9; rank++) {
        int empty = 0;
        for (int file = 9; file >= 1; file--) {
            rul_piece_t pc = pos->mb[MB(file, rank)];
            if (!pc) {
                empty++;
                continue;
            }
            if (empty)
                out[n++] = (char)('0' + empty);
            empty = 0;
            int t = RUL_PIECE_TYPE(pc);
            if (t > RUL_KING) {
                out[n++] = '+';
                t -= RUL_PROMOTED;
            }
            char ch = TYPE_LETTER[t];
            out[n++] = RUL_PIECE_COLOR(pc) == RUL_GOTE ? (char)tolower(ch) : ch;
        }
        if (empty)
            out[n++] = (char)('0' + empty);
        if (rank < 9)
            out[n++] = '/';
    }
    out[n++] = ' ';
    out[n++] = pos->side == RUL_GOTE ? 'w' : 'b';
    out[n++] = ' ';
    static const int HAND_ORDER[RUL_HAND_NB] = {RUL_ROOK,   RUL_BISHOP, RUL_GOLD, RUL_SILVER,
                                                RUL_KNIGHT, RUL_LANCE,  RUL_PAWN};
    size_t hand_start = n;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < RUL_HAND_NB; k++) {
            int t = HAND_ORDER[k], cnt = rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)t);
            if (!cnt)
                continue;
            if (cnt > 1)
                n += (size_t)snprintf(out + n, sizeof out - n, "%d", cnt);
            out[n++] = c ? (char)tolower(TYPE_LETTER[t]) : TYPE_LETTER[t];
        }
    if (n == hand_start)
        out[n++] = '-';
    n += (size_t)snprintf(out + n, sizeof out - n, " %d", pos->ply);
    if (n + 1 > size)
        return RUL_ERANGE;
    memcpy(buf, out, n);
    buf[n] = 0;
    return RUL_OK;
}

/* ---------------------------------------------------------------- handicaps */
static const rul_handicap_info_t HANDICAPS[RUL_HC_NB] = {
    {"even", "平手", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"},
    {"lance", "香落ち", "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"right-lance", "右香落ち", "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"bishop", "角落ち", "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"rook", "飛車落ち", "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"rook-lance", "飛香落ち", "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"2-piece", "二枚落ち", "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"3-piece", "三枚落ち", "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"4-piece", "四枚落ち", "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"5-piece", "五枚落ち", "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"left-5-piece", "左五枚落ち", "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"6-piece", "六枚落ち", "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"left-7-piece", "左七枚落ち", "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"right-7-piece", "右七枚落ち", "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"8-piece", "八枚落ち", "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
    {"10-piece", "十枚落ち", "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"},
};

int rul_handicap_info(rul_handicap_t h, rul_handicap_info_t *info) {
    if ((int)h < 0 || h >= RUL_HC_NB)
        return RUL_ERANGE;
    *info = HANDICAPS[h];
    return RUL_OK;
}

/* Normalises an English handicap name: lower case, spaces/underscores to '-', drops "-piece(s)"
 * and a trailing "-handicap", so "Left 5 pieces" == "left-5" == "left-5-piece". */
static void norm_name(const char *in, char *out, size_t size) {
    size_t n = 0;
    for (; *in && n + 1 < size; in++) {
        int ch = (unsigned char)*in;
        if (ch == ' ' || ch == '_')
            ch = '-';
        out[n++] = (char)tolower(ch);
    }
    out[n] = 0;
    static const char *SUFFIXES[] = {"-handicap", "-pieces", "-piece"};
    for (size_t k = 0; k < sizeof SUFFIXES / sizeof *SUFFIXES; k++) {
        size_t l = strlen(SUFFIXES[k]), len = strlen(out);
        if (len > l && strcmp(out + len - l, SUFFIXES[k]) == 0)
            out[len - l] = 0;
    }
}

int rul_handicap_from_name(const char *name, rul_handicap_t *h) {
    if (!name)
        return RUL_EPARSE;
    char want[64], have[64];
    norm_name(name, want, sizeof want);
    if (strcmp(want, "none") == 0 || strcmp(want, "hirate") == 0 || strcmp(want, "平手") == 0) {
        *h = RUL_HC_EVEN;
        return RUL_OK;
    }
    for (int k = 0; k < RUL_HC_NB; k++) {
        norm_name(HANDICAPS[k].name, have, sizeof have);
        if (strcmp(want, have) == 0 || strcmp(name, HANDICAPS[k].name_ja) == 0) {
            *h = (rul_handicap_t)k;
            return RUL_OK;
        }
    }
    /* Common aliases: 飛落ち for 飛車落ち, "rook+lance", "two-piece". */
    if (strcmp(name, "飛落ち") == 0 || strcmp(want, "rook-drop") == 0) {
        *h = RUL_HC_ROOK;
        return RUL_OK;
    }
    if (strcmp(want, "rook+lance") == 0 || strcmp(name, "飛車香落ち") == 0) {
        *h = RUL_HC_ROOK_LANCE;
        return RUL_OK;
    }
    return RUL_EPARSE;
}

int rul_pos_set_handicap(rul_pos_t *pos, rul_handicap_t h) {
    if ((int)h < 0 || h >= RUL_HC_NB)
        return RUL_ERANGE;
    return rul_pos_from_sfen(pos, HANDICAPS[h].sfen, NULL) == RUL_OK ? RUL_OK : RUL_ERANGE;
}

/* ---------------------------------------------------------------- validation */
static const char *COLOR_NAME[2] = {"sente", "gote"};
static const char *TYPE_NAME[9] = {"-",      "pawn", "lance", "knight", "silver",
                                   "bishop", "rook", "gold",  "king"};

const char *rul_invalid_name(rul_invalid_t r) {
    switch (r) {
    case RUL_VALID: return "valid";
    case RUL_INVALID_TOO_MANY_PIECES: return "too_many_pieces";
    case RUL_INVALID_KING_COUNT: return "king_count";
    case RUL_INVALID_NO_KING: return "no_king";
    case RUL_INVALID_NIFU: return "nifu";
    case RUL_INVALID_DEAD_PIECE: return "dead_piece";
    case RUL_INVALID_OPPONENT_IN_CHECK: return "opponent_in_check";
    }
    return "unknown";
}

rul_invalid_t rul_pos_validate(const rul_pos_t *pos, int flags, rul_error_t *err) {
    if (err) {
        err->msg[0] = 0;
        err->column = 0;
    }
    int count[9] = {0}, kings[2] = {0, 0}, total = 0;
    for (int c = 0; c < 2; c++)
        for (int t = 1; t <= RUL_HAND_NB; t++) {
            count[t] += rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)t);
            total += rul_pos_hand(pos, (rul_color_t)c, (rul_type_t)t);
        }
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t pc = pos->mb[cell_of_sq(sq)];
        if (!pc)
            continue;
        int t = RUL_PIECE_TYPE(pc);
        count[type_base(t)]++;
        total++;
        if (t == RUL_KING)
            kings[RUL_PIECE_COLOR(pc)]++;
    }
    for (int t = 1; t <= RUL_KING; t++)
        if (count[t] > SET_COUNT[t]) {
            set_err(err, 0, "too many pieces: %d %ss (a set has %d)", count[t], TYPE_NAME[t], SET_COUNT[t]);
            return t == RUL_KING ? RUL_INVALID_KING_COUNT : RUL_INVALID_TOO_MANY_PIECES;
        }
    if (total > 40) {
        set_err(err, 0, "too many pieces: %d (a set has 40)", total);
        return RUL_INVALID_TOO_MANY_PIECES;
    }
    for (int c = 0; c < 2; c++) {
        if (kings[c] > 1) {
            set_err(err, 0, "%s has %d kings", COLOR_NAME[c], kings[c]);
            return RUL_INVALID_KING_COUNT;
        }
        if (kings[c] == 0 && (flags & RUL_VALIDATE_BOTH_KINGS)) {
            set_err(err, 0, "%s has no king", COLOR_NAME[c]);
            return RUL_INVALID_NO_KING;
        }
    }
    /* FESA 9.4(b): two unpromoted pawns of one colour on a file. */
    for (int c = 0; c < 2; c++)
        for (int f = 1; f <= 9; f++) {
            int pawns = 0;
            for (int r = 1; r <= 9; r++)
                pawns += pos->mb[MB(f, r)] == RUL_PIECE(c, RUL_PAWN);
            if (pawns > 1) {
                set_err(err, 0, "nifu: %s has %d unpromoted pawns on file %d", COLOR_NAME[c], pawns, f);
                return RUL_INVALID_NIFU;
            }
        }
    /* FESA 9.4(c): an unpromoted pawn or lance on the far rank, a knight on the far two ranks. */
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t pc = pos->mb[cell_of_sq(sq)];
        int t = RUL_PIECE_TYPE(pc), c = RUL_PIECE_COLOR(pc);
        int rr = rel_rank(c, RUL_SQ_RANK(sq));
        if (((t == RUL_PAWN || t == RUL_LANCE) && rr == 1) || (t == RUL_KNIGHT && rr <= 2)) {
            set_err(err, 0, "dead piece: %s %s on %d%c can never move", COLOR_NAME[c], TYPE_NAME[t],
                    RUL_SQ_FILE(sq), 'a' + RUL_SQ_RANK(sq) - 1);
            return RUL_INVALID_DEAD_PIECE;
        }
    }
    /* FESA 9.4(a): the side not to move is in check. */
    int them = pos->side ^ 1;
    if (pos->king_mb[them] && rul_internal_attacked(pos, pos->king_mb[them], pos->side, -1)) {
        int ksq = sq_of_cell(pos->king_mb[them]);
        set_err(err, 0, "%s's king on %d%c is in check while %s is to move", COLOR_NAME[them],
                RUL_SQ_FILE(ksq), 'a' + RUL_SQ_RANK(ksq) - 1, COLOR_NAME[pos->side]);
        return RUL_INVALID_OPPONENT_IN_CHECK;
    }
    return RUL_VALID;
}
