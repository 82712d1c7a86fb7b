/* hall_test_util.c - the broker and the subscriber of the hall tests (hall_test_util.h). */
#include "tests/recorder/hall/hall_test_util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <mosquitto.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MOSQUITTO "/usr/sbin/mosquitto"

void ht_sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void ht_rm_rf(const char *dir) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
}

int ht_free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static int write_conf(ht_broker_t *b, const char *passwd_file, const char *acl_file) {
    if (access(MOSQUITTO, X_OK) != 0)
        return -1;
    memset(b, 0, sizeof *b);
    snprintf(b->dir, sizeof b->dir, "/tmp/kifucam-broker-XXXXXX");
    if (mkdtemp(b->dir) == NULL || (b->port = ht_free_port()) < 0)
        return -1;
    chmod(b->dir, 0777); /* started as root, mosquitto runs as its own user: its database and log go here */
    snprintf(b->conf, sizeof b->conf, "%s/mosquitto.conf", b->dir);
    FILE *f = fopen(b->conf, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "listener %d 127.0.0.1\npersistence true\npersistence_location %s/\nlog_dest file %s/log\n",
            b->port, b->dir, b->dir);
    if (passwd_file)
        fprintf(f, "allow_anonymous false\npassword_file %s\nacl_file %s\n", passwd_file, acl_file);
    else
        fprintf(f, "allow_anonymous true\n");
    fclose(f);
    return 0;
}

int ht_broker_init(ht_broker_t *b) { return write_conf(b, NULL, NULL); }
int ht_broker_init_acl(ht_broker_t *b, const char *passwd_file, const char *acl_file) {
    return write_conf(b, passwd_file, acl_file);
}

int ht_broker_start(ht_broker_t *b) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execl(MOSQUITTO, MOSQUITTO, "-c", b->conf, (char *)NULL);
        _exit(127);
    }
    b->pid = pid;
    for (int i = 0; i < 250; i++) { /* until it takes connections */
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_port = htons((unsigned short)b->port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        if (ok)
            return 0;
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            b->pid = 0;
            return -1;
        }
        ht_sleep_ms(20);
    }
    return -1;
}

void ht_broker_stop(ht_broker_t *b, int sig) {
    if (b->pid <= 0)
        return;
    kill(b->pid, sig);
    waitpid(b->pid, NULL, 0);
    b->pid = 0;
}

void ht_broker_free(ht_broker_t *b) {
    ht_broker_stop(b, SIGTERM);
    if (b->dir[0])
        ht_rm_rf(b->dir);
}

typedef struct {
    char *topic, *payload;
} msg_t;

struct ht_sub {
    struct mosquitto *m;
    pthread_mutex_t mu;
    char topic[256];
    int subscribed;
    msg_t *msgs;
    int n, cap;
};

static void sub_on_connect(struct mosquitto *m, void *user, int rc) {
    ht_sub_t *s = user;
    if (rc == 0)
        mosquitto_subscribe(m, NULL, s->topic, 1);
}

static void sub_on_subscribe(struct mosquitto *m, void *user, int mid, int n, const int *qos) {
    (void)m;
    (void)mid;
    (void)n;
    (void)qos;
    ht_sub_t *s = user;
    pthread_mutex_lock(&s->mu);
    s->subscribed = 1;
    pthread_mutex_unlock(&s->mu);
}

static void sub_on_message(struct mosquitto *m, void *user, const struct mosquitto_message *msg) {
    (void)m;
    ht_sub_t *s = user;
    pthread_mutex_lock(&s->mu);
    if (s->n == s->cap) {
        int c = s->cap ? 2 * s->cap : 256;
        msg_t *p = realloc(s->msgs, (size_t)c * sizeof *p);
        if (p == NULL) {
            pthread_mutex_unlock(&s->mu);
            return;
        }
        s->msgs = p;
        s->cap = c;
    }
    char *pl = malloc((size_t)msg->payloadlen + 1);
    if (pl) {
        memcpy(pl, msg->payload, (size_t)msg->payloadlen);
        pl[msg->payloadlen] = '\0';
        s->msgs[s->n].topic = strdup(msg->topic);
        s->msgs[s->n].payload = pl;
        s->n++;
    }
    pthread_mutex_unlock(&s->mu);
}

ht_sub_t *ht_sub_start_user(int port, const char *topic, const char *id, const char *user, const char *pw) {
    ht_sub_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    mosquitto_lib_init();
    pthread_mutex_init(&s->mu, NULL);
    snprintf(s->topic, sizeof s->topic, "%s", topic);
    s->m = mosquitto_new(id, id == NULL, s);
    if (s->m == NULL) {
        free(s);
        return NULL;
    }
    if (user)
        mosquitto_username_pw_set(s->m, user, pw);
    mosquitto_connect_callback_set(s->m, sub_on_connect);
    mosquitto_subscribe_callback_set(s->m, sub_on_subscribe);
    mosquitto_message_callback_set(s->m, sub_on_message);
    mosquitto_reconnect_delay_set(s->m, 1, 2, false);
    if (mosquitto_connect(s->m, "127.0.0.1", port, 30) != MOSQ_ERR_SUCCESS ||
        mosquitto_loop_start(s->m) != MOSQ_ERR_SUCCESS) {
        mosquitto_destroy(s->m);
        free(s);
        return NULL;
    }
    for (int i = 0; i < 250; i++) {
        pthread_mutex_lock(&s->mu);
        int ok = s->subscribed;
        pthread_mutex_unlock(&s->mu);
        if (ok)
            return s;
        ht_sleep_ms(20);
    }
    ht_sub_stop(s);
    return NULL;
}

ht_sub_t *ht_sub_start(int port, const char *topic, const char *id) {
    return ht_sub_start_user(port, topic, id, NULL, NULL);
}

static int seq_of(const char *payload) {
    const char *p = strstr(payload, "\"seq\":");
    return p ? atoi(p + 6) : 0;
}

int ht_sub_wait_seq(ht_sub_t *s, const char *topic, int want, int timeout_ms) {
    int best = 0;
    for (int waited = 0;; waited += 20) {
        pthread_mutex_lock(&s->mu);
        for (int i = 0; i < s->n; i++)
            if (!strcmp(s->msgs[i].topic, topic) && seq_of(s->msgs[i].payload) > best)
                best = seq_of(s->msgs[i].payload);
        pthread_mutex_unlock(&s->mu);
        if (best >= want || waited >= timeout_ms)
            return best;
        ht_sleep_ms(20);
    }
}

void ht_sub_seq_report(ht_sub_t *s, const char *topic, int last, int *missing, int *dup, int *order_ok) {
    int *seen = calloc((size_t)last + 2, sizeof *seen), prev = 0;
    *missing = *dup = 0;
    *order_ok = 1;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; seen && i < s->n; i++) {
        if (strcmp(s->msgs[i].topic, topic))
            continue;
        int q = seq_of(s->msgs[i].payload);
        if (q < 1 || q > last)
            continue;
        if (seen[q]++) {
            (*dup)++;
            continue;
        }
        if (q < prev)
            *order_ok = 0;
        prev = q;
    }
    pthread_mutex_unlock(&s->mu);
    for (int q = 1; seen && q <= last; q++)
        *missing += seen[q] == 0;
    free(seen);
}

char *ht_sub_last(ht_sub_t *s, const char *topic) {
    char *r = NULL;
    pthread_mutex_lock(&s->mu);
    for (int i = s->n - 1; i >= 0 && r == NULL; i--)
        if (!strcmp(s->msgs[i].topic, topic))
            r = strdup(s->msgs[i].payload);
    pthread_mutex_unlock(&s->mu);
    return r;
}

char *ht_sub_wait_last(ht_sub_t *s, const char *topic, int timeout_ms) {
    for (int waited = 0;; waited += 20) {
        char *r = ht_sub_last(s, topic);
        if (r || waited >= timeout_ms)
            return r;
        ht_sleep_ms(20);
    }
}

int ht_sub_count(ht_sub_t *s, const char *topic) {
    int c = 0;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->n; i++)
        c += !strcmp(s->msgs[i].topic, topic);
    pthread_mutex_unlock(&s->mu);
    return c;
}

void ht_sub_stop(ht_sub_t *s) {
    if (s == NULL)
        return;
    mosquitto_disconnect(s->m);
    mosquitto_loop_stop(s->m, false);
    mosquitto_destroy(s->m);
    for (int i = 0; i < s->n; i++) {
        free(s->msgs[i].topic);
        free(s->msgs[i].payload);
    }
    free(s->msgs);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int ht_sub_publish(ht_sub_t *s, const char *topic, const char *payload) {
    int mid = 0;
    return mosquitto_publish(s->m, &mid, topic, (int)strlen(payload), payload, 1, false);
}

int ht_connect(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* One HTTP/1.0 request to 127.0.0.1:port; the whole answer (a new string) or NULL. */
char *ht_http(int port, const char *method, const char *path) {
    int fd = ht_connect(port);
    if (fd < 0)
        return NULL;
    char req[2048];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: x\r\n\r\n", method, path);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    ssize_t r;
    while (buf && (r = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)r;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL)
                break;
            buf = nb;
        }
    }
    close(fd);
    if (buf)
        buf[len] = '\0';
    return buf;
}
