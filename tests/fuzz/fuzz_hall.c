/* fuzz_hall.c - libFuzzer harness for the hall's parsers (recorder/hall/): the input up to its first
 * NUL is an MQTT topic, the rest its payload, taken by an offline hall of prefix "t" (state, event and
 * kifu messages, refusals); the topic is also read as an MQTT URL and a board id. Seeds: a few topics
 * and payloads in tests/fuzz/seeds/hall (make fuzz FUZZ_TARGETS=hall, make fuzz-regress). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/hall/hall.h"

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
    free(topic);
    return 0;
}
