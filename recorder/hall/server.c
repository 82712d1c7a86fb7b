/* server.c - `kifucam hall` (hall.h, rec_hall_*): subscribes to every board of a prefix on the broker,
 * keeps each board's last state and kifu files (rebuilt from the retained messages after a restart),
 * and serves the tournament page, the board pages, the kifu files and server-sent events with
 * libmicrohttpd. Read only. The broker's callbacks and the HTTP threads share the boards under mu. */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#include <microhttpd.h>
#include <mosquitto.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/hall/hall.h"
#include "recorder/hall/hall_internal.h"

#define KIFU_MAX (1 << 20) /* bytes of one kifu file kept */
#define SSE_BEAT_S 15      /* an SSE comment this often keeps proxies from closing a quiet stream */
#define TRIM_S 30          /* seconds between two malloc_trim calls while messages come */
#define CHANGES 4096       /* the last state changes kept for the SSE streams; one further behind reloads */

typedef struct {
    char id[REC_HALL_BOARD_MAX + 1];
    char *state;      /* the last state document (JSON) with the hall's "offline", NULL before one */
    long long seq;    /* its seq; an older state is ignored */
    long long ev_seq; /* highest event seq seen */
    int ev_dup;       /* events seen again (QoS 1 repeats), dropped */
    char *kifu[3];    /* kif, csa, jkf as published */
    size_t kifu_len[3];
    char round[REC_HALL_BOARD_MAX + 1]; /* the state's meta.round, "" none */
    int offline;                        /* 1: its recorder's last status said offline (its will) */
} board_t;

struct rec_hall {
    struct mosquitto *m;
    struct MHD_Daemon *d;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rec_mqtt_url_t url;
    board_t *b; /* sorted by id */
    int nb, capb;
    unsigned long long version; /* grows on every change */
    int closing, port, started;
    FILE *log;
    unsigned long refused; /* messages refused (logged: the first 20, then every 100th) */
    int connack;           /* the broker's answer to the last login (0 taken), -1 before one (under mu) */
    int opened;            /* rec_hall_open has returned it (under mu) */
    char **change;         /* change n's SSE data (the card: a state without its moves) at n % CHANGES */
    unsigned long long nchanges; /* state changes so far */
    time_t trimmed;              /* when on_message last gave the freed heap back (broker thread only) */
};

static const char *const KIFU_EXT[3] = {"kif", "csa", "jkf"};

static void logf_(rec_hall_t *h, const char *fmt, ...) {
    if (h->log == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("kifucam hall: ", h->log);
    vfprintf(h->log, fmt, ap);
    fputc('\n', h->log);
    fflush(h->log);
    va_end(ap);
}

static void refuse(rec_hall_t *h, const char *topic, const char *why) {
    h->refused++;
    if (h->refused <= 20 || h->refused % 100 == 0)
        logf_(h, "message refused (%lu so far): topic '%.120s': %s", h->refused, topic, why);
}

/* The board named id, made if new; NULL out of memory. Under mu. */
static board_t *board_get(rec_hall_t *h, const char *id) {
    int lo = 0, hi = h->nb;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = strcmp(h->b[mid].id, id);
        if (c == 0)
            return &h->b[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (h->nb == h->capb) {
        int cap = h->capb ? 2 * h->capb : 64;
        board_t *n = realloc(h->b, (size_t)cap * sizeof *n);
        if (n == NULL)
            return NULL;
        h->b = n;
        h->capb = cap;
    }
    memmove(h->b + lo + 1, h->b + lo, (size_t)(h->nb - lo) * sizeof *h->b);
    memset(&h->b[lo], 0, sizeof h->b[lo]);
    snprintf(h->b[lo].id, sizeof h->b[lo].id, "%s", id);
    h->b[lo].seq = -1;
    h->nb++;
    return &h->b[lo];
}

/* Makes o (a state, taken) board b's state with the hall's "offline" field, and its card (the state
 * without its moves) the next SSE change. 0, or -1 out of memory (b unchanged). Under mu. */
static int board_render(rec_hall_t *h, board_t *b, json_t *o) {
    json_object_set_new(o, "offline", json_boolean(b->offline));
    char *text = json_dumps(o, JSON_COMPACT);
    if (text == NULL)
        return -1;
    json_t *c = json_object();
    static const char *const CARD[] = {"board", "seq",       "game",   "status", "view", "sfen",
                                       "ply",   "last_move", "result", "meta",   "time", "offline"};
    for (size_t i = 0; c && i < sizeof CARD / sizeof CARD[0]; i++)
        if (json_object_get(o, CARD[i]))
            json_object_set(c, CARD[i], json_object_get(o, CARD[i]));
    char *card = c ? json_dumps(c, JSON_COMPACT) : NULL;
    json_decref(c);
    free(b->state);
    b->state = text;
    if (h->change && card) {
        char **slot = &h->change[++h->nchanges % CHANGES];
        free(*slot);
        *slot = card;
    } else
        free(card);
    h->version++;
    pthread_cond_broadcast(&h->cv);
    return 0;
}

/* A status message o (taken; NULL: not JSON) on board id's topic: {"board": id, "online": true|false}.
 * The board's state keeps its position and moves; only its "offline" changes. */
static int take_status(rec_hall_t *h, const char *topic, const char *id, json_t *o) {
    json_t *online = o ? json_object_get(o, "online") : NULL, *board = o ? json_object_get(o, "board") : NULL;
    if (o == NULL || !json_is_object(o) || !json_is_boolean(online) || !json_is_string(board) ||
        strcmp(json_string_value(board), id) != 0) {
        json_decref(o);
        refuse(h, topic, "a status whose board is not the topic's, or without online true or false");
        return -1;
    }
    int offline = json_is_false(online);
    json_decref(o);
    pthread_mutex_lock(&h->mu);
    board_t *b = board_get(h, id);
    if (b && b->offline != offline) {
        b->offline = offline;
        json_t *st = b->state ? json_loads(b->state, 0, NULL) : NULL;
        if (st)
            board_render(h, b, st);
        json_decref(st);
    }
    pthread_mutex_unlock(&h->mu);
    return b ? 0 : -1;
}

int rec_hall_take_message(rec_hall_t *h, const char *topic, const void *payload, size_t len) {
    size_t pl = strlen(h->url.prefix);
    char id[REC_HALL_BOARD_MAX + 1];
    if (strncmp(topic, h->url.prefix, pl) != 0 || strncmp(topic + pl, "/board/", 7) != 0) {
        refuse(h, topic, "not under PREFIX/board/");
        return -1;
    }
    const char *p = topic + pl + 7, *slash = strchr(p, '/');
    if (slash == NULL || (size_t)(slash - p) > REC_HALL_BOARD_MAX) {
        refuse(h, topic, "no board id, or one over 64 bytes");
        return -1;
    }
    memcpy(id, p, (size_t)(slash - p));
    id[slash - p] = '\0';
    const char *kind = slash + 1;
    if (rec_hall_board_check(id) != 0) {
        refuse(h, topic, "a board id that is not letters, digits, '-', '_', '.'");
        return -1;
    }
    int k = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(kind, KIFU_EXT[i]) == 0)
            k = i;
    if (k >= 0) {
        if (len > KIFU_MAX) {
            refuse(h, topic, "a kifu file over 1 MiB");
            return -1;
        }
        char *copy = malloc(len + 1);
        if (copy == NULL)
            return -1;
        memcpy(copy, payload, len);
        copy[len] = '\0';
        pthread_mutex_lock(&h->mu);
        board_t *b = board_get(h, id);
        if (b) {
            free(b->kifu[k]);
            b->kifu[k] = copy;
            b->kifu_len[k] = len;
            h->version++;
            pthread_cond_broadcast(&h->cv);
        } else
            free(copy);
        pthread_mutex_unlock(&h->mu);
        return b ? 0 : -1;
    }
    int is_status = strcmp(kind, "status") == 0;
    if (strcmp(kind, "state") != 0 && strcmp(kind, "event") != 0 && !is_status) {
        refuse(h, topic, "not state, event, status, kif, csa or jkf");
        return -1;
    }
    json_error_t je;
    json_t *o = json_loadb(payload, len, JSON_REJECT_DUPLICATES, &je);
    if (is_status)
        return take_status(h, topic, id, o);
    json_t *seq = o ? json_object_get(o, "seq") : NULL;
    if (o == NULL || !json_is_object(o) || !json_is_integer(seq) || json_integer_value(seq) < 0) {
        json_decref(o);
        refuse(h, topic, "not a JSON object with an integer seq");
        return -1;
    }
    long long s = json_integer_value(seq);
    int is_state = kind[0] == 's';
    if (is_state &&
        (!json_is_string(json_object_get(o, "board")) ||
         strcmp(json_string_value(json_object_get(o, "board")), id) != 0 ||
         !json_is_string(json_object_get(o, "sfen")) || !json_is_string(json_object_get(o, "status")))) {
        json_decref(o);
        refuse(h, topic, "a state whose board is not the topic's, or without sfen and status");
        return -1;
    }
    const char *rnd = json_string_value(json_object_get(json_object_get(o, "meta"), "round"));
    char round[REC_HALL_BOARD_MAX + 1] = "";
    if (rnd && strlen(rnd) <= REC_HALL_BOARD_MAX)
        snprintf(round, sizeof round, "%s", rnd);
    pthread_mutex_lock(&h->mu);
    board_t *b = board_get(h, id);
    if (b && is_state && b->seq >= 0 && strcmp(round, b->round) != 0) {
        b->seq = -1; /* another round on this board: a new recording, whose seq starts again at 1 */
        b->ev_seq = -1;
    }
    if (b && is_state && s >= b->seq) {
        if (board_render(h, b, o) == 0) {
            b->seq = s;
            memcpy(b->round, round, sizeof round);
        }
    } else if (b && !is_state) {
        if (s <= b->ev_seq)
            b->ev_dup++; /* QoS 1 said it again: dropped */
        else
            b->ev_seq = s;
    }
    pthread_mutex_unlock(&h->mu);
    json_decref(o);
    return b ? 0 : -1;
}

static void on_message(struct mosquitto *m, void *user, const struct mosquitto_message *msg) {
    rec_hall_t *h = user;
    (void)m;
    rec_hall_take_message(h, msg->topic, msg->payload, msg->payloadlen > 0 ? (size_t)msg->payloadlen : 0);
#ifdef __GLIBC__
    /* Every state and kifu message replaces a string a little longer than the last, made and freed
     * by the broker's thread and read by hundreds of HTTP threads: glibc keeps the freed pages of
     * its arenas, and the hall's memory crept up from round to round though what it holds did not.
     * malloc_trim gives the free pages of every arena back to the system. */
    time_t now = time(NULL);
    if (now - h->trimmed >= TRIM_S) {
        h->trimmed = now;
        malloc_trim(0);
    }
#endif
}

static void on_connect(struct mosquitto *m, void *user, int rc) {
    rec_hall_t *h = user;
    char topic[300];
    pthread_mutex_lock(&h->mu);
    h->connack = rc;
    int opened = h->opened;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (rc != 0) {
        if (opened) /* while rec_hall_open waits, its error line says it */
            logf_(h, "the broker refused the connection: %s", mosquitto_connack_string(rc));
        return;
    }
    snprintf(topic, sizeof topic, "%s/board/+/+", h->url.prefix);
    mosquitto_subscribe(m, NULL, topic, 1);
    logf_(h, "connected to %s:%d, subscribed to %s", h->url.host, h->url.port, topic);
}

static void on_disconnect(struct mosquitto *m, void *user, int rc) {
    (void)m;
    rec_hall_t *h = user;
    pthread_mutex_lock(&h->mu);
    int opened = h->opened;
    pthread_mutex_unlock(&h->mu);
    if (rc != 0 && opened)
        logf_(h, "the broker went away; reconnecting (the boards shown stay as they were)");
}

/* ---------------------------------------------------------------- HTTP */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, void *data,
                             size_t len, enum MHD_ResponseMemoryMode mode) {
    struct MHD_Response *r = MHD_create_response_from_buffer(len, data, mode);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result text_reply(struct MHD_Connection *c, unsigned code, const char *msg) {
    return reply(c, code, "text/plain; charset=utf-8", (void *)msg, strlen(msg), MHD_RESPMEM_PERSISTENT);
}

/* [state, state, ...] of every board with a state, in board order. */
static char *boards_json(rec_hall_t *h) {
    size_t cap = 64, n = 0;
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < h->nb; i++)
        cap += h->b[i].state ? strlen(h->b[i].state) + 1 : 0;
    char *s = malloc(cap + 64);
    if (s) {
        n += (size_t)sprintf(s, "{\"version\":%llu,\"boards\":[", h->version);
        int first = 1;
        for (int i = 0; i < h->nb; i++) {
            if (!h->b[i].state)
                continue;
            if (!first)
                s[n++] = ',';
            first = 0;
            size_t l = strlen(h->b[i].state);
            memcpy(s + n, h->b[i].state, l);
            n += l;
        }
        memcpy(s + n, "]}", 3);
    }
    pthread_mutex_unlock(&h->mu);
    return s;
}

typedef struct {
    rec_hall_t *h;
    unsigned long long seen; /* the last change sent */
    int said_hello;
} sse_t;

/* One SSE stream: first "data: {"n":N}" (the change now: load everything), then each state change as
 * "id: N" and "data: CARD" (the board's state without its moves), as many as fit in max; a stream more
 * than CHANGES behind gets "data: {"n":N,"reload":true}"; a comment every SSE_BEAT_S seconds. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    sse_t *s = cls;
    rec_hall_t *h = s->h;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += SSE_BEAT_S;
    size_t n = 0;
    pthread_mutex_lock(&h->mu);
    if (!s->said_hello) {
        s->said_hello = 1;
        s->seen = h->nchanges;
        int k = snprintf(buf, max, "data: {\"n\":%llu}\n\n", s->seen);
        pthread_mutex_unlock(&h->mu);
        return k < 0 || (size_t)k >= max ? 0 : k;
    }
    while (!h->closing && h->nchanges == s->seen)
        if (pthread_cond_timedwait(&h->cv, &h->mu, &until) == ETIMEDOUT)
            break;
    int closing = h->closing;
    if (!closing && h->nchanges - s->seen >= CHANGES) {
        s->seen = h->nchanges;
        int k = snprintf(buf, max, "data: {\"n\":%llu,\"reload\":true}\n\n", s->seen);
        n = k < 0 || (size_t)k >= max ? 0 : (size_t)k;
    }
    while (!closing && s->seen < h->nchanges) {
        const char *card = h->change[(s->seen + 1) % CHANGES];
        size_t l = card ? strlen(card) : 0;
        if (n + l + 48 > max) {
            if (n == 0) { /* a card over the whole buffer (a huge foreign meta): the page reloads instead */
                int k = snprintf(buf, max, "id: %llu\ndata: {\"n\":%llu,\"reload\":true}\n\n", s->seen + 1,
                                 s->seen + 1);
                n = k < 0 || (size_t)k >= max ? 0 : (size_t)k;
                s->seen++;
            }
            break;
        }
        n += (size_t)snprintf(buf + n, max - n, "id: %llu\ndata: %s\n\n", s->seen + 1, card ? card : "{}");
        s->seen++;
    }
    pthread_mutex_unlock(&h->mu);
    if (closing)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n == 0) {
        int k = snprintf(buf, max, ": beat\n\n");
        n = k < 0 || (size_t)k >= max ? 0 : (size_t)k;
    }
    return (ssize_t)n;
}

static enum MHD_Result sse_reply(rec_hall_t *h, struct MHD_Connection *c) {
    sse_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return MHD_NO;
    s->h = h;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1 << 16, sse_read, s, free);
    if (r == NULL) {
        free(s);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* The board page, state.json (k < 0) or kifu file k of board id (a route's). */
static enum MHD_Result board_reply(rec_hall_t *h, struct MHD_Connection *c, const char *id, int k) {
    char *data = NULL;
    size_t len = 0;
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < h->nb; i++)
        if (strcmp(h->b[i].id, id) == 0) {
            const char *src = k < 0 ? h->b[i].state : h->b[i].kifu[k];
            len = src ? (k < 0 ? strlen(src) : h->b[i].kifu_len[k]) : 0;
            if (src && (data = malloc(len + 1)) != NULL)
                memcpy(data, src, len);
        }
    pthread_mutex_unlock(&h->mu);
    if (data == NULL)
        return text_reply(c, MHD_HTTP_NOT_FOUND, "no such board, or nothing published yet\n");
    static const char *const TYPE[3] = {"text/plain; charset=Shift_JIS", "text/plain; charset=utf-8",
                                        "application/json"};
    return reply(c, MHD_HTTP_OK, k < 0 ? "application/json" : TYPE[k], data, len, MHD_RESPMEM_MUST_FREE);
}

/* /round/R/games.kif .csa .jkf: the current game of every board whose state names round R, in board
 * order: the KIF files one after another, the CSA files separated by a line "/" (CSA's file of
 * several games), the JKF files as one JSON array. 404 for a round no board has published a file of.
 * r and k: a route's round and kifu format. */
static enum MHD_Result round_reply(rec_hall_t *h, struct MHD_Connection *c, const char *r, int k) {
    static const char *const SEP[3] = {"\n", "/\n", ","};
    size_t cap = 4, len = 0;
    int n = 0;
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < h->nb; i++)
        if (h->b[i].kifu[k] && strcmp(h->b[i].round, r) == 0)
            cap += h->b[i].kifu_len[k] + 2;
    char *data = malloc(cap);
    if (data && k == 2)
        data[len++] = '[';
    for (int i = 0; data && i < h->nb; i++) {
        const board_t *b = &h->b[i];
        if (b->kifu[k] == NULL || strcmp(b->round, r) != 0)
            continue;
        if (n++ > 0) {
            memcpy(data + len, SEP[k], strlen(SEP[k]));
            len += strlen(SEP[k]);
        }
        memcpy(data + len, b->kifu[k], b->kifu_len[k]);
        len += b->kifu_len[k];
        if (k == 1 && len > 0 && data[len - 1] != '\n') /* the separator must start a line */
            data[len++] = '\n';
    }
    if (data && k == 2)
        data[len++] = ']';
    pthread_mutex_unlock(&h->mu);
    if (data == NULL || n == 0) {
        free(data);
        return data ? text_reply(c, MHD_HTTP_NOT_FOUND, "no board of that round has published a game\n")
                    : MHD_NO;
    }
    static const char *const TYPE[3] = {"text/plain; charset=Shift_JIS", "text/plain; charset=utf-8",
                                        "application/json"};
    return reply(c, MHD_HTTP_OK, TYPE[k], data, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls) {
    rec_hall_t *h = cls;
    (void)version;
    (void)upload;
    (void)con_cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return text_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "read only: GET or HEAD\n");
    if (*upload_size != 0)
        return text_reply(c, MHD_HTTP_BAD_REQUEST, "no body expected\n");
    rec_hall_route_t rt;
    switch (rec_hall_route(url, &rt)) {
    case REC_HALL_ROUTE_INDEX:
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)rec_hall_index_page,
                     strlen(rec_hall_index_page), MHD_RESPMEM_PERSISTENT);
    case REC_HALL_ROUTE_BOARDS: {
        char *s = boards_json(h);
        return s ? reply(c, MHD_HTTP_OK, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE) : MHD_NO;
    }
    case REC_HALL_ROUTE_EVENTS: return sse_reply(h, c);
    case REC_HALL_ROUTE_BOARD_PAGE:
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)rec_hall_board_page,
                     strlen(rec_hall_board_page), MHD_RESPMEM_PERSISTENT);
    case REC_HALL_ROUTE_BOARD_STATE: return board_reply(h, c, rt.id, -1);
    case REC_HALL_ROUTE_BOARD_KIFU: return board_reply(h, c, rt.id, rt.kifu);
    case REC_HALL_ROUTE_ROUND_KIFU: return round_reply(h, c, rt.id, rt.kifu);
    default: return text_reply(c, MHD_HTTP_NOT_FOUND, "not found\n");
    }
}

/* ---------------------------------------------------------------- life cycle */

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* Waits up to s seconds for the broker's answer to the login: its CONNACK code (0 taken), -1 none. */
static int wait_connack(rec_hall_t *h, int s) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += s;
    pthread_mutex_lock(&h->mu);
    while (h->connack < 0)
        if (pthread_cond_timedwait(&h->cv, &h->mu, &until) == ETIMEDOUT)
            break;
    int rc = h->connack;
    pthread_mutex_unlock(&h->mu);
    return rc;
}

int rec_hall_open(const char *url, const char *bind_addr, int port, FILE *log, rec_hall_t **out, char *err,
                  size_t errlen) {
    char why[300], user[512], pass[512];
    struct sockaddr_in sa;
    if (out == NULL || port < 0 || port > 65535)
        return REC_ERANGE;
    *out = NULL;
    rec_hall_t *h = calloc(1, sizeof *h);
    if (h == NULL)
        return REC_ENOMEM;
    h->log = log;
    if (rec_mqtt_url_parse(url, &h->url, why, sizeof why) != REC_OK) {
        char shown[256];
        free(h);
        return fail(err, errlen, REC_EPARSE, "--mqtt %.200s: %s",
                    rec_mqtt_url_shown(url, shown, sizeof shown), why);
    }
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, bind_addr ? bind_addr : "127.0.0.1", &sa.sin_addr) != 1) {
        free(h);
        return fail(err, errlen, REC_EPARSE, "--bind %.100s: not an IPv4 address", bind_addr);
    }
    if (rec_mqtt_credentials(user, pass, sizeof user, why, sizeof why) != REC_OK) {
        free(h);
        return fail(err, errlen, REC_EIO, "%s", why);
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->connack = -1;
    if ((h->change = calloc(CHANGES, sizeof *h->change)) == NULL) {
        free(h);
        return REC_ENOMEM;
    }
    mosquitto_lib_init();
    h->m = mosquitto_new(NULL, true, h);
    int rc = h->m ? MOSQ_ERR_SUCCESS : MOSQ_ERR_NOMEM;
    if (rc == MOSQ_ERR_SUCCESS && user[0])
        rc = mosquitto_username_pw_set(h->m, user, pass);
    if (rc == MOSQ_ERR_SUCCESS && h->url.tls) {
        const char *ca = getenv("KIFUCAM_MQTT_CAFILE");
        rc = mosquitto_tls_set(h->m, ca && ca[0] ? ca : NULL, ca && ca[0] ? NULL : "/etc/ssl/certs", NULL,
                               NULL, NULL);
    }
    memset(pass, 0, sizeof pass);
    if (rc == MOSQ_ERR_SUCCESS) {
        mosquitto_connect_callback_set(h->m, on_connect);
        mosquitto_disconnect_callback_set(h->m, on_disconnect);
        mosquitto_message_callback_set(h->m, on_message);
        mosquitto_reconnect_delay_set(h->m, 1, 5, true);
        rc = mosquitto_connect(h->m, h->url.host, h->url.port, 30);
        if (rc == MOSQ_ERR_SUCCESS)
            rc = mosquitto_loop_start(h->m);
        h->started = rc == MOSQ_ERR_SUCCESS;
    }
    if (rc != MOSQ_ERR_SUCCESS) {
        char shown[256];
        const char *why = rec_mqtt_strerror(rc);
        rec_hall_close(h);
        rec_mqtt_url_shown(url, shown, sizeof shown);
        return fail(err, errlen, REC_EIO, "--mqtt %.200s: %s", shown, why);
    }
    int connack = wait_connack(h, 10);
    if (connack != 0) {
        char shown[256];
        rec_hall_close(h);
        rec_mqtt_url_shown(url, shown, sizeof shown);
        return connack < 0 ? fail(err, errlen, REC_EIO,
                                  "--mqtt %.200s: the broker did not answer the login in 10 s", shown)
                           : fail(err, errlen, REC_EIO, "--mqtt %.200s: the broker refused the login: %s%s",
                                  shown, mosquitto_connack_string(connack),
                                  connack == 4 || connack == 5
                                      ? " (check KIFUCAM_MQTT_USER and KIFUCAM_MQTT_PASSWORD "
                                        "or KIFUCAM_MQTT_CREDENTIALS)"
                                      : "");
    }
    h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, (uint16_t)port,
                            NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_CONNECTION_LIMIT,
                            (unsigned int)1000, MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned int)(SSE_BEAT_S + 15), MHD_OPTION_END);
    if (h->d == NULL) {
        int e = errno;
        rec_hall_close(h);
        return fail(err, errlen, REC_EIO, "cannot serve on %s:%d: %s", bind_addr ? bind_addr : "127.0.0.1",
                    port, e ? strerror(e) : "libmicrohttpd could not start");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    pthread_mutex_lock(&h->mu);
    h->opened = 1;
    pthread_mutex_unlock(&h->mu);
    *out = h;
    return REC_OK;
}

rec_hall_t *rec_hall_new_offline(const char *url) {
    rec_hall_t *h = calloc(1, sizeof *h);
    if (h == NULL || rec_mqtt_url_parse(url, &h->url, NULL, 0) != REC_OK ||
        (h->change = calloc(CHANGES, sizeof *h->change)) == NULL) {
        free(h);
        return NULL;
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    return h;
}

int rec_hall_port(const rec_hall_t *h) { return h ? h->port : 0; }

int rec_hall_nboards(rec_hall_t *h) {
    if (h == NULL)
        return 0;
    pthread_mutex_lock(&h->mu);
    int n = 0;
    for (int i = 0; i < h->nb; i++)
        n += h->b[i].state != NULL;
    pthread_mutex_unlock(&h->mu);
    return n;
}

void rec_hall_close(rec_hall_t *h) {
    if (h == NULL)
        return;
    pthread_mutex_lock(&h->mu);
    h->closing = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (h->d)
        MHD_stop_daemon(h->d);
    if (h->m) {
        mosquitto_disconnect(h->m);
        if (h->started)
            mosquitto_loop_stop(h->m, false);
        mosquitto_destroy(h->m);
        mosquitto_lib_cleanup();
    }
    for (int i = 0; i < h->nb; i++) {
        free(h->b[i].state);
        for (int k = 0; k < 3; k++)
            free(h->b[i].kifu[k]);
    }
    free(h->b);
    for (int i = 0; h->change && i < CHANGES; i++)
        free(h->change[i]);
    free(h->change);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}
