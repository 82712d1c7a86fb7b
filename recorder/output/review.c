/* review.c - review.html, the arbiter's page: every move and event of the recording with its
 * evidence frames. One self-contained file (inline CSS and JS, relative image links) that opens from
 * disk; rewritten atomically after every event. */
#include "recorder/output/output_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} sb_t;

static void sb_printf(sb_t *b, const char *fmt, ...) {
    va_list ap;
    if (b->oom)
        return;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *p = realloc(b->s, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
}

/* Text escaped for HTML. */
static void sb_html(sb_t *b, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<': sb_printf(b, "&lt;"); break;
        case '>': sb_printf(b, "&gt;"); break;
        case '&': sb_printf(b, "&amp;"); break;
        case '"': sb_printf(b, "&quot;"); break;
        default: sb_printf(b, "%c", *s);
        }
    }
}

static void evidence_cell(sb_t *b, const char *dir, const rec_trk_event_t *e) {
    static const char *const which[] = {"before", "after"};
    for (int i = 0; i < 2; i++) {
        char rel[64], path[4096];
        rec_out_evidence_name(e, which[i], rel, sizeof rel);
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (access(path, R_OK) == 0)
            sb_printf(b, "<a href=\"%s\"><img src=\"%s\" alt=\"%s\" title=\"%s\"></a>", rel, rel, which[i],
                      which[i]);
    }
}

int rec_out_write_review(const char *dir, const rec_trk_t *t) {
    sb_t b = {0};
    int n = rec_trk_nevents(t), moves = 0, others = 0;
    for (int i = 0; i < n; i++) {
        int ty = rec_trk_event(t, i)->type;
        if (ty == REC_TEV_MOVE)
            moves++;
        else
            others++;
    }
    sb_printf(
        &b,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<title>kifucam review</title>\n<style>\n"
        "body{font:14px/1.4 sans-serif;margin:1em 2em;color:#222}\n"
        "h1{font-size:1.4em}table{border-collapse:collapse;width:100%%}\n"
        "th,td{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}\n"
        "th{background:#f0f0f0;position:sticky;top:0}\n"
        "tr.move "
        "td.t{color:#555}tr.ev{background:#fff6e0}tr.illegal_move,tr.king_captured{background:#fde2e2}\n"
        "tr.uncertain{background:#fff3b0}tr.game_end,tr.game_start{background:#e2f0fd}\n"
        "img{height:90px;margin-right:4px;border:1px solid #aaa}\n"
        ".mv{font-weight:bold;font-family:monospace}.num{text-align:right}\n"
        "</style></head><body>\n<h1>kifucam review</h1>\n"
        "<p>%d moves, %d other events. Times are per move (seconds). Evidence: the last stable frame "
        "before and the frame that showed the change. "
        "<label><input type=\"checkbox\" id=\"only\"> events only</label></p>\n"
        "<table><thead><tr><th>#</th><th>game</th><th>ply</th><th>what</th><th>move</th>"
        "<th>time</th><th>margin</th><th>detail</th><th>evidence</th></tr></thead><tbody>\n",
        moves, others);
    for (int i = 0; i < n; i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        const char *name = rec_trk_event_name(e->type);
        sb_printf(
            &b,
            "<tr class=\"%s %s\"><td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
            "<td class=\"t\">%s</td><td class=\"mv\">",
            e->type == REC_TEV_MOVE ? "move" : "ev", name, e->seq, e->game, e->ply, name);
        sb_html(&b, e->notation);
        sb_printf(&b, "</td><td class=\"num\">");
        if (e->time_ms >= 0 && e->type == REC_TEV_MOVE)
            sb_printf(&b, "%.1f", (double)e->time_ms / 1000.0);
        sb_printf(&b, "</td><td class=\"num\">");
        if (e->confidence > 0 && e->confidence < 1e6)
            sb_printf(&b, "%.1f", e->confidence);
        sb_printf(&b, "</td><td>");
        sb_html(&b, e->detail);
        sb_printf(&b, "</td><td>");
        evidence_cell(&b, dir, e);
        sb_printf(&b, "</td></tr>\n");
    }
    sb_printf(&b, "</tbody></table>\n<script>\n"
                  "document.getElementById('only').addEventListener('change',function(){\n"
                  "  var hide=this.checked;document.querySelectorAll('tr.move').forEach(function(r){"
                  "r.style.display=hide?'none':'';});});\n"
                  "</script>\n</body></html>\n");
    if (b.oom) {
        free(b.s);
        return -1;
    }
    int rc = rec_out_write_atomic(dir, "review.html", b.s, b.len);
    free(b.s);
    return rc;
}
