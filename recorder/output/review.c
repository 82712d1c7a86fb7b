/* review.c - review.html, the arbiter's desk: every move and event of the recording, numbered by move
 * with an anchor each (#m37 move 37 of game 1, #g2m5 of game 2, #e38 event 38), and for the selected
 * one its before/after frames large, cropped to the board with the changed squares outlined, the
 * board diagram, the rule (FESA article) in words, times, and a print sheet. One self-contained file
 * (inline CSS and JS, the items as JSON, relative image links: only the selected item's two frames
 * load) that opens from disk; rewritten atomically after every event. */
#include "recorder/output/output_internal.h"

#include <jansson.h>
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

/* The anchor of an event: moves by number (m37, g2m5), other events by seq (e38). */
static void item_id(const rec_trk_event_t *e, char *buf, size_t len) {
    if (e->type == REC_TEV_MOVE && e->game > 1)
        snprintf(buf, len, "g%dm%d", e->game, e->ply);
    else if (e->type == REC_TEV_MOVE)
        snprintf(buf, len, "m%d", e->ply);
    else
        snprintf(buf, len, "e%d", e->seq);
}

/* The rule an event is about, in words with its FESA article (RULES.md); "" when none. */
static const char *rule_text(const rec_trk_event_t *e) {
    switch (e->type) {
    case REC_TEV_GAME_START:
        return "FESA 9.1: the setup was checked against the start position before the first move; a wrong "
               "setup annuls the game.";
    case REC_TEV_SETUP_ERROR:
        return "FESA 9.1: if the starting position was set up wrongly, the game is annulled and replayed.";
    case REC_TEV_ILLEGAL:
        switch (e->why) {
        case RUL_WHY_NIFU:
            return "FESA 3.11(a): a pawn may not be dropped on a file where its owner already has an "
                   "unpromoted pawn (nifu). FESA 9.4: the opponent may claim the win until he has replied, "
                   "and afterwards while two unpromoted pawns stand on the file.";
        case RUL_WHY_PAWN_DROP_MATE:
            return "FESA 3.11(c): a pawn drop that gives immediate mate (uchifuzume) is forbidden. FESA 9.4: "
                   "the opponent may claim the win until he has replied.";
        case RUL_WHY_LEAVES_KING_IN_CHECK:
            return "FESA 1.2: a move may not leave one's king in check. FESA 9.4: the opponent may claim the "
                   "win until he has replied, and afterwards while the king stays in check; FESA 9.5: "
                   "capturing that king wins at once.";
        case RUL_WHY_NO_FURTHER_MOVE:
            return "FESA 3.2, 3.11(b): a pawn or lance on the last rank, a knight on the last two, must "
                   "promote and may not be dropped there. FESA 9.4: claimable while the piece stands there.";
        case REC_WHY_TWO_IN_A_ROW:
            return "FESA 9.4: moving twice in a row is an illegal move; the opponent may claim the win until "
                   "he has replied.";
        default:
            return "FESA 3.3-3.10, 9.4: the piece cannot move so (or there is no such piece); the opponent "
                   "may claim the win until he has replied.";
        }
    case REC_TEV_KING_CAPTURED:
        return "FESA 9.5: capturing a king that was left in check wins the game at once.";
    case REC_TEV_UNCERTAIN:
        return "No rule: the recorder could not tell which move the frame shows (the margin below the "
               "threshold); nothing is written until a later frame decides.";
    case REC_TEV_GAME_END:
        switch (e->reason) {
        case RUL_REASON_RESIGN: return "FESA 5.1: the game ends by resignation.";
        case RUL_REASON_MATE: return "FESA 5.1: checkmate ends the game.";
        case RUL_REASON_NO_LEGAL_MOVE: return "FESA 1.2: a player with no legal move has lost.";
        case RUL_REASON_SENNICHITE:
            return "FESA 5.2: the same position (board, hands, side to move) for the fourth time: a draw; "
                   "FESA 12.2: a new game at once, colours reversed. The occurrences are linked below.";
        case RUL_REASON_PERPETUAL_CHECK:
            return "FESA 3.12: a fourfold repetition in which one side gave check with every move: the "
                   "checking side loses. The occurrences are linked below.";
        case RUL_REASON_IMPASSE:
            return "FESA 5.3: an impasse declaration wins when the king is in the zone, 28 points (sente) or "
                   "27 (gote) are counted (R, B 5; others 1) from pieces in the zone and in hand, 10 pieces "
                   "are in the zone and the king is not in check; otherwise the declarer loses.";
        case RUL_REASON_ILLEGAL_MOVE: return "FESA 9.4: the illegal move was claimed: its mover loses.";
        case RUL_REASON_TIME: return "FESA 8: the player whose flag fell loses.";
        default: return "";
        }
    default: return "";
    }
}

/* The position part of an SFEN (board, side, hands), without the move number, into buf. */
static void sfen_position(const char *sfen, char *buf, size_t len) {
    snprintf(buf, len, "%s", sfen);
    char *sp = strrchr(buf, ' ');
    if (sp && sp != strchr(buf, ' ') && strchr(strchr(buf, ' ') + 1, ' ') != sp)
        *sp = '\0';
}

/* Squares whose piece differs between two SFEN positions, as a JSON array of square indices. */
static json_t *changed_squares(const char *before, const char *after) {
    json_t *a = json_array();
    rul_pos_t p, q;
    if (before[0] == '\0' || rul_pos_from_sfen(&p, before, NULL) != RUL_OK ||
        rul_pos_from_sfen(&q, after, NULL) != RUL_OK)
        return a;
    for (int sq = 0; sq < RUL_SQ_NB; sq++)
        if (rul_pos_piece_at(&p, sq) != rul_pos_piece_at(&q, sq))
            json_array_append_new(a, json_integer(sq));
    return a;
}

/* Links to the events of game e->game whose position is e's (the occurrences of a repetition). */
static json_t *occurrences(const rec_trk_t *t, const rec_trk_event_t *e) {
    json_t *a = json_array();
    char want[128], pos[128], id[32];
    sfen_position(e->sfen, want, sizeof want);
    for (int i = 0; i < rec_trk_nevents(t); i++) {
        const rec_trk_event_t *x = rec_trk_event(t, i);
        if (x->game != e->game || x == e ||
            (x->type != REC_TEV_MOVE && x->type != REC_TEV_GAME_START && x->type != REC_TEV_ILLEGAL))
            continue;
        sfen_position(x->sfen, pos, sizeof pos);
        if (strcmp(pos, want) == 0) {
            item_id(x, id, sizeof id);
            json_array_append_new(a, json_string(id));
        }
    }
    return a;
}

/* One item of the page's data: what the desk shows of event e. */
static json_t *item_json(const char *dir, const rec_trk_t *t, const rec_trk_event_t *e, const char *prev_sfen,
                         const rec_out_geom_t *g, int *missing) {
    json_t *o = json_object();
    char id[32], names[2][64], path[4096];
    static const char *const which[] = {"before", "after"};
    item_id(e, id, sizeof id);
    json_object_set_new(o, "id", json_string(id));
    json_object_set_new(o, "k", json_string(rec_trk_event_name(e->type)));
    json_object_set_new(o, "g", json_integer(e->game));
    json_object_set_new(o, "p", json_integer(e->ply));
    json_object_set_new(o, "s", json_integer(e->seq));
    json_object_set_new(o, "n", json_string(e->notation));
    json_object_set_new(o, "u", json_string(e->usi));
    json_object_set_new(o, "t", e->time_ms != REC_TIME_NONE ? json_integer(e->time_ms) : json_null());
    json_object_set_new(o, "c", json_real(e->confidence > 1e6 ? 1e6 : e->confidence));
    json_object_set_new(o, "d", json_string(e->detail));
    json_object_set_new(o, "r", json_string(rule_text(e)));
    json_object_set_new(o, "f", json_string(e->sfen));
    json_object_set_new(o, "ts", json_integer(e->ts_us));
    json_object_set_new(o, "rb", json_string(e->ref_before));
    json_object_set_new(o, "ra", json_string(e->ref_after));
    *missing = 0;
    for (int i = 0; i < 2; i++) {
        rec_out_evidence_name(e, which[i], names[i], sizeof names[i]);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int have = access(path, R_OK) == 0;
        json_object_set_new(o, i ? "a" : "b", json_string(have ? names[i] : ""));
        if (i == 1 && !have && e->ref_after[0]) /* the event came from a frame that is not there */
            *missing = 1;
    }
    if (g && g->known) {
        json_t *x = json_array();
        for (int i = 0; i < 8; i++)
            json_array_append_new(x, json_real(g->px[i / 2][i % 2]));
        json_array_append_new(x, json_integer(g->width));
        json_array_append_new(x, json_integer(g->height));
        json_object_set_new(o, "x", x);
    }
    if (e->type == REC_TEV_MOVE || e->type == REC_TEV_ILLEGAL || e->type == REC_TEV_KING_CAPTURED)
        json_object_set_new(o, "ch", changed_squares(prev_sfen, e->sfen));
    if (e->type == REC_TEV_GAME_END &&
        (e->reason == RUL_REASON_SENNICHITE || e->reason == RUL_REASON_PERPETUAL_CHECK))
        json_object_set_new(o, "o", occurrences(t, e));
    return o;
}

static const char PAGE_HEAD[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width\">\n<title>kifucam review</title>\n<style>\n"
    "body{font:14px/1.4 sans-serif;margin:0;color:#222;display:flex;flex-direction:column;height:100vh}\n"
    "header{flex:none;padding:.3em 1.5em;border-bottom:1px solid #ccc}h1{font-size:1.3em;margin:.2em 0}\n"
    "header p{margin:.2em 0}.legend{font-size:12px;color:#444}\n"
    "#wrap{flex:1;min-height:0;display:flex}\n"
    "#desk{flex:0 0 62%;overflow:auto;padding:0 1em;box-sizing:border-box;border-right:1px solid #ccc}\n"
    "#list{flex:1;overflow:auto;padding:0 .5em}\n"
    "h2{font-size:1.2em;margin:.4em 0}\n"
    "table{border-collapse:collapse;width:100%}\n"
    "th,td{border-bottom:1px solid #ddd;padding:3px 5px;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0;position:sticky;top:0}\n"
    "tr{cursor:pointer;scroll-margin-top:2.2em}tr.sel{outline:2px solid #1565c0;background:#e3f0ff}\n"
    "tr.ev{background:#fff6e0}tr.illegal_move,tr.king_captured{background:#fde2e2}\n"
    "tr.uncertain{background:#fff3b0}tr.game_end,tr.game_start{background:#e2f0fd}\n"
    ".mv{font-weight:bold;font-family:monospace}.num{text-align:right}.miss{color:#b00}\n"
    "a{color:#1565c0}.frames{display:flex;gap:8px}\n"
    "figure{margin:0;flex:1;min-width:0}figure svg,figure img{width:100%;max-height:52vh;"
    "background:#eee;border:1px solid #999}\n"
    "figcaption{font-size:12px;color:#444}\n"
    ".row2{display:flex;gap:1em;margin-top:.5em}.rule{background:#f4f4ff;padding:4px 8px;"
    "border-left:4px solid #6a6adf}\n"
    "table.bd{border-collapse:collapse;width:auto;font-size:13px}\n"
    "table.bd td{border:1px solid #777;min-width:1.6em;height:1.6em;text-align:center;padding:0}\n"
    ".row2>div:first-child{flex:none}code{word-break:break-all}\n"
    "table.bd td.ch{outline:3px solid #e00;outline-offset:-3px;background:#fee}\n"
    "table.bd td.lab{border:0;color:#666;font-size:11px}.gote{display:inline-block;"
    "transform:rotate(180deg)}\n"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:0 .8em;margin:.3em 0}dt{color:#555}"
    "dd{margin:0}\n"
    ".keys{color:#666;font-size:12px}\n"
    "@media print{#list,.noprint,header .legend{display:none}body,#wrap{display:block;height:auto}"
    "#desk{overflow:visible;border:0}figure svg,figure img{max-height:none}}\n"
    "</style></head><body>\n";

/* Frames cropped to the board with the changed squares outlined, and the board diagram. */
static const char PAGE_SCRIPT[] =
    "<script>\n"
    "var K={P:'\\u6b69',L:'\\u9999',N:'\\u6842',S:'\\u9280',G:'\\u91d1',B:'\\u89d2',R:'\\u98db',"
    "K:'\\u7389','+P':'\\u3068','+L':'\\u674f','+N':'\\u572d','+S':'\\u5168','+B':'\\u99ac',"
    "'+R':'\\u9f8d'};\n"
    "var RK='\\u4e00\\u4e8c\\u4e09\\u56db\\u4e94\\u516d\\u4e03\\u516b\\u4e5d';\n"
    "var at={};D.forEach(function(x,i){at[x.id]=i;});var cur=-1;\n"
    "function esc(s){return String(s).replace(/[&<>\"]/g,function(c){return "
    "{'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&quot;'}[c];});}\n"
    /* bilinear place of canonical (u, v) (squares, sente's view) from the four corners */
    "function pt(x,u,v){var a=u/9,b=v/9;return [(1-a)*(1-b)*x[0]+a*(1-b)*x[2]+a*b*x[4]+(1-a)*b*x[6],"
    "(1-a)*(1-b)*x[1]+a*(1-b)*x[3]+a*b*x[5]+(1-a)*b*x[7]];}\n"
    "function poly(x,u0,v0,u1,v1){return [pt(x,u0,v0),pt(x,u1,v0),pt(x,u1,v1),pt(x,u0,v1)].map("
    "function(p){return p[0].toFixed(1)+','+p[1].toFixed(1);}).join(' ');}\n"
    "function frame(it,name,label){\n"
    " if(!name)return '<figure><div class=\"miss\">'+label+': no frame'+(it.ra&&label=='after'?' "
    "(missing)':'')"
    "+'</div></figure>';\n"
    " var cap='<figcaption>'+label+' &middot; <a href=\"'+name+'\">'+esc(name)+'</a> '+esc(label=='after'?"
    "it.ra:it.rb)+'</figcaption>';\n"
    " if(!it.x)return '<figure><img src=\"'+name+'\" alt=\"'+label+'\">'+cap+'</figure>';\n"
    " var x=it.x,xs=[x[0],x[2],x[4],x[6]],ys=[x[1],x[3],x[5],x[7]];\n"
    " var x0=Math.min.apply(0,xs),x1=Math.max.apply(0,xs),y0=Math.min.apply(0,ys),y1=Math.max.apply(0,ys);\n"
    " var m=(x1-x0)/9*1.2;x0=Math.max(0,x0-m);y0=Math.max(0,y0-m);x1=Math.min(x[8],x1+m);"
    "y1=Math.min(x[9],y1+m);\n"
    " var sw=((x1-x0)/300).toFixed(1),s='<svg viewBox=\"'+x0.toFixed(0)+' '+y0.toFixed(0)+' '+"
    "(x1-x0).toFixed(0)+' '+(y1-y0).toFixed(0)+'\"><image href=\"'+name+'\" width=\"'+x[8]+'\" height=\"'"
    "+x[9]+'\"/>';\n"
    " s+='<polygon points=\"'+poly(x,0,0,9,9)+'\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"'+sw+'\" "
    "stroke-opacity=\".6\"/>';\n"
    " (it.ch||[]).forEach(function(q){var f=Math.floor(q/9)+1,r=q%9+1;s+='<polygon points=\"'+"
    "poly(x,9-f,r-1,10-f,r)+'\" fill=\"none\" stroke=\"#e00\" stroke-width=\"'+(sw*3)+'\"/>';});\n"
    " return '<figure>'+s+'</svg>'+cap+'</figure>';}\n"
    "function board(it){var f=it.f.split(' '),rows=f[0].split('/'),ch={},h='<table class=\"bd\"><tr>';\n"
    " (it.ch||[]).forEach(function(q){ch[q]=1;});\n"
    " for(var c=9;c>=1;c--)h+='<td class=\"lab\">'+c+'</td>';h+='<td class=\"lab\"></td></tr>';\n"
    " rows.forEach(function(row,r){h+='<tr>';var fl=9,pro='';for(var i=0;i<row.length;i++){var c=row[i];\n"
    "  if(c=='+'){pro='+';continue;}if(c>='1'&&c<='9'){for(var n=+c;n>0;n--,fl--)h+='<td'+(ch[(fl-1)*9+r]?"
    "' class=\"ch\"':'')+'></td>';continue;}\n"
    "  var up=c.toUpperCase(),k=K[pro+up]||c,g=c!=up;h+='<td'+(ch[(fl-1)*9+r]?' class=\"ch\"':'')+' title=\"'"
    "+(g?'gote ':'sente ')+pro+up+'\">'+(g?'<span class=\"gote\">'+k+'</span>':k)+'</td>';fl--;pro='';}\n"
    "  h+='<td class=\"lab\">'+RK[r]+'</td></tr>';});\n"
    " return h+'</table><div>side to move: '+(f[1]=='w'?'gote':'sente')+' &middot; hands: '+esc(f[2])+"
    "'</div>';}\n";

/* The desk: renders the selected item; anchors, clicks and keys select. */
static const char PAGE_SCRIPT2[] =
    "function show(i){if(i<0||i>=D.length)return;var it=D[i],old=document.querySelector('tr.sel');\n"
    " if(old)old.classList.remove('sel');var tr=document.getElementById(it.id);if(tr)tr.classList.add('sel');"
    "cur=i;\n"
    " var title=it.k=='move'?'Move '+it.p+(it.g>1?' of game '+it.g:'')+': '+esc(it.n):"
    "'Event '+it.s+': '+esc(it.k)+(it.n?' '+esc(it.n):'');\n"
    " var h='<h2>'+title+' <a class=\"noprint\" href=\"#'+it.id+'\">#'+it.id+'</a> <button class=\"noprint\" "
    "onclick=\"window.print()\">print this sheet</button></h2>';\n"
    " h+='<div class=\"frames\">'+frame(it,it.b,'before')+frame(it,it.a,'after')+'</div>';\n"
    " h+='<div class=\"row2\"><div>'+board(it)+'</div><div style=\"flex:1\">';\n"
    " if(it.r)h+='<p class=\"rule\">'+esc(it.r)+'</p>';\n"
    " if(it.o&&it.o.length)h+='<p>Occurrences of this position: '+it.o.map(function(o){return '<a href=\"#'"
    "+o+'\">#'+o+'</a>';}).join(' ')+'</p>';\n"
    " h+='<dl><dt>game, ply</dt><dd>'+it.g+', '+it.p+'</dd>';\n"
    " if(it.u)h+='<dt>move (USI)</dt><dd>'+esc(it.u)+'</dd>';\n"
    " if(it.t!==null)h+='<dt>time</dt><dd>'+(it.t/1000).toFixed(1)+' s</dd>';\n"
    " h+='<dt>seen at</dt><dd>'+(it.ts/1e6).toFixed(2)+' s of the recording</dd>';\n"
    " if(it.c>0)h+='<dt>margin</dt><dd>'+(it.c>=1e6?'no rival':it.c.toFixed(1)+' nats')+'</dd>';\n"
    " if(it.d)h+='<dt>detail</dt><dd>'+esc(it.d)+'</dd>';\n"
    " h+='<dt>position</dt><dd><code>'+esc(it.f)+'</code></dd></dl></div></div>';\n"
    " document.getElementById('desk').innerHTML=h;}\n"
    "function fromHash(){var id=location.hash.slice(1);if(id in at)show(at[id]);else if(cur<0)"
    "show(D.length-1);}\n"
    "window.addEventListener('hashchange',fromHash);fromHash();\n"
    "document.getElementById('list').addEventListener('click',function(ev){var tr=ev.target.closest('tr');"
    "if(tr&&tr.id&&ev.target.tagName!='A')location.hash=tr.id;});\n"
    "function visible(i){var tr=document.getElementById(D[i].id);return tr&&tr.style.display!='none';}\n"
    "document.addEventListener('keydown',function(ev){var d=0;\n"
    " if(ev.key=='ArrowDown'||ev.key=='j'||ev.key=='ArrowRight')d=1;"
    "else if(ev.key=='ArrowUp'||ev.key=='k'||ev.key=='ArrowLeft')d=-1;else return;\n"
    " ev.preventDefault();for(var i=cur+d;i>=0&&i<D.length;i+=d)if(visible(i)){location.hash=D[i].id;"
    "break;}});\n"
    "document.getElementById('only').addEventListener('change',function(){var hide=this.checked;\n"
    " document.querySelectorAll('tr.move').forEach(function(r){r.style.display=hide?'none':'';});});\n"
    "</script>\n</body></html>\n";

/* One row of the list. */
static void row(sb_t *b, const rec_trk_event_t *e, int missing) {
    char id[32];
    const char *name = rec_trk_event_name(e->type);
    item_id(e, id, sizeof id);
    sb_printf(b,
              "<tr id=\"%s\" class=\"%s %s\"><td class=\"num\"><a href=\"#%s\">%s</a></td><td class=\"mv\">",
              id, e->type == REC_TEV_MOVE ? "move" : "ev", name, id,
              e->type == REC_TEV_MOVE ? id + (e->game > 1 ? strcspn(id, "m") : 0) + 1 : name);
    sb_html(b, e->notation);
    sb_printf(b, "</td><td class=\"num\">");
    if (e->time_ms != REC_TIME_NONE && e->type == REC_TEV_MOVE)
        sb_printf(b, "%.1f", (double)e->time_ms / 1000.0);
    sb_printf(b, "</td><td class=\"num\">");
    if (e->confidence > 0 && e->confidence < 1e6)
        sb_printf(b, "%.1f", e->confidence);
    sb_printf(b, "</td><td>");
    if (missing)
        sb_printf(b, "<span class=\"miss\">frame missing</span> ");
    if (e->type != REC_TEV_MOVE)
        sb_html(b, e->detail);
    sb_printf(b, "</td></tr>\n");
}

int rec_out_write_review(const char *dir, const rec_trk_t *t, const rec_out_geom_t *geom, int ngeom) {
    sb_t b = {0}, rows = {0}, miss = {0};
    int n = rec_trk_nevents(t), moves = 0, games = 0, nmiss = 0, kinds[REC_TEV_NB + 1] = {0};
    char prev[128] = "", id[32];
    json_t *data = json_array();
    for (int i = 0; i < n; i++) {
        const rec_trk_event_t *e = rec_trk_event(t, i);
        int missing = 0;
        kinds[e->type >= 0 && e->type < REC_TEV_NB ? e->type : REC_TEV_NB]++;
        moves += e->type == REC_TEV_MOVE;
        games = e->game > games ? e->game : games;
        if (e->type == REC_TEV_GAME_START)
            prev[0] = '\0';
        const rec_out_geom_t *g = geom && e->seq >= 0 && e->seq < ngeom ? &geom[e->seq] : NULL;
        json_array_append_new(data, item_json(dir, t, e, prev, g, &missing));
        if (e->type == REC_TEV_GAME_START || e->type == REC_TEV_MOVE || e->type == REC_TEV_ILLEGAL)
            snprintf(prev, sizeof prev, "%s", e->sfen);
        row(&rows, e, missing);
        if (missing) {
            item_id(e, id, sizeof id);
            sb_printf(&miss, "%s<a href=\"#%s\">#%s</a>", nmiss++ ? " " : "", id, id);
        }
    }
    sb_printf(&b, "%s<header><h1>kifucam review</h1>\n<p>%d moves in %d game%s", PAGE_HEAD, moves, games,
              games == 1 ? "" : "s");
    for (int k = 0; k <= REC_TEV_NB; k++)
        if (k != REC_TEV_MOVE && kinds[k])
            sb_printf(&b, "; %d %s", kinds[k], k < REC_TEV_NB ? rec_trk_event_name(k) : "other");
    sb_printf(&b, ". Select a row (or open review.html#m37 for move 37, #g2m5 for game 2's move 5, #e38 "
                  "for event 38); &uarr;/&darr; or j/k step.</p>\n");
    if (nmiss)
        sb_printf(&b, "<p class=\"miss\">Evidence frames missing (%d): %s</p>\n", nmiss, miss.s);
    sb_printf(&b,
              "<p class=\"legend\"><b>margin</b>: how much better (in nats, natural-log likelihood) the "
              "written move explains the frame than the next best explanation; a move is written only when "
              "this is at least the tracker's threshold (2 by default), otherwise the frame is an "
              "<i>uncertain</i> event and nothing is written until a later frame decides. <b>time</b>: "
              "seconds since the previous move was seen. Red squares: the squares the move changed. "
              "<label class=\"noprint\"><input type=\"checkbox\" id=\"only\"> events only</label></p>\n"
              "</header>\n<div id=\"wrap\"><section id=\"desk\"><p>Select a row.</p></section>\n"
              "<section id=\"list\"><table><thead><tr><th>#</th><th>move</th><th>time</th><th>margin</th>"
              "<th>detail</th></tr></thead><tbody>\n");
    sb_printf(&b, "%s</tbody></table></section></div>\n<script>var D=", rows.s ? rows.s : "");
    char *js = json_dumps(data, JSON_COMPACT | JSON_ESCAPE_SLASH);
    json_decref(data);
    if (js == NULL)
        b.oom = 1;
    else
        sb_printf(&b, "%s;</script>\n%s%s", js, PAGE_SCRIPT, PAGE_SCRIPT2);
    free(js);
    free(rows.s);
    free(miss.s);
    if (b.oom || rows.oom || miss.oom) {
        free(b.s);
        return -1;
    }
    int rc = rec_out_write_atomic(dir, "review.html", b.s, b.len);
    free(b.s);
    return rc;
}
