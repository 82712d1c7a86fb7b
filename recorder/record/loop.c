/* loop.c - the recording's log, progress line, live feed publishing, source events and the writing of
 * the tracker's events (record_internal.h); and rec_plain_message (record.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recorder/record/record_internal.h"

double rec_loop_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int set_err(char *err, size_t errlen, int rc, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static const char *state_name(const rec_loop_t *L) {
    if (!L->have_pose)
        return "searching for the board";
    switch (L->view_state) {
    case VIS_VIEW_HAND: return "hand in view";
    case VIS_VIEW_MOVING: return "moving";
    case VIS_VIEW_SETTLING: return "settling";
    case VIS_VIEW_STABLE: return "stable";
    default: return "waiting";
    }
}

/* The progress line (a terminal: rewritten in place at most 5 times a second). */
void rec_loop_progress(rec_loop_t *L, int force) {
    FILE *f = L->o->log;
    if (f == NULL || !L->o->log_tty)
        return;
    double t = rec_loop_now_s();
    if (!force && t - L->log.t_last_progress < 0.2)
        return;
    L->log.t_last_progress = t;
    double el = t - L->log.t_start;
    char key[sizeof L->log.progress]; /* the line but its fps: what the line says of the recording */
    snprintf(key, sizeof key, "frame %llu  moves %d  last %s  %s", (unsigned long long)L->st->frames,
             L->st->moves, L->st->last_move[0] ? L->st->last_move : "-", state_name(L));
    if (!strcmp(key,
                L->log.progress)) /* already shown: drawn again, it shows twice in a log or when wrapped */
        return;
    fprintf(f, "\r\033[Kframe %llu  moves %d  last %s  %.1f fps  %s", (unsigned long long)L->st->frames,
            L->st->moves, L->st->last_move[0] ? L->st->last_move : "-", el > 0 ? L->st->frames / el : 0.0,
            state_name(L));
    fflush(f);
    memcpy(L->log.progress, key, sizeof key);
}

/* Publishes the game to the live feed when an event was written or the view changed since the last
 * time (a cheap comparison a frame; the feed's long-polls wake on a publish). */
void rec_loop_live_update(rec_loop_t *L) {
    if (L->live.pub != NULL) { /* cheap when nothing changed: a stat of events.jsonl */
        rec_pub_stats_t ps;
        rec_pub_update(L->live.pub, L->trk, state_name(L));
        rec_pub_stats(L->live.pub, &ps);
        if (!ps.connected && !L->live.pub_said && ps.refused[0]) {
            logline(L,
                    "mqtt: warning: the broker refused the login (%s): check the user and password "
                    "(KIFUCAM_MQTT_USER, KIFUCAM_MQTT_PASSWORD or KIFUCAM_MQTT_CREDENTIALS); recording goes "
                    "on, events.jsonl keeps every event",
                    ps.refused);
            L->live.pub_said = 1;
        } else if (!ps.connected && !L->live.pub_said && rec_loop_now_s() - L->live.pub_since >= 5.0) {
            logline(L,
                    "mqtt: warning: not connected to the broker (%s): recording goes on; what the "
                    "broker misses is published from events.jsonl once it connects",
                    ps.connects ? "connection lost" : "no connection in 5 s");
            L->live.pub_said = 1;
        } else if (ps.connected && L->live.pub_said) {
            logline(L, "mqtt: connected to the broker again: publishing what it missed");
            L->live.pub_said = 0;
        }
    }
    if (L->live.feed == NULL || L->trk == NULL)
        return;
    const char *view = state_name(L);
    int nev = rec_trk_nevents(L->trk);
    if (nev == L->live.nev && view == L->live.view)
        return;
    if (rec_live_publish(L->live.feed, L->trk, view) == REC_OK) {
        L->live.nev = nev;
        L->live.view = view;
    }
}

/* One log line (a terminal: the progress line is cleared first and drawn again after). */
void logline(rec_loop_t *L, const char *fmt, ...) {
    FILE *f = L->o->log;
    if (f == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (L->o->log_tty) {
        fputs("\r\033[K", f);
        L->log.progress[0] = '\0';
    }
    if (L->ts0 >= 0)
        fprintf(f, "[%8.2f s] ", (L->ts - (L->log_base >= 0 ? L->log_base : L->ts0)) / 1e6);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
    fflush(f);
    rec_loop_progress(L, 1);
}

/* Appends one board/source event to OUT/source.jsonl (fsync'd; the tracker's events.jsonl has no type
 * for these). */
void source_event(rec_loop_t *L, const char *type, const char *detail) {
    char path[4096];
    snprintf(path, sizeof path, "%s/source.jsonl", L->o->out_dir);
    FILE *f = fopen(path, "a");
    if (f != NULL) {
        fprintf(f, "{\"type\": \"%s\", \"ts_us\": %lld, \"frame\": %llu, \"detail\": \"", type,
                (long long)L->ts, (unsigned long long)L->st->frames);
        for (const char *p = detail; *p; p++)
            if (*p == '"' || *p == '\\')
                fprintf(f, "\\%c", *p);
            else if ((unsigned char)*p >= 0x20)
                fputc(*p, f);
        fputs("\"}\n", f);
        fflush(f);
        fsync(fileno(f));
        fclose(f);
    }
    logline(L, "%s: %s", type, detail);
}

/* Reports the tracker's new events up to the n-th on the log and counts them. */
static void report_events(rec_loop_t *L, int n) {
    for (; L->log.nev_logged < n; L->log.nev_logged++) {
        const rec_trk_event_t *e = rec_trk_event(L->trk, L->log.nev_logged);
        L->st->events++;
        switch (e->type) {
        case REC_TEV_MOVE:
        case REC_TEV_ILLEGAL:
        case REC_TEV_KING_CAPTURED:
            L->st->moves++;
            if (!e->hidden && !e->late && L->stats.moved_ts >= 0 && L->ts >= L->stats.moved_ts) {
                if (L->stats.nlat == L->stats.caplat) {
                    int cap = L->stats.caplat ? 2 * L->stats.caplat : 256;
                    double *n = realloc(L->stats.lat_ms, sizeof *n * (size_t)cap);
                    if (n != NULL) {
                        L->stats.lat_ms = n;
                        L->stats.caplat = cap;
                    }
                }
                if (L->stats.nlat < L->stats.caplat)
                    L->stats.lat_ms[L->stats.nlat++] = (L->ts - L->stats.moved_ts) / 1000.0;
            }
            snprintf(L->st->last_move, sizeof L->st->last_move, "%s", e->notation);
            L->st->last_ply = e->ply;
            L->st->last_move_us = e->ts_us;
            logline(L, "%s %d: %s (%s)%s%s%s conf %.1f",
                    e->type == REC_TEV_MOVE ? "move" : rec_trk_event_name(e->type), e->ply, e->usi,
                    e->notation, e->hidden ? " hidden" : "", e->type == REC_TEV_ILLEGAL ? " why " : "",
                    e->type == REC_TEV_ILLEGAL ? rec_trk_why_name(e->why) : "", e->confidence);
            break;
        case REC_TEV_GAME_START:
            L->st->games++;
            logline(L, "game %d starts: %s", e->game, e->sfen);
            if (e->continues) { /* the moves before it are not in any record: said where a person looks */
                L->st->taken_up++;
                fprintf(
                    stderr,
                    "kifucam record: warning: game %d was lost track of after move %d (its game_end event "
                    "says why); game %d takes it up again from the position seen at %.1f s "
                    "(%s): the moves in between are not known (events.jsonl, game%d.kif)\n",
                    e->continues, L->log.last_end_ply, e->game,
                    (e->ts_us - (L->log_base >= 0 ? L->log_base : L->ts0)) / 1e6, e->ref_after, e->game);
            }
            break;
        case REC_TEV_UNCERTAIN:
            L->st->uncertain++;
            L->st->last_uncertain_us = e->ts_us;
            logline(L, "uncertain after move %d: %s", e->ply, e->detail);
            break;
        default:
            if (e->type == REC_TEV_GAME_END)
                L->log.last_end_ply = e->ply;
            L->st->setup_errors += e->type == REC_TEV_SETUP_ERROR;
            if (e->type == REC_TEV_SETUP_ERROR && e->handicap >= 0)
                L->st->setup_other = e->handicap;
            logline(L, "%s: %s", rec_trk_event_name(e->type), e->detail);
            break;
        }
    }
    L->st->game_over = rec_trk_state(L->trk) == REC_TRK_ENDED;
}

/* Writes the tracker's new events (obs NULL for a command). */
int flush_out(rec_loop_t *L, const rec_obs_t *obs) {
    if (rec_out_update(L->out, L->trk, obs) != REC_OK) {
        /* what reached events.jsonl stands and is counted (the stop message says as many moves) */
        report_events(L, rec_out_logged(L->out));
        return set_err(L->err, sizeof L->err, REC_EIO, "%s", rec_out_errmsg(L->out));
    }
    const char *warn = rec_out_warning(L->out);
    if (warn[0]) {
        char w[700];
        snprintf(w, sizeof w, "%s", warn);
        rec_plain_message(w);
        fprintf(stderr, "kifucam record: warning: %s\n", w);
        source_event(L, "evidence_failed", w);
    }
    report_events(L, rec_trk_nevents(L->trk));
    return REC_OK;
}

/* rec_plain_message: record.h. */
void rec_plain_message(char *msg) {
    static const char *const prefixes[] = {"cap_", "vis_", "rec_", "rul_"};
    if (msg == NULL)
        return;
    char *w = msg;
    for (const char *r = msg; *r;) {
        size_t n = 0;
        if (r == msg || r[-1] == ' ')
            for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0] && n == 0; i++)
                if (strncmp(r, prefixes[i], 4) == 0) {
                    n = 4;
                    while ((r[n] >= 'a' && r[n] <= 'z') || (r[n] >= '0' && r[n] <= '9') || r[n] == '_')
                        n++;
                    if (!(r[n] == ':' && r[n + 1] == ' '))
                        n = 0;
                }
        if (n) {
            r += n + 2;
            continue;
        }
        *w++ = *r++;
    }
    *w = 0;
}
