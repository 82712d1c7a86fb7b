/* probe.c - the probe command: lists cameras and measures the frame rate they deliver. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "recorder/kifu/kifu.h"
#include "recorder/record/record.h"
#include "recorder/kifu/replay.h"
#include "rules/rules.h"
#include "vision/vision.h"

#include "recorder/cli/cli.h"

/* ---------------------------------------------------------------- probe */

void probe_help(void) {
    printf("usage: kifucam probe [URI] [--seconds S]\n"
           "\n"
           "Without URI: lists every camera (/dev/video*), its formats, sizes and rates, and measures\n"
           "the frame rate each really delivers. With URI (/dev/videoN, v4l2:/dev/videoN?width=W&height=H&\n"
           "fps=F&format=mjpeg|yuyv, a video file, an image folder or an image): what it offers, then\n"
           "reads it for S seconds (default 3) and prints the measured rate, drops and corrupt frames.\n");
}

int cmd_probe(int argc, char **argv) {
    const char *cmd = "probe", *uri = NULL, *val;
    double seconds = 3;
    char err[4800];
    int rc;
    for (int i = 1; i < argc; i++) {
        if ((rc = cli_opt_value(cmd, argc, argv, &i, "--seconds", &val)) != 0) {
            char *end;
            if (rc < 0)
                return EXIT_USER;
            seconds = strtod(val, &end);
            if (*end || !(seconds > 0 && seconds <= 3600))
                return cli_user_error(cmd, "--seconds '%.40s': must be a number of seconds in (0, 3600]",
                                      val);
        } else if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !uri) { /* a URI that starts with '-' */
            uri = argv[++i];
            if (i + 1 < argc)
                return cli_user_error(
                    cmd, "unexpected argument '%.80s' (usage: kifucam probe [URI] [--seconds S])",
                    argv[i + 1]);
        } else if (cli_is_option(argv[i])) {
            return cli_user_error(cmd, "unknown option '%.80s' (see kifucam probe --help)", argv[i]);
        } else if (uri) {
            return cli_user_error(
                cmd, "unexpected argument '%.80s' (usage: kifucam probe [URI] [--seconds S])", argv[i]);
        } else {
            uri = argv[i];
        }
    }
    rc = cap_probe(uri, NULL, seconds, stdout, err, sizeof err);
    if (rc ==
        CAP_E_NOMEM) /* a system call that failed (no permission, a device gone) is the user's to mend */
        return cli_internal_error(cmd, "%s", err);
    return rc != 0 ? cli_user_error(cmd, "%s", err) : 0;
}
