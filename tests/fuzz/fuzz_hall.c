/* fuzz_hall.c - libFuzzer harness for the hall's parsers (recorder/hall/): the input up to its first
 * NUL is an MQTT topic, the rest its payload, taken by an offline hall of prefix "t" (state, event and
 * kifu messages, refusals); the topic is also read as an MQTT URL, a board id and an HTTP URL path (the
 * router, whose every route must name an id that passes the board check). Seeds: a few topics, payloads
 * and URL paths in tests/fuzz/seeds/hall (make fuzz FUZZ_TARGETS=hall, make fuzz-regress). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/hall/hall.h"
#include "recorder/hall/hall_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static rec_hall_t *h;
    if (h == NULL && (h = rec_hall_new_offline("mqtt://localhost/t")) == NULL)
        return 0;
    const uint8_t *nul = memchr(data, 0, size);
    size_t tl = nul ? (size_t)(nul - data) : size;
    char *topic = malloc(tl + 1);
    if (topic == NULL)
        return 0;
    memcpy(topic, data, tl);
    topic[tl] = '\0';
    const uint8_t *payload = nul ? nul + 1 : data + size;
    rec_hall_take_message(h, topic, payload, (size_t)(data + size - payload));
    rec_mqtt_url_t u;
    rec_mqtt_url_parse(topic, &u, NULL, 0);
    rec_hall_board_check(topic);
    rec_hall_route_t r;
    rec_hall_route_kind_t k = rec_hall_route(topic, &r);
    int with_id = k == REC_HALL_ROUTE_BOARD_PAGE || k == REC_HALL_ROUTE_BOARD_STATE ||
                  k == REC_HALL_ROUTE_BOARD_KIFU || k == REC_HALL_ROUTE_ROUND_KIFU;
    int with_kifu = k == REC_HALL_ROUTE_BOARD_KIFU || k == REC_HALL_ROUTE_ROUND_KIFU;
    if (k != r.kind || (unsigned)k >= REC_HALL_ROUTE_NB ||
        (tl > REC_HALL_URL_MAX && k != REC_HALL_ROUTE_NONE))
        abort();
    if ((with_id && rec_hall_board_check(r.id) != 0) || (!with_id && r.id[0]) ||
        (with_kifu ? r.kifu < 0 || r.kifu > 2 : r.kifu != -1) ||
        (k != REC_HALL_ROUTE_NONE && strstr(topic, "/../")))
        abort(); /* a route names a checked id, a kifu format only where one is served, never a ".." */
    free(topic);
    return 0;
}
