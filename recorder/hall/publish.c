/* publish.c - one board to the MQTT broker (hall.h, rec_pub_*): tails events.jsonl, publishes each line
 * at QoS 1, the retained state and kifu files; republishes what was not acknowledged after a reconnect.
 * The retained status says whether the recorder is there: "online" on each connection, "offline" on a
 * clean stop, and the same "offline" as the connection's last will, which the broker publishes for a
 * recorder that died or went silent for 1.5 keepalives.
 * libmosquitto's client thread runs the network; its callbacks only set flags and note acknowledged
 * message ids under the lock: every publish is made from the caller's thread. */
#include <errno.h>
#include <jansson.h>
#include <mosquitto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/hall/hall.h"

#define STATUS_WAIT_MS 1000 /* rec_pub_close waits this long for the "offline" status's PUBACK */

typedef struct {
    int mid, seq, acked;
    long end; /* offset in events.jsonl after this line */
} inflight_t;

struct rec_pub {
    struct mosquitto *m;
    pthread_mutex_t mu; /* guards connected, resend, connects, acks */
    int connected, resend, connects;
    int *acks; /* message ids acknowledged, not yet matched (under mu) */
    int nacks, capacks;
    /* the caller's thread only: */
    char dir[3072], board[REC_HALL_BOARD_MAX + 1], topic[600];
    rec_out_meta_t meta;
    inflight_t *fl; /* published lines not acknowledged yet, in order */
    int nfl, capfl;
    long sent_off, acked_off; /* events.jsonl: published up to, acknowledged up to */
    int acked_seq, published;
    int state_nev, kifu_nev; /* the tracker's events at the last state / kifu publish (-1: again) */
    const char *state_view;
    rec_mqtt_url_t url;
    int keepalive;     /* seconds (KIFUCAM_MQTT_KEEPALIVE, default 30) */
    int started;       /* 1: the client thread runs (it reconnects by itself from then on) */
    double last_try_s; /* monotonic time of the last first-connection try */
    char refused[80];  /* the broker's reason for refusing the last login, "" none (under mu) */
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Until a first connection is made, the client thread is not started (libmosquitto's thread only
 * reconnects a client that once connected): tried again at most once a second, without blocking on
 * a broker that is away (a refused or pending non-blocking connect). */
static void try_start(rec_pub_t *p) {
    if (p->started || now_s() - p->last_try_s < 1.0)
        return;
    p->last_try_s = now_s();
    if (mosquitto_connect_async(p->m, p->url.host, p->url.port, p->keepalive) == MOSQ_ERR_SUCCESS &&
        mosquitto_loop_start(p->m) == MOSQ_ERR_SUCCESS)
        p->started = 1;
}

static void on_connect(struct mosquitto *m, void *user, int rc) {
    (void)m;
    rec_pub_t *p = user;
    pthread_mutex_lock(&p->mu);
    if (rc == 0) {
        p->connected = 1;
        p->resend = 1;
        p->connects++;
        p->refused[0] = '\0';
    } else
        snprintf(p->refused, sizeof p->refused, "%s", mosquitto_connack_string(rc));
    pthread_mutex_unlock(&p->mu);
}

static void on_disconnect(struct mosquitto *m, void *user, int rc) {
    (void)m;
    (void)rc;
    rec_pub_t *p = user;
    pthread_mutex_lock(&p->mu);
    p->connected = 0;
    pthread_mutex_unlock(&p->mu);
}

static void on_publish(struct mosquitto *m, void *user, int mid) {
    (void)m;
    rec_pub_t *p = user;
    pthread_mutex_lock(&p->mu);
    if (p->nacks == p->capacks) {
        int cap = p->capacks ? 2 * p->capacks : 64, *a = realloc(p->acks, (size_t)cap * sizeof *a);
        if (a) {
            p->acks = a;
            p->capacks = cap;
        }
    }
    if (p->nacks < p->capacks)
        p->acks[p->nacks++] = mid;
    pthread_mutex_unlock(&p->mu);
}

/* The retained status document {"board", "online"} into buf; its length. */
static int status_doc(const rec_pub_t *p, int online, char *buf, size_t size) {
    return snprintf(buf, size, "{\"board\":\"%s\",\"online\":%s}", p->board, online ? "true" : "false");
}

/* Publishes the retained status; MOSQ_ERR_SUCCESS or libmosquitto's error. *mid: its message id. */
static int publish_status(rec_pub_t *p, int online, int *mid) {
    char doc[128], topic[700];
    int n = status_doc(p, online, doc, sizeof doc);
    snprintf(topic, sizeof topic, "%s/status", p->topic);
    return mosquitto_publish(p->m, mid, topic, n, doc, 1, true);
}

/* KIFUCAM_MQTT_KEEPALIVE: seconds between the client's pings, 5 to 600; 30 when unset or out of range. */
static int keepalive_env(void) {
    const char *e = getenv("KIFUCAM_MQTT_KEEPALIVE");
    char *end;
    long v = e && e[0] ? strtol(e, &end, 10) : 0;
    return e && e[0] && *end == '\0' && v >= 5 && v <= 600 ? (int)v : 30;
}

static int fail(char *err, size_t errlen, int rc, const char *msg) {
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
    return rc;
}

int rec_pub_open(const char *url, const char *dir, const rec_out_meta_t *meta, rec_pub_t **out, char *err,
                 size_t errlen) {
    rec_mqtt_url_t u;
    char why[300], user[512], pass[512], msg[700];
    if (out == NULL || dir == NULL || meta == NULL || strlen(dir) >= 3000)
        return REC_ERANGE;
    *out = NULL;
    if (rec_mqtt_url_parse(url, &u, why, sizeof why) != REC_OK) {
        char shown[256];
        snprintf(msg, sizeof msg, "--mqtt %.200s: %s", rec_mqtt_url_shown(url, shown, sizeof shown), why);
        return fail(err, errlen, REC_EPARSE, msg);
    }
    if (rec_hall_board_check(meta->board) != 0)
        return fail(
            err, errlen, REC_EPARSE,
            "--mqtt needs --board: letters, digits, '-', '_' or '.', at most 64 (the board's topic and "
            "URL)");
    if (rec_mqtt_credentials(user, pass, sizeof user, why, sizeof why) != REC_OK)
        return fail(err, errlen, REC_EIO, why);
    rec_pub_t *p = calloc(1, sizeof *p);
    if (p == NULL)
        return REC_ENOMEM;
    pthread_mutex_init(&p->mu, NULL);
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    snprintf(p->board, sizeof p->board, "%.64s", meta->board);
    snprintf(p->topic, sizeof p->topic, "%s/board/%s", u.prefix, meta->board);
    p->meta = *meta;
    p->state_nev = p->kifu_nev = -1;
    p->keepalive = keepalive_env();
    mosquitto_lib_init();
    char id[100];
    snprintf(id, sizeof id, "kifucam-rec-%.64s", meta->board);
    p->m = mosquitto_new(id, true, p);
    int rc = p->m ? MOSQ_ERR_SUCCESS : MOSQ_ERR_NOMEM;
    if (rc == MOSQ_ERR_SUCCESS && user[0])
        rc = mosquitto_username_pw_set(p->m, user, pass);
    if (rc == MOSQ_ERR_SUCCESS && u.tls) {
        const char *ca = getenv("KIFUCAM_MQTT_CAFILE");
        rc = mosquitto_tls_set(p->m, ca && ca[0] ? ca : NULL, ca && ca[0] ? NULL : "/etc/ssl/certs", NULL,
                               NULL, NULL);
    }
    memset(pass, 0, sizeof pass);
    if (rc == MOSQ_ERR_SUCCESS) { /* the broker says "offline" for a recorder that is gone */
        char will[700], doc[128];
        snprintf(will, sizeof will, "%s/status", p->topic);
        int n = status_doc(p, 0, doc, sizeof doc);
        rc = mosquitto_will_set(p->m, will, n, doc, 1, true);
    }
    if (rc == MOSQ_ERR_SUCCESS) {
        mosquitto_connect_callback_set(p->m, on_connect);
        mosquitto_disconnect_callback_set(p->m, on_disconnect);
        mosquitto_publish_callback_set(p->m, on_publish);
        mosquitto_reconnect_delay_set(p->m, 1, 5, true);
        mosquitto_max_inflight_messages_set(p->m, 0); /* no cap: the queue is events.jsonl itself */
        p->url = u;
        p->last_try_s = -10;
        try_start(p); /* an absent broker is not an error: tried again from rec_pub_update */
    }
    if (rc != MOSQ_ERR_SUCCESS) {
        char shown[256];
        rec_mqtt_url_shown(url, shown, sizeof shown);
        snprintf(msg, sizeof msg, "--mqtt %.200s: %s", shown, rec_mqtt_strerror(rc));
        mosquitto_destroy(p->m);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return fail(err, errlen, rc == MOSQ_ERR_NOMEM ? REC_ENOMEM : REC_EIO, msg);
    }
    *out = p;
    return REC_OK;
}

/* Matches the acknowledged ids to the lines in flight and moves acked_off past the leading ones. */
static void take_acks(rec_pub_t *p) {
    pthread_mutex_lock(&p->mu);
    for (int a = 0; a < p->nacks; a++)
        for (int i = 0; i < p->nfl; i++)
            if (p->fl[i].mid == p->acks[a])
                p->fl[i].acked = 1;
    p->nacks = 0;
    pthread_mutex_unlock(&p->mu);
    int k = 0;
    while (k < p->nfl && p->fl[k].acked) {
        p->acked_off = p->fl[k].end;
        p->acked_seq = p->fl[k].seq;
        k++;
    }
    if (k > 0) {
        memmove(p->fl, p->fl + k, (size_t)(p->nfl - k) * sizeof *p->fl);
        p->nfl -= k;
    }
}

/* Publishes the whole lines of events.jsonl from sent_off. 0, or -1 when the connection went. */
static int publish_lines(rec_pub_t *p) {
    char path[3200], topic[700];
    struct stat sb;
    snprintf(path, sizeof path, "%s/events.jsonl", p->dir);
    if (stat(path, &sb) != 0 || sb.st_size <= p->sent_off)
        return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL || fseek(f, p->sent_off, SEEK_SET) != 0) {
        if (f)
            fclose(f);
        return 0;
    }
    snprintf(topic, sizeof topic, "%s/event", p->topic);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
        const char *s = strstr(line, "\"seq\":");
        int seq = s ? atoi(s + 6) : 0, mid = 0;
        if (p->nfl == p->capfl) {
            int c = p->capfl ? 2 * p->capfl : 64;
            inflight_t *n = realloc(p->fl, (size_t)c * sizeof *n);
            if (n == NULL)
                break;
            p->fl = n;
            p->capfl = c;
        }
        if (mosquitto_publish(p->m, &mid, topic, (int)len - 1, line, 1, false) != MOSQ_ERR_SUCCESS) {
            rc = -1;
            break;
        }
        p->sent_off += len;
        p->fl[p->nfl++] = (inflight_t){mid, seq, 0, p->sent_off};
        p->published++;
    }
    free(line);
    fclose(f);
    return rc;
}

static const char *status_of(const rec_trk_t *t, const char *view) {
    if (t == NULL || rec_trk_game_number(t) == 0)
        return "waiting";
    if (rec_trk_state(t) == REC_TRK_ENDED)
        return "ended";
    if (rec_trk_state(t) == REC_TRK_SETUP)
        return "waiting";
    if (view && (!strcmp(view, "camera lost") || !strcmp(view, "searching for the board")))
        return "camera lost";
    if (view && !strcmp(view, "hand in view"))
        return "hand in view";
    for (int i = rec_trk_nevents(t) - 1; i >= 0; i--) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e->type == REC_TEV_UNCERTAIN)
            return "uncertain";
        if (e->type == REC_TEV_ILLEGAL)
            return "illegal move";
        if (e->type == REC_TEV_MOVE || e->type == REC_TEV_GAME_START)
            break;
    }
    return "playing";
}

/* The state document (hall.h) of t now; a new string (free), NULL out of memory. */
static char *state_json(const rec_pub_t *p, const rec_trk_t *t, const char *view) {
    json_t *o = json_object(), *moves = json_array(), *meta = json_object(), *last = json_null(),
           *res = json_null();
    int game = t ? rec_trk_game_number(t) : 0, seq = 0;
    char sfen[256] = "";
    for (int i = 0; t && i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        seq = e->seq;
        if (e->game != game)
            continue;
        if (e->type == REC_TEV_MOVE || e->type == REC_TEV_ILLEGAL || e->type == REC_TEV_KING_CAPTURED) {
            json_array_append_new(moves, json_pack("{s:s,s:s,s:I}", "usi", e->usi, "notation", e->notation,
                                                   "time_ms", (json_int_t)e->time_ms));
            json_decref(last);
            last = json_pack("{s:i,s:s,s:s,s:s}", "ply", e->ply, "usi", e->usi, "notation", e->notation,
                             "mover", e->mover ? "gote" : "sente");
        }
        if (e->type == REC_TEV_GAME_END) {
            json_decref(res);
            res = json_string(e->detail);
        }
    }
    if (game > 0)
        rul_pos_to_sfen(&rec_trk_game(t)->pos, sfen, sizeof sfen);
    static const char *const K[] = {"event", "site", "round", "board", "sente", "gote"};
    const char *V[] = {p->meta.event, p->meta.site,  p->meta.round,
                       p->meta.board, p->meta.sente, p->meta.gote};
    for (size_t i = 0; i < 6; i++)
        json_object_set_new(meta, K[i], json_string(V[i]));
    json_object_set_new(o, "board", json_string(p->board));
    json_object_set_new(o, "seq", json_integer(seq));
    json_object_set_new(o, "game", json_integer(game));
    json_object_set_new(o, "status", json_string(status_of(t, view)));
    json_object_set_new(o, "view", json_string(view ? view : "waiting"));
    json_object_set_new(o, "sfen", json_string(sfen));
    json_object_set_new(o, "ply", json_integer(game > 0 ? rec_trk_game(t)->nply : 0));
    json_object_set_new(o, "last_move", last);
    json_object_set_new(o, "moves", moves);
    json_object_set_new(o, "result", res);
    json_object_set_new(o, "meta", meta);
    json_object_set_new(o, "time", json_integer((json_int_t)time(NULL)));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

/* The current game's kif, csa and jkf files as they are on disk, retained. 0, or -1 (connection). */
static int publish_kifu(rec_pub_t *p, int game) {
    static const char *const EXT[] = {"kif", "csa", "jkf"};
    for (size_t k = 0; k < 3; k++) {
        char path[3300], topic[700];
        if (game <= 1)
            snprintf(path, sizeof path, "%s/game.%s", p->dir, EXT[k]);
        else
            snprintf(path, sizeof path, "%s/game%d.%s", p->dir, game, EXT[k]);
        FILE *f = fopen(path, "rb");
        if (f == NULL)
            continue;
        char *buf = malloc(1 << 20);
        size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
        fclose(f);
        snprintf(topic, sizeof topic, "%s/%s", p->topic, EXT[k]);
        int rc = buf ? mosquitto_publish(p->m, NULL, topic, (int)n, buf, 1, true) : MOSQ_ERR_NOMEM;
        free(buf);
        if (rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST)
            return -1;
    }
    return 0;
}

int rec_pub_update(rec_pub_t *p, const rec_trk_t *t, const char *view) {
    if (p == NULL)
        return REC_ERANGE;
    try_start(p);
    take_acks(p);
    pthread_mutex_lock(&p->mu);
    int connected = p->connected, resend = p->resend;
    p->resend = 0;
    pthread_mutex_unlock(&p->mu);
    if (!connected)
        return REC_OK; /* everything waits in events.jsonl */
    if (resend) {      /* a new connection: online, what was not acknowledged, the retained messages again */
        p->sent_off = p->acked_off;
        p->nfl = 0;
        p->state_nev = p->kifu_nev = -1;
        publish_status(p, 1, NULL);
    }
    if (publish_lines(p) != 0)
        return REC_OK;
    int nev = t ? rec_trk_nevents(t) : 0;
    if (nev != p->state_nev || view != p->state_view) {
        char *s = state_json(p, t, view), topic[700];
        if (s == NULL)
            return REC_ENOMEM;
        snprintf(topic, sizeof topic, "%s/state", p->topic);
        if (mosquitto_publish(p->m, NULL, topic, (int)strlen(s), s, 1, true) == MOSQ_ERR_SUCCESS) {
            p->state_nev = nev;
            p->state_view = view;
        }
        free(s);
    }
    if (t && nev != p->kifu_nev && rec_trk_game_number(t) > 0 && publish_kifu(p, rec_trk_game_number(t)) == 0)
        p->kifu_nev = nev;
    return REC_OK;
}

void rec_pub_stats(rec_pub_t *p, rec_pub_stats_t *st) {
    memset(st, 0, sizeof *st);
    if (p == NULL)
        return;
    take_acks(p);
    st->published = p->published;
    st->acked_seq = p->acked_seq;
    pthread_mutex_lock(&p->mu);
    st->connected = p->connected;
    st->connects = p->connects;
    memcpy(st->refused, p->refused, sizeof st->refused);
    pthread_mutex_unlock(&p->mu);
}

int rec_pub_close(rec_pub_t *p, int timeout_ms) {
    if (p == NULL)
        return 1;
    char path[3200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/events.jsonl", p->dir);
    long size = stat(path, &sb) == 0 ? (long)sb.st_size : 0;
    int all = 0;
    for (int waited = 0;; waited += 20) {
        try_start(p);
        take_acks(p);
        pthread_mutex_lock(&p->mu);
        int connected = p->connected, resend = p->resend;
        p->resend = 0;
        pthread_mutex_unlock(&p->mu);
        if (connected && resend) {
            p->sent_off = p->acked_off;
            p->nfl = 0;
            publish_status(p, 1, NULL);
        }
        if (connected)
            publish_lines(p);
        all = p->acked_off >= size;
        if (all || waited >= timeout_ms)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* a clean stop: "offline" said here (a clean disconnect drops the will), acknowledged before leaving */
    pthread_mutex_lock(&p->mu);
    int connected = p->connected;
    pthread_mutex_unlock(&p->mu);
    int mid = 0, acked = 0;
    if (connected && publish_status(p, 0, &mid) == MOSQ_ERR_SUCCESS)
        for (int waited = 0; !acked && waited < STATUS_WAIT_MS; waited += 10) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
            pthread_mutex_lock(&p->mu);
            for (int a = 0; a < p->nacks; a++)
                acked |= p->acks[a] == mid;
            pthread_mutex_unlock(&p->mu);
        }
    mosquitto_disconnect(p->m);
    if (p->started)
        mosquitto_loop_stop(p->m, false);
    mosquitto_destroy(p->m);
    mosquitto_lib_cleanup();
    pthread_mutex_destroy(&p->mu);
    free(p->acks);
    free(p->fl);
    free(p);
    return all;
}
