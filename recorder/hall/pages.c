/* pages.c - the hall's pages (hall_internal.h): the tournament page and the board page, self-contained
 * HTML and JavaScript that draw each board from its state's SFEN and reload on every server-sent event.
 * Generated text: edit it here; every value from a message is escaped before it reaches the page. */
#include "recorder/hall/hall_internal.h"

/* Each page is one string over C's 4095 guaranteed bytes; GCC and Clang take any length. */
#pragma GCC diagnostic ignored "-Woverlength-strings"

/* The script both pages share: piece names, the arbiter badge, the "recorder offline" badge, escaping, a
 * board drawn from an SFEN, and following the server-sent events (each names the board that changed with its
 * card's fields; one without a board: reload all), with at most one reload running (coalesce). */
#define PAGE_SCRIPT_COMMON                                                                                              \
    "const "                                                                                                            \
    "K={P:'歩',L:'香',N:'桂',S:'銀',G:'金',B:'角',R:'飛',K:'玉','+P':'と','+L':'杏','+N':'圭','+S':'全','+" \
    "B':"                                                                                                               \
    "'馬"                                                                                                              \
    "','+R':'龍'};\n"                                                                                                  \
    "const ARB={'uncertain':1,'illegal move':1,'camera lost':1};\n"                                                     \
    "function esc(t){return String(t==null?'':t).replace(/[&<>\"']/g,c=>'&#'+c.charCodeAt(0)+';');}\n"                  \
    "function board(sfen){const f=(sfen||'9/9/9/9/9/9/9/9/9 b - 1').split(' ');let h='<table class=\"b\">"              \
    "';\n"                                                                                                              \
    "for(const r of f[0].split('/')){h+='<tr>';let i=0;while(i<r.length){let c=r[i];\n"                                 \
    "if(c>='1'&&c<='9'){for(let k=0;k<+c;k++)h+='<td></td>';i++;continue;}\n"                                           \
    "let p='';if(c=='+'){p='+';i++;c=r[i];}i++;const up=c.toUpperCase();const g=c!=up;\n"                               \
    "h+='<td class=\"'+(g?'g ':'')+(p?'p':'')+'\"><span>'+(K[p+up]||'?')+'</span></td>';}h+='</tr>';}\n"                \
    "h+='</table>';let hs='',hg='',n='';for(const c of (f[2]||'-')){if(c>='0'&&c<='9'){n+=c;continue;}\n"               \
    "if(c=='-')break;const t=K[c.toUpperCase()]+(n&&n!='1'?n:'');if(c==c.toUpperCase())hs+=t;else hg+=t;n"              \
    "='';}\n"                                                                                                           \
    "return {html:h,hs:hs||'-',hg:hg||'-'};}\n"                                                                         \
    "function badge(s){return '<span class=\"st'+(ARB[s]?' arb':'')+(s=='ended'?' end':'')+'\">'+esc(s)+'"              \
    "</span>';}\n"                                                                                                      \
    "function off(s){return s.offline?' <span class=\"st off\">recorder offline</span>':'';}\n"                         \
    "function coalesce(f){let busy=false,again=false;return async function "                                            \
    "run(){if(busy){again=true;return;}"                                                                                \
    "busy=true;do{again=false;await f();}while(again);busy=false;};}\n"                                                 \
    "function follow(load,change){load();if(location.search=='?once')return;const es=new "                              \
    "EventSource('/events');"                                                                                           \
    "es.onmessage=e=>{let d={};try{d=JSON.parse(e.data);}catch(x){}change(d);};\n"                                      \
    "es.onerror=()=>{document.getElementById('conn').textContent='connection lost, retrying';};\n"                      \
    "es.onopen=()=>{document.getElementById('conn').textContent='';};}\n"                                               \
    "\n"

const char rec_hall_index_page[] =
    "<!doctype html><html lang=\"ja\"><head><meta charset=\"utf-8\"><title>kifucam hall</title>\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>body{font-family:sans"
    "-serif;margin:1em;background:#f4f1ea}\n"
    "table.b{border-collapse:collapse;background:#e8c77d}table.b td{border:1px solid #553;text-align:cent"
    "er;padding:0}\n"
    "td.g span{display:inline-block;transform:rotate(180deg)}td.p{color:#b00}\n"
    ".st{display:inline-block;padding:.1em .5em;border-radius:.8em;background:#5a5;color:#fff;font-size:."
    "85em}\n"
    ".st.arb{background:#d22;animation:bl 1s infinite}.st.end,.st.off{background:#777}@keyframes "
    "bl{50%{opacity:."
    "5}}\n"
    "#conn{color:#b00}\n"
    "#grid{display:flex;flex-wrap:wrap;gap:1em}.card{background:#fff;border:2px solid #ccc;border-radius:"
    ".5em;padding:.5em;width:15.5em}\n"
    ".card.arb{border-color:#d22;background:#fee}.card a{color:inherit;text-decoration:none}\n"
    ".card table.b td{width:1.45em;height:1.5em;font-size:.8em}.names{font-size:.9em;margin:.2em 0}.hand{"
    "font-size:.8em}\n"
    ".meta{font-size:.8em;color:#444}</style></head><body><h1 id=\"title\">kifucam hall</h1><div id=\"con"
    "n\"></div>\n"
    "<div id=\"grid\">loading...</div><script>\n" PAGE_SCRIPT_COMMON
    "function card(s){const m=s.meta||{};const b=board(s.sfen);const lm=s.last_move?s.last_move.ply+'. "
    "'+s.last_"
    "move.notation:'—';\n"
    "return '<div class=\"card'+(ARB[s.status]?' arb':'')+'\" id=\"b-'+esc(s.board)+'\"><a "
    "href=\"/board/'+encodeURI"
    "Component(s.board)+'\">'\n"
    "+'<div class=\"meta\">board '+esc(s.board)+' '+badge(s.status)+off(s)+'</div>'\n"
    "+'<div class=\"names\">☖ '+esc(m.gote||'gote')+'</div><div class=\"hand\">'+esc(b.hg)+'</div>'+b.html\n"
    "+'<div class=\"hand\">'+esc(b.hs)+'</div><div class=\"names\">☗ '+esc(m.sente||'sente')+'</div>'\n"
    "+'<div class=\"meta\">move <b class=\"ply\">'+s.ply+'</b>, last <span "
    "class=\"last\">'+esc(lm)+'</span></div"
    "></a></div>';}\n"
    "const load=coalesce(async function(){try{const r=await fetch('/boards.json',{cache:'no-store'});const "
    "d=await r"
    ".json();let h='';\n"
    "let ev='';for(const s of d.boards){const m=s.meta||{};if(m.event&&!ev)ev=m.event+(m.round?' — round "
    "'+m.round:'"
    "');h+=card(s);}\n"
    "document.getElementById('grid').innerHTML=h||'no board has published yet';\n"
    "document.getElementById('title').textContent=ev?ev:'kifucam "
    "hall';}catch(e){document.getElementById('conn').tex"
    "tContent='cannot read /boards.json';}});\n"
    "function change(d){const "
    "el=d.board&&document.getElementById('b-'+d.board);if(el)el.outerHTML=card(d);else load"
    "();}\n"
    "follow(load,change);</script></body></html>\n"
    "\n";

const char rec_hall_board_page[] =
    "<!doctype html><html lang=\"ja\"><head><meta charset=\"utf-8\"><title>kifucam hall: board</title>\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>body{font-family:sans"
    "-serif;margin:1em;background:#f4f1ea}\n"
    "table.b{border-collapse:collapse;background:#e8c77d}table.b td{border:1px solid #553;text-align:cent"
    "er;padding:0}\n"
    "td.g span{display:inline-block;transform:rotate(180deg)}td.p{color:#b00}\n"
    ".st{display:inline-block;padding:.1em .5em;border-radius:.8em;background:#5a5;color:#fff;font-size:."
    "85em}\n"
    ".st.arb{background:#d22;animation:bl 1s infinite}.st.end,.st.off{background:#777}@keyframes "
    "bl{50%{opacity:."
    "5}}\n"
    "#conn{color:#b00}\n"
    "#wrap{display:flex;gap:1.5em;flex-wrap:wrap}table.b td{width:2.2em;height:2.4em;font-size:1.3em}\n"
    ".hand{margin:.3em 0;font-size:1.1em}#moves{max-height:32em;overflow:auto;min-width:14em}.clock{font-"
    "family:monospace}\n"
    "</style></head><body><p><a href=\"/\">&larr; all boards</a></p><h1 id=\"title\">board</h1><div id=\""
    "conn\"></div>\n"
    "<div id=\"state\"></div><div id=\"wrap\"><div><div class=\"hand\" id=\"hg\"></div><div id=\"board\">"
    "</div><div class=\"hand\" id=\"hs\"></div></div>\n"
    "<div><b>Moves</b><div id=\"moves\"></div><p id=\"result\"></p><p><a href=\"game.kif\">KIF</a> <a hre"
    "f=\"game.csa\">CSA</a>\n"
    "<a href=\"game.jkf\">JKF</a> <a "
    "href=\"state.json\">state</a></p></div></div><script>\n" PAGE_SCRIPT_COMMON
    "const id=decodeURIComponent(location.pathname.split('/')[2]||'');const base='/board/'+encodeURICompo"
    "nent(id)+'/';\n"
    "document.querySelectorAll('a[href^=\"game\"],a[href=\"state.json\"]').forEach(a=>a.href=base+a.getAt"
    "tribute('href'));\n"
    "function clock(ms){const s=Math.round(ms/1000);return Math.floor(s/3600)+':'+String(Math.floor(s/60)"
    "%60).padStart(2,'0')+':'+String(s%60).padStart(2,'0');}\n"
    "const load=coalesce(async function(){try{const r=await "
    "fetch(base+'state.json',{cache:'no-store'});if(!r.ok){docume"
    "nt.getElementById('state').textContent='nothing published yet for board '+id;return;}\n"
    "const s=await r.json();const m=s.meta||{};const b=board(s.sfen);document.getElementById('board').inn"
    "erHTML=b.html;\n"
    "let t=[0,0];let h='';s.moves.forEach((x,i)=>{t[i%2]+=x.time_ms||0;h+='<div>'+(i+1)+'. '+esc(x.notati"
    "on||x.usi)+' <span class=\"clock\">('+clock(x.time_ms||0)+')</span></div>';});\n"
    "const mv=document.getElementById('moves');mv.innerHTML=h;mv.scrollTop=1e9;\n"
    "document.getElementById('hs').innerHTML='☗ '+esc(m.sente||'sente')+' <span class=\"clock\">'+clock(t"
    "[0])+'</span> — '+esc(b.hs);\n"
    "document.getElementById('hg').innerHTML='☖ '+esc(m.gote||'gote')+' <span class=\"clock\">'+clock(t[1"
    "])+'</span> — '+esc(b.hg);\n"
    "document.getElementById('title').textContent='board '+id+(m.event?' — '+m.event:'')+(m.round?', roun"
    "d '+m.round:'');\n"
    "document.getElementById('state').innerHTML=badge(s.status)+off(s)+' game '+s.game+', move '+s.ply+', "
    "camera"
    ": '+esc(s.view);\n"
    "document.getElementById('result').textContent=s.result||'';}catch(e){document.getElementById('conn')"
    ".textContent='cannot read the state';}});\n"
    "follow(load,d=>{if(!d.board||d.board===id)load();});</script></body></html>\n"
    "\n";
