/* record.c - `kifucam record` (record.h): source -> pose -> stability -> batched square read ->
 * observation -> tracker -> outputs, with operator commands on a file descriptor and progress lines.
 * Every decision about time uses the frames' timestamps, never the wall clock, so that a video file
 * gives the same record however fast the machine is. */
#include "recorder/record/record.h"
#include "recorder/record/adapt.h"
#include "recorder/output/live.h"
#include "recorder/output/output.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"

const char *rec_model_default(char *buf, size_t size) {
    const char *env = getenv("KIFUCAM_MODEL");
    char exe[4096];
    struct stat sb;
    if (env && env[0]) {
        snprintf(buf, size, "%s", env);
        return buf;
    }
    snprintf(buf, size, "models/squares.onnx");
    if (stat(buf, &sb) == 0)
        return buf;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        static const char *const rel[] = {"../models/squares.onnx", "../share/kifucam/squares.onnx"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            if ((size_t)snprintf(buf, size, "%s/%s", exe, rel[i]) < size && stat(buf, &sb) == 0)
                return buf;
        }
    }
    snprintf(buf, size, "models/squares.onnx");
    return buf;
}

void rec_record_opts_default(rec_record_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->out_dir = "kifucam-out";
    o->model = "models/squares.onnx";
    rec_trk_params_default(&o->trk);
    vis_stability_params_default(&o->stab);
    /* Latency (issue 6): a view is read as soon as it has been still for one frame interval; the
     * tracker writes a move only when its stable frames span min_run_us (90 ms) and together explain
     * the view with the margin, so reading early adds readings, not guesses. stable_ms 400 cost 0.4 s
     * of every move's latency. */
    o->stab.stable_ms = 0;
    vis_pose_params_default(&o->pose);
    o->pose_retry_frames = 5;
    o->pose_relax = 0.05;
    o->recheck_us = 2000000;
    o->max_reads_per_view = 3;
    o->reread_diff = 0.008;
    o->adapt = 1;
    o->turned = 1;
    o->cmd_fd = -1;
    o->live_port = -1;
}

/* ---------------------------------------------------------------- the recording's state */

typedef struct {
    const rec_record_opts_t *o;
    rec_record_stats_t *st;
    cap_source_t *src;
    vis_classifier_t *clf;
    rec_trk_t *trk;
    rec_out_t *out;
    vis_stability_t *stab;
    vis_pose_t pose;
    vis_pose_t cand; /* the last pose search's best grid below the threshold */
    int have_cand;   /* cand is worth comparing with the next search */
    int have_pose;
    int64_t since_search;    /* frames since the last pose search while lost */
    int64_t last_stable_ts;  /* timestamp of the last stable frame (or of the pose being found) */
    int64_t last_recheck_ts; /* timestamp of the last re-check of a found pose */
    int reads_this_view;     /* network readings of the current still view */
    int64_t last_read_ts;    /* timestamp of the last network reading */
    int have_read;           /* obs holds a reading of the current still view */
    int view_state;          /* last vis state, for the progress line */
    int flip;                /* 1: sente sits at the far end of the turn the network reads best (the
                                readings are turned by 180 degrees, owners swapped) */
    int orient_decided;      /* 1 once sente's side is known from a move (the even start looks the
                                same from both ends of the board) */
    int64_t withheld_since;  /* timestamp of the first withheld view, -1 if none */
    int adapt_pending;       /* 1 after --resume: the piece set is learned from the first reading that
                                places the pieces as the game's position does (the log has no views) */
    int withhold;            /* 1: the current still view is not given to the tracker (undecided
                                orientation and a view no first move explains) */
    rec_obs_t *obs;
    vis_board_read_t *rd, *rd2;
    rec_adapt_t *adapt; /* the piece set's prototypes (network frame classes), NULL: --no-adapt */
    rec_adapt_t *hyp;   /* scratch: the prototypes of one supposed start (adapt_setup) */
    float (*hyp_prob)[VIS_CLASS_NB]; /* scratch: 81 rows, a supposed start's adapted reading */
    int64_t ts;                      /* timestamp of the current frame */
    int64_t ts0;                     /* timestamp of the first frame (-1 before) */
    int last_end_ply;                /* moves of the game that ended last (its game_end event's ply) */
    int64_t skip_until;        /* --resume of a file: frames up to this timestamp are already in the log */
    int64_t log_base;          /* timestamp the log lines count from: the source's first frame, skipped or not
                                  (-1 until one is read; a resumed file's lines then keep the media time) */
    uint64_t corrupt_seen;     /* the source's corrupt frames already logged (or skipped by --resume) */
    int64_t damaged_logged_ts; /* timestamp of the last frames_damaged event, -1 before any */
    int damage_warned;         /* bits: 1 corrupt frames, 2 frames decoded with errors said on stderr */
    int nev_logged;            /* tracker events already reported on the log */
    double read_ms_sum;
    int64_t moved_ts; /* timestamp of the last frame that moved or showed a hand (-1 none): the
                         first frame without the hand when the view is still after it */
    double *lat_ms;   /* latency of each live move: its event's frame minus moved_ts, ms */
    int nlat, caplat;
    char cmdbuf[512];
    size_t cmdlen;
    int cmd_open;
    double t_start, t_last_progress;
    int ctl_fd; /* --control: the listening Unix socket, -1 if none */
    struct {
        int fd; /* a connected control client, -1: free slot */
        char buf[512];
        size_t len;
    } ctl[REC_CTL_CLIENTS];
    unsigned char *kthumb; /* stands_changed: thumbnail (kthumb_w^2 BGR) at the last komadai read */
    int kthumb_w;
    double kthumb_H[9];  /* the pose it was warped with */
    int have_hands_last; /* 1: hand_*_last hold the last komadai reading */
    uint8_t hand_known_last[RUL_COLOR_NB];
    float hand_prob_last[RUL_COLOR_NB][RUL_HAND_NB][REC_OBS_COUNT_NB];
    rec_live_t *live;      /* --live: the feed, NULL if none */
    int live_nev;          /* tracker events when the feed was last published */
    const char *live_view; /* view state (state_name) then */
    char err[4800];
} rec_loop_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int set_err(char *err, size_t errlen, int rc, const char *fmt, ...) {
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
static void progress(rec_loop_t *L, int force) {
    FILE *f = L->o->log;
    if (f == NULL || !L->o->log_tty)
        return;
    double t = now_s();
    if (!force && t - L->t_last_progress < 0.2)
        return;
    L->t_last_progress = t;
    double el = t - L->t_start;
    fprintf(f, "\r\033[Kframe %llu  moves %d  last %s  %.1f fps  %s", (unsigned long long)L->st->frames,
            L->st->moves, L->st->last_move[0] ? L->st->last_move : "-", el > 0 ? L->st->frames / el : 0.0,
            state_name(L));
    fflush(f);
}

/* Publishes the game to the live feed when an event was written or the view changed since the last
 * time (a cheap comparison a frame; the feed's long-polls wake on a publish). */
static void live_update(rec_loop_t *L) {
    if (L->live == NULL || L->trk == NULL)
        return;
    const char *view = state_name(L);
    int nev = rec_trk_nevents(L->trk);
    if (nev == L->live_nev && view == L->live_view)
        return;
    if (rec_live_publish(L->live, L->trk, view) == REC_OK) {
        L->live_nev = nev;
        L->live_view = view;
    }
}

/* One log line (a terminal: the progress line is cleared first and drawn again after). */
static void logline(rec_loop_t *L, const char *fmt, ...) {
    FILE *f = L->o->log;
    if (f == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (L->o->log_tty)
        fputs("\r\033[K", f);
    if (L->ts0 >= 0)
        fprintf(f, "[%8.2f s] ", (L->ts - (L->log_base >= 0 ? L->log_base : L->ts0)) / 1e6);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
    fflush(f);
    progress(L, 1);
}

/* Appends one board/source event to OUT/source.jsonl (fsync'd; the tracker's events.jsonl has no type
 * for these). */
static void source_event(rec_loop_t *L, const char *type, const char *detail) {
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

/* Reports the tracker's new events on the log and counts them. */
static void report_events(rec_loop_t *L) {
    int n = rec_trk_nevents(L->trk);
    for (; L->nev_logged < n; L->nev_logged++) {
        const rec_trk_event_t *e = rec_trk_event(L->trk, L->nev_logged);
        L->st->events++;
        switch (e->type) {
        case REC_TEV_MOVE:
        case REC_TEV_ILLEGAL:
        case REC_TEV_KING_CAPTURED:
            L->st->moves++;
            if (!e->hidden && !e->late && L->moved_ts >= 0 && L->ts >= L->moved_ts) {
                if (L->nlat == L->caplat) {
                    int cap = L->caplat ? 2 * L->caplat : 256;
                    double *n = realloc(L->lat_ms, sizeof *n * (size_t)cap);
                    if (n != NULL) {
                        L->lat_ms = n;
                        L->caplat = cap;
                    }
                }
                if (L->nlat < L->caplat)
                    L->lat_ms[L->nlat++] = (L->ts - L->moved_ts) / 1000.0;
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
                fprintf(stderr,
                        "kifucam record: warning: game %d was lost track of after move %d (no view could be "
                        "explained by its moves); game %d takes it up again from the position seen at %.1f s "
                        "(%s): the moves in between are not known (events.jsonl, game%d.kif)\n",
                        e->continues, L->last_end_ply, e->game,
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
                L->last_end_ply = e->ply;
            L->st->setup_errors += e->type == REC_TEV_SETUP_ERROR;
            logline(L, "%s: %s", rec_trk_event_name(e->type), e->detail);
            break;
        }
    }
    L->st->game_over = rec_trk_state(L->trk) == REC_TRK_ENDED;
}

/* Writes the tracker's new events (obs NULL for a command). */
static int flush_out(rec_loop_t *L, const rec_obs_t *obs) {
    if (rec_out_update(L->out, L->trk, obs) != REC_OK)
        return set_err(L->err, sizeof L->err, REC_EIO, "%s", rec_out_errmsg(L->out));
    const char *warn = rec_out_warning(L->out);
    if (warn[0]) {
        char w[700];
        snprintf(w, sizeof w, "%s", warn);
        rec_plain_message(w);
        fprintf(stderr, "kifucam record: warning: %s\n", w);
        source_event(L, "evidence_failed", w);
    }
    report_events(L);
    return REC_OK;
}

/* ---------------------------------------------------------------- operator commands */

/* Reads what the command descriptor has (never blocks) and runs each complete line. *quit = 1 after
 * `abort`. */
/* Runs one operator command line (trimmed here; blank and '#' lines are skipped) from the source
 * named `from` ("stdin" or "control socket"). The answer, one line without newline, goes to reply
 * (size bytes): "ok: CMD" or "refused: CMD: why". *quit = 1 after `abort`. Returns REC_OK or a fatal
 * error (output files, memory). */
static int run_command(rec_loop_t *L, char *line, const char *from, char *reply, size_t size, int *quit) {
    char *s = line, *e = line + strlen(line);
    reply[0] = '\0';
    while (*s == ' ' || *s == '\t')
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    if (*s == '\0' || *s == '#')
        return REC_OK;
    rec_error_t re;
    memset(&re, 0, sizeof re);
    int rc = rec_trk_command(L->trk, s, L->ts, &re);
    int is_abort = strcmp(s, "abort") == 0;
    if (rc == REC_OK) {
        logline(L, "command (%s): %s", from, s);
        snprintf(reply, size, "ok: %.500s", s);
        if ((rc = flush_out(L, NULL)) != REC_OK)
            return rc;
    } else if (rc == REC_ENOMEM) {
        return set_err(L->err, sizeof L->err, rc, "out of memory");
    } else if (!is_abort) {
        const char *why = re.msg[0] ? re.msg : rc == REC_ESTATE ? "no game in progress" : "unknown command";
        logline(L, "command refused (%s): %s: %s", from, s, why);
        snprintf(reply, size, "refused: %.200s: %.400s", s, why);
    } else {
        snprintf(reply, size, "ok: abort");
    }
    if (is_abort)
        *quit = 1;
    return REC_OK;
}

/* Takes the complete lines out of buf (*len bytes; a full buffer counts as one line) and runs them. */
static int run_lines(rec_loop_t *L, char *buf, size_t cap, size_t *len, const char *from, int reply_fd,
                     int *quit) {
    char *nl;
    while (!*quit && ((nl = memchr(buf, '\n', *len)) != NULL || *len == cap - 1)) {
        size_t n = nl ? (size_t)(nl - buf) : *len;
        char line[512], reply[700];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, buf, n);
        line[n] = '\0';
        size_t used = nl ? (size_t)(nl - buf) + 1 : *len;
        *len -= used;
        memmove(buf, buf + used, *len);
        int rc = run_command(L, line, from, reply, sizeof reply, quit);
        if (rc != REC_OK)
            return rc;
        if (reply_fd >= 0 && reply[0]) {
            size_t rl = strlen(reply);
            reply[rl++] = '\n';
            /* a client that went away misses its answer; MSG_NOSIGNAL: no SIGPIPE, which killed the
             * recording (exit 141) when a client sent "abort" and closed at once */
            if (send(reply_fd, reply, rl, MSG_NOSIGNAL) < 0) {
            }
        }
    }
    return REC_OK;
}

/* Reads what the command descriptor has (never blocks) and runs each complete line. *quit = 1 after
 * `abort`. */
static int poll_commands(rec_loop_t *L, int *quit) {
    while (L->cmd_open && !*quit) {
        struct pollfd p = {L->o->cmd_fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            return REC_OK;
        ssize_t n = read(L->o->cmd_fd, L->cmdbuf + L->cmdlen, sizeof L->cmdbuf - 1 - L->cmdlen);
        if (n <= 0) {
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return REC_OK;
            L->cmd_open = 0; /* end of input: no more commands */
            if (L->cmdlen == 0)
                return REC_OK;
            L->cmdbuf[L->cmdlen++] = '\n'; /* a last line without its newline */
        } else {
            L->cmdlen += (size_t)n;
        }
        int rc = run_lines(L, L->cmdbuf, sizeof L->cmdbuf, &L->cmdlen, "stdin", -1, quit);
        if (rc != REC_OK)
            return rc;
    }
    return REC_OK;
}

/* ---------------------------------------------------------------- control socket */

/* Creates the listening Unix stream socket at path (a stale socket file there is replaced; any other
 * file is refused). Non-blocking. Errors: REC_EIO with the reason in L->err. */
static int control_open(rec_loop_t *L, const char *path) {
    struct sockaddr_un a;
    struct stat sb;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof a.sun_path)
        return set_err(L->err, sizeof L->err, REC_EIO,
                       "--control %.80s: path too long for a socket (%zu bytes at most)", path,
                       sizeof a.sun_path - 1);
    if (lstat(path, &sb) == 0) {
        if (!S_ISSOCK(sb.st_mode))
            return set_err(L->err, sizeof L->err, REC_EIO, "--control %.200s: exists and is not a socket",
                           path);
        unlink(path);
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0 ||
        fcntl(fd, F_SETFL, O_NONBLOCK) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return set_err(L->err, sizeof L->err, REC_EIO, "--control %.200s: %s", path, strerror(e));
    }
    L->ctl_fd = fd;
    return REC_OK;
}

/* Accepts new control clients and runs the lines they sent (never blocks); each line is answered on
 * its connection with "ok: ..." or "refused: ...". */
static int poll_control(rec_loop_t *L, int *quit) {
    if (L->ctl_fd < 0)
        return REC_OK;
    for (;;) {
        int c = accept(L->ctl_fd, NULL, NULL);
        if (c < 0)
            break;
        int slot = -1;
        for (int i = 0; i < REC_CTL_CLIENTS; i++)
            if (L->ctl[i].fd < 0) {
                slot = i;
                break;
            }
        if (slot < 0 || fcntl(c, F_SETFL, O_NONBLOCK) != 0) {
            static const char busy[] = "refused: too many control connections\n";
            if (send(c, busy, sizeof busy - 1, MSG_NOSIGNAL) < 0) {
            }
            close(c);
            continue;
        }
        L->ctl[slot].fd = c;
        L->ctl[slot].len = 0;
    }
    for (int i = 0; i < REC_CTL_CLIENTS && !*quit; i++) {
        if (L->ctl[i].fd < 0)
            continue;
        ssize_t n =
            read(L->ctl[i].fd, L->ctl[i].buf + L->ctl[i].len, sizeof L->ctl[i].buf - 1 - L->ctl[i].len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        int closing = n <= 0;
        if (n > 0)
            L->ctl[i].len += (size_t)n;
        else if (L->ctl[i].len > 0)
            L->ctl[i].buf[L->ctl[i].len++] = '\n'; /* a last line without its newline */
        int rc = run_lines(L, L->ctl[i].buf, sizeof L->ctl[i].buf, &L->ctl[i].len, "control socket",
                           L->ctl[i].fd, quit);
        if (closing) {
            close(L->ctl[i].fd);
            L->ctl[i].fd = -1;
        }
        if (rc != REC_OK)
            return rc;
    }
    return REC_OK;
}

static void control_close(rec_loop_t *L) {
    for (int i = 0; i < REC_CTL_CLIENTS; i++)
        if (L->ctl[i].fd >= 0) {
            close(L->ctl[i].fd);
            L->ctl[i].fd = -1;
        }
    if (L->ctl_fd >= 0) {
        close(L->ctl_fd);
        L->ctl_fd = -1;
        if (L->o && L->o->control_path)
            unlink(L->o->control_path);
    }
}

/* ---------------------------------------------------------------- vision */

/* Probability of class c on square sq of a reading, seen from the other end when flip is 1 (the
 * board turned by 180 degrees: square 80 - sq, owners swapped). The network reads a piece best the
 * way up it stands in the picture, so a board seen from gote's end is read as found and flipped here
 * rather than read again with a turned pose. */
static float prob_at(const vis_board_read_t *rd, int flip, int sq, int c) {
    return flip ? rd->prob[VIS_SQUARE_NB - 1 - sq][REC_OBS_SWAP(c)] : rd->prob[sq][c];
}

/* Log likelihood of pos's classes under a reading (flipped when flip is 1). */
static double read_fit(const vis_board_read_t *rd, int flip, const rul_pos_t *pos) {
    double s = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        float p = prob_at(rd, flip, sq, REC_OBS_CLASS(rul_pos_piece_at(pos, sq)));
        s += log(p > 1e-3f ? p : 1e-3f);
    }
    return s;
}

/* Squares whose occupancy (a piece or none) the reading gives against pos's with confidence (pos's
 * occupancy below 10 %), under the flip; the occupancy of a square is read far more surely than the
 * piece's kind, and the even start is occupied the same from both ends. */
static int occupancy_diffs(const vis_board_read_t *rd, int flip, const rul_pos_t *pos) {
    int n = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        float empty = prob_at(rd, flip, sq, 0);
        if ((rul_pos_piece_at(pos, sq) == RUL_PIECE_NONE ? empty : 1.0f - empty) < 0.1f)
            n++;
    }
    return n;
}

/* Whether the board read rd could be a game's position once a kind read more often than a set has it
 * gives up its least sure squares (vis_board_constrain, as the reading printed; FESA 1.2), judged by
 * rul_pos_validate with both kings (FESA 9.4, one king a side); rd is not changed. *pieces: the pieces
 * on the board so revised, *ll: the sum of log conf over the 81 squares before. */
static int board_possible(const vis_board_read_t *rd, int *pieces, double *ll) {
    char sfen[VIS_SFEN_BOARD_MAX], full[VIS_SFEN_BOARD_MAX + 64];
    rul_pos_t rp;
    rul_error_t re;
    int changed[VIS_SQUARE_NB], nch, ok = 0;
    vis_board_read_t *c = malloc(sizeof *c);
    *pieces = 0;
    *ll = 0;
    if (c == NULL)
        return 0;
    *c = *rd;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        *ll += log(rd->conf[sq] + 1e-6);
    if (vis_board_constrain(c, 0.01, changed, &nch) == VIS_OK &&
        vis_board_sfen(c, sfen, sizeof sfen) == VIS_OK) {
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            *pieces += c->cls[sq] != 0;
        snprintf(full, sizeof full, "%s b - 1", sfen);
        ok = rul_pos_from_sfen(&rp, full, &re) == RUL_OK &&
             rul_pos_validate(&rp, RUL_VALIDATE_BOTH_KINGS, &re) == RUL_VALID;
    }
    free(c);
    return ok;
}

/* rec_board_by_pieces: record.h. */
int rec_board_by_pieces(vis_classifier_t *clf, const cap_image_t *img, vis_pose_t *pose, vis_board_read_t *rd,
                        int *npieces) {
    static const double c[4][2] = {{-0.15, -0.15}, {9.15, -0.15}, {9.15, 9.15}, {-0.15, 9.15}};
    *npieces = 0;
    if (pose->found || !(pose->score >= REC_BY_PIECES_MIN_SCORE))
        return 0;
    for (int i = 0; i < 4; i++) { /* every crop inside the frame: nothing read from replicated borders */
        double x, y;
        if (vis_pose_to_image(pose, c[i][0], c[i][1], &x, &y) != VIS_OK || x < 0 || y < 0 ||
            x > img->width - 1 || y > img->height - 1)
            return 0;
    }
    vis_pose_t cand = *pose;
    cand.found = 1;
    if (vis_classifier_orient(clf, img, &cand, rd) != 0)
        return -1;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
        *npieces += rd->cls[sq] != 0 && rd->conf[sq] >= (float)REC_BY_PIECES_MIN_CONF;
    if (*npieces < REC_BY_PIECES_MIN_PIECES)
        return 0;
    *pose = cand; /* found, turned as the reading was */
    return 1;
}

/* The grid moves rec_grid_shift tries, as (du, dv) for vis_pose_shift, and their words. */
static const int shift_d[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
static const char *const shift_words[8] = {
    "one file towards file 1", "one file towards file 9", "one row towards rank 9", "one row towards rank 1",
    "one square towards 1i",   "one square towards 9i",   "one square towards 1a",  "one square towards 9a"};

/* Image point of the centre of pose's grid (vis_pose_to_image of the board's centre), pixels. */
static void grid_centre(const vis_pose_t *p, double c[2]) {
    if (vis_pose_to_image(p, 4.5, 4.5, &c[0], &c[1]) != VIS_OK)
        c[0] = c[1] = 0;
}

/* rec_grid_shift_towards: record.h. */
const char *rec_grid_shift_towards(const rec_grid_shift_t *gs, const vis_pose_t *at_shift,
                                   const vis_pose_t *now) {
    if (gs == NULL || at_shift == NULL || now == NULL || (gs->du == 0 && gs->dv == 0))
        return gs && gs->towards ? gs->towards : "";
    vis_pose_t before = *at_shift, p;
    double a[2], b[2], c[2], n[2], best = 1e300;
    int bi = 0;
    vis_pose_shift(&before, -gs->du, -gs->dv);
    grid_centre(at_shift, a);
    grid_centre(&before, b);
    grid_centre(now, n);
    for (int i = 0; i < 8; i++) {
        p = *now;
        vis_pose_shift(&p, shift_d[i][0], shift_d[i][1]);
        grid_centre(&p, c);
        double ex = (c[0] - n[0]) - (a[0] - b[0]), ey = (c[1] - n[1]) - (a[1] - b[1]);
        if (ex * ex + ey * ey < best) {
            best = ex * ex + ey * ey;
            bi = i;
        }
    }
    return shift_words[bi];
}

/* rec_grid_shift: record.h. */
int rec_grid_shift(vis_classifier_t *clf, const cap_image_t *img, vis_pose_t *pose, vis_board_read_t *rd,
                   rec_grid_shift_t *out) {
    const int(*d)[2] = shift_d;
    int pieces, best = -1, best_n = -1, rc = 0;
    double ll, best_ll = -1e300;
    memset(out, 0, sizeof *out);
    if (pose->confidence >= 0.6 || board_possible(rd, &pieces, &ll))
        return 0;
    int base_pieces = pieces;
    vis_board_read_t *r2 = malloc(2 * sizeof *r2);
    if (r2 == NULL)
        return 0; /* the grid found is kept */
    for (int i = 0; i < 8 && rc == 0; i++) {
        vis_pose_t p2 = *pose, p3;
        int n2;
        double l2;
        vis_pose_shift(&p2, d[i][0], d[i][1]);
        p3 = p2;
        vis_pose_rotate(&p3, 2);
        if (vis_classifier_read(clf, img, &p2, &r2[0]) != 0 ||
            vis_classifier_read(clf, img, &p3, &r2[1]) != 0) {
            rc = -1;
            break;
        }
        vis_board_read_merge_turned(&r2[0], &r2[1]);
        if (board_possible(&r2[0], &n2, &l2) && n2 >= base_pieces &&
            (n2 > best_n || (n2 == best_n && l2 > best_ll))) {
            best = i;
            best_n = n2;
            best_ll = l2;
            r2[0].orientation = rd->orientation;
            *rd = r2[0];
        }
    }
    free(r2);
    if (rc != 0 || best < 0)
        return rc;
    vis_pose_shift(pose, d[best][0], d[best][1]);
    out->du = d[best][0];
    out->dv = d[best][1];
    out->towards = shift_words[best];
    out->pieces = best_n;
    out->pieces_before = base_pieces;
    return 1;
}

/* Finds the turn of the found board that the network reads best (vis_classifier_orient: pieces
 * upright in the picture), then which end is sente's: by the tracker's current position when a game
 * is in progress (or the given start); for the even start that is decided by the first move
 * (resolve_orientation). */
static int looks_same_turned(const rul_pos_t *pos);

static int orient(rec_loop_t *L, const cap_image_t *img) {
    const rul_pos_t *want = NULL;
    rec_grid_shift_t gs;
    int moved;
    if (vis_classifier_orient(L->clf, img, &L->pose, L->rd) != 0 ||
        (moved = rec_grid_shift(L->clf, img, &L->pose, L->rd, &gs)) < 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", vis_classifier_errmsg(L->clf));
    if (moved)
        logline(L,
                "grid moved: the grid found (pose confidence %.2f) reads no possible position; moved %s it "
                "reads one, with %d pieces on the board (%d before)",
                L->pose.confidence, gs.towards, gs.pieces, gs.pieces_before);
    L->flip = 0;
    L->orient_decided = 0;
    if (rec_trk_state(L->trk) != REC_TRK_SETUP && rec_trk_game(L->trk) != NULL)
        want = &rec_trk_game(L->trk)->pos;
    else if (L->o->start)
        want = L->o->start;
    double fit0 = want ? read_fit(L->rd, 0, want) : 0, fit1 = want ? read_fit(L->rd, 1, want) : 0;
    L->flip = fit1 > fit0;
    if (L->o->verbose)
        logline(L, "orientation: turn %d, %s (%s: fit %.1f as found, %.1f flipped)", L->rd->orientation,
                L->flip ? "flipped" : "as found",
                want && !looks_same_turned(want)
                    ? "the game's position or the given start decides"
                    : "the position looks the same from both ends: a move will decide",
                fit0, fit1);
    return REC_OK;
}

/* Feeds a "not readable" view to the tracker (ends its stable view). */
static int feed_view(rec_loop_t *L, int view, const cap_image_t *img) {
    L->obs->ts_us = L->ts;
    L->obs->view = view;
    L->obs->image = img;
    L->obs->evidence_ref = NULL;
    int rc = rec_trk_feed(L->trk, L->obs, NULL);
    if (rc != REC_OK)
        return set_err(L->err, sizeof L->err, rc, "rec_trk_feed: error %d", rc);
    return flush_out(L, L->obs);
}

static void drop_pose(rec_loop_t *L) {
    L->orient_decided = 0;
    vis_stability_destroy(L->stab);
    L->stab = NULL;
    L->have_pose = 0;
    L->have_read = 0;
    L->reads_this_view = 0;
    L->since_search = 0;
}

/* Largest distance, pixels, between the corners of two poses (any rotation of the second). */
static double pose_shift(const vis_pose_t *a, const vis_pose_t *b) {
    double best = 1e300;
    for (int r = 0; r < 4; r++) {
        double worst = 0;
        for (int i = 0; i < 4; i++) {
            double dx = a->corners[i][0] - b->corners[(i + r) % 4][0],
                   dy = a->corners[i][1] - b->corners[(i + r) % 4][1];
            double d = sqrt(dx * dx + dy * dy);
            if (d > worst)
                worst = d;
        }
        if (worst < best)
            best = worst;
    }
    return best;
}

/* Searches the board in img; on success orients it and starts the stability test. *found = 1 then. */
static int search_pose(rec_loop_t *L, const cap_image_t *img, int *found) {
    char verr[256];
    vis_pose_t p;
    *found = 0;
    L->st->pose_searches++;
    L->since_search = 1;
    if (vis_pose_find(img, &L->o->pose, &p, verr, sizeof verr) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", verr);
    if (!p.found) {
        /* a grid just under the threshold in the same place twice running is the board (a faint
           printed grid scores 0.55-0.60; sub-grids and half boards do not stay put at that score) */
        double side = hypot(p.corners[1][0] - p.corners[0][0], p.corners[1][1] - p.corners[0][1]);
        int same = L->have_cand && p.score >= L->o->pose.min_score - L->o->pose_relax &&
                   pose_shift(&L->cand, &p) < side / 9 * 0.15;
        if (L->o->verbose)
            logline(L, "pose search: no board (best grid score %.2f)%s", p.score,
                    same ? ", taken: same grid again" : "");
        L->have_cand = p.score >= L->o->pose.min_score - L->o->pose_relax;
        L->cand = p;
        if (!same)
            return REC_OK;
        p.found = 1;
    }
    L->have_cand = 0;
    L->pose = p;
    int rc = orient(L, img);
    if (rc != REC_OK)
        return rc;
    if (vis_stability_create(&L->pose, &L->o->stab, &L->stab, verr, sizeof verr) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", verr);
    L->have_pose = 1;
    L->have_read = 0;
    L->reads_this_view = 0;
    L->last_stable_ts = L->ts;
    L->last_recheck_ts = L->ts;
    *found = 1;
    L->st->board_found++;
    char d[200];
    snprintf(d, sizeof d, "grid score %.2f, corners (%.0f,%.0f) (%.0f,%.0f) (%.0f,%.0f) (%.0f,%.0f), turn %d",
             p.score, L->pose.corners[0][0], L->pose.corners[0][1], L->pose.corners[1][0],
             L->pose.corners[1][1], L->pose.corners[2][0], L->pose.corners[2][1], L->pose.corners[3][0],
             L->pose.corners[3][1], L->pose.rotation);
    source_event(L, "board_found", d);
    return REC_OK;
}

/* The view has not been stable for a while: is the board still where the pose says? Keeps the pose
 * (restarting the stability test's reference: what changed was pieces, not the board), or declares
 * the board lost (moved or gone) and searches again. */
static int recheck_pose(rec_loop_t *L, const cap_image_t *img) {
    char verr[256];
    vis_pose_t p;
    L->last_recheck_ts = L->ts;
    L->st->pose_searches++;
    if (vis_pose_find(img, &L->o->pose, &p, verr, sizeof verr) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", verr);
    double side = sqrt(
        (L->pose.corners[1][0] - L->pose.corners[0][0]) * (L->pose.corners[1][0] - L->pose.corners[0][0]) +
        (L->pose.corners[1][1] - L->pose.corners[0][1]) * (L->pose.corners[1][1] - L->pose.corners[0][1]));
    if (p.found && pose_shift(&L->pose, &p) < side / 9 * 0.25) {
        char e2[256];
        vis_stability_t *s2 = NULL;
        if (vis_stability_create(&L->pose, &L->o->stab, &s2, e2, sizeof e2) != 0)
            return set_err(L->err, sizeof L->err, REC_EVISION, "%s", e2);
        vis_stability_destroy(L->stab);
        L->stab = s2;
        return REC_OK;
    }
    char d[160];
    if (p.found)
        snprintf(d, sizeof d, "the board moved by %.0f px; searching again", pose_shift(&L->pose, &p));
    else
        snprintf(d, sizeof d, "no board in view (best grid score %.2f); searching again", p.score);
    L->st->board_lost++;
    drop_pose(L);
    source_event(L, "board_lost", d);
    int rc = feed_view(L, REC_VIEW_LOST, NULL);
    if (rc != REC_OK)
        return rc;
    if (p.found) {
        int found;
        return search_pose(L, img, &found);
    }
    return REC_OK;
}

/* Best log likelihood of a reading (flipped when flip is 1) over the positions after each legal move
 * of pos, and with depth 2 after each reply too. */
static double best_move_fit(const vis_board_read_t *rd, int flip, const rul_pos_t *pos, int depth) {
    rul_movelist_t *ml = malloc(sizeof *ml);
    double best = -1e300;
    if (ml == NULL)
        return best;
    rul_gen_legal(pos, ml);
    for (int i = 0; i < ml->count; i++) {
        rul_pos_t after = *pos;
        rul_undo_t u;
        rul_pos_do_move(&after, ml->moves[i], &u);
        double f = depth > 1 ? best_move_fit(rd, flip, &after, depth - 1) : read_fit(rd, flip, &after);
        if (f > best)
            best = f;
    }
    free(ml);
    return best;
}

/* 1 if pos's board and hands are the same seen from the other end (turned by 180 degrees, owners
 * swapped), as the even start is: then no picture tells which end is sente's. */
static int looks_same_turned(const rul_pos_t *pos) {
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        rul_piece_t here = rul_pos_piece_at(pos, sq), there = rul_pos_piece_at(pos, RUL_SQ_NB - 1 - sq);
        int turned = REC_OBS_CLASS(there);
        if (REC_OBS_CLASS(here) != REC_OBS_SWAP(turned))
            return 0;
    }
    for (int k = 0; k < RUL_HAND_NB; k++)
        if (pos->hand[RUL_SENTE][k] != pos->hand[RUL_GOTE][k])
            return 0;
    return 1;
}

/* The even start is the same from both ends of the board (turned by 180 degrees, with the owners
 * swapped, it is itself), so which end is sente's is known only after sente's first move; so is any
 * game position that looks the same from both ends (a symmetric opening, met by --resume or when the
 * board is found again: the sample game's move 30), decided by the next move. Until then each fresh reading
 * is explained by the even start and by the start after each of sente's legal first moves, once as read and
 * once flipped: a first move that improves on the start by the tracker's margin for one end and not for the
 * other decides. Returns 1 when the view may go to the tracker, 0 when it is withheld: two moves from the
 * start (a sente and a gote move) look the same from both ends; after `uncertain_after_us` x 3 of withheld
 * views the end as found is kept. */
static int resolve_orientation(rec_loop_t *L) {
    const rul_game_t *g = rec_trk_game(L->trk);
    rul_pos_t even, start;
    double m = L->o->trk.margin;
    if (L->orient_decided)
        return 1;
    if (rul_pos_from_sfen(&even, RUL_SFEN_STARTPOS, NULL) != RUL_OK)
        return 1;
    /* in a game, its position (after --resume, or the board found again mid-game): a position that
     * looks the same from both ends (a symmetric opening) is decided by the next move like the start */
    int playing = g != NULL && rec_trk_state(L->trk) != REC_TRK_SETUP;
    start = playing ? g->pos : L->o->start ? *L->o->start : even;
    if (!looks_same_turned(&start)) {
        L->orient_decided = 1; /* a handicap start, any other position: orient() chose the end */
        return 1;
    }
    /* A board that differs from the start in occupancy on more squares than two moves can change
     * (REC_TRK_MIDGAME_OCC: a game already under way, a board set wrongly) is no first move and tells
     * nothing about the ends. The tracker sees it at once (its setup check says how it differs from
     * the start); the ends are still decided by a first move, if one comes. */
    if (occupancy_diffs(L->rd, 0, &start) > REC_TRK_MIDGAME_OCC) {
        L->withheld_since = -1;
        return 1;
    }
    /* a start that looks the same from both ends (the even start, whichever side is to move): the
     * first move of the side to move tells which end is whose */
    double still = read_fit(L->rd, 0, &start), gain0 = best_move_fit(L->rd, 0, &start, 1) - still;
    double gain1 = best_move_fit(L->rd, 1, &start, 1) - still; /* the start reads the same flipped */
    if (L->o->verbose)
        logline(L, "orientation: a first move gains %.1f nats as found, %.1f flipped", gain0, gain1);
    if ((gain0 > m && gain1 <= m / 2) || (gain1 > m && gain0 <= m / 2)) {
        L->orient_decided = 1;
        L->withheld_since = -1;
        if (L->flip != (gain1 > gain0))
            rec_trk_turn_board(L->trk); /* squares of the start taken as misread turn with the board */
        L->flip = gain1 > gain0;
        if (playing && g->nply > 0)
            logline(L,
                    "orientation: sente sits at the %s end of the picture (the position looks the same "
                    "from both ends; %s's move, as the game says, was made at the %s end)",
                    L->flip ? "far" : "near", start.side == RUL_SENTE ? "sente" : "gote",
                    (start.side == RUL_SENTE) == L->flip ? "far" : "near");
        else if (L->flip)
            logline(L,
                    "orientation: sente sits at the far end of the picture (the first move, %s's as the "
                    "start says, was made at the %s end)",
                    start.side == RUL_SENTE ? "sente" : "gote", start.side == RUL_SENTE ? "far" : "near");
        else if (start.side != RUL_SENTE)
            logline(L,
                    "orientation: sente sits at the near end of the picture (the first move, gote's as the "
                    "start says, was made at the far end)");
        return 1;
    }
    if (gain0 <= m && gain1 <= m && best_move_fit(L->rd, 0, &start, 2) - still <= m) {
        L->withheld_since = -1;
        return 1; /* the start as it was (or a view no move explains: the tracker waits) */
    }
    if (L->withheld_since < 0)
        L->withheld_since = L->ts;
    if (L->ts - L->withheld_since < 3 * L->o->trk.uncertain_after_us)
        return 0;
    L->orient_decided = 1;
    logline(L, "orientation: not told by a first move; keeping the end as found");
    return 1;
}

#define REC_FULL_READ_EVERY 16 /* readings between two full ones when only changed squares are read */
#define REC_STILL_REREAD_US                                                                                  \
    1000000                  /* a still view is read again this often (µs) after its first readings         \
                              */
#define REC_KTHUMB_PX 6      /* stands_changed: thumbnail pixels a square */
#define REC_KTHUMB_LEVEL 6.0 /* ... and the mean grey difference of one square's cell that is a change */

/* 1 if either stand's area looks different from when the komadai were last read (or never read, or
 * the pose changed): both areas are warped into a small grey thumbnail (REC_KTHUMB_PX pixels a square)
 * and compared cell by cell (one square a cell) with the thumbnail of the last reading; a piece put
 * on or taken off a stand changes a cell by tens of grey levels, video noise by 1-3. The new
 * thumbnail becomes the reference when it differs. */
/* Mean absolute difference (grey levels) between two W x W BGR thumbnails over the REC_KTHUMB_PX-pixel
 * cell whose top-left pixel is (x0, y0), clipped to the picture; 0 for a cell outside it. */
static double cell_diff(const unsigned char *a, const unsigned char *b, int W, int x0, int y0) {
    long sum = 0, n = 0;
    for (int y = y0 < 0 ? 0 : y0; y < y0 + REC_KTHUMB_PX && y < W; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x0 + REC_KTHUMB_PX && x < W; x++)
            for (int ch = 0; ch < 3; ch++, n++) {
                size_t i = ((size_t)y * W + x) * 3 + ch;
                sum += abs((int)a[i] - (int)b[i]);
            }
    return n > 0 ? (double)sum / n : 0;
}

static int stands_changed(rec_loop_t *L, const cap_image_t *img, const vis_komadai_params_t *kp) {
    const double M = kp->gap + kp->width + 0.5;
    const int W = (int)lround((9 + 2 * M) * REC_KTHUMB_PX);
    unsigned char *cur = malloc((size_t)W * W * 3);
    char err[300];
    int changed = 1;
    if (cur == NULL)
        return 1;
    cap_image_t dst = {W, W, 3 * W, cur};
    if (vis_pose_warp(img, &L->pose, M, &dst, err, sizeof err) != VIS_OK) {
        free(cur);
        return 1;
    }
    if (L->kthumb && L->kthumb_w == W && memcmp(L->kthumb_H, L->pose.H, sizeof L->kthumb_H) == 0 &&
        L->have_hands_last) {
        changed = 0;
        for (int side = 0; side < 2 && !changed; side++)
            for (double v = 9 + kp->below - kp->height; v < 9 + kp->below - 0.5 && !changed; v += 1)
                for (double u = 9 + kp->gap; u < 9 + kp->gap + kp->width - 0.5 && !changed; u += 1) {
                    double cu = side ? 9 - u - 1 : u, cv = side ? 9 - v - 1 : v; /* gote's: turned */
                    int x0 = (int)lround((cu + M) * REC_KTHUMB_PX),
                        y0 = (int)lround((cv + M) * REC_KTHUMB_PX);
                    changed = cell_diff(cur, L->kthumb, W, x0, y0) > REC_KTHUMB_LEVEL;
                }
    }
    if (changed) {
        free(L->kthumb);
        L->kthumb = cur;
        L->kthumb_w = W;
        memcpy(L->kthumb_H, L->pose.H, sizeof L->kthumb_H);
    } else {
        free(cur);
    }
    return changed;
}

/* Reads both komadai (vis_komadai_read) into the observation's hands: sente's stand is the one at the
 * far end of the picture when the view is flipped; a stand out of view (or a failed read) is unknown.
 * The counts are flattened (sharpness 0.3): the tracker adds their log-probabilities to the board's
 * within one fit budget (fit_max, 3 nats), and a stack read as one piece must not use it up (on the
 * sample clip's views the truth then costs at most 1.6 nats, 0.07 at the median, against 5.5 unflattened). */
static void read_komadai(rec_loop_t *L, const cap_image_t *img, int force) {
    vis_komadai_read_t kr;
    vis_komadai_params_t kp;
    vis_komadai_params_default(&kp);
    kp.sharpness = 0.3;
    if (!force && !stands_changed(L, img, &kp)) { /* the last reading still holds */
        memcpy(L->obs->hand_known, L->hand_known_last, sizeof L->hand_known_last);
        memcpy(L->obs->hand_prob, L->hand_prob_last, sizeof L->hand_prob_last);
        return;
    }
    L->st->komadai_reads++;
    L->obs->hand_known[RUL_SENTE] = L->obs->hand_known[RUL_GOTE] = 0;
    L->have_hands_last = 0;
    if (vis_komadai_read(L->clf, img, &L->pose, &kp, &kr) != 0)
        return;
    for (int c = 0; c < RUL_COLOR_NB; c++) {
        int s = L->flip ? 1 - c : c;
        L->obs->hand_known[c] = (uint8_t)kr.known[s];
        for (int k = 0; k < RUL_HAND_NB; k++) /* P L N S B R G in both */
            for (int n = 0; n < REC_OBS_COUNT_NB; n++)
                L->obs->hand_prob[c][k][n] = n < VIS_HAND_COUNT_NB ? kr.prob[s][k][n] : 0;
    }
    memcpy(L->hand_known_last, L->obs->hand_known, sizeof L->hand_known_last);
    memcpy(L->hand_prob_last, L->obs->hand_prob, sizeof L->hand_prob_last);
    L->have_hands_last = 1;
}

/* ---------------------------------------------------------------- piece-set adaptation (adapt.h) */

_Static_assert(REC_FEAT_NB == VIS_FEAT_NB, "adapt.h and vision.h embeddings differ");
_Static_assert(REC_OBS_CLASS_NB == VIS_CLASS_NB, "tracker and vision classes differ");

#define REC_ADAPT_COARSE_MISS                                                                                \
    2 /* a supposed start is judged only when the reading's empty / sente /                                  \
         gote differs from it on at most this many squares */

/* The classes of pos in the network's frame (the reading's squares and owners: turned by 180 degrees
 * when flip is 1), into cls[81]. */
static void net_classes(const rul_pos_t *pos, int flip, int cls[VIS_SQUARE_NB]) {
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        int c = REC_OBS_CLASS(rul_pos_piece_at(pos, sq));
        cls[flip ? VIS_SQUARE_NB - 1 - sq : sq] = flip ? REC_OBS_SWAP(c) : c;
    }
}

/* Squares where the reading's likeliest of empty / sente piece / gote piece differs from cls. */
static int coarse_misses(const vis_board_read_t *rd, const int cls[VIS_SQUARE_NB]) {
    int miss = 0;
    for (int sq = 0; sq < VIS_SQUARE_NB; sq++) {
        double e = rd->prob[sq][0], s = 0, g = 0;
        for (int c = 1; c <= 14; c++) {
            s += rd->prob[sq][c];
            g += rd->prob[sq][c + 14];
        }
        int got = e >= s && e >= g ? 0 : s >= g ? 1 : 2, want = cls[sq] == 0 ? 0 : cls[sq] <= 14 ? 1 : 2;
        miss += got != want;
    }
    return miss;
}

/* Before the game's prototypes exist: the reading judged under the position the board is supposed to
 * show (the tracker's position in a game, e.g. after --resume; else the given start, else the even
 * start and the 15 handicaps, FESA 9.1). Each supposed position whose pieces the reading places (empty
 * / sente / gote, REC_ADAPT_COARSE_MISS) is taken as labels: the prototypes of its classes are built
 * from the reading's embeddings and each square is judged by the others (leave-one-out,
 * rec_adapt_apply's own). The supposed position the judged reading fits best replaces the reading's
 * probabilities; none: the reading stays. A supposition only reweighs evidence: a square whose crop
 * looks like another class's crops (a piece out of place) still reads as that class. */
static void adapt_setup(rec_loop_t *L) {
    rul_pos_t cand[RUL_HC_NB + 1];
    int ncand = 0, cls[VIS_SQUARE_NB];
    double best = -1e300;
    const rul_game_t *g = rec_trk_game(L->trk);
    if (rec_trk_state(L->trk) == REC_TRK_PLAYING && g != NULL)
        cand[ncand++] = g->pos;
    else if (L->o->start)
        cand[ncand++] = *L->o->start;
    else
        for (int h = 0; h < RUL_HC_NB; h++)
            if (rul_pos_set_handicap(&cand[ncand], (rul_handicap_t)h) == RUL_OK)
                ncand++;
    for (int i = 0; i < ncand; i++) {
        net_classes(&cand[i], L->flip, cls);
        if (coarse_misses(L->rd, cls) > REC_ADAPT_COARSE_MISS)
            continue;
        rec_adapt_reset(L->hyp);
        memcpy(L->rd2->prob, L->rd->prob, sizeof L->rd->prob);
        if (rec_adapt_learn(L->hyp, (const float(*)[REC_FEAT_NB])L->rd->feat, cls, VIS_SQUARE_NB) != REC_OK ||
            rec_adapt_apply(L->hyp, (const float(*)[REC_FEAT_NB])L->rd->feat, L->rd2->prob, VIS_SQUARE_NB,
                            cls) != REC_OK)
            continue;
        double fit = 0;
        for (int sq = 0; sq < VIS_SQUARE_NB; sq++)
            fit += log(L->rd2->prob[sq][cls[sq]] > 1e-3f ? L->rd2->prob[sq][cls[sq]] : 1e-3f);
        if (fit > best) {
            best = fit;
            memcpy(L->hyp_prob, L->rd2->prob, sizeof L->rd->prob);
        }
    }
    if (best > -1e300)
        memcpy(L->rd->prob, L->hyp_prob, sizeof L->rd->prob);
}

/* Reweighs a fresh reading (L->rd, network frame) by the piece set: the game's prototypes and the
 * squares that look as they did at the last accepted position (rec_adapt_recall) once the tracker has
 * learned some, else the supposed start (adapt_setup). Keeps cls/conf/min_conf in step. */
static void adapt_read(rec_loop_t *L) {
    if (L->adapt != NULL && !L->rd->has_feat && L->st->adapt_off == 0) {
        L->st->adapt_off = 2;
        logline(L, "piece-set adaptation off: %s gives no embeddings (29 outputs; exported before 7b85a79)",
                L->o->model);
    }
    if (L->adapt == NULL || !L->rd->has_feat)
        return;
    if (rec_adapt_nclasses(L->adapt) > 0) {
        rec_adapt_apply(L->adapt, (const float(*)[REC_FEAT_NB])L->rd->feat, L->rd->prob, VIS_SQUARE_NB, NULL);
        rec_adapt_recall(L->adapt, (const float(*)[REC_FEAT_NB])L->rd->feat, L->rd->prob, VIS_SQUARE_NB);
    } else
        adapt_setup(L);
    vis_board_read_argmax(L->rd);
}

/* After --resume the piece set has no views to learn from (the log keeps moves, not looks), and a
 * held-out set the network alone misreads then stalls the game at its next move. The first reading
 * whose empty / sente / gote squares are the game position's (a move always changes them) is that
 * position as it was: it is learned like an accepted view. */
static int learn_view(rec_loop_t *L, const int cls[VIS_SQUARE_NB]);

static void adapt_resumed(rec_loop_t *L) {
    const rul_game_t *g = rec_trk_game(L->trk);
    int cls[VIS_SQUARE_NB];
    if (!L->adapt_pending || L->adapt == NULL || !L->rd->has_feat || g == NULL ||
        rec_trk_state(L->trk) != REC_TRK_PLAYING)
        return;
    if ((!L->orient_decided || L->withhold) && !looks_same_turned(&g->pos))
        return; /* the ends undecided: the labels would depend on them (a symmetric position's do not) */
    net_classes(&g->pos, L->flip, cls);
    if (coarse_misses(L->rd, cls) != 0)
        return;
    L->adapt_pending = 0;
    if (learn_view(L, cls) && L->o->verbose)
        logline(L, "piece set: learned from the resumed game's position as seen");
}

/* Learns the current reading labelled cls (prototypes, rec_adapt_learn, and each square's look,
 * rec_adapt_remember) and counts it. Returns 1 if learned. */
static int learn_view(rec_loop_t *L, const int cls[VIS_SQUARE_NB]) {
    if (rec_adapt_learn(L->adapt, (const float(*)[REC_FEAT_NB])L->rd->feat, cls, VIS_SQUARE_NB) != REC_OK ||
        rec_adapt_remember(L->adapt, (const float(*)[REC_FEAT_NB])L->rd->feat, cls, VIS_SQUARE_NB) != REC_OK)
        return 0;
    L->st->adapt_learned++;
    return 1;
}

/* After a stable view added nnew events: when one of them is the start or a move (legal or not) and the
 * tracker holds no other hypothesis, the reading of that view is labelled with the tracker's position
 * and learned (every square: the start's pieces, the moved piece, the empty squares), and each
 * square's look is remembered with its class (rec_adapt_remember). */
static void adapt_learn(rec_loop_t *L, int nnew) {
    int n = rec_trk_nevents(L->trk), learn = 0, cls[VIS_SQUARE_NB];
    const rul_game_t *g = rec_trk_game(L->trk);
    if (L->adapt == NULL || !L->rd->has_feat || nnew <= 0 || g == NULL || rec_trk_hypotheses(L->trk) != 0)
        return;
    for (int i = n - nnew; i < n; i++) {
        int t = rec_trk_event(L->trk, i)->type;
        learn |= t == REC_TEV_GAME_START || t == REC_TEV_MOVE || t == REC_TEV_ILLEGAL;
    }
    if (!learn)
        return;
    net_classes(&g->pos, L->flip, cls);
    learn_view(L, cls);
}

/* Reads the stable view (network) and fills the observation's squares. */
static int read_board(rec_loop_t *L, const cap_image_t *img) {
    double t0 = now_s();
    int nread = VIS_SQUARE_NB;
    /* every REC_FULL_READ_EVERY-th reading sends all 81 squares (max_diff 0), whatever changed */
    double diff = L->st->reads % REC_FULL_READ_EVERY == REC_FULL_READ_EVERY - 1 ? 0 : L->o->reread_diff;
    if (vis_classifier_read_changed(L->clf, img, &L->pose, diff, L->rd, &nread) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", vis_classifier_errmsg(L->clf));
    L->read_ms_sum += (now_s() - t0) * 1e3;
    L->st->squares_read += (uint64_t)nread;
    L->st->reads++;
    adapt_read(L);
    L->withhold = !resolve_orientation(L);
    adapt_resumed(L);
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            L->obs->sq_prob[sq][c] = prob_at(L->rd, L->flip, sq, c);
        L->obs->sq_unknown[sq] = 0;
    }
    read_komadai(L, img, diff == 0 || L->o->reread_diff == 0);
    L->have_read = 1;
    L->reads_this_view++;
    L->last_read_ts = L->ts;
    if (L->o->verbose) {
        char sf[VIS_SFEN_BOARD_MAX];
        vis_board_sfen(L->rd, sf, sizeof sf);
        logline(L, "read: %s (min conf %.2f)", sf, L->rd->min_conf);
    }
    return REC_OK;
}

/* One frame through pose, stability, reading and the tracker. */
static int process_frame(rec_loop_t *L, const cap_frame_t *fr) {
    const cap_image_t *img = &fr->image;
    int rc, found;
    char ref[32];
    if (!L->have_pose) {
        if (L->since_search++ % L->o->pose_retry_frames != 0)
            return REC_OK;
        if ((rc = search_pose(L, img, &found)) != REC_OK || !found)
            return rc;
        L->view_state = VIS_VIEW_NONE;
    }
    if (L->have_pose && (img->width != L->pose.frame_w || img->height != L->pose.frame_h)) {
        char d[96];
        snprintf(d, sizeof d, "the frame size changed to %dx%d; searching again", img->width, img->height);
        L->st->board_lost++;
        drop_pose(L);
        source_event(L, "board_lost", d);
        return feed_view(L, REC_VIEW_LOST, NULL);
    }
    vis_view_t v;
    if (vis_stability_update(L->stab, img, L->ts, &v) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "vis_stability_update failed");
    if (L->o->verbose && v.state != L->view_state)
        logline(L, "view: %s (moving cells %d, changed cells %d)",
                v.state == VIS_VIEW_HAND       ? "hand"
                : v.state == VIS_VIEW_MOVING   ? "moving"
                : v.state == VIS_VIEW_SETTLING ? "settling"
                : v.state == VIS_VIEW_STABLE   ? "stable"
                                               : "none",
                v.moving_cells, v.changed_cells);
    L->view_state = v.state;
    if (v.state == VIS_VIEW_MOVING || v.state == VIS_VIEW_HAND)
        L->moved_ts = L->ts;
    if (v.state != VIS_VIEW_STABLE) {
        L->have_read = 0;
        L->reads_this_view = 0;
        if (L->ts - L->last_stable_ts >= L->o->recheck_us && L->ts - L->last_recheck_ts >= L->o->recheck_us &&
            v.state != VIS_VIEW_MOVING) {
            rc = recheck_pose(L, img);
            if (rc != REC_OK || !L->have_pose)
                return rc;
        }
        return feed_view(L, v.state == VIS_VIEW_HAND ? REC_VIEW_HAND : REC_VIEW_MOVING, img);
    }
    L->last_stable_ts = L->ts;
    /* A still view is read up to max_reads_per_view times, then again every REC_STILL_REREAD_US: a
     * piece that changed without a hand in view (frames the camera dropped, a piece the same colour
     * as the board, which the stability test misses) is then seen within that time; only the squares
     * whose crop changed go through the network, so a still board costs a warp and a compare. */
    if (!L->have_read || L->reads_this_view < L->o->max_reads_per_view ||
        L->ts - L->last_read_ts >= REC_STILL_REREAD_US)
        if ((rc = read_board(L, img)) != REC_OK)
            return rc;
    if (L->withhold) {
        L->have_read = 0; /* read again on the next frame */
        return feed_view(L, REC_VIEW_MOVING, img);
    }
    snprintf(ref, sizeof ref, "frame %llu", (unsigned long long)fr->seq);
    L->obs->ts_us = L->ts;
    L->obs->view = REC_VIEW_STABLE;
    L->obs->image = img;
    L->obs->evidence_ref = ref;
    int nnew = 0;
    rc = rec_trk_feed(L->trk, L->obs, &nnew);
    if (rc != REC_OK)
        return set_err(L->err, sizeof L->err, rc, "rec_trk_feed: error %d", rc);
    adapt_learn(L, nnew);
    return flush_out(L, L->obs);
}

/* ---------------------------------------------------------------- the loop */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and 95th percentile (nearest rank) of the n latencies (sorted in place) into st. */
static void latency_stats(double *lat, int n, rec_record_stats_t *st) {
    st->latency_n = n;
    st->latency_median_ms = st->latency_p95_ms = 0;
    if (n == 0)
        return;
    qsort(lat, (size_t)n, sizeof *lat, cmp_double);
    st->latency_median_ms = n % 2 ? lat[n / 2] : 0.5 * (lat[n / 2 - 1] + lat[n / 2]);
    int k = (int)ceil(0.95 * n) - 1;
    st->latency_p95_ms = lat[k < 0 ? 0 : k];
}

/* Keeps in st the latest time frames were lost or damaged (ts_us, frames' clock). */
static void note_damage(rec_record_stats_t *st, int64_t ts_us) {
    if (ts_us > st->last_damage_us)
        st->last_damage_us = ts_us;
}

int rec_record_run(const rec_record_opts_t *o, rec_record_stats_t *st_out, char *err, size_t errlen) {
    rec_loop_t L;
    rec_record_stats_t st;
    cap_params_t cp;
    int rc = REC_OK, quit = 0, eof = 0;
    if (err && errlen)
        err[0] = '\0';
    memset(&st, 0, sizeof st);
    st.last_move_us = st.last_uncertain_us = st.end_us = st.last_damage_us = -1;
    if (st_out)
        memset(st_out, 0, sizeof *st_out);
    if (o == NULL || o->source == NULL || o->out_dir == NULL || o->model == NULL ||
        o->pose_retry_frames < 1 || o->max_reads_per_view < 1 || o->recheck_us < 0)
        return set_err(err, errlen, REC_ERANGE, "rec_record_run: bad options");
    memset(&L, 0, sizeof L);
    L.o = o;
    L.st = &st;
    L.ts0 = -1;
    L.skip_until = -1;
    L.log_base = -1;
    L.withheld_since = -1;
    L.moved_ts = -1;
    L.damaged_logged_ts = -1;
    L.cmd_open = o->cmd_fd >= 0;
    L.ctl_fd = -1;
    for (int i = 0; i < REC_CTL_CLIENTS; i++)
        L.ctl[i].fd = -1;
    L.t_start = now_s();
    L.obs = malloc(sizeof *L.obs);
    L.rd = malloc(sizeof *L.rd);
    L.rd2 = malloc(sizeof *L.rd2);
    L.hyp_prob = malloc(sizeof *L.hyp_prob * VIS_SQUARE_NB);
    if (o->adapt &&
        (rec_adapt_create(NULL, &L.adapt) != REC_OK || rec_adapt_create(NULL, &L.hyp) != REC_OK)) {
        rc = set_err(L.err, sizeof L.err, REC_ENOMEM, "out of memory");
        goto out;
    }
    if (!L.obs || !L.rd || !L.rd2 || !L.hyp_prob) {
        rc = set_err(L.err, sizeof L.err, REC_ENOMEM, "out of memory");
        goto out;
    }
    rec_obs_clear(L.obs);
    L.obs->hand_known[0] = L.obs->hand_known[1] = 0;

    /* the model first: nothing is written when it is missing */
    if (vis_classifier_open(o->model, &L.clf) != 0) {
        rc = set_err(L.err, sizeof L.err, L.clf ? REC_EMODEL : REC_ENOMEM,
                     "%s; the square classifier is given by --model FILE or KIFUCAM_MODEL",
                     vis_classifier_errmsg(L.clf));
        goto out;
    }
    vis_classifier_set_turned(L.clf, o->turned);
    cap_params_default(&cp);
    cp.fps = o->fps;
    if (cap_source_open(o->source, &cp, &L.src) != 0) {
        rc = set_err(L.err, sizeof L.err, L.src ? REC_ESOURCE : REC_ENOMEM, "%s", cap_errmsg(L.src));
        goto out;
    }
    /* the live feed's port first: a port in use leaves no files behind */
    if (o->live_port >= 0) {
        if ((rc = rec_live_open(o->live_port, o->out_dir, &L.live, L.err, sizeof L.err)) != REC_OK)
            goto out;
        logline(&L, "live feed: http://localhost:%d/ (state.json, game.kif, ...)", rec_live_port(L.live));
        L.live_nev = -1;
    }
    /* the control socket too: a path that cannot be a socket leaves no files behind */
    if (o->control_path && (rc = control_open(&L, o->control_path)) != REC_OK)
        goto out;
    if (o->resume) {
        rc = rec_out_resume(o->out_dir, &o->trk, o->start, &L.trk, &L.out, L.err, sizeof L.err);
        if (rc != REC_OK)
            goto out;
        L.nev_logged = rec_trk_nevents(L.trk);
        L.adapt_pending = rec_trk_state(L.trk) == REC_TRK_PLAYING;
        st.games = rec_trk_game_number(L.trk); /* the folder's games so far: the summary counts them */
        struct stat sb;
        L.skip_until = -1;
        if (L.nev_logged > 0 && stat(o->source, &sb) == 0 && (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)))
            L.skip_until = rec_trk_event(L.trk, L.nev_logged - 1)->ts_us; /* a file replays from its start */
        logline(&L, "resumed %s: %d events, game %d, %s", o->out_dir, L.nev_logged,
                rec_trk_game_number(L.trk),
                rec_trk_state(L.trk) == REC_TRK_PLAYING ? "in progress" : "not in progress");
    } else {
        rc = rec_trk_create(&o->trk, o->start, &L.trk);
        if (rc != REC_OK) {
            set_err(L.err, sizeof L.err, rc, "rec_trk_create: bad tracker parameters or start position");
            goto out;
        }
        if ((rc = rec_out_open(o->out_dir, 0, &L.out, L.err, sizeof L.err)) != REC_OK)
            goto out;
        /* an empty log from the start, so that --resume works whatever point the recording reaches */
        char p[4096];
        snprintf(p, sizeof p, "%s/events.jsonl", o->out_dir);
        FILE *f = fopen(p, "a");
        if (f == NULL || fclose(f) != 0) {
            rc = set_err(L.err, sizeof L.err, REC_EIO, "%s: %s", p, strerror(errno));
            goto out;
        }
    }
    logline(&L, "source: %s", cap_source_describe(L.src));
    if (o->control_path)
        logline(&L, "control socket: %s (one command a line; each answered ok: / refused:)", o->control_path);

    while (rc == REC_OK && !quit) {
        cap_frame_t fr;
        if (o->stop && *o->stop) {
            st.aborted = 2;
            source_event(&L, "interrupted", "stopped by a signal; files flushed");
            break;
        }
        if ((rc = poll_commands(&L, &quit)) != REC_OK || quit || (rc = poll_control(&L, &quit)) != REC_OK ||
            quit) {
            if (quit)
                st.aborted = 1;
            break;
        }
        if (o->max_frames > 0 && (int64_t)st.frames >= o->max_frames)
            break;
        int cr = cap_source_read(L.src, &fr);
        cap_stats_t cs;
        cap_source_stats(L.src, &cs);
        /* frames the source could not decode (a damaged JPEG, a packet a video decoder refused): lost,
         * so said in source.jsonl with where they were, and once on stderr; not while --resume skips
         * what is already recorded (the earlier run logged it) */
        int resumed_part =
            L.skip_until >= 0 && L.ts0 < 0 && (cs.corrupt_ts_us < 0 || cs.corrupt_ts_us <= L.skip_until);
        if (cs.corrupt > L.corrupt_seen && !resumed_part) {
            char d[160], at[64] = "";
            if (cs.corrupt_ts_us >= 0)
                snprintf(at, sizeof at, "the last at %.2f s of the source", cs.corrupt_ts_us / 1e6);
            snprintf(d, sizeof d, "%llu corrupt frame(s) skipped (%llu in all)%s%s",
                     (unsigned long long)(cs.corrupt - L.corrupt_seen), (unsigned long long)cs.corrupt,
                     at[0] ? ", " : "", at);
            if (!(L.damage_warned & 1)) {
                fprintf(stderr,
                        "kifucam record: warning: %s: damaged data: frames that could not be decoded were "
                        "skipped%s%s (%s/source.jsonl has a corrupt_frames line for each place)\n",
                        o->source, at[0] ? ", " : "", at, o->out_dir);
                L.damage_warned |= 1;
            }
            source_event(&L, "corrupt_frames", d);
            note_damage(&st, cs.corrupt_ts_us >= 0 ? cs.corrupt_ts_us : L.ts);
        }
        L.corrupt_seen = cs.corrupt;
        st.corrupt = cs.corrupt;
        if (cr == CAP_AGAIN)
            continue;
        if (cr == CAP_EOF) {
            if (rec_trk_finish(L.trk, L.ts, NULL) != REC_OK || flush_out(&L, L.obs) != REC_OK) {
                rc = set_err(L.err, sizeof L.err, REC_ENOMEM, "the end of the source could not be written");
                break;
            }
            char why[512]; /* a video file cut short says so */
            snprintf(why, sizeof why, "%s", cap_errmsg(L.src));
            rec_plain_message(why);
            char d[600];
            snprintf(d, sizeof d, "the source has no more frames%s%.500s", why[0] ? "; " : "", why);
            if (why[0])
                fprintf(stderr, "kifucam record: warning: %s\n", why);
            source_event(&L, "end_of_source", d);
            eof = 1;
            break;
        }
        if (cr == CAP_E_NODEV) {
            st.camera_lost++;
            source_event(&L, "camera_lost", cap_errmsg(L.src));
            rc = feed_view(&L, REC_VIEW_LOST, NULL);
            continue;
        }
        if (cr != CAP_OK) {
            rc = set_err(L.err, sizeof L.err, REC_ESOURCE, "%s", cap_errmsg(L.src));
            break;
        }
        st.frames++;
        st.dropped += fr.dropped;
        if (L.log_base < 0)
            L.log_base = fr.ts_us;
        if (fr.ts_us <= L.skip_until)
            continue; /* --resume of a file: already recorded */
        int64_t gap = L.ts0 >= 0 && !(fr.flags & CAP_FRAME_RESUMED) ? fr.ts_us - L.ts : 0;
        /* timestamps must not go backwards for the tracker */
        L.ts = fr.ts_us > L.ts || L.ts0 < 0 ? fr.ts_us : L.ts;
        if (L.ts0 < 0)
            L.ts0 = L.ts;
        /* a gap of half a second or more is an event, stamped with the frame after it ("before this one");
         * short drops while a reading runs are only counted */
        if (fr.dropped > 0 && gap >= 500000) {
            char d[96];
            snprintf(d, sizeof d, "%u frame(s) missing before this one (%.1f s)", (unsigned)fr.dropped,
                     gap / 1e6);
            source_event(&L, "frames_dropped", d);
            note_damage(&st, L.ts);
        } else if (fr.dropped == 0 && gap >= 1000000) {
            /* no frame counted lost, but the clock jumped: a video file cut and joined, a stalled camera */
            char d[96];
            snprintf(d, sizeof d, "no frame for %.1f s before this one (a gap in the source's timestamps)",
                     gap / 1e6);
            source_event(&L, "frames_dropped", d);
            note_damage(&st, L.ts);
        }
        /* a frame decoded with errors (damaged data: parts of the picture may be wrong) is said in
         * source.jsonl, at most once a second of the source (the detail counts them); one whose picture
         * may be wrong anywhere (CAP_FRAME_DAMAGED: a video frame predicted from a lost one) is not read
         * at all, below: the time is a gap the tracker explains afterwards, or reports uncertain */
        int damaged = (fr.flags & CAP_FRAME_DAMAGED) != 0;
        if (damaged)
            note_damage(&st, L.ts);
        if ((fr.flags & CAP_FRAME_WARNING) &&
            (L.damaged_logged_ts < 0 || L.ts - L.damaged_logged_ts >= 1000000)) {
            cap_source_stats(L.src, &cs);
            char d[200];
            snprintf(d, sizeof d,
                     "this frame was decoded with errors (damaged data: parts of the picture may be "
                     "wrong; %s), %llu such frame(s) in all",
                     damaged ? "not read: decoded from lost or damaged data, as every frame up to the next "
                               "keyframe"
                             : "it is read as it is",
                     (unsigned long long)cs.warnings);
            L.damaged_logged_ts = L.ts;
            if (!(L.damage_warned & 2)) {
                fprintf(stderr,
                        "kifucam record: warning: %s: damaged data: a frame decoded with errors %.2f s into "
                        "the source%s (%s/source.jsonl has a frames_damaged line for each, at most one a "
                        "second)\n",
                        o->source, (L.ts - (L.log_base >= 0 ? L.log_base : L.ts0)) / 1e6,
                        damaged
                            ? "; it and the frames predicted from it, up to the next keyframe, are not read"
                            : "",
                        o->out_dir);
                L.damage_warned |= 2;
            }
            source_event(&L, "frames_damaged", d);
        }
        if (fr.flags & CAP_FRAME_RESUMED) {
            char d[96];
            snprintf(d, sizeof d, "the camera is back after %.1f s without frames", fr.blind_us / 1e6);
            source_event(&L, "camera_back", d);
        }
        if (damaged) { /* not evidence: the board is as good as out of view */
            L.have_read = 0;
            L.reads_this_view = 0;
            rc = feed_view(&L, REC_VIEW_LOST, NULL);
        } else
            rc = process_frame(&L, &fr);
        progress(&L, 0);
        live_update(&L);
    }
    if (rc == REC_OK && eof && st.board_found == 0 && L.skip_until >= 0 && L.ts0 < 0)
        rc = set_err(
            L.err, sizeof L.err, REC_ESOURCE,
            "%s ends before %.1f s, the time of the last event of the recording in %s: every frame of it "
            "is already recorded (give --resume the source the recording was made from)",
            o->source, L.skip_until / 1e6, o->out_dir);
    else if (rc == REC_OK && eof && st.board_found == 0)
        rc = set_err(L.err, sizeof L.err, REC_ENOBOARD, "%s: no board found in %llu frames", o->source,
                     (unsigned long long)st.frames);

out:
    st.wall_s = now_s() - L.t_start;
    st.end_us = L.ts0 >= 0 ? L.ts : -1;
    st.fps = st.wall_s > 0 ? st.frames / st.wall_s : 0;
    st.read_ms = st.reads ? L.read_ms_sum / (double)st.reads : 0;
    st.adapt_classes = rec_adapt_nclasses(L.adapt);
    if (!o->adapt)
        st.adapt_off = 1;
    latency_stats(L.lat_ms, L.nlat, &st);
    if (o && o->log && o->log_tty) {
        progress(&L, 1);
        fputc('\n', o->log);
    }
    if (rc != REC_OK && err && errlen)
        snprintf(err, errlen, "%s", L.err[0] ? L.err : "recording failed");
    if (L.live)
        live_update(&L);
    rec_live_close(L.live);
    control_close(&L);
    free(L.kthumb);
    vis_stability_destroy(L.stab);
    rec_out_close(L.out);
    rec_trk_destroy(L.trk);
    cap_source_close(L.src);
    vis_classifier_destroy(L.clf);
    free(L.obs);
    free(L.rd);
    free(L.rd2);
    free(L.hyp_prob);
    rec_adapt_destroy(L.adapt);
    rec_adapt_destroy(L.hyp);
    free(L.lat_ms);
    if (st_out)
        *st_out = st;
    return rc;
}

/* ---------------------------------------------------------------- messages */

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
