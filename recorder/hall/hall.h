/* hall.h - a tournament hall on an MQTT broker (libmosquitto): each `kifucam record --mqtt URL`
 * publishes its board (rec_pub_*), `kifucam hall` reads every board back. The topics, under the URL's
 * PREFIX, for board B (letters, digits, '-', '_', '.'; at most 64 bytes):
 *
 *   PREFIX/board/B/state   retained, QoS 1: the board now, one JSON object (below)
 *   PREFIX/board/B/event   QoS 1: each events.jsonl line as it is on disk, in order; its "seq" (1, 2,
 *                          ...) makes it idempotent: a reader drops a seq it has seen
 *   PREFIX/board/B/kif .csa .jkf   retained, QoS 1: the current game's kifu files as written on disk
 *   PREFIX/board/B/status  retained, QoS 1: {"board", "online": true | false}: true on each connection,
 *                          false on a clean stop (rec_pub_close) and as the connection's last will, which
 *                          the broker publishes for a recorder that died or was silent for 1.5 keepalives
 *                          (KIFUCAM_MQTT_KEEPALIVE seconds, 5 to 600, default 30)
 *
 * state: {"board", "seq" (the last event's seq published, 0 none), "game", "status": "waiting" |
 * "playing" | "hand in view" | "camera lost" | "uncertain" | "illegal move" | "ended", "view" (the
 * camera's view), "sfen", "ply" (moves made), "last_move": {"ply", "usi", "notation", "mover"} or
 * null, "moves": [{"usi", "notation", "time_ms"}], "result" (the game_end detail) or null, "meta":
 * {"event", "site", "round", "board", "sente", "gote"}, "time": unix seconds of the publish}.
 *
 * The events log on disk stays the source of truth: the publisher tails DIR/events.jsonl; while the
 * broker is away nothing is lost or blocks the recording, and once it is back every line not yet
 * acknowledged (PUBACK) is published again, in order (a reader may see a seq twice, never a gap).
 * Credentials never come from the command line: KIFUCAM_MQTT_USER and KIFUCAM_MQTT_PASSWORD, or
 * KIFUCAM_MQTT_CREDENTIALS naming a file whose first line is "user:password". mqtts:// uses TLS with
 * the system's CA certificates (KIFUCAM_MQTT_CAFILE: another CA file).
 *
 * Errors: REC_OK or a negative REC_E* code (recorder/recorder.h); err buffers get one line. */
#ifndef KIFUCAM_HALL_H
#define KIFUCAM_HALL_H

#include <stddef.h>
#include <stdio.h>

#include "recorder/output/output.h"
#include "recorder/tracker/tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REC_HALL_BOARD_MAX 64 /* bytes of a board id */

/* An MQTT URL taken apart: mqtt://HOST[:PORT][/PREFIX] or mqtts://... (PORT default 1883 / 8883;
 * PREFIX default "kifucam", without leading or trailing '/', no '+' or '#'). */
typedef struct {
    char host[256];
    int port;
    int tls;
    char prefix[256];
} rec_mqtt_url_t;

/* Parses url into *u. REC_OK, or REC_EPARSE with why (size bytes) saying what is wrong. */
int rec_mqtt_url_parse(const char *url, rec_mqtt_url_t *u, char *why, size_t size);

/* url as an error line may show it: a user and password before '@' become "***". Writes at most size
 * bytes (cut, NUL-ended) to buf and returns buf; "" for a NULL url. */
const char *rec_mqtt_url_shown(const char *url, char *buf, size_t size);

/* What a libmosquitto error code rc means, in words a user acts on: a host name that does not
 * resolve, the system's errno text for MOSQ_ERR_ERRNO, else libmosquitto's own. Static text. */
const char *rec_mqtt_strerror(int rc);

/* 0 if board can name a board in topics and URLs (REC_HALL_BOARD_MAX, the characters above), else -1. */
int rec_hall_board_check(const char *board);

/* The user and password from the environment (see above) into user and pass (each size bytes; ""
 * for none). REC_OK, or REC_EIO with why (a credentials file that cannot be read or has no ':'). */
int rec_mqtt_credentials(char *user, char *pass, size_t size, char *why, size_t whysize);

typedef struct rec_pub rec_pub_t; /* opaque: one board's publisher, its client thread and lock */

/* Starts publishing the recording in dir (its events.jsonl and kifu files) as board meta->board to the
 * broker at url. The broker need not be up: the client connects and reconnects by itself (1 to 5 s
 * apart). On success *out is a new handle (rec_pub_close). Errors: REC_EPARSE (bad url, a board id
 * that rec_hall_board_check refuses or none), REC_EIO (credentials), REC_ENOMEM. */
int rec_pub_open(const char *url, const char *dir, const rec_out_meta_t *meta, rec_pub_t **out, char *err,
                 size_t errlen);

/* Publishes what changed since the last call: the new lines of events.jsonl (after rec_out_update wrote
 * them), the state when t's events or view changed, the kifu files when a game's moves changed; when
 * the connection came back, everything not acknowledged. Never blocks on the network. t may be NULL
 * (no game yet); view: the camera's view ("stable", "hand in view", "camera lost", ...; NULL
 * "waiting"). Errors: REC_ERANGE (NULL p), REC_ENOMEM. */
int rec_pub_update(rec_pub_t *p, const rec_trk_t *t, const char *view);

/* Counters, for the tests and the log: lines of events.jsonl published (again after a reconnect:
 * counted again), acknowledged (seq of the last line acknowledged with every one before it), whether
 * connected now, connections made, and why the broker refused the last login ("" if it did not:
 * libmosquitto's CONNACK text, e.g. "Connection Refused: not authorised."). */
typedef struct {
    int published;
    int acked_seq;
    int connected;
    int connects;
    char refused[80];
} rec_pub_stats_t;
void rec_pub_stats(rec_pub_t *p, rec_pub_stats_t *st);

/* Waits up to timeout_ms for every line of events.jsonl read so far to be acknowledged (the end of a
 * recording); when connected, publishes the status offline and waits up to 1 s for its PUBACK; then
 * disconnects, stops the client thread and frees p. NULL allowed. Returns 1 if every
 * line was acknowledged, 0 if not (they are in events.jsonl; the next run publishes them). */
int rec_pub_close(rec_pub_t *p, int timeout_ms);

/* ---- the hall: `kifucam hall` */

typedef struct rec_hall rec_hall_t; /* opaque: the subscriber, the boards, the HTTP server */

/* Connects to the broker at url (credentials as above), subscribes to PREFIX/board/+/+ (the retained
 * states, statuses and kifu files rebuild every board at once), and serves on bind_addr (IPv4; NULL:
 * 127.0.0.1) port (0: any free one, rec_hall_port). Every state served carries the hall's "offline":
 * true when the board's last status said online false (its position and moves kept). Read only:
 *   /                       the tournament page: every board as a small diagram, names, move number,
 *                           last move and a status badge; a board that needs an arbiter (uncertain,
 *                           illegal move, camera lost) stands out; updated by /events
 *   /boards.json            {"version", "boards": [state, ...]} in board order
 *   /events                 server-sent events: first data: {"n":N}, then each board's change as
 *                           id: N and data: its state without "moves" (the tournament card); a stream
 *                           more than 4096 changes behind gets {"n":N,"reload":true}
 *   /board/B                the board's page: board, hands, moves, clocks from the move times
 *   /board/B/state.json     its state; /board/B/game.kif .csa .jkf: its current game's files
 *   /round/R/games.kif .csa .jkf   the current game of every board whose state's meta.round is R, in
 *                           board order: KIF files one after another, CSA files separated by a "/"
 *                           line, JKF files as one JSON array (R checked as a board id)
 * Anything else is 404 (a board id is checked by rec_hall_board_check: no "..", no '/', at most 64
 * bytes; a URL over 200 bytes is 404); other methods 405. Messages that are not the publisher's
 * (another prefix, a bad board id, not JSON, a state or status naming another board, an older seq) are
 * dropped with a line on log (the first 20, then every 100th). log may be NULL. On success *out is a new
 * handle. Errors: REC_EPARSE (url, bind_addr), REC_EIO (the broker cannot be reached, does not answer the
 * login in 10 s or refuses it: err has its reason; the port cannot be bound), REC_ENOMEM. */
int rec_hall_open(const char *url, const char *bind_addr, int port, FILE *log, rec_hall_t **out, char *err,
                  size_t errlen);

/* The TCP port served; 0 for NULL. */
int rec_hall_port(const rec_hall_t *h);

/* Boards with a state. Thread-safe. */
int rec_hall_nboards(rec_hall_t *h);

/* Takes one message as if it came from the broker (the subscriber's callback; the tests and the fuzz
 * target feed it directly): 0 taken, -1 refused (logged). Thread-safe. */
int rec_hall_take_message(rec_hall_t *h, const char *topic, const void *payload, size_t len);

/* A hall that only takes messages (no broker, no HTTP server) for url's prefix: rec_hall_take_message
 * and rec_hall_nboards work on it (the fuzz target). NULL for a bad url or out of memory. */
rec_hall_t *rec_hall_new_offline(const char *url);

/* Stops serving (open SSE streams end), disconnects, frees h. NULL allowed. */
void rec_hall_close(rec_hall_t *h);

#ifdef __cplusplus
}
#endif
#endif /* KIFUCAM_HALL_H */
