/* kifu.h - game records (kifu): one record model, readers and writers for KIF, KI2, CSA, JKF, USI and
 * Western notation, and format detection. The replay of a record is in replay.h. Spec sources and
 * design: docs/formats.md.
 *
 * Ownership: a rec_kifu_t and everything it points to is heap memory owned by the record; free it with
 * rec_kifu_free(). Text in the record is UTF-8. Nothing here has global mutable state; every function
 * is reentrant on distinct records.
 */
#ifndef KIFUCAM_KIFU_H
#define KIFUCAM_KIFU_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/recorder.h"
#include "rules/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error detail of a reader or writer: where and what. */
typedef struct {
    int line;      /* 1-based line of the input, 0 when not applicable */
    int column;    /* 1-based column (in characters of the decoded UTF-8 line), 0 when not applicable */
    char msg[200]; /* NUL-terminated English message, "" when none */
} rec_kifu_error_t;

/* ---------------------------------------------------------------- formats */
typedef enum {
    REC_FMT_UNKNOWN = 0,
    REC_FMT_KIF,     /* Kakinoki KIF (.kif Shift_JIS, .kifu UTF-8) */
    REC_FMT_KI2,     /* KI2 (.ki2 Shift_JIS, .ki2u UTF-8): moves with relative notation, no origin */
    REC_FMT_CSA,     /* CSA standard record v3.0 (v2.x read) */
    REC_FMT_JKF,     /* JSON kifu format */
    REC_FMT_USI,     /* one USI "position ... moves ..." line */
    REC_FMT_WESTERN, /* Hodges Western notation, one move a line with its number (.txt) */
    REC_FMT_NB
} rec_format_t;

/* Short lowercase name ("kif", "ki2", "csa", "jkf", "usi", "western", "unknown"); static storage. */
const char *rec_kifu_format_name(rec_format_t f);

/* Format from a name as rec_kifu_format_name gives it, or from a file extension ("game.kifu" -> KIF;
 * .kif .kifu .ki2 .ki2u .csa .jkf .json .usi .sfen .txt). Case-insensitive. REC_FMT_UNKNOWN if none. */
rec_format_t rec_kifu_format_from_name(const char *name);
rec_format_t rec_kifu_format_from_path(const char *path);

/* Guesses the format of raw bytes (any encoding) from their content: JSON object -> JKF, "position" /
 * "sfen" / "startpos" -> USI, CSA statements (V2, PI, P1, +7776FU, N+, $) -> CSA, "手数----" or numbered
 * move lines with an origin -> KIF, ▲/△ moves -> KI2, "1. P-7f" style -> Western. */
rec_format_t rec_kifu_detect(const char *data, size_t len);

/* ---------------------------------------------------------------- the record model */

/* How a record (or one of its lines) ends: the terminal word. Side-relative kinds are relative to the
 * side to move at the terminal's ply (the player whose turn it was). */
typedef enum {
    REC_END_NONE = 0,     /* no terminal word: the record simply stops */
    REC_END_RESIGN,       /* 投了, %TORYO: the side to move resigns */
    REC_END_ABORT,        /* 中断, %CHUDAN: interrupted, no result */
    REC_END_SENNICHITE,   /* 千日手, %SENNICHITE: repetition draw */
    REC_END_JISHOGI,      /* 持将棋, %JISHOGI: impasse draw */
    REC_END_MATE,         /* 詰み, %TSUMI: the side to move is checkmated */
    REC_END_NO_MATE,      /* 不詰, %FUZUMI: (tsume) no mate */
    REC_END_TIME_UP,      /* 切れ負け, %TIME_UP: the side to move lost on time */
    REC_END_ILLEGAL_WIN,  /* 反則勝ち, %+/-ILLEGAL_ACTION by the other side: the side to move wins */
    REC_END_ILLEGAL_LOSS, /* 反則負け, %ILLEGAL_MOVE, %+/-ILLEGAL_ACTION by the side to move: it loses */
    REC_END_KACHI,        /* 入玉勝ち, %KACHI: the side to move declares an impasse win */
    REC_END_DEFAULT_WIN,  /* 不戦勝: the side to move wins by default */
    REC_END_DEFAULT_LOSS, /* 不戦敗: the side to move loses by default */
    REC_END_MAX_MOVES,    /* %MAX_MOVES (手数制限): draw at the move limit */
    REC_END_HIKIWAKE,     /* %HIKIWAKE (引き分け): draw */
    REC_END_MATTA,        /* 待った, %MATTA */
    REC_END_ERROR,        /* %ERROR */
    REC_END_NB
} rec_end_t;

/* Stable machine name of an ending ("resign", "abort", "sennichite", "jishogi", "mate", "no_mate",
 * "time_up", "illegal_win", "illegal_loss", "kachi", "default_win", "default_loss", "max_moves",
 * "hikiwake", "matta", "error", "none"); static storage. */
const char *rec_kifu_end_name(rec_end_t e);

/* Winner implied by ending e with side to move stm: 0 sente, 1 gote, -1 draw or no result. */
int rec_kifu_end_winner(rec_end_t e, rul_color_t stm);

#define REC_TIME_NONE ((int64_t)-1) /* an unknown time */

/* One move of a line. */
typedef struct {
    rul_move_t move;  /* the move as written; may be illegal (see flags) */
    int64_t time_ms;  /* thinking time for this move in milliseconds, REC_TIME_NONE if unknown */
    int64_t total_ms; /* the mover's cumulative time after this move in ms, REC_TIME_NONE if unknown */
    char *comment;    /* owned UTF-8 comment after the move (lines joined by '\n'), NULL if none */
    char *bookmark;   /* owned bookmark name (KIF '&'), NULL if none */
    int flags;        /* REC_MOVE_* bits */
} rec_kifu_move_t;

#define REC_MOVE_ILLEGAL 1 /* the move is not legal in its position (kept as written) */

/* A line of play: the main line (index 0) or a variation that replaces move start_ply of its parent
 * line and continues from there (KIF 変化：N手, JKF forks). */
typedef struct {
    int parent;             /* index of the parent line, -1 for the main line */
    int start_ply;          /* ply number (1 = the record's first move) of moves[0]; the number a move
                               is written with is ply + rec_kifu_start_number() - 1 */
    int nmoves;             /* moves in this line, 0.. */
    int cap;                /* allocated entries of moves */
    rec_kifu_move_t *moves; /* owned array of nmoves moves */
    char *comment;          /* owned comment at a variation's start, before its first move (KIF / KI2
                               "*..." lines after 変化：N手: the KI2 writer's note on a variation that ends
                               before its illegal first move), NULL if none; the main line's is
                               rec_kifu_t.comment. Written back by KIF and KI2, and by JKF on a
                               variation that is only its ending (its special's comments) */
    rec_end_t end;          /* the line's own terminal (the main line's is also in result.end) */
    int64_t end_time_ms;    /* time spent on the terminal (e.g. before resigning), REC_TIME_NONE */
} rec_kifu_line_t;

/* An ordered header key/value pair: any key is kept. Canonical keys are KIF's Japanese names (先手,
 * 後手, 棋戦, 開始日時, 終了日時, 場所, 持ち時間, 秒読み, 手合割, ...); CSA and JKF are mapped onto them. */
typedef struct {
    char *key;   /* owned UTF-8 */
    char *value; /* owned UTF-8 */
} rec_kifu_header_t;

/* A warning: something sloppy that was read anyway. */
typedef struct {
    int line;      /* 1-based input line, 0 when not applicable */
    int column;    /* 1-based column, 0 when not applicable */
    char msg[160]; /* English message */
} rec_kifu_warning_t;

/* The record's result. */
typedef struct {
    rec_end_t end; /* the main line's ending */
    int ply;       /* ply of the terminal (moves played before it + 1), 0 when end is NONE */
    int winner;    /* 0 sente, 1 gote, -1 draw / none / unknown (from the ending and the side to move) */
    char word[48]; /* the record's own terminal text ("投了", "%TORYO", "まで…" not included), "" none */
} rec_kifu_result_t;

/* A game record. Transparent: readers fill it, the recorder builds it with the rec_kifu_* builders
 * below. Free with rec_kifu_free(). */
typedef struct {
    rec_format_t format;          /* format it was read from (REC_FMT_UNKNOWN when built) */
    char start_sfen[160];         /* starting position as SFEN; its 4th field is the number of the record's
                                     first move: 1 for a whole game, 30 for a game taken up before move 30
                                     (USI's SFEN move number, KIF's 手数＝29) */
    int handicap;                 /* rul_handicap_t when the start is a named handicap (RUL_HC_EVEN for the
                                     normal start), -1 for any other position */
    int nheaders, cap_headers;    /* header count and allocation */
    rec_kifu_header_t *headers;   /* owned array, in input order */
    int nlines, cap_lines;        /* lines; lines[0] always exists after rec_kifu_new */
    rec_kifu_line_t *lines;       /* owned array; lines[0] is the main line */
    char *comment;                /* owned comment on the starting position, NULL if none */
    rec_kifu_result_t result;     /* how the main line ends */
    int nwarnings, cap_warnings;  /* warnings */
    rec_kifu_warning_t *warnings; /* owned array */
} rec_kifu_t;

/* Allocates an empty record: normal start position, an empty main line, no headers. NULL on OOM.
 * Caller owns it; free with rec_kifu_free(). */
rec_kifu_t *rec_kifu_new(void);

/* Frees a record and everything it owns. Accepts NULL. */
void rec_kifu_free(rec_kifu_t *k);

/* Sets the start position from SFEN (copied; validated by the SFEN parser; its move number, 1 when
 * absent, is kept as the number of the record's first move) and sets handicap to the matching handicap
 * (the move number aside), or -1. Returns REC_KIFU_OK or REC_KIFU_EPARSE. */
int rec_kifu_set_start(rec_kifu_t *k, const char *sfen);

/* The limit of a record's move numbers is the SFEN reader's, RUL_SFEN_MAX_NUMBER (rules.h): a record
 * whose moves would carry the position past it is refused by every reader (REC_KIFU_EPARSE naming the
 * move's line and column). */

/* The number of the record's first move: start_sfen's move number (SFEN's 4th field), 1..99999999; 1 when
 * k is NULL or its start SFEN is bad. Writers that number moves (KIF, KI2's trailer and 変化, Western,
 * USI's SFEN) start from it; CSA v3.0 and JKF have no field for it (their moves count from 1). */
int rec_kifu_start_number(const rec_kifu_t *k);

/* Header access. get: the value of the first header named key, or NULL (borrowed, valid until the record
 * changes). set: replaces the first header named key or appends one; strings are copied. */
const char *rec_kifu_header_get(const rec_kifu_t *k, const char *key);
int rec_kifu_header_set(rec_kifu_t *k, const char *key, const char *value);

/* Appends move m to line (0 = main line) with its thinking time (ms, or REC_TIME_NONE); the
 * cumulative time is computed from the mover's previous move when known. Returns REC_KIFU_OK,
 * REC_KIFU_EARG for a bad line, REC_KIFU_ENOMEM. The move is not checked here: rec_replay_kifu (replay.h)
 * does. */
int rec_kifu_add_move(rec_kifu_t *k, int line, rul_move_t m, int64_t time_ms);

/* Adds a variation replacing move `ply` of line `parent` (1 <= ply <= parent's last ply + 1, and
 * ply >= parent's start_ply). *out gets its line index. Returns REC_KIFU_OK, REC_KIFU_EARG, ENOMEM. */
int rec_kifu_add_line(rec_kifu_t *k, int parent, int ply, int *out);

/* Sets the main line's ending at the current end of the main line (ply = moves + 1) and computes the
 * winner. word may be NULL (a default word is not stored). */
void rec_kifu_set_result(rec_kifu_t *k, rec_end_t end, const char *word);

/* Appends a warning (message truncated to fit). Returns REC_KIFU_OK or ENOMEM. */
int rec_kifu_warn(rec_kifu_t *k, int line, int column, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Position before ply `ply` of line `line` (ply = start_ply.. start_ply+nmoves; ply 1 = the start),
 * playing the parent lines as needed. Moves are made without legality checks. Returns REC_KIFU_OK,
 * REC_KIFU_EARG (bad line or ply), REC_KIFU_EPARSE (bad start SFEN). */
int rec_kifu_position_at(const rec_kifu_t *k, int line, int ply, rul_pos_t *pos);

/* ---------------------------------------------------------------- reading */

/* Reads a record from raw bytes of any supported format and encoding. fmt REC_FMT_UNKNOWN detects the
 * format from the content. Text encodings: UTF-8 with or without BOM, Shift_JIS (CP932, via iconv),
 * detected from a BOM, an encoding declaration ("#KIF version=2.0 encoding=UTF-8", "'CSA encoding=")
 * or the bytes. Line ends CRLF, LF or CR.
 * On success *out is a new record (caller frees with rec_kifu_free). Illegal moves are kept with
 * REC_MOVE_ILLEGAL (rec_replay_kifu judges them); sloppy input is read with warnings in the record.
 * Errors: REC_KIFU_EPARSE / EMOVE / ENCODING with err (may be NULL) giving line and column, ENOMEM,
 * EARG. *out is NULL on error. */
int rec_kifu_read(const char *data, size_t len, rec_format_t fmt, rec_kifu_t **out, rec_kifu_error_t *err);

/* As rec_kifu_read, and on a parse error (EPARSE / EMOVE / ENCODING) *partial (when not NULL) gets the
 * record read up to the error, for its warnings (what was read leniently before the error); the caller
 * frees it. A format named by the caller (fmt not UNKNOWN) that the content does not hold (nothing read,
 * or no move read from text that looks like another format) is REC_KIFU_EPARSE, not an empty record. */
int rec_kifu_read_keep(const char *data, size_t len, rec_format_t fmt, rec_kifu_t **out,
                       rec_kifu_error_t *err, rec_kifu_t **partial);

/* The most bytes a record file may have (8 MiB: the longest real game is far under 1 MiB). */
#define REC_KIFU_MAX_INPUT (8 << 20)

/* Reads all of path ("-": stdin) into a new NUL-terminated buffer (*buf, caller frees; *len without the
 * NUL): the one input reader of kifucam's commands. Errors: REC_KIFU_EIO with err->msg "is a directory,
 * not a game record", "larger than 8 MiB: not a game record" or the errno text (the path is not in the
 * message: the caller names it), REC_KIFU_ENOMEM, REC_KIFU_EARG. */
int rec_kifu_slurp(const char *path, char **buf, size_t *len, rec_kifu_error_t *err);

/* Reads a file (see rec_kifu_read and rec_kifu_slurp); fmt REC_FMT_UNKNOWN detects from the content.
 * path "-" is stdin. Errors as rec_kifu_read, plus REC_KIFU_EIO. */
int rec_kifu_read_file(const char *path, rec_format_t fmt, rec_kifu_t **out, rec_kifu_error_t *err);

/* ---------------------------------------------------------------- writing */

/* Writes record k in format fmt as UTF-8 text into a new buffer: *out (NUL-terminated, caller frees
 * with free()), *len its length without the NUL. KIF and KI2 write variations; CSA, USI and Western
 * write the main line only. An illegal move is written as it is (KIF, CSA, JKF and USI by its origin,
 * Western with its origin: "P7g-6f"), except in KI2, which cannot state it: there its line ends before
 * it (see rec_kifu_write_cuts). Errors: REC_KIFU_EARG (unknown format), ENOMEM, EPARSE (bad start SFEN),
 * EMOVE (a move that cannot be made at all: no piece of the mover's on its origin, a drop not in hand). */
int rec_kifu_write(const rec_kifu_t *k, rec_format_t fmt, char **out, size_t *len, rec_kifu_error_t *err);

/* What writing k in fmt leaves out. KI2 cannot state an illegal move (docs/formats.md): its writer
 * ends each line before the line's first illegal move, with the mover's loss ("まで0手で先手の反則負け",
 * FESA 9.4) and a comment naming the move in KIF notation ("1手目の▲６六歩(77)は反則手（指せない手）",
 * "以降の3手は省略"); variations that branch at or after it are not written. Every other format keeps
 * illegal moves.
 * Returns the number of lines so ended or left out (0 for every format but KI2, or no illegal move) and
 * fills msg (size >= 512 to hold it whole; "" when 0) with one English sentence naming the first:
 * "move 1 ▲６六歩(77) (7g6f) is illegal (not_a_legal_move) and KI2 cannot state its origin: ...; 3 later
 * moves left out (KIF, CSA, JKF, USI and Western keep them)". A move's number is as written (KIF's). */
int rec_kifu_write_cuts(const rec_kifu_t *k, rec_format_t fmt, char *msg, size_t size);

/* Writes k to path in fmt (REC_FMT_UNKNOWN: from the extension); "-" is stdout. .kif and .ki2 are
 * written in Shift_JIS (CP932) as Kakinoki's spec says, every other extension in UTF-8. A regular file
 * is replaced atomically (written to PATH.tmp, or PATH.tmp.1 .. .9 when that name is taken: no file is
 * overwritten, then renamed); a device, FIFO or symbolic link at path is written into, not replaced; a
 * read-only file or a directory is an error. Errors as rec_kifu_write, plus EIO (the reason in err)
 * and ENCODING (text with no CP932 form). */
int rec_kifu_write_file(const rec_kifu_t *k, const char *path, rec_format_t fmt, rec_kifu_error_t *err);

/* ---------------------------------------------------------------- notation helpers */

/* Writes move m, played in pos, in Western (Hodges) notation into buf (size >= 16): "P-7f", "Bx2b+",
 * "N*5e", "S-4h=" (promotion declined), with the origin ("G6i-5h") when another piece of the kind
 * could reach the square, and always for an illegal move ("P7g-6f": without it a reader would take the
 * legal P6g-6f). Returns REC_KIFU_OK or REC_KIFU_EARG (m cannot be made at all in pos). */
int rec_kifu_move_to_western(const rul_pos_t *pos, rul_move_t m, char *buf, size_t size);

/* Writes move m, played in pos, in KI2 notation without the ▲/△ mark ("７六歩", "同　銀", "５二金右",
 * "３三角打", "２二角成", "２二角不成") into buf (size >= 64). prev_to is the previous move's
 * destination (0..80) or -1. Returns REC_KIFU_OK, REC_KIFU_EARG (bad arguments, m cannot be made at
 * all) or REC_KIFU_EMOVE (m is illegal: KI2 names no origin, so its text would name another move or
 * none; see rec_kifu_write_cuts). */
int rec_kifu_move_to_ki2(const rul_pos_t *pos, rul_move_t m, int prev_to, char *buf, size_t size);

/* Date and time of a header value ("2021/10/16 09:00", "2021/10/16 09:00:00", "2008/12/20(土)",
 * "2021-10-16T09:00:00"). Fields not given are -1. Returns REC_KIFU_OK or REC_KIFU_EPARSE. */
typedef struct {
    int year, month, day, hour, minute, second;
} rec_kifu_datetime_t;
int rec_kifu_parse_datetime(const char *s, rec_kifu_datetime_t *dt);

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_KIFU_H */
