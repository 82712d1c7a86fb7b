/* hall_test_util.h - real parts for the hall tests: a mosquitto broker on a free loopback port (its own
 * config and persistence folder), and a libmosquitto subscriber that keeps every message it gets. */
#ifndef KIFUCAM_HALL_TEST_UTIL_H
#define KIFUCAM_HALL_TEST_UTIL_H

#include <sys/types.h>

typedef struct {
    int port;
    pid_t pid; /* running broker, 0 if stopped */
    char dir[64], conf[128];
} ht_broker_t;

/* Picks a free port and writes the config (127.0.0.1 only, anonymous, persistence in dir). -1 when
 * mosquitto is not installed. */
int ht_broker_init(ht_broker_t *b);
int ht_broker_init_acl(ht_broker_t *b, const char *passwd_file, const char *acl_file); /* with users */
/* Starts it and waits until it takes connections (up to 5 s); 0 or -1. */
int ht_broker_start(ht_broker_t *b);
/* Sends sig (SIGTERM: saves its sessions; SIGKILL) and waits for it to end. */
void ht_broker_stop(ht_broker_t *b, int sig);
void ht_broker_free(ht_broker_t *b); /* removes its folder */

typedef struct ht_sub ht_sub_t;
/* Connects to 127.0.0.1:port and subscribes to topic at QoS 1 (waits up to 5 s for the SUBACK). id:
 * a persistent session under that client id (the broker queues messages while it is away); NULL: a
 * clean session. NULL on failure. */
ht_sub_t *ht_sub_start(int port, const char *topic, const char *id);
/* The same, logged in as user with password pw. */
ht_sub_t *ht_sub_start_user(int port, const char *topic, const char *id, const char *user, const char *pw);
/* The highest "seq" seen on topic, waiting up to timeout_ms for it to reach want. */
int ht_sub_wait_seq(ht_sub_t *s, const char *topic, int want, int timeout_ms);
/* Of seq 1..last on topic: how many never seen, how many seen more than once, and whether their first
 * sights came in increasing order. */
void ht_sub_seq_report(ht_sub_t *s, const char *topic, int last, int *missing, int *dup, int *order_ok);
/* The last payload on topic (a new string), NULL if none; _wait waits up to timeout_ms for one. */
char *ht_sub_last(ht_sub_t *s, const char *topic);
char *ht_sub_wait_last(ht_sub_t *s, const char *topic, int timeout_ms);
/* Messages seen on topic. */
int ht_sub_count(ht_sub_t *s, const char *topic);
/* Publishes payload on topic at QoS 1 through the subscriber's connection; MOSQ_ERR_SUCCESS or an error. */
int ht_sub_publish(ht_sub_t *s, const char *topic, const char *payload);
void ht_sub_stop(ht_sub_t *s);

/* A TCP connection to 127.0.0.1:port: its descriptor, or -1. */
int ht_connect(int port);

/* One HTTP/1.0 request to 127.0.0.1:port; the whole answer, status line and headers too (a new string),
 * or NULL. */
char *ht_http(int port, const char *method, const char *path);

void ht_sleep_ms(int ms);
void ht_rm_rf(const char *dir);
int ht_free_port(void);

#endif
