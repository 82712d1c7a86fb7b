/* control.c - the control socket (--control): a Unix stream socket whose clients send operator
 * commands, one a line, each answered "ok: ..." or "refused: ...". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "recorder/record/record_internal.h"

/* Creates the listening Unix stream socket at path (a stale socket file there is replaced; any other
 * file is refused). Non-blocking. Errors: REC_EIO with the reason in L->err. */
int rec_loop_control_open(rec_loop_t *L, const char *path) {
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
    L->ctl.fd = fd;
    return REC_OK;
}

/* Accepts new control clients and runs the lines they sent (never blocks); each line is answered on
 * its connection with "ok: ..." or "refused: ...". */
int rec_loop_poll_control(rec_loop_t *L, int *quit) {
    if (L->ctl.fd < 0)
        return REC_OK;
    for (;;) {
        int c = accept(L->ctl.fd, NULL, NULL);
        if (c < 0)
            break;
        int slot = -1;
        for (int i = 0; i < REC_CTL_CLIENTS; i++)
            if (L->ctl.client[i].fd < 0) {
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
        L->ctl.client[slot].fd = c;
        L->ctl.client[slot].len = 0;
    }
    for (int i = 0; i < REC_CTL_CLIENTS && !*quit; i++) {
        if (L->ctl.client[i].fd < 0)
            continue;
        ssize_t n = read(L->ctl.client[i].fd, L->ctl.client[i].buf + L->ctl.client[i].len,
                         sizeof L->ctl.client[i].buf - 1 - L->ctl.client[i].len);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        int closing = n <= 0;
        if (n > 0)
            L->ctl.client[i].len += (size_t)n;
        else if (L->ctl.client[i].len > 0)
            L->ctl.client[i].buf[L->ctl.client[i].len++] = '\n'; /* a last line without its newline */
        int rc = rec_loop_run_lines(L, L->ctl.client[i].buf, sizeof L->ctl.client[i].buf,
                                    &L->ctl.client[i].len, "control socket", L->ctl.client[i].fd, quit);
        if (closing) {
            close(L->ctl.client[i].fd);
            L->ctl.client[i].fd = -1;
        }
        if (rc != REC_OK)
            return rc;
    }
    return REC_OK;
}

void rec_loop_control_close(rec_loop_t *L) {
    for (int i = 0; i < REC_CTL_CLIENTS; i++)
        if (L->ctl.client[i].fd >= 0) {
            close(L->ctl.client[i].fd);
            L->ctl.client[i].fd = -1;
        }
    if (L->ctl.fd >= 0) {
        close(L->ctl.fd);
        L->ctl.fd = -1;
        if (L->o && L->o->control_path)
            unlink(L->o->control_path);
    }
}
