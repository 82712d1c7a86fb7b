/* live.c - the live feed (live.h): libmicrohttpd serves the state document, the recording's files and
 * a self-contained live page. The state is rebuilt by the recording thread (rec_live_publish) under a
 * mutex; each connection has its own thread (long-polls block there, never in the recording loop). */
#include "recorder/output/live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#define LIVE_MAX_FILE (16u << 20) /* largest file served, bytes */
#define LIVE_WAIT_S 20            /* longest long-poll, seconds */

struct rec_live {
    struct MHD_Daemon *d;
    char *dir;
    int port;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int closing;
    unsigned long version;
    char *state;     /* state.json text (malloc'd) */
    char ended[120]; /* why the recording ended (rec_live_end), "" while it goes on */
};

/* state.json before the first publish: nothing seen yet. */
static const char waiting_state[] =
    "{\"version\":0,\"game\":0,\"state\":\"waiting\",\"view\":\"starting\",\"sfen\":\"\",\"ply\":0,"
    "\"moves\":[],\"last_event\":null,\"result\":null,\"uncertain\":0,\"ended\":null}";

/* The live page: polls /state.json?since=N and draws the board from the SFEN. */
static const char live_page[] =
    "<!doctype html><html lang=\"ja\"><head><meta charset=\"utf-8\"><title>kifucam live</title>"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>"
    "body{font-family:sans-serif;margin:1em;background:#f4f1ea}#wrap{display:flex;gap:1.5em;flex-wrap:wrap}"
    "table.b{border-collapse:collapse;background:#e8c77d}table.b td{width:2.2em;height:2.4em;border:1px "
    "solid #553;"
    "text-align:center;font-size:1.3em}td.g "
    "span{display:inline-block;transform:rotate(180deg)}td.p{color:#b00}"
    ".hand{margin:.3em 0;font-size:1.1em}#moves{max-height:32em;overflow:auto;min-width:14em}"
    "#moves div.late{color:#a60}#moves div.ill{color:#b00;font-weight:bold}#state{font-weight:bold}"
    "</style></head><body><h1>kifucam live</h1><div id=\"state\">connecting...</div><div id=\"wrap\"><div>"
    "<div class=\"hand\" id=\"hg\"></div><table class=\"b\" id=\"board\"></table><div class=\"hand\" "
    "id=\"hs\"></div>"
    "</div><div><b>Moves</b><div id=\"moves\"></div><p id=\"result\"></p><p>"
    "<a href=\"game.kif\">KIF</a> <a href=\"game.ki2\">KI2</a> <a href=\"game.csa\">CSA</a> "
    "<a href=\"game.jkf\">JKF</a> <a href=\"game.usi\">USI</a> <a href=\"events.jsonl\">events</a> "
    "<a href=\"review.html\">review</a></p></div></div><script>"
    "const "
    "K={P:'\\u6b69',L:'\\u9999',N:'\\u6842',S:'\\u9280',G:'\\u91d1',B:'\\u89d2',R:'\\u98db',K:'\\u7389',"
    "'+P':'\\u3068','+L':'\\u674f','+N':'\\u572d','+S':'\\u5168','+B':'\\u99ac','+R':'\\u9f8d'};"
    "function draw(s){const f=(s.sfen||'9/9/9/9/9/9/9/9/9 b - 1').split(' ');const rows=f[0].split('/');let "
    "h='';"
    "for(const r of rows){h+='<tr>';let i=0;while(i<r.length){let c=r[i];if(c>='1'&&c<='9'){for(let "
    "k=0;k<+c;k++)h+='<td></td>';i++;continue;}"
    "let p='';if(c=='+'){p='+';i++;c=r[i];}i++;const up=c.toUpperCase();const g=c!=up;"
    "h+='<td class=\"'+(g?'g ':'')+(p?'p':'')+'\"><span>'+(K[p+up]||'?')+'</span></td>';}h+='</tr>';}"
    "document.getElementById('board').innerHTML=h;let hs='',hg='';const hand=f[2]||'-';let n='';"
    "for(const c of hand){if(c>='0'&&c<='9'){n+=c;continue;}if(c=='-')break;const "
    "t=K[c.toUpperCase()]+(n&&n!='1'?n:'');"
    "if(c==c.toUpperCase())hs+=t;else hg+=t;n='';}"
    "document.getElementById('hs').textContent='\\u2617 "
    "'+(hs||'-');document.getElementById('hg').textContent='\\u2616 '+(hg||'-');"
    "let m='';for(const x of s.moves)m+='<div class=\"'+(x.late?'late "
    "':'')+(x.illegal?'ill':'')+'\">'+x.ply+'. '+x.move+"
    "(x.late?' (late)':'')+(x.illegal?' (illegal)':'')+'</div>';const "
    "mv=document.getElementById('moves');mv.innerHTML=m;mv.scrollTop=1e9;"
    "document.getElementById('state').textContent=s.ended?'recording ended: '+s.ended:s.game<1?"
    "'waiting for a game: '+(s.state=='waiting'?'the recording is starting':s.view):"
    "'game '+s.game+': '+s.state+', '+s.view+', move '+s.ply+"
    "(s.uncertain?', '+s.uncertain+' "
    "uncertain':'');document.getElementById('result').textContent=s.result||'';}"
    "let v=-1;async function poll(){try{const r=await fetch('state.json?since='+v,{cache:'no-store'});"
    "const s=await "
    "r.json();v=s.version;draw(s);if(!s.ended)poll();}catch(e){document.getElementById('state').textContent="
    "'feed lost, retrying';"
    "setTimeout(poll,2000);}}poll();</script></body></html>\n";

/* ---------------------------------------------------------------- state */

static const char *state_name(rec_trk_state_t s) {
    switch (s) {
    case REC_TRK_SETUP: return "setup";
    case REC_TRK_PLAYING: return "playing";
    case REC_TRK_ENDED: return "ended";
    }
    return "unknown";
}

/* state.json of t's current game; NULL when out of memory. Caller frees. */
static char *build_state(unsigned long version, const rec_trk_t *t, const char *view, const char *ended) {
    json_t *o = json_object(), *moves = json_array();
    char *text = NULL;
    int game = rec_trk_game_number(t), n = rec_trk_nevents(t), uncertain = 0;
    const rec_trk_event_t *last = NULL, *end = NULL;
    char sfen[160] = "";
    const rul_game_t *g = rec_trk_game(t);

    if (o == NULL || moves == NULL)
        goto out;
    for (int i = 0; i < n; i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        if (e == NULL || e->game != game)
            continue;
        last = e;
        if (e->type == REC_TEV_MOVE || e->type == REC_TEV_ILLEGAL || e->type == REC_TEV_KING_CAPTURED) {
            json_t *m = json_pack("{s:i, s:s, s:s, s:I, s:b, s:b}", "ply", e->ply, "usi", e->usi, "move",
                                  e->notation, "time_ms", (json_int_t)e->time_ms, "late", e->late != 0,
                                  "illegal", e->type != REC_TEV_MOVE);
            if (m == NULL || json_array_append_new(moves, m) != 0)
                goto out;
        } else if (e->type == REC_TEV_UNCERTAIN) {
            uncertain++;
        } else if (e->type == REC_TEV_GAME_END) {
            end = e;
        }
    }
    /* before the first game no position was seen: none is shown (the page draws an empty board) */
    if (game > 0 && g != NULL && rul_pos_to_sfen(&g->pos, sfen, sizeof sfen) != RUL_OK)
        sfen[0] = '\0';
    if (json_object_set_new(o, "version", json_integer((json_int_t)version)) != 0 ||
        json_object_set_new(o, "game", json_integer(game)) != 0 ||
        json_object_set_new(o, "state", json_string(state_name(rec_trk_state(t)))) != 0 ||
        json_object_set_new(o, "view", json_string(view ? view : "unknown")) != 0 ||
        json_object_set_new(o, "sfen", json_string(sfen)) != 0 ||
        json_object_set_new(o, "ply", json_integer(g ? g->nply : 0)) != 0 ||
        json_object_set_new(o, "moves", moves) != 0)
        goto out;
    moves = NULL; /* owned by o now */
    if (json_object_set_new(
            o, "last_event",
            last ? json_pack("{s:s, s:s}", "type", rec_trk_event_name(last->type), "detail", last->detail)
                 : json_null()) != 0 ||
        json_object_set_new(o, "result", end ? json_string(end->detail) : json_null()) != 0 ||
        json_object_set_new(o, "uncertain", json_integer(uncertain)) != 0 ||
        json_object_set_new(o, "ended", ended && ended[0] ? json_string(ended) : json_null()) != 0)
        goto out;
    text = json_dumps(o, JSON_COMPACT);
out:
    json_decref(moves);
    json_decref(o);
    return text;
}

int rec_live_publish(rec_live_t *l, const rec_trk_t *t, const char *view) {
    if (l == NULL || t == NULL)
        return REC_ERANGE;
    pthread_mutex_lock(&l->mu);
    unsigned long v = l->version + 1;
    pthread_mutex_unlock(&l->mu);
    char *s = build_state(v, t, view, l->ended); /* only this thread publishes: v stays the next version */
    if (s == NULL)
        return REC_ENOMEM;
    pthread_mutex_lock(&l->mu);
    free(l->state);
    l->state = s;
    l->version = v;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    return REC_OK;
}

int rec_live_end(rec_live_t *l, const rec_trk_t *t, const char *why) {
    if (l == NULL || t == NULL || why == NULL)
        return REC_ERANGE;
    snprintf(l->ended, sizeof l->ended, "%s", why[0] ? why : "unknown");
    return rec_live_publish(l, t, "ended");
}

size_t rec_live_state(rec_live_t *l, char *buf, size_t size) {
    size_t n = 0;
    if (l == NULL)
        return 0;
    pthread_mutex_lock(&l->mu);
    n = l->state ? strlen(l->state) : 0;
    if (size > 0)
        snprintf(buf, size, "%s", l->state ? l->state : "");
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* ---------------------------------------------------------------- HTTP */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, void *data,
                             size_t len, enum MHD_ResponseMemoryMode mode) {
    struct MHD_Response *r = MHD_create_response_from_buffer(len, data, mode);
    if (r == NULL) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(data);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result text_reply(struct MHD_Connection *c, unsigned status, const char *msg) {
    return reply(c, status, "text/plain; charset=utf-8", (void *)msg, strlen(msg), MHD_RESPMEM_PERSISTENT);
}

/* The file of the recording that url names, with its content type; NULL for any other path. Only
 * these names: nothing outside dir can be reached. */
static const char *served_file(const char *url, const char **type) {
    static const struct {
        const char *url, *type;
    } files[] = {
        {"/game.kif", "text/plain; charset=Shift_JIS"}, {"/game.ki2", "text/plain; charset=Shift_JIS"},
        {"/game.csa", "text/plain; charset=utf-8"},     {"/game.jkf", "application/json"},
        {"/game.usi", "text/plain; charset=utf-8"},     {"/events.jsonl", "application/x-ndjson"},
        {"/review.html", "text/html; charset=utf-8"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (strcmp(url, files[i].url) == 0) {
            *type = files[i].type;
            return url + 1;
        }
    /* /evidence/NAME-before.jpg or NAME-after.jpg (rec_out_evidence_name), NAME of [a-z0-9_-] */
    const char *p = url;
    if (strncmp(p, "/evidence/", 10) != 0)
        return NULL;
    p += 10;
    size_t d = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_-");
    if (d < 4 || d > 60 || (strcmp(p + d, ".jpg") != 0) ||
        (!(d > 7 && strncmp(p + d - 7, "-before", 7) == 0) &&
         !(d > 6 && strncmp(p + d - 6, "-after", 6) == 0)))
        return NULL;
    *type = "image/jpeg";
    return url + 1;
}

static enum MHD_Result file_reply(rec_live_t *l, struct MHD_Connection *c, const char *rel,
                                  const char *type) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", l->dir, rel) >= sizeof path)
        return text_reply(c, MHD_HTTP_NOT_FOUND, "not found\n");
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return text_reply(c, MHD_HTTP_NOT_FOUND, "not written yet\n");
    /* a buffer of the file's size: an evidence frame or a kifu is tens of kB, not LIVE_MAX_FILE */
    struct stat st;
    size_t cap = fstat(fileno(f), &st) == 0 && st.st_size >= 0 && (uintmax_t)st.st_size < LIVE_MAX_FILE
                     ? (size_t)st.st_size
                     : LIVE_MAX_FILE;
    char *buf = malloc(cap + 1);
    size_t n = buf ? fread(buf, 1, cap, f) : 0;
    int bad = buf == NULL || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return text_reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the file\n");
    }
    return reply(c, MHD_HTTP_OK, type, buf, n, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result state_reply(rec_live_t *l, struct MHD_Connection *c) {
    const char *since = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
    char *end = NULL;
    long long want = since ? strtoll(since, &end, 10) : -1;
    if (since && (end == since || *end != '\0'))
        return text_reply(c, MHD_HTTP_BAD_REQUEST, "since: not a number\n");
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += LIVE_WAIT_S;
    pthread_mutex_lock(&l->mu);
    while (!l->closing && want >= 0 && (long long)l->version <= want)
        if (pthread_cond_timedwait(&l->cv, &l->mu, &until) == ETIMEDOUT)
            break;
    char *s = strdup(l->state ? l->state : waiting_state);
    pthread_mutex_unlock(&l->mu);
    if (s == NULL)
        return MHD_NO;
    return reply(c, MHD_HTTP_OK, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls) {
    rec_live_t *l = cls;
    const char *rel, *type = NULL;
    (void)version;
    (void)upload;
    (void)con_cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return text_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "read only: GET or HEAD\n");
    if (*upload_size != 0)
        return text_reply(c, MHD_HTTP_BAD_REQUEST, "no body expected\n");
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)live_page, sizeof live_page - 1,
                     MHD_RESPMEM_PERSISTENT);
    if (strcmp(url, "/state.json") == 0)
        return state_reply(l, c);
    if ((rel = served_file(url, &type)) != NULL)
        return file_reply(l, c, rel, type);
    return text_reply(c, MHD_HTTP_NOT_FOUND, "not found\n");
}

/* ---------------------------------------------------------------- life cycle */

int rec_live_open(const char *addr, int port, const char *dir, rec_live_t **out, char *err, size_t errlen) {
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    int v6 = 0;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (addr == NULL)
        addr = "127.0.0.1";
    if (inet_pton(AF_INET, addr, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons((uint16_t)port);
    } else if (inet_pton(AF_INET6, addr, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons((uint16_t)port);
        v6 = 1;
    } else {
        port = -1; /* not an address */
    }
    if (out == NULL || dir == NULL || port < 0 || port > 65535) {
        if (errlen)
            snprintf(err, errlen, "rec_live_open: bad address or port, or NULL argument");
        return REC_ERANGE;
    }
    *out = NULL;
    rec_live_t *l = calloc(1, sizeof *l);
    if (l == NULL || (l->dir = strdup(dir)) == NULL || (l->state = strdup(waiting_state)) == NULL) {
        if (l) {
            free(l->dir);
            free(l);
        }
        if (errlen)
            snprintf(err, errlen, "rec_live_open: out of memory");
        return REC_ENOMEM;
    }
    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_cond_init(&l->cv, &ca);
    pthread_condattr_destroy(&ca);
    l->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | (v6 ? MHD_USE_IPv6 : 0),
        (uint16_t)port, NULL, NULL, handle, l, MHD_OPTION_SOCK_ADDR,
        v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)(LIVE_WAIT_S + 10), MHD_OPTION_END);
    if (l->d == NULL) {
        int e = errno;
        if (errlen)
            snprintf(err, errlen, "live feed: cannot serve on %s%s%s port %d: %s", v6 ? "[" : "", addr,
                     v6 ? "]" : "", port, e ? strerror(e) : "libmicrohttpd could not start");
        rec_live_close(l);
        return REC_EIO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_BIND_PORT);
    l->port = info ? info->port : port;
    *out = l;
    return REC_OK;
}

int rec_live_port(const rec_live_t *l) { return l ? l->port : 0; }

size_t rec_live_url(const rec_live_t *l, char *buf, size_t size) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "";
    const union MHD_DaemonInfo *info = l ? MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_LISTEN_FD) : NULL;
    if (size > 0)
        buf[0] = '\0';
    if (info == NULL || getsockname(info->listen_fd, (struct sockaddr *)&ss, &len) != 0)
        return 0;
    if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
    else
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
    int n =
        snprintf(buf, size, ss.ss_family == AF_INET6 ? "http://[%s]:%d/" : "http://%s:%d/", host, l->port);
    return n < 0 ? 0 : (size_t)n;
}

void rec_live_close(rec_live_t *l) {
    if (l == NULL)
        return;
    pthread_mutex_lock(&l->mu);
    l->closing = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    if (l->d)
        MHD_stop_daemon(l->d);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    free(l->state);
    free(l->dir);
    free(l);
}
