/* commands.c - operator commands (resign, declare, flag, abort), one a line, from standard input or a
 * control connection, run through the tracker (rec_trk_command) without blocking the loop. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "recorder/record/record_internal.h"

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
int rec_loop_run_lines(rec_loop_t *L, char *buf, size_t cap, size_t *len, const char *from, int reply_fd,
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
int rec_loop_poll_commands(rec_loop_t *L, int *quit) {
    while (L->cmd.open && !*quit) {
        struct pollfd p = {L->o->cmd_fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            return REC_OK;
        ssize_t n = read(L->o->cmd_fd, L->cmd.buf + L->cmd.len, sizeof L->cmd.buf - 1 - L->cmd.len);
        if (n <= 0) {
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return REC_OK;
            L->cmd.open = 0; /* end of input: no more commands */
            if (L->cmd.len == 0)
                return REC_OK;
            L->cmd.buf[L->cmd.len++] = '\n'; /* a last line without its newline */
        } else {
            L->cmd.len += (size_t)n;
        }
        int rc = rec_loop_run_lines(L, L->cmd.buf, sizeof L->cmd.buf, &L->cmd.len, "stdin", -1, quit);
        if (rc != REC_OK)
            return rc;
    }
    return REC_OK;
}
