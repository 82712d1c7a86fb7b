/* recevents.c - a finished recording's events.jsonl read for its positions and frames (crops,
 * recognize --reference). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "recorder/cli/cli.h"

/* cli_rec_event_read: cli.h. */
int cli_rec_event_read(const char *out_dir, const char *line, cli_rec_event_t *ev) {
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    int rc = 0;
    const char *type = o ? json_string_value(json_object_get(o, "type")) : NULL;
    const char *sfen = o ? json_string_value(json_object_get(o, "sfen")) : NULL;
    if (type && sfen && (strcmp(type, "game_start") == 0 || strcmp(type, "move") == 0)) {
        json_t *evd = json_object_get(o, "evidence"), *px = json_object_get(o, "board_px");
        const char *after = json_string_value(json_array_get(evd, 1));
        rc = -1;
        if (after && json_array_size(px) == 10 && strlen(sfen) < sizeof ev->sfen) {
            ev->seq = (int)json_integer_value(json_object_get(o, "seq"));
            ev->ply = (int)json_integer_value(json_object_get(o, "ply"));
            snprintf(ev->sfen, sizeof ev->sfen, "%s", sfen);
            snprintf(ev->frame, sizeof ev->frame, "%.2000s/%.2000s", out_dir, after);
            for (int i = 0; i < 4; i++) {
                ev->corners[i][0] = json_number_value(json_array_get(px, 2 * i));
                ev->corners[i][1] = json_number_value(json_array_get(px, 2 * i + 1));
            }
            ev->w = (int)json_number_value(json_array_get(px, 8));
            ev->h = (int)json_number_value(json_array_get(px, 9));
            rc = access(ev->frame, R_OK) == 0 ? 1 : -1;
        }
    }
    json_decref(o);
    return rc;
}
