/* hall.c - the `kifucam hall` command: serves every board of an MQTT prefix (recorder/hall/hall.h)
 * until SIGINT or SIGTERM. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/cli/cli.h"
#include "recorder/hall/hall.h"

static volatile sig_atomic_t g_hall_stop;

static void on_hall_signal(int sig) {
    (void)sig;
    g_hall_stop = 1;
}

void hall_help(void) {
    printf("usage: kifucam hall --mqtt URL [--bind ADDR] [--port P]\n"
           "\n"
           "Subscribes to every board that `kifucam record --mqtt URL` publishes under the URL's prefix\n"
           "(mqtt://HOST[:PORT][/PREFIX], mqtts:// for TLS) and serves, read only: the tournament page at\n"
           "/ (every board as a small diagram with the names, move number, last move and a status badge;\n"
           "a board that needs an arbiter stands out), /board/B (one board), /board/B/game.kif .csa .jkf,\n"
           "/boards.json, and /events (server-sent events on every change). The boards are rebuilt from\n"
           "the broker's retained messages at start. User and password from KIFUCAM_MQTT_USER and\n"
           "KIFUCAM_MQTT_PASSWORD or the file KIFUCAM_MQTT_CREDENTIALS (user:password).\n"
           "--bind ADDR: the IPv4 address to serve on (default 127.0.0.1: this computer only; 0.0.0.0:\n"
           "every interface).\n"
           "--port P: the TCP port (default 8080; 0: any free one, printed).\n"
           "Runs until Ctrl-C or SIGTERM. Exit 1 with one line for a bad option, a broker that cannot be\n"
           "reached, a port that cannot be bound.\n");
}

int cmd_hall(int argc, char **argv) {
    const char *url = NULL, *bind_addr = NULL, *val;
    int port = 8080, r;
    for (int i = 1; i < argc; i++) {
        if ((r = cli_opt_value("hall", argc, argv, &i, "--mqtt", &val)) != 0) {
            if (r < 0)
                return EXIT_USER;
            url = val;
        } else if ((r = cli_opt_value("hall", argc, argv, &i, "--bind", &val)) != 0) {
            if (r < 0)
                return EXIT_USER;
            bind_addr = val;
        } else if ((r = cli_opt_value("hall", argc, argv, &i, "--port", &val)) != 0) {
            char *end;
            if (r < 0)
                return EXIT_USER;
            long p = strtol(val, &end, 10);
            if (*end || end == val || p < 0 || p > 65535)
                return cli_user_error("hall", "--port '%.40s': must be a TCP port, 0-65535", val);
            port = (int)p;
        } else {
            return cli_user_error("hall",
                                  argv[i][0] == '-' ? "unknown option '%.80s' (see kifucam hall --help)"
                                                    : "unexpected argument '%.80s' (see kifucam hall --help)",
                                  argv[i]);
        }
    }
    if (url == NULL)
        return cli_user_error("hall",
                              "missing --mqtt URL (usage: kifucam hall --mqtt URL [--bind ADDR] [--port P])");
    rec_hall_t *h = NULL;
    char err[600];
    int rc = rec_hall_open(url, bind_addr, port, stderr, &h, err, sizeof err);
    if (rc == REC_ENOMEM)
        return cli_internal_error("hall", "out of memory");
    if (rc != REC_OK)
        return cli_user_error("hall", "%s", err);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hall_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("kifucam hall: http://%s:%d/ (boards of %s)\n", bind_addr ? bind_addr : "127.0.0.1",
           rec_hall_port(h), url);
    fflush(stdout);
    while (!g_hall_stop)
        pause();
    rec_hall_close(h);
    return 0;
}
