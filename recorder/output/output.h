/* output.h - the files of `kifucam record`: events.jsonl, evidence JPEGs, the kifu of every game in
 * five formats (KIF, KI2, CSA, JKF, USI), review.html; and --resume from events.jsonl. Reads the
 * tracker's event log; the tracker never calls back into this module. The files and their formats:
 * docs/recording.md; how they are written: docs/recorder.md.
 *
 * Errors: REC_OK or a negative REC_E* code (recorder/tracker/tracker.h); err buffers (errlen bytes,
 * may be NULL or 0) get one line. A handle is used from one thread at a time.
 */
#ifndef KIFUCAM_OUTPUT_H
#define KIFUCAM_OUTPUT_H

#include "recorder/kifu/kifu.h"
#include "recorder/tracker/tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rec_out rec_out_t; /* opaque: one output folder */

/* Opens an output folder: creates dir and dir/evidence (as mkdir -p). The folder may already hold files
 * of an earlier recording; events.jsonl is appended to (rec_out_resume continues one; refusing a
 * folder that holds a recording is the caller's). jpeg_quality: 1..100 for evidence frames (0: 85).
 * On success *out is a new handle freed with rec_out_close. Errors: REC_ERANGE (NULL, quality out of
 * range, dir of 3000 bytes or more), REC_EIO (a folder cannot be made; err names it), REC_ENOMEM. */
int rec_out_open(const char *dir, int jpeg_quality, rec_out_t **out, char *err, size_t errlen);

/* Writes what t added since the last call: appends each new event to events.jsonl (one JSON object a
 * line, fsync'd), evidence JPEGs when obs carries an image (named by rec_out_evidence_name: "before" is the
 * last stable frame before the event, "after" obs's frame), rewrites game.kif .ki2 .csa .jkf .usi of the
 * current game when it changed (game2.kif ... for later games; each file written to a temporary, fsync'd,
 * renamed, the folder fsync'd) and review.html. Call it after every rec_trk_feed / rec_trk_command with the
 * same obs (NULL for a command). obs's pixels are copied when needed; nothing of obs is kept. Errors: REC_EIO
 * (rec_out_errmsg says which file; an evidence JPEG is not an error: rec_out_warning), REC_ENOMEM,
 * REC_ERANGE. */
int rec_out_update(rec_out_t *o, const rec_trk_t *t, const rec_obs_t *obs);

/* The name of event e's evidence frame, relative to the output folder; which: "before" or "after".
 * Moves by number: "evidence/move-037-after.jpg" (game 1), "evidence/game2-move-005-before.jpg"
 * (later games); any other event by its seq and type: "evidence/event-0038-uncertain-after.jpg".
 * Written to buf (len bytes, 64 is enough; cut if shorter). */
void rec_out_evidence_name(const rec_trk_event_t *e, const char *which, char *buf, size_t len);

/* The last error message of o ("" if none). Borrowed until the next call on o. */
const char *rec_out_errmsg(const rec_out_t *o);

/* An evidence JPEG that cannot be written (a full disk, the evidence folder gone) does not fail
 * rec_out_update: the event is logged without that frame's name. The first such failure after frames
 * were written is a warning, returned once by this ("" when none is pending): "evidence frames cannot
 * be written (PATH: reason); the record goes on without them". Borrowed until the next call on o. */
const char *rec_out_warning(rec_out_t *o);

/* Events of events.jsonl that reached the log (the tracker's first rec_out_logged events): after
 * rec_out_update failed (a full disk) these stand, the rest were not written. */
int rec_out_logged(const rec_out_t *o);

/* After rec_out_resume, while the source replays what is already recorded: writes img, the frame
 * whose evidence_ref is ref, as every evidence frame of t's logged events that names ref
 * (ref_before, ref_after) and is missing from evidence/ (a disk that was full when it was made), and
 * rewrites review.html when it wrote any. The events.jsonl lines stay as they were. Returns how many
 * frames it wrote (0: none wanted this one), or REC_EIO (rec_out_errmsg says why; the frame stays
 * missing), REC_ENOMEM, REC_ERANGE (NULL). */
int rec_out_refill(rec_out_t *o, const rec_trk_t *t, const char *ref, const cap_image_t *img);

/* Frees o; NULL accepted. Files written stay. */
void rec_out_close(rec_out_t *o);

/* Continues a recording after a crash: reads dir/events.jsonl (a last line cut short by the crash is
 * ignored), creates a tracker with params and start (as rec_trk_create) and re-applies every event
 * (rec_trk_apply), so that no recorded move is lost and none is invented; then opens dir for output
 * (the files of the current game are rewritten from the log). On success *trk and *out are new
 * handles (the caller frees both). Errors: REC_EIO (no events.jsonl or unreadable), REC_EPARSE (a
 * line that is not an event; err names the line number), REC_ESTATE (an event the game refuses),
 * REC_ENOMEM; err (errlen bytes, may be NULL) says why. */
int rec_out_resume(const char *dir, const rec_trk_params_t *params, const rul_pos_t *start, rec_trk_t **trk,
                   rec_out_t **out, char *err, size_t errlen);

/* Who plays where: the game's metadata, written into every kifu file's headers (KIF 棋戦 場所 回戦 盤番号
 * 先手 後手; CSA $EVENT $SITE N+ N- and the others as comments; JKF "header"; USI "# KEY：VALUE" lines)
 * and kept in OUT/meta.json so that --resume and the MQTT publisher (mqtt.h) find it. Each field is
 * UTF-8 text, "" when not given; rec_out_meta_check says whether a value can be written. */
#define REC_META_LEN 200
typedef struct {
    char event[REC_META_LEN + 1]; /* the tournament (棋戦) */
    char site[REC_META_LEN + 1];  /* the venue (場所) */
    char round[REC_META_LEN + 1]; /* the round ("3", "final") */
    char board[REC_META_LEN + 1]; /* the board number or name ("12") */
    char sente[REC_META_LEN + 1]; /* sente's (black's) name */
    char gote[REC_META_LEN + 1];  /* gote's (white's) name */
} rec_out_meta_t;

/* 0 if value can be a metadata field: at most REC_META_LEN bytes of UTF-8 with no control character
 * and with a Shift_JIS (CP932) form (the .kif and .ki2 files are Shift_JIS); otherwise -1 and why
 * (size bytes, may be NULL) gets the reason ("has a control character", ...). */
int rec_out_meta_check(const char *value, char *why, size_t size);

/* 1 if no field of m is given (m NULL too). */
int rec_out_meta_empty(const rec_out_meta_t *m);

/* Reads dir/meta.json into *m (fields absent there are ""). Returns REC_OK, REC_EIO (no such file),
 * REC_EPARSE (not a metadata object, or a field that fails rec_out_meta_check). */
int rec_out_meta_load(const char *dir, rec_out_meta_t *m);

/* Sets o's metadata (copied): the given fields of m replace o's (a "" field keeps what o has, from
 * meta.json after a resume), then meta.json is written (atomically, fsync'd) and every game's kifu is
 * rewritten at the next rec_out_update. Errors: REC_ERANGE (NULL, a field failing the check), REC_EIO. */
int rec_out_set_meta(rec_out_t *o, const rec_out_meta_t *m);

/* o's metadata now (borrowed; all "" when none was set). NULL for NULL o. */
const rec_out_meta_t *rec_out_meta(const rec_out_t *o);

/* Builds the kifu record of game `game` (1-based) from t's events: start position, every move and
 * illegal move (REC_MOVE_ILLEGAL, with a comment), times, the result. A move the formats cannot hold
 * (a move by the wrong side, a king capture) ends the record with the illegal-move result; the events
 * keep the rest. On success *out is a new record (free with rec_kifu_free). Errors: REC_ERANGE (no
 * such game), REC_ENOMEM. */
int rec_out_build_kifu(const rec_trk_t *t, int game, rec_kifu_t **out);

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_OUTPUT_H */
