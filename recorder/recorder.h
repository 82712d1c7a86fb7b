/* recorder.h - what every room of the recorder (kifu, tracker, output, record, cli) shares: one set of
 * error codes with rec_strerror, and the error detail of text input.
 *
 * Every recorder function returns REC_OK (0) or a negative code below; results come through
 * out-parameters. The kifu readers and writers return the REC_KIFU_* codes (with a rec_kifu_error_t
 * naming line and column, kifu.h); every other room returns the REC_E* codes.
 */
#ifndef KIFUCAM_RECORDER_RECORDER_H
#define KIFUCAM_RECORDER_RECORDER_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
    REC_OK = 0,
    REC_EPARSE = -1,   /* malformed text (bad SFEN, bad USI move, unknown command word) */
    REC_EINVALID = -2, /* a start position that breaks the rules (rul_pos_validate, FESA 9.1 / 9.4) */
    REC_EFULL = -3,    /* more moves than a game can hold (RUL_GAME_MAX_PLY) */
    REC_ERANGE = -4,   /* a NULL or out-of-range argument, or a write that failed */
    REC_ENOMEM = -5,   /* allocation failed */
    REC_ESTATE = -6,   /* the command does not fit the state (no game in progress, game already over) */
    REC_EIO = -7,      /* a file could not be written or read (the message has errno's text) */
    REC_ESOURCE = -8,  /* the video source cannot be opened or fails for good (the message says why) */
    REC_ENOBOARD = -9, /* the source ended and no board was found in any frame */
    REC_EMODEL = -10,  /* the square classifier cannot be loaded */
    REC_EVISION = -11, /* vision failed (an OpenCV error) */

    REC_KIFU_OK = 0,
    REC_KIFU_EPARSE = -101,   /* malformed record: the error names line and column */
    REC_KIFU_ENCODING = -102, /* bytes that are neither UTF-8 nor Shift_JIS (CP932) */
    REC_KIFU_ENOMEM = -103,   /* out of memory */
    REC_KIFU_EIO = -104,      /* a file could not be read or written (errno in the message) */
    REC_KIFU_EARG = -105,     /* a bad argument (unknown format, NULL pointer, line index out of range) */
    REC_KIFU_EMOVE = -106,    /* a move that cannot be found in the position (KI2 / Western reading) */
};

/* The name of a return code ("REC_EPARSE", "REC_KIFU_EIO", ...), for logs; "REC_E?" for any other
 * value. Never NULL. */
const char *rec_strerror(int rc);

/* Error detail for text input: "column 57: bad move '7g7z': ...". */
typedef struct {
    char msg[256]; /* NUL-terminated English message, one line, empty when none */
    int column;    /* 1-based column of the offending token in the input line, 0 when not applicable */
} rec_error_t;

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_RECORDER_RECORDER_H */
