/* kifu_internal.h - private helpers shared by the kifu_*.c readers and writers (not a public API). */
#ifndef KIFUCAM_KIFU_INTERNAL_H
#define KIFUCAM_KIFU_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "recorder/kifu/kifu.h"

/* A growable string; oom is set once an allocation fails and later appends do nothing. */
typedef struct {
    char *buf;
    size_t len, cap;
    int oom;
} rec_kx_sb_t;

void rec_kx_sb_putn(rec_kx_sb_t *sb, const char *s, size_t n);
void rec_kx_sb_puts(rec_kx_sb_t *sb, const char *s);
void rec_kx_sb_printf(rec_kx_sb_t *sb, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Decoded text split into lines (UTF-8, line ends removed, trailing blanks kept). */
typedef struct {
    char *text;  /* owned copy of the decoded text, lines NUL-separated */
    char **line; /* owned array of pointers into text */
    int n;       /* number of lines */
} rec_kx_lines_t;

/* Decodes data (BOM, UTF-8 or CP932) and splits it into lines. Returns REC_KIFU_OK, ENCODING (err
 * has line and column of the first bad byte), ENOMEM. */
int rec_kx_lines_split(const char *data, size_t len, rec_kx_lines_t *out, rec_kifu_error_t *err);
void rec_kx_lines_free(rec_kx_lines_t *l);

/* Converts UTF-8 to CP932 (for .kif/.ki2 files). Caller frees *out. REC_KIFU_OK, ENCODING, ENOMEM. */
int rec_kx_utf8_to_cp932(const char *in, size_t len, char **out, size_t *outlen);

/* Sets err (may be NULL). */
void rec_kx_err(rec_kifu_error_t *err, int line, int column, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* strdup that returns NULL on OOM (C11 has no strdup). */
char *rec_kx_strdup(const char *s);
/* Appends text to an owned comment, joining with '\n'. Returns 0 or REC_KIFU_ENOMEM. */
int rec_kx_append_text(char **dst, const char *text);

/* UTF-8 helpers: number of characters (code points) in the first n bytes of s. */
int rec_kx_u8_cols(const char *s, size_t n);
/* Decodes one code point at *p, advancing *p; returns -1 at a NUL or a bad sequence. */
int rec_kx_u8_next(const char **p);

/* ---------------------------------------------------------------- Japanese notation */
/* Piece type for a kanji name at p ("歩" "と" "成銀" "全" "竜" "龍" "王" "玉" ...), advancing *p; 0 if none.
 */
rul_type_t rec_kx_ja_piece(const char **p);
/* Kanji name of a type for writing (歩 香 桂 銀 角 飛 金 玉 と 成香 成桂 成銀 馬 龍). */
const char *rec_kx_ja_piece_name(rul_type_t t);
/* Full-width / ASCII / kanji digit 1..9 at *p, advancing; 0 if none. */
int rec_kx_ja_digit(const char **p);
/* Kanji count ("十八", "二", "十") or ASCII number; 0 if none. */
int rec_kx_ja_count(const char **p);
extern const char *const rec_kx_fw_digit[10];    /* "１".."９" at [1..9] (static const table) */
extern const char *const rec_kx_kanji_digit[19]; /* "一".."十八" at [1..18] */

/* CSA piece names: "FU" ... "RY" for types 1..14 ("OU" for the king). */
extern const char *const rec_kx_csa_piece[RUL_TYPE_NB];
rul_type_t rec_kx_csa_piece_parse(const char *s);

/* Move specification as written in Japanese notation, resolved against a position. */
typedef struct {
    int to;          /* destination square 0..80, or -1 for 同 (same as the previous destination) */
    rul_type_t type; /* the piece as named (promoted kinds allowed: 成銀 moves as a promoted silver) */
    int from;        /* origin square, -1 unknown */
    int drop;        /* 1 if 打 written (or an origin of 00) */
    int promo;       /* 1 成, -1 不成 written, 0 nothing */
    unsigned rel;    /* REL_* bits */
} rec_kx_spec_t;

#define REC_KX_REL_RIGHT 1u    /* 右 */
#define REC_KX_REL_LEFT 2u     /* 左 */
#define REC_KX_REL_STRAIGHT 4u /* 直 */
#define REC_KX_REL_UP 8u       /* 上 (行 / 入 also read as 上) */
#define REC_KX_REL_DOWN 16u    /* 引 */
#define REC_KX_REL_SIDE 32u    /* 寄 */

/* Resolves spec in pos (prev_to: previous destination or -1). On success *m is the move and *legal is
 * 1 if it is legal, 0 if it is a well-formed but illegal move (a piece of the mover's is there, or the
 * dropped piece is in hand). Returns REC_KIFU_OK, or REC_KIFU_EMOVE with msg (>= 120 bytes) filled. */
int rec_kx_resolve(const rul_pos_t *pos, const rec_kx_spec_t *spec, int prev_to, rul_move_t *m, int *legal,
                   char *msg, size_t msgsize);

/* English name of a piece type ("pawn", "promoted silver", "dragon"); static storage. */
const char *rec_kx_en_piece_name(rul_type_t t);

/* Checks that the piece named for a move from `from` is the one there: a piece of the side to move of
 * kind `named`, or one whose promoted kind is `named` (a promotion named by the piece after it: CSA
 * always, 成銀 style names in KIF). REC_KIFU_OK, or REC_KIFU_EMOVE with msg ("the piece on 77 is a
 * pawn, not a gold"). */
int rec_kx_check_origin(const rul_pos_t *pos, int from, rul_type_t named, char *msg, size_t msgsize);

/* 1 if m can be made safely with rul_pos_do_move in pos (origin holds a piece of the side to move and
 * the destination does not; a drop's piece is in hand and its square is empty). */
int rec_kx_move_playable(const rul_pos_t *pos, rul_move_t m);

/* Piece type of the mover before the move (the dropped type for a drop). */
rul_type_t rec_kx_move_type(const rul_pos_t *pos, rul_move_t m);

/* Terminal words. */
rec_end_t rec_kx_end_from_kif(const char *word); /* 投了 ... or REC_END_NONE */
const char *rec_kx_end_to_kif(rec_end_t e);      /* word for KIF / KI2 */

/* Readers and writers (one file each). Readers fill k (already created, start normal). */
int rec_kx_read_kif(rec_kifu_t *k, const rec_kx_lines_t *l, int ki2, rec_kifu_error_t *err);
int rec_kx_read_csa(rec_kifu_t *k, const rec_kx_lines_t *l, rec_kifu_error_t *err);
int rec_kx_read_jkf(rec_kifu_t *k, const char *text, size_t len, rec_kifu_error_t *err);
int rec_kx_read_usi(rec_kifu_t *k, const rec_kx_lines_t *l, rec_kifu_error_t *err);
int rec_kx_read_western(rec_kifu_t *k, const rec_kx_lines_t *l, rec_kifu_error_t *err);
int rec_kx_write_kif(const rec_kifu_t *k, int ki2, rec_kx_sb_t *sb, rec_kifu_error_t *err);
int rec_kx_write_csa(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err);
int rec_kx_write_jkf(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err);
int rec_kx_write_usi(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err);
int rec_kx_write_western(const rec_kifu_t *k, rec_kx_sb_t *sb, rec_kifu_error_t *err);

/* Sets the move number of k's start SFEN to n (1..99999999: KIF's 手数＝ plus one). REC_KIFU_OK, EARG,
 * EPARSE (a bad start SFEN). */
int rec_kx_set_start_number(rec_kifu_t *k, int n);

/* Before a reader appends a move to line `line` of k: off is the number of moves played before the start
 * (the first move's number - 1). REC_KIFU_OK, or REC_KIFU_EPARSE with err at lno:column when the move
 * would carry the position past RUL_SFEN_MAX_NUMBER (an SFEN the reader refuses). */
int rec_kx_number_check(const rec_kifu_t *k, int line, int off, rec_kifu_error_t *err, int lno, int column);

/* Appends a move to a line and records the time; total computed if tot is REC_TIME_NONE. Returns the
 * new move or NULL on OOM. */
rec_kifu_move_t *rec_kx_push_move(rec_kifu_t *k, int line, rul_move_t m, int64_t t, int64_t tot);
/* rec_kx_push_move, the move flagged REC_MOVE_ILLEGAL when legal is 0, then played on pos (the reader's
 * position). REC_KIFU_OK, or REC_KIFU_ENOMEM (pos unchanged). */
int rec_kx_push_play(rec_kifu_t *k, int line, rul_pos_t *pos, rul_move_t m, int legal, int64_t t,
                     int64_t tot);

/* KIF helpers shared by its reader and writer (kifu_kif.c): rec_kx_rstrip strips trailing blanks
 * (ASCII and full-width) in place; rec_kx_move_at gives the move of ply `ply` seen from line `line`
 * (its own moves, else its parents'), 1 found, 0 none. */
void rec_kx_rstrip(char *s);
int rec_kx_move_at(const rec_kifu_t *k, int line, int ply, rul_move_t *m);

/* Before a reader keeps an illegal move m of line `line` (its position pos, off as rec_kx_number_check)
 * as written: a warning at lno:column "move N (TOKEN) is not legal: WHY; kept as written", token the
 * move as written (toklen bytes, cut at a whole character). A later error names the first of them
 * (rec_kx_blame_illegal): a typo makes a move illegal long before a move becomes unreadable. */
int rec_kx_note_illegal(rec_kifu_t *k, int line, int off, const rul_pos_t *pos, rul_move_t m, int lno,
                        int column, const char *token, size_t toklen);

/* After a read error at err->line: when an illegal move was kept before it (rec_kx_note_illegal), err's
 * message says where the first one is. */
void rec_kx_blame_illegal(const rec_kifu_t *k, rec_kifu_error_t *err);

#endif /* KIFUCAM_KIFU_INTERNAL_H */
