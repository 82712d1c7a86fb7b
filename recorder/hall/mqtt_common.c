/* mqtt_common.c - what the publisher and the hall share (hall.h): MQTT URLs, board ids, credentials
 * from the environment. */
#include <errno.h>
#include <mosquitto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/hall/hall.h"

static int set_why(char *why, size_t size, const char *msg) {
    if (why && size)
        snprintf(why, size, "%s", msg);
    return REC_EPARSE;
}

const char *rec_mqtt_url_shown(const char *url, char *buf, size_t size) {
    if (buf == NULL || size == 0)
        return "";
    const char *at = url ? strrchr(url, '@') : NULL, *scheme = url ? strstr(url, "://") : NULL;
    if (url == NULL)
        snprintf(buf, size, "%s", "");
    else if (at == NULL)
        snprintf(buf, size, "%s", url);
    else if (scheme && scheme < at)
        snprintf(buf, size, "%.*s***%s", (int)(scheme + 3 - url), url, at);
    else
        snprintf(buf, size, "***%s", at);
    return buf;
}

int rec_mqtt_url_parse(const char *url, rec_mqtt_url_t *u, char *why, size_t size) {
    if (url == NULL || u == NULL)
        return set_why(why, size, "no URL");
    memset(u, 0, sizeof *u);
    const char *p;
    if (strncmp(url, "mqtt://", 7) == 0) {
        p = url + 7;
        u->port = 1883;
    } else if (strncmp(url, "mqtts://", 8) == 0) {
        p = url + 8;
        u->port = 8883;
        u->tls = 1;
    } else {
        return set_why(why, size, "not mqtt://HOST[:PORT][/PREFIX] or mqtts://...");
    }
    if (strchr(p, '@'))
        return set_why(why, size,
                       "a user or password in the URL (give them in the environment: docs/hall.md)");
    size_t hl = strcspn(p, ":/");
    if (hl == 0 || hl >= sizeof u->host)
        return set_why(why, size, "no host, or a host name over 255 bytes");
    memcpy(u->host, p, hl);
    p += hl;
    if (*p == ':') {
        char *end;
        long port = strtol(p + 1, &end, 10);
        if (end == p + 1 || port < 1 || port > 65535 || (*end && *end != '/'))
            return set_why(why, size, "the port is not 1-65535");
        u->port = (int)port;
        p = end;
    }
    if (*p == '/')
        p++;
    size_t pl = strlen(p);
    while (pl > 0 && p[pl - 1] == '/')
        pl--;
    if (pl == 0) {
        snprintf(u->prefix, sizeof u->prefix, "kifucam");
        return REC_OK;
    }
    if (pl >= sizeof u->prefix)
        return set_why(why, size, "a prefix over 255 bytes");
    for (size_t i = 0; i < pl; i++)
        if (p[i] == '+' || p[i] == '#' || (unsigned char)p[i] < 0x21 || p[i] == 0x7f)
            return set_why(why, size, "the prefix holds '+', '#', a space or a control character");
    memcpy(u->prefix, p, pl);
    return REC_OK;
}

int rec_hall_board_check(const char *board) {
    if (board == NULL || board[0] == '\0' || strlen(board) > REC_HALL_BOARD_MAX)
        return -1;
    if (strcmp(board, ".") == 0 || strcmp(board, "..") == 0)
        return -1;
    for (const char *c = board; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
              *c == '_' || *c == '.'))
            return -1;
    return 0;
}

int rec_mqtt_credentials(char *user, char *pass, size_t size, char *why, size_t whysize) {
    user[0] = pass[0] = '\0';
    const char *file = getenv("KIFUCAM_MQTT_CREDENTIALS");
    if (file && file[0]) {
        FILE *f = fopen(file, "r");
        char line[1024];
        if (f == NULL) {
            if (why && whysize)
                snprintf(why, whysize, "KIFUCAM_MQTT_CREDENTIALS %.200s: %s", file, strerror(errno));
            return REC_EIO;
        }
        int ok = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        line[ok ? strcspn(line, "\r\n") : 0] = '\0';
        char *c = strchr(line, ':');
        if (!ok || c == NULL || c == line) {
            if (why && whysize)
                snprintf(why, whysize, "KIFUCAM_MQTT_CREDENTIALS %.200s: the first line is not user:password",
                         file);
            return REC_EIO;
        }
        *c = '\0';
        snprintf(user, size, "%s", line);
        snprintf(pass, size, "%s", c + 1);
        return REC_OK;
    }
    const char *u = getenv("KIFUCAM_MQTT_USER"), *pw = getenv("KIFUCAM_MQTT_PASSWORD");
    if (u && u[0]) {
        snprintf(user, size, "%s", u);
        snprintf(pass, size, "%s", pw ? pw : "");
    }
    return REC_OK;
}

const char *rec_mqtt_strerror(int rc) {
    switch (rc) {
    case MOSQ_ERR_EAI: return "the broker's host name does not resolve (check the host in the URL)";
    case MOSQ_ERR_ERRNO: return strerror(errno);
    case MOSQ_ERR_CONN_REFUSED: return "the broker refused the connection";
    case MOSQ_ERR_NO_CONN: return "no connection to the broker";
    default: return mosquitto_strerror(rc);
    }
}
