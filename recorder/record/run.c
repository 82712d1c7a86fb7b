/* run.c - rec_record_run (record.h): opens the model, the source and the outputs, runs each frame
 * through pose, stability, reading and the tracker, and closes; and the options' defaults. Every
 * decision about time uses the frames' timestamps, never the wall clock, so that a video file gives the
 * same record however fast the machine is. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/record/record_internal.h"

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
    /* a view is read as soon as it has been still for one frame interval (docs/recording-loop.md) */
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

/* rec_record_opts_t.degrade: square sq's probabilities mixed with a random distribution (a sharp one:
 * uniform draws to the 4th power, normalised), drawn from the frame count and the square (xorshift). */
static void degrade_square(float *p, double d, uint64_t frame, int sq) {
    uint64_t x = (frame + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(sq + 1) * 0xD1B54A32D192ED03ull;
    double r[REC_OBS_CLASS_NB], sum = 0;
    for (int c = 0; c < REC_OBS_CLASS_NB; c++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0;
        r[c] = u * u * u * u;
        sum += r[c];
    }
    for (int c = 0; c < REC_OBS_CLASS_NB; c++)
        p[c] = (float)((1 - d) * p[c] + d * (sum > 0 ? r[c] / sum : 1.0 / REC_OBS_CLASS_NB));
}

/* Reads the stable view (network) and fills the observation's squares. */
static int read_board(rec_loop_t *L, const cap_image_t *img) {
    double t0 = rec_loop_now_s();
    int nread = VIS_SQUARE_NB;
    /* every REC_FULL_READ_EVERY-th reading sends all 81 squares (max_diff 0), whatever changed */
    double diff = L->st->reads % REC_FULL_READ_EVERY == REC_FULL_READ_EVERY - 1 ? 0 : L->o->reread_diff;
    if (vis_classifier_read_changed(L->clf, img, &L->pose, diff, L->rd, &nread) != 0)
        return set_err(L->err, sizeof L->err, REC_EVISION, "%s", vis_classifier_errmsg(L->clf));
    L->stats.read_ms_sum += (rec_loop_now_s() - t0) * 1e3;
    L->st->squares_read += (uint64_t)nread;
    L->st->reads++;
    rec_loop_adapt_read(L);
    L->withhold = !resolve_orientation(L);
    rec_loop_adapt_resumed(L);
    for (int sq = 0; sq < RUL_SQ_NB; sq++) {
        for (int c = 0; c < REC_OBS_CLASS_NB; c++)
            L->obs->sq_prob[sq][c] = rec_view_prob_at(L->rd, L->flip, sq, c);
        if (L->o->degrade > 0)
            degrade_square(L->obs->sq_prob[sq], L->o->degrade, L->st->frames, sq);
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

/* One frame through pose, stability, reading and the tracker. A frame decoded from damaged data
 * (L->obs->damaged) is read with the pose as it is and is never evidence. */
static int process_frame(rec_loop_t *L, const cap_frame_t *fr) {
    const cap_image_t *img = &fr->image, *evid = L->obs->damaged ? NULL : img;
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
        L->stats.moved_ts = L->ts;
    if (v.state != VIS_VIEW_STABLE) {
        L->have_read = 0;
        L->reads_this_view = 0;
        if (L->ts - L->last_stable_ts >= L->o->recheck_us && L->ts - L->last_recheck_ts >= L->o->recheck_us &&
            v.state != VIS_VIEW_MOVING && !L->obs->damaged) {
            rc = recheck_pose(L, img);
            if (rc != REC_OK || !L->have_pose)
                return rc;
        }
        return feed_view(L, v.state == VIS_VIEW_HAND ? REC_VIEW_HAND : REC_VIEW_MOVING, evid);
    }
    /* A still view in which 40 cells or more differ from the last still picture is no move (one changes
     * at most two squares and a komadai): the camera covered or blacked out, the board carried away, the
     * light switched. The pose is checked: no board, and the view is lost until it is found again, never
     * read as a position; the board in place, and this picture is the new reference (recheck_pose). */
    if (v.changed_cells >= VIS_SQUARE_NB / 2 && !L->obs->damaged) {
        rc = recheck_pose(L, img);
        if (rc != REC_OK || !L->have_pose)
            return rc;
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
    int moved = 0;
    if ((rc = rec_loop_start_grid(L, img, &moved)) != REC_OK)
        return rc;
    if (L->withhold || moved) {
        L->have_read = 0; /* read again on the next frame */
        return feed_view(L, REC_VIEW_MOVING, evid);
    }
    snprintf(ref, sizeof ref, "frame %llu", (unsigned long long)fr->seq);
    L->obs->ts_us = L->ts;
    L->obs->view = REC_VIEW_STABLE;
    L->obs->image = evid;
    L->obs->evidence_ref = ref;
    for (int i = 0; i < 4; i++) { /* sente's view: a board seen from gote's end is the pose turned twice */
        int k = L->flip ? (i + 2) % 4 : i;
        L->obs->board_px[i][0] = (float)L->pose.corners[k][0];
        L->obs->board_px[i][1] = (float)L->pose.corners[k][1];
    }
    int nnew = 0;
    rc = rec_trk_feed(L->trk, L->obs, &nnew);
    if (rc != REC_OK)
        return set_err(L->err, sizeof L->err, rc, "rec_trk_feed: error %d", rc);
    if (!L->obs->damaged) /* a damaged picture is no look of the pieces to learn */
        rec_loop_adapt_learn(L, nnew);
    return flush_out(L, L->obs);
}

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

/* Fills the state of a recording with o and st (borrowed) and allocates its buffers and adapters. */
static int loop_init(rec_loop_t *L, const rec_record_opts_t *o, rec_record_stats_t *st) {
    memset(L, 0, sizeof *L);
    L->o = o;
    L->st = st;
    L->ts0 = -1;
    L->skip_until = -1;
    L->log_base = -1;
    L->withheld_since = -1;
    L->start_grid_ts = -1;
    L->stats.moved_ts = -1;
    L->damaged_logged_ts = -1;
    L->lost_since = -1;
    L->cmd.open = o->cmd_fd >= 0;
    L->ctl.fd = -1;
    for (int i = 0; i < REC_CTL_CLIENTS; i++)
        L->ctl.client[i].fd = -1;
    L->log.t_start = rec_loop_now_s();
    L->obs = malloc(sizeof *L->obs);
    L->rd = malloc(sizeof *L->rd);
    L->adapt.rd2 = malloc(sizeof *L->adapt.rd2);
    L->adapt.hyp_prob = malloc(sizeof *L->adapt.hyp_prob * VIS_SQUARE_NB);
    if (o->adapt &&
        (rec_adapt_create(NULL, &L->adapt.set) != REC_OK || rec_adapt_create(NULL, &L->adapt.hyp) != REC_OK))
        return set_err(L->err, sizeof L->err, REC_ENOMEM, "out of memory");
    if (!L->obs || !L->rd || !L->adapt.rd2 || !L->adapt.hyp_prob)
        return set_err(L->err, sizeof L->err, REC_ENOMEM, "out of memory");
    rec_obs_clear(L->obs);
    L->obs->hand_known[0] = L->obs->hand_known[1] = 0;
    return REC_OK;
}

/* Opens what may fail without leaving files behind: the model, the source, the live feed's port and
 * the control socket, in that order. */
static int open_inputs(rec_loop_t *L) {
    const rec_record_opts_t *o = L->o;
    cap_params_t cp;
    int rc;
    /* the model first: nothing is written when it is missing */
    if (vis_classifier_open(o->model, &L->clf) != 0)
        return set_err(L->err, sizeof L->err, L->clf ? REC_EMODEL : REC_ENOMEM,
                       "%s; the square classifier is given by --model FILE or KIFUCAM_MODEL",
                       vis_classifier_errmsg(L->clf));
    vis_classifier_set_turned(L->clf, o->turned);
    cap_params_default(&cp);
    cp.fps = o->fps;
    if (cap_source_open(o->source, &cp, &L->src) != 0)
        return set_err(L->err, sizeof L->err, L->src ? REC_ESOURCE : REC_ENOMEM, "%s", cap_errmsg(L->src));
    /* the live feed's port first: a port in use leaves no files behind */
    if (o->live_port >= 0) {
        char url[96];
        if ((rc = rec_live_open(o->live_addr, o->live_port, o->out_dir, &L->live.feed, L->err,
                                sizeof L->err)) != REC_OK)
            return rc;
        rec_live_url(L->live.feed, url, sizeof url);
        logline(L, "live feed: %s (state.json, game.kif, ...)", url);
        L->live.nev = -1;
    }
    /* the control socket too: a path that cannot be a socket leaves no files behind */
    if (o->control_path && (rc = rec_loop_control_open(L, o->control_path)) != REC_OK)
        return rc;
    return REC_OK;
}

/* --resume of a file replays what is recorded: a frame that logged events name as evidence
 * and that is missing (the disk was full) is written now. A frame that still cannot be written is
 * said once; the review page lists what stays missing. */
static void refill_evidence(rec_loop_t *L, const cap_frame_t *fr) {
    char ref[32];
    snprintf(ref, sizeof ref, "frame %llu", (unsigned long long)fr->seq);
    int n = rec_out_refill(L->out, L->trk, ref, &fr->image);
    if (n > 0) {
        L->st->evidence_refilled += n;
        logline(L, "evidence: %s written again for %d missing frame%s of the log", ref, n, n > 1 ? "s" : "");
    } else if (n < 0 && !L->refill_failed) {
        char w[600];
        snprintf(w, sizeof w, "%s", rec_out_errmsg(L->out));
        rec_plain_message(w);
        fprintf(stderr, "kifucam record: warning: missing evidence frames cannot be written again (%s)\n", w);
        L->refill_failed = 1;
    }
}

/* The tracker and the outputs: taken up from the folder's events.jsonl (--resume), or new. */
static int open_trk_out(rec_loop_t *L) {
    const rec_record_opts_t *o = L->o;
    int rc;
    if (o->resume) {
        rc = rec_out_resume(o->out_dir, &o->trk, o->start, &L->trk, &L->out, L->err, sizeof L->err);
        if (rc != REC_OK)
            return rc;
        L->log.nev_logged = rec_trk_nevents(L->trk);
        L->adapt.pending = rec_trk_state(L->trk) == REC_TRK_PLAYING;
        L->st->games = rec_trk_game_number(L->trk); /* the folder's games so far: the summary counts them */
        struct stat sb;
        L->skip_until = -1;
        if (L->log.nev_logged > 0 && stat(o->source, &sb) == 0 &&
            (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)))
            L->skip_until =
                rec_trk_event(L->trk, L->log.nev_logged - 1)->ts_us; /* a file replays from its start */
        logline(L, "resumed %s: %d events, game %d, %s", o->out_dir, L->log.nev_logged,
                rec_trk_game_number(L->trk),
                rec_trk_state(L->trk) == REC_TRK_PLAYING ? "in progress" : "not in progress");
        /* the interruption itself is an event (events.jsonl, review.html), at the last logged time */
        const rec_trk_event_t *last =
            L->log.nev_logged > 0 ? rec_trk_event(L->trk, L->log.nev_logged - 1) : NULL;
        char d[300];
        snprintf(
            d, sizeof d,
            "the recording was interrupted after event %d (game %d, move %d) and resumed from events.jsonl; "
            "moves made while it was stopped were not seen%s",
            last ? last->seq : 0, rec_trk_game_number(L->trk), rec_trk_game(L->trk)->nply,
            L->skip_until >= 0 ? " (the source is read again from that event's time)" : "");
        if ((rc = rec_trk_note(L->trk, REC_TEV_RESUMED, last ? last->ts_us : 0, d, NULL)) != REC_OK)
            return set_err(L->err, sizeof L->err, rc, "out of memory");
        return flush_out(L, NULL); /* written now, whatever the run reaches */
    }
    rc = rec_trk_create(&o->trk, o->start, &L->trk);
    if (rc != REC_OK)
        return set_err(L->err, sizeof L->err, rc, "rec_trk_create: bad tracker parameters or start position");
    if ((rc = rec_out_open(o->out_dir, 0, &L->out, L->err, sizeof L->err)) != REC_OK)
        return rc;
    /* an empty log from the start, so that --resume works whatever point the recording reaches */
    char p[4096];
    snprintf(p, sizeof p, "%s/events.jsonl", o->out_dir);
    FILE *f = fopen(p, "a");
    if (f == NULL || fclose(f) != 0)
        return set_err(L->err, sizeof L->err, REC_EIO, "%s: %s", p, strerror(errno));
    return REC_OK;
}

/* The tracker and the outputs, with the metadata given. */
static int open_outputs(rec_loop_t *L) {
    int rc = open_trk_out(L);
    if (rc == REC_OK && !rec_out_meta_empty(L->o->meta) &&
        (rc = rec_out_set_meta(L->out, L->o->meta)) != REC_OK)
        return set_err(L->err, sizeof L->err, rc, "%s", rec_out_errmsg(L->out));
    if (rc == REC_OK && L->o->mqtt_url) {
        if ((rc = rec_pub_open(L->o->mqtt_url, L->o->out_dir, rec_out_meta(L->out), &L->live.pub, L->err,
                               sizeof L->err)) != REC_OK)
            return rc;
        L->live.pub_since = rec_loop_now_s();
        logline(L,
                "mqtt: publishing board %s to %s (events.jsonl stays the record; what the broker misses "
                "is sent again)",
                rec_out_meta(L->out)->board, L->o->mqtt_url);
    }
    return rc;
}

/* Frames the source could not decode (a damaged JPEG, a packet a video decoder refused): lost, so said
 * in source.jsonl with where they were, and once on stderr; not while --resume skips what is already
 * recorded (the earlier run logged it). */
static void note_corrupt(rec_loop_t *L) {
    const rec_record_opts_t *o = L->o;
    cap_stats_t cs;
    cap_source_stats(L->src, &cs);
    int resumed_part =
        L->skip_until >= 0 && L->ts0 < 0 && (cs.corrupt_ts_us < 0 || cs.corrupt_ts_us <= L->skip_until);
    if (cs.corrupt > L->corrupt_seen && !resumed_part) {
        char d[160], at[64] = "";
        if (cs.corrupt_ts_us >= 0)
            snprintf(at, sizeof at, "the last at %.2f s of the source", cs.corrupt_ts_us / 1e6);
        snprintf(d, sizeof d, "%llu corrupt frame(s) skipped (%llu in all)%s%s",
                 (unsigned long long)(cs.corrupt - L->corrupt_seen), (unsigned long long)cs.corrupt,
                 at[0] ? ", " : "", at);
        if (!(L->damage_warned & 1)) {
            fprintf(stderr,
                    "kifucam record: warning: %s: damaged data: frames that could not be decoded were "
                    "skipped%s%s (%s/source.jsonl has a corrupt_frames line for each place)\n",
                    o->source, at[0] ? ", " : "", at, o->out_dir);
            L->damage_warned |= 1;
        }
        source_event(L, "corrupt_frames", d);
        note_damage(L->st, cs.corrupt_ts_us >= 0 ? cs.corrupt_ts_us : L->ts);
    }
    L->corrupt_seen = cs.corrupt;
    L->st->corrupt = cs.corrupt;
}

/* Logs frames not read from `from` to `to` (µs, frames' clock; n of them, why: what happened) as a
 * frames_lost event of the recording's log (events.jsonl, review.html): moves made then were not seen. */
static int note_lost(rec_loop_t *L, int64_t from, int64_t to, unsigned n, const char *why) {
    int64_t base = L->log_base >= 0 ? L->log_base : L->ts0;
    char d[400], ref[32];
    snprintf(d, sizeof d,
             "frames lost or damaged from %.1f s to %.1f s of the source (%.1f s, %u frame(s) %s): %s",
             (from - base) / 1e6, (to - base) / 1e6, (to - from) / 1e6, n, why,
             strstr(why, "not read") ? "moves made then were not seen"
                                     : "moves made then were not seen unless the first clean view confirmed "
                                       "the moves read from them");
    snprintf(ref, sizeof ref, "frame %llu", (unsigned long long)L->st->frames);
    int rc = rec_trk_note(L->trk, REC_TEV_FRAMES_LOST, L->ts, d, ref);
    return rc == REC_OK ? REC_OK : set_err(L->err, sizeof L->err, rc, "out of memory");
}

/* A stretch of damaged frames that has ended (or the source has): its frames_lost event. */
static int end_lost(rec_loop_t *L) {
    if (L->lost_since < 0)
        return REC_OK;
    int64_t from = L->lost_since;
    L->lost_since = -1;
    return note_lost(L, from, L->ts, L->lost_n,
                     "decoded from lost or damaged data, read with care: one legal move a view, held back "
                     "until a clean view shows where they lead");
}

/* The source has no more frames: the tracker finishes, the end is written and said (a video file cut
 * short says why). */
static int end_of_source(rec_loop_t *L) {
    if (end_lost(L) != REC_OK || rec_trk_finish(L->trk, L->ts, NULL) != REC_OK ||
        flush_out(L, L->obs) != REC_OK)
        return set_err(L->err, sizeof L->err, REC_ENOMEM, "the end of the source could not be written");
    char why[512];
    snprintf(why, sizeof why, "%s", cap_errmsg(L->src));
    rec_plain_message(why);
    char d[600];
    snprintf(d, sizeof d, "the source has no more frames%s%.500s", why[0] ? "; " : "", why);
    if (why[0])
        fprintf(stderr, "kifucam record: warning: %s\n", why);
    source_event(L, "end_of_source", d);
    return REC_OK;
}

/* Takes fr's time as the loop's (timestamps never go backwards for the tracker); a gap of half a second
 * or more is an event, stamped with the frame after it ("before this one"); short drops while a
 * reading runs are only counted. */
static int note_time(rec_loop_t *L, const cap_frame_t *fr) {
    int64_t gap = L->ts0 >= 0 && !(fr->flags & CAP_FRAME_RESUMED) ? fr->ts_us - L->ts : 0;
    L->ts = fr->ts_us > L->ts || L->ts0 < 0 ? fr->ts_us : L->ts;
    if (L->ts0 < 0)
        L->ts0 = L->ts;
    if (fr->dropped > 0 && gap >= 500000) {
        char d[96];
        snprintf(d, sizeof d, "%u frame(s) missing before this one (%.1f s)", (unsigned)fr->dropped,
                 gap / 1e6);
        source_event(L, "frames_dropped", d);
        note_damage(L->st, L->ts);
        return note_lost(L, L->ts - gap, L->ts, (unsigned)fr->dropped, "not read: missing from the source");
    } else if (fr->dropped == 0 && gap >= 1000000) {
        /* no frame counted lost, but the clock jumped: a video file cut and joined, a stalled camera */
        char d[96];
        snprintf(d, sizeof d, "no frame for %.1f s before this one (a gap in the source's timestamps)",
                 gap / 1e6);
        source_event(L, "frames_dropped", d);
        note_damage(L->st, L->ts);
        return note_lost(L, L->ts - gap, L->ts, 0, "not read: a gap in the source's timestamps");
    }
    return REC_OK;
}

/* A frame decoded with errors (damaged data: parts of the picture may be wrong) is said in
 * source.jsonl, at most once a second of the source (the detail counts them); one whose picture may be
 * wrong anywhere (CAP_FRAME_DAMAGED: a video frame predicted from a lost one) is not read at all: the
 * time is a gap the tracker explains afterwards, or reports uncertain. Returns 1 for such a frame. */
static int note_damaged(rec_loop_t *L, const cap_frame_t *fr) {
    const rec_record_opts_t *o = L->o;
    int damaged = (fr->flags & CAP_FRAME_DAMAGED) != 0;
    if (damaged)
        note_damage(L->st, L->ts);
    if ((fr->flags & CAP_FRAME_WARNING) &&
        (L->damaged_logged_ts < 0 || L->ts - L->damaged_logged_ts >= 1000000)) {
        cap_stats_t cs;
        cap_source_stats(L->src, &cs);
        char d[320];
        snprintf(d, sizeof d,
                 "this frame was decoded with errors (damaged data: parts of the picture may be "
                 "wrong; %s), %llu such frame(s) in all",
                 damaged ? "decoded from lost or damaged data, as every frame up to the next keyframe: "
                           "read with care, its moves held back until a clean view confirms them"
                         : "it is read as it is",
                 (unsigned long long)cs.warnings);
        L->damaged_logged_ts = L->ts;
        if (!(L->damage_warned & 2)) {
            fprintf(stderr,
                    "kifucam record: warning: %s: damaged data: a frame decoded with errors %.2f s into "
                    "the source%s (%s/source.jsonl has a frames_damaged line for each, at most one a "
                    "second)\n",
                    o->source, (L->ts - (L->log_base >= 0 ? L->log_base : L->ts0)) / 1e6,
                    damaged ? "; it and the frames predicted from it, up to the next keyframe, are read "
                              "with care (a move seen in them is written only once a clean view confirms it)"
                            : "",
                    o->out_dir);
            L->damage_warned |= 2;
        }
        source_event(L, "frames_damaged", d);
    }
    if (fr->flags & CAP_FRAME_RESUMED) {
        char d[96];
        snprintf(d, sizeof d, "the camera is back after %.1f s without frames", fr->blind_us / 1e6);
        source_event(L, "camera_back", d);
    }
    return damaged;
}

/* --realtime: sleeps until the wall clock has gone as far since the first frame paced (*wall, *media:
 * that frame's monotonic and media times, us; -1 before) as fr's media time; never when behind. A
 * signal ends the sleep early (the stop flag is checked after the frame). */
static void pace(const rec_record_opts_t *o, const cap_frame_t *fr, int64_t *wall, int64_t *media) {
    struct timespec now;
    if (!o->realtime || clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return;
    int64_t t = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
    if (*media < 0) {
        *wall = t;
        *media = fr->ts_us;
        return;
    }
    int64_t ahead = (fr->ts_us - *media) - (t - *wall);
    if (ahead > 0 && ahead < 10 * 1000000) {
        struct timespec d = {(time_t)(ahead / 1000000), (long)(ahead % 1000000) * 1000};
        nanosleep(&d, NULL);
    }
}

/* Reads and processes frames until the source ends (*eof = 1), an `abort`, the stop flag, max_frames
 * or an error. */
static int run_frames(rec_loop_t *L, int *eof) {
    const rec_record_opts_t *o = L->o;
    rec_record_stats_t *st = L->st;
    int rc = REC_OK, quit = 0;
    int64_t pace_wall = -1, pace_media = -1;
    while (rc == REC_OK && !quit) {
        cap_frame_t fr;
        if (o->stop && *o->stop) {
            st->aborted = 2;
            source_event(L, "interrupted", "stopped by a signal; files flushed");
            break;
        }
        if ((rc = rec_loop_poll_commands(L, &quit)) != REC_OK || quit ||
            (rc = rec_loop_poll_control(L, &quit)) != REC_OK || quit) {
            if (quit)
                st->aborted = 1;
            break;
        }
        if (o->max_frames > 0 && (int64_t)st->frames >= o->max_frames)
            break;
        int cr = cap_source_read(L->src, &fr);
        note_corrupt(L);
        if (cr == CAP_AGAIN)
            continue;
        if (cr == CAP_EOF) {
            if ((rc = end_of_source(L)) == REC_OK)
                *eof = L->live.eof = 1;
            break;
        }
        if (cr == CAP_E_NODEV) {
            st->camera_lost++;
            source_event(L, "camera_lost", cap_errmsg(L->src));
            rc = feed_view(L, REC_VIEW_LOST, NULL);
            continue;
        }
        if (cr != CAP_OK) {
            rc = set_err(L->err, sizeof L->err, REC_ESOURCE, "%s", cap_errmsg(L->src));
            break;
        }
        st->frames++;
        st->dropped += fr.dropped;
        if (L->log_base < 0)
            L->log_base = fr.ts_us;
        if (L->skip_until >=
            0) /* the frame that showed the last logged event may come after its view's start */
            refill_evidence(L, &fr);
        if (fr.ts_us <= L->skip_until)
            continue; /* --resume of a file: already recorded */
        pace(o, &fr, &pace_wall, &pace_media);
        if ((rc = note_time(L, &fr)) != REC_OK)
            break;
        L->obs->damaged = (uint8_t)note_damaged(L, &fr);
        if (L->obs->damaged) { /* read, but no evidence: the tracker holds its moves back (damaged.c) */
            if (L->lost_since < 0) {
                L->lost_since = L->ts;
                L->lost_n = 0;
            }
            L->lost_n++;
            rc = L->have_pose ? process_frame(L, &fr) : feed_view(L, REC_VIEW_LOST, NULL);
        } else if ((rc = end_lost(L)) == REC_OK)
            rc = process_frame(L, &fr);
        L->obs->damaged = 0;
        rec_loop_progress(L, 0);
        rec_loop_live_update(L);
    }
    return rc;
}

/* The statistics of the run into *L->st, the reason of a failure into err, and everything closed. */
static void run_close(rec_loop_t *L, int rc, char *err, size_t errlen) {
    const rec_record_opts_t *o = L->o;
    rec_record_stats_t *st = L->st;
    st->wall_s = rec_loop_now_s() - L->log.t_start;
    st->end_us = L->ts0 >= 0 ? L->ts : -1;
    st->fps = st->wall_s > 0 ? st->frames / st->wall_s : 0;
    st->read_ms = st->reads ? L->stats.read_ms_sum / (double)st->reads : 0;
    st->adapt_classes = rec_adapt_nclasses(L->adapt.set);
    if (!o->adapt)
        st->adapt_off = 1;
    latency_stats(L->stats.lat_ms, L->stats.nlat, st);
    if (o->log && o->log_tty) {
        rec_loop_progress(L, 1);
        fputc('\n', o->log);
    }
    if (rc != REC_OK && err && errlen)
        snprintf(err, errlen, "%s", L->err[0] ? L->err : "recording failed");
    if (L->live.feed || L->live.pub)
        rec_loop_live_update(L);
    if (L->live.feed && L->trk) { /* the page says why the feed stops */
        rec_live_end(L->live.feed, L->trk,
                     rc != REC_OK       ? "stopped by an error"
                     : st->aborted == 1 ? "stopped by abort"
                     : st->aborted == 2 ? "stopped by a signal"
                     : L->live.eof      ? "source ended"
                                        : "stopped");
    }
    rec_live_close(L->live.feed);
    if (L->live.pub && !rec_pub_close(L->live.pub, 3000))
        logline(L, "mqtt: the broker did not acknowledge every event in 3 s: the next run with --mqtt "
                   "publishes them again from events.jsonl");
    rec_loop_control_close(L);
    free(L->kthumb);
    vis_stability_destroy(L->stab);
    rec_out_close(L->out);
    rec_trk_destroy(L->trk);
    cap_source_close(L->src);
    vis_classifier_destroy(L->clf);
    free(L->obs);
    free(L->rd);
    free(L->adapt.rd2);
    free(L->adapt.hyp_prob);
    rec_adapt_destroy(L->adapt.set);
    rec_adapt_destroy(L->adapt.hyp);
    free(L->stats.lat_ms);
}

int rec_record_run(const rec_record_opts_t *o, rec_record_stats_t *st_out, char *err, size_t errlen) {
    rec_loop_t L;
    rec_record_stats_t st;
    int rc, eof = 0;
    if (err && errlen)
        err[0] = '\0';
    memset(&st, 0, sizeof st);
    st.last_move_us = st.last_uncertain_us = st.end_us = st.last_damage_us = -1;
    st.setup_other = -1;
    if (st_out)
        memset(st_out, 0, sizeof *st_out);
    if (o == NULL || o->source == NULL || o->out_dir == NULL || o->model == NULL ||
        o->pose_retry_frames < 1 || o->max_reads_per_view < 1 || o->recheck_us < 0)
        return set_err(err, errlen, REC_ERANGE, "rec_record_run: bad options");
    if ((rc = loop_init(&L, o, &st)) == REC_OK && (rc = open_inputs(&L)) == REC_OK &&
        (rc = open_outputs(&L)) == REC_OK) {
        logline(&L, "source: %s", cap_source_describe(L.src));
        if (o->control_path)
            logline(&L, "control socket: %s (one command a line; each answered ok: / refused:)",
                    o->control_path);
        rc = run_frames(&L, &eof);
    }
    if (rc == REC_OK && eof && st.board_found == 0 && L.skip_until >= 0 && L.ts0 < 0)
        rc = set_err(
            L.err, sizeof L.err, REC_ESOURCE,
            "%s ends before %.1f s, the time of the last event of the recording in %s: every frame of "
            "it is already recorded (give --resume the source the recording was made from)",
            o->source, L.skip_until / 1e6, o->out_dir);
    else if (rc == REC_OK && eof && st.board_found == 0)
        rc =
            set_err(L.err, sizeof L.err, REC_ENOBOARD, "%s: no board found in %llu frames%s", o->source,
                    (unsigned long long)st.frames,
                    st.corrupt > 0 ? " (and frames that could not be decoded: source.jsonl lists them)" : "");
    run_close(&L, rc, err, errlen);
    if (st_out)
        *st_out = st;
    return rc;
}
