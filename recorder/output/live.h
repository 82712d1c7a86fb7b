/* live.h - the live feed of `kifucam record --live [ADDR:]PORT`: a small HTTP server (libmicrohttpd, its own
 * threads) that a broadcaster's page or a viewer's browser reads while the game is played. Read only:
 * nothing is ever written through it. What the page shows: docs/recording.md.
 *
 *   GET /                 the live page (self-contained HTML: board, hands, moves, state), updating
 *                         itself by long-polling /state.json
 *   GET /state.json       the game now (below); ?since=N waits up to 20 s for a version after N
 *   GET /game.kif .ki2 .csa .jkf .usi, /events.jsonl, /review.html
 *                         the recording's files as they are on disk (written atomically by output.h)
 *   GET /evidence/NNNN-before.jpg, NNNN-after.jpg      evidence frames
 * Anything else is 404; methods other than GET and HEAD are 405.
 *
 * state.json (UTF-8, one object): {"version": N (grows by one each publish), "game": n (1-based, 0
 * before the first game), "state": "waiting" (before the first publish) |"setup"|"playing"|"ended",
 * "view": what the camera sees ("searching for the board", "hand in view", "stable", "lost", ...),
 * "sfen": the position now ("" before the first game: no position was seen), "ply": moves made, "moves":
 * [{"ply", "usi", "move" (Western notation), "time_ms" (thinking time, ms), "late", "illegal"}] (moves,
 * illegal moves and a king capture of this game), "last_event": {"type", "detail"} or null,
 * "result": the game_end detail or null, "uncertain": the number of uncertain events of this game,
 * "ended": why the recording ended ("source ended", ...; rec_live_end) or null while it goes on}.
 *
 * Errors: REC_OK or a negative REC_E* code (recorder/tracker/tracker.h); err buffers (errlen bytes,
 * may be NULL) get one line. */
#ifndef KIFUCAM_LIVE_H
#define KIFUCAM_LIVE_H

#include <stddef.h>

#include "recorder/tracker/tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rec_live rec_live_t; /* opaque: the server, its state document and its lock */

/* Starts serving on TCP port (1..65535; 0 = any free port, see rec_live_port) of the address addr, an
 * IPv4 or IPv6 literal ("0.0.0.0" or "::": every interface; NULL: "127.0.0.1", this machine only);
 * dir is the recording's output folder whose files it serves (the string is copied). state.json says
 * "state": "waiting" until the first rec_live_publish. On success *out is a new handle, freed with
 * rec_live_close. Errors: REC_ERANGE (port out of range, addr no IP literal, NULL out or dir), REC_EIO
 * (cannot be bound: in use, no such local address, no permission; err says so), REC_ENOMEM. */
int rec_live_open(const char *addr, int port, const char *dir, rec_live_t **out, char *err, size_t errlen);

/* The TCP port served (the one chosen when opened with 0); 0 for NULL. */
int rec_live_port(const rec_live_t *l);

/* The address the feed is bound to as a URL ("http://127.0.0.1:8765/", "http://[::1]:8765/"), read
 * from its socket, into buf (size bytes, NUL-terminated, cut if too small). Returns its full length, 0
 * for NULL l or when the socket cannot say. */
size_t rec_live_url(const rec_live_t *l, char *buf, size_t size);

/* Rebuilds state.json from the tracker's current game (its events) and view (a short text such as
 * "stable"; NULL: "unknown"), bumps the version and wakes the waiting long-polls. Thread-safe against
 * the server's threads; t is only read during the call. Errors: REC_ERANGE (NULL l or t), REC_ENOMEM
 * (the previous state stays). */
int rec_live_publish(rec_live_t *l, const rec_trk_t *t, const char *view);

/* The recording has ended (why: "source ended", "stopped", ...; copied): publishes t's game once more
 * with "ended": why (the page says "recording ended: why" and stops polling). Errors: as
 * rec_live_publish, REC_ERANGE for a NULL why. */
int rec_live_end(rec_live_t *l, const rec_trk_t *t, const char *why);

/* The current state.json text, copied into buf (size bytes, NUL-terminated, cut if too small; size 0:
 * nothing written). Returns its full length in bytes, 0 for NULL l. Thread-safe. For tests and logs. */
size_t rec_live_state(rec_live_t *l, char *buf, size_t size);

/* Stops the server (waits for its threads; long-polls are answered at once) and frees l. NULL is
 * allowed. */
void rec_live_close(rec_live_t *l);

#ifdef __cplusplus
}
#endif

#endif /* KIFUCAM_LIVE_H */
