"""`make eval-games`: clips of real games recorded by `kifucam record`, one table row a game, and the
same recorder under faults (corrupt frames, a camera blackout, kill -9 and --resume) as more rows.

  /usr/bin/python3 samples/eval_games.py [BUILD] [KIFU...]

For each game (KIFU arguments, else EVAL_GAMES, a space-separated list, else the list below from
../shared/data/kifu and ../shared/data/fixtures) it renders a clip with samples/make_clip.py (nice -n
10; reused when BUILD/eval-games/NAME.mp4, .usi and .json are there), records it with `kifucam record`
and compares the recording with the record:

- which moves: a game whose record ends in something the recorder must see (`kifucam replay --json`:
  mate, sennichite, perpetual check, an illegal move, an impasse declaration) is rendered to its end,
  from the position EVAL_END_PLIES (default 40; 0: the whole game) moves before the end, started with
  `kifucam record --start SFEN`; a repetition game starts no later than the first occurrence of its
  final position. Every clip ends with 3 s of still board (10 s before an impasse declaration). Any other game (resignation, time-out, no ending): its first EVAL_PLIES moves
  (default 60; 0: all).
- the truth of the ending, compared with the recorder's (events.jsonl of game 1: its illegal_move,
  king_captured and game_end events, in order): illegal at the move's ply (and the move), sennichite / perpetual
  check / mate at the ply (and the winner), an illegal move made after a mate (014) as the mate and
  then the illegal move, impasse: the eval plays the operator and sends `declare`
  on standard input once every move is in events.jsonl (a camera cannot see a declaration), then the
  winner must be the record's; anything else (resignation, which a camera cannot see either, or a
  clip cut short): "none", no game end and no illegal move.
- faults (EVAL_FAULTS, default "corrupt blackout gap kill"; "" for none) on EVAL_FAULT_GAME (default
  shogi-kifu-converter floodgate.csa, the same clip as its plain row):
  corrupt: the clip as a folder of JPEGs (ffmpeg, quality 3) with 1 % of them damaged in turn three
  ways: cut to 40 % of its bytes (decodes with a grey bottom), its first 512 bytes zeroed (no longer
  an image: skipped and counted by capture), 16 runs of 8 random bytes past the first 1 kB (decodes
  with garbage); read with --fps 10 (capture/ reads image folders);
  blackout: a clip with 10 s of black frames before move EVAL_PLIES/2, during which
  EVAL_BLACKOUT_MOVES moves (default 2) are made unseen;
  gap: the same clip as a JPEG folder with the black frames removed (timestamps jump by 10 s);
  kill: `kifucam record` of the plain clip killed with SIGKILL once half of the moves are in
  events.jsonl, then `kifucam record --source CLIP --resume DIR` (a video is skipped up to the last
  logged event, as a camera would simply go on).
  The move counts of a fault row are compared with the whole rendered game; "no move lost, none
  invented" is right = total and wrong = extra = 0.
  The faults are rendered in the training styles (EVAL_FAULT_HELD_OUT=1: held out), where the
  recorder reads the base clip, so that the rows measure the fault and not the recognition of an
  unseen piece set; the fault game's fault-free clip in that style is the first fault row (base).
- EVAL_HELD_OUT=0 renders in the training styles (default 1: the piece font and board colour held
  out of training).
- EVAL_PIECE_LOOK=piece renders each piece on its own (make_clip.py --piece-look piece: its own
  layout and handwriting, the clips before commit 6f157f5); default "set": every piece of a kind
  shares one design, as in a real set (clip names end in -set).
- EVAL_RECORD_ARGS: more arguments for every `kifucam record` (e.g. "--no-adapt").

Prints one row a game or fault: moves right / total, wrong, missed, extra, uncertain, the ending
expected and found and whether they agree, fps of the recording and its wall time; then the totals
and the run's wall time. Writes the same rows to BUILD/eval-games/results.tsv. Skips with one line
when ../shared/data is absent. Exit 0 unless the build or a tool is missing (the numbers are the
output, not a pass/fail).
"""

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "models"))
sys.path.insert(0, os.path.join(ROOT, "samples"))

DATA = os.path.join(ROOT, "..", "shared", "data")
K = os.path.join(DATA, "kifu")
GAMES = [
    f"{K}/shogi-kifu-converter/csa/WCSC32_F7_NBS_DLS.csa",
    f"{K}/shogi-kifu-converter/csa/floodgate.csa",
    f"{K}/mog-core-scala/kif/game/001.kif",
    f"{K}/apery_wcsc28/utf8_WCSC28_L1_BRO_KAT_2.csa",  # mate at 103
    f"{K}/shogi-kifu-converter/kif/oui202106290101.kif",
    f"{K}/json-kifu-format/csa/2005_GPS_K-SHOGI.csa",
    f"{K}/json-kifu-format/csa/2005_YAMADA_GPS.csa",
    f"{K}/json-kifu-format/kif/jt201409130101.kif",
    f"{K}/json-kifu-format/kif/kiou201403160101.kif",
    f"{K}/json-kifu-format/kif/oui201407080101.kif",
    f"{K}/json-kifu-format/kif/ouza201410070101.kif",
    f"{K}/json-kifu-format/kif/ryuou201409020101.kif",
    f"{K}/mog-core-scala/kif/game/016.kif",  # mate at 37
    f"{K}/mog-core-scala/kif/game/009.kif",  # sennichite at 85
    f"{K}/apery_wcsc28/utf8_WCSC28_U7_QHA_MCB.csa",  # sennichite at 72
    f"{DATA}/fixtures/shogi-server/csa/oute_sennichite.csa",  # perpetual check by sente at 110: gote wins
    f"{DATA}/fixtures/shogi-server/csa/oute_sennichite2.csa",  # perpetual check by gote at 135: sente wins
    f"{K}/apery_wcsc28/utf8_WCSC28_U8_MCB_HFW.csa",  # gote declares an impasse (%KACHI) after 223 moves
    f"{K}/mog-core-scala/kif/game/014.kif",  # illegal at 157: B*5c leaves the king in check
    f"{K}/mog-core-scala/kif/game/015.kif",  # illegal at 83: 2h1g
    f"{K}/mog-core-scala/kif/game/017.kif",  # illegal at 27: 3g4e
]
SEEN_ENDS = ("mate", "sennichite", "perpetual_check", "illegal_move", "impasse", "no_legal_move")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def replay(kifucam, path):
    """`kifucam replay PATH --json` as a dict (an illegal move exits 1 but still prints the JSON)."""
    p = subprocess.run([kifucam, "replay", path, "--json"], capture_output=True, text=True)
    return json.loads(p.stdout.splitlines()[0])


def first_occurrence(kifucam, path):
    """Ply (0 = start) at which the record's final position (board, hands, side) first stood."""
    from render import game as G

    sfen, moves = G.read_usi(path, kifucam)
    b, h, s = G.parse_sfen(sfen)
    keys = [G.to_sfen(b, h, s, 0)]
    for m in moves:
        G.do_move(b, h, s, m)
        s ^= 1
        keys.append(G.to_sfen(b, h, s, 0))
    return keys.index(keys[-1])


def plan(kifucam, path, plies, end_plies):
    """(from_ply, n_moves, expected ending) of a game: see the module comment."""
    r = replay(kifucam, path)
    res = r["result"]
    ill = (r.get("record_result") or {}).get("illegal_move")
    total = res["ply"] if res["reason"] == "illegal_move" else r["moves"]
    if res["reason"] in SEEN_ENDS:
        frm = max(0, total - end_plies) if end_plies else 0
        if res["reason"] in ("sennichite", "perpetual_check"):
            frm = min(frm, first_occurrence(kifucam, path))
        exp = {"reason": res["reason"], "ply": total - frm, "winner": res["winner"]}
        if res["reason"] == "illegal_move":
            exp["move"], exp["why"] = ill["move"], ill["reason"]
            # a move after a mate is illegal: the mate itself is then the game's first ending
            if any(e.get("type") == "mate" and e.get("ply") == total - 1 for e in r.get("events", [])):
                exp["mate_before"] = {"reason": "mate", "ply": total - 1 - frm, "winner": res["winner"]}
        return frm, total - frm, exp
    n = min(plies, total) if plies else total
    return 0, n, {"reason": "none"}


def ending_found(events):
    """The recorder's endings: the illegal_move, king_captured and game_end events of game 1 and of the
    games that take it up, in order, each at its ply in game 1; a stop that a later game takes up (reason
    none, then a game_start that continues it) is no ending."""
    out = []
    for i, e in enumerate(events):
        ply = e.get("at", e.get("ply"))
        if e.get("type") == "illegal_move":
            out.append({"reason": "illegal_move", "ply": ply, "move": e.get("move"), "why": e.get("why")})
        elif e.get("type") == "king_captured":
            out.append({"reason": "king_captured", "ply": ply, "move": e.get("move")})
        elif e.get("type") == "game_end":
            if e.get("reason") == "none" and any(
                    f.get("type") == "game_start" and f.get("continues") == e.get("game") for f in events[i + 1:]):
                continue
            out.append({"reason": e.get("reason"), "ply": ply, "winner": e.get("winner")})
    return out


def expected_list(exp):
    """The endings the recorder must write, in order: none, one, or a mate and the illegal move after it."""
    if exp["reason"] == "none":
        return []
    return ([exp["mate_before"]] if "mate_before" in exp else []) + [exp]


def ending_text(xs):
    short = {"sennichite": "sennichite", "perpetual_check": "perpetual", "impasse": "impasse", "mate": "mate"}
    out = []
    for x in xs:
        if x["reason"] in ("illegal_move", "king_captured"):
            out.append(f"{'illegal' if x['reason'] == 'illegal_move' else 'kingcap'} {x.get('move')}@{x.get('ply')}")
        else:
            out.append(f"{short.get(x['reason'], x['reason'])}@{x.get('ply')} {(x.get('winner') or '')[:1]}".strip())
    return " + ".join(out) or "none"


def one_agrees(exp, got):
    if exp["reason"] == "illegal_move":
        return got["reason"] == "illegal_move" and got["ply"] == exp["ply"] and got["move"] == exp["move"] and \
            got.get("why") == exp["why"]
    if exp["reason"] == "impasse":  # declared after the last move: its ply is the recorder's move count
        return got["reason"] == "impasse" and got.get("winner") == exp["winner"]
    return got["reason"] == exp["reason"] and got["ply"] == exp["ply"] and got.get("winner") == exp["winner"]


def ending_agrees(exps, gots):
    return len(exps) == len(gots) and all(one_agrees(e, g) for e, g in zip(exps, gots))


def count_moves(out_dir):
    try:
        text = open(os.path.join(out_dir, "events.jsonl"), encoding="utf-8").read()
    except OSError:
        return 0
    return text.count('"type":"move"') + text.count('"type":"illegal_move"')


def source_note(rec):
    """A few words on OUT/source.jsonl: corrupt frames skipped, frames missing, board lost."""
    corrupt, lost, dropped = 0, 0, 0
    try:
        lines = open(os.path.join(rec, "source.jsonl"), encoding="utf-8").read().splitlines()
    except OSError:
        return ""
    for ln in lines:
        try:
            e = json.loads(ln)
        except ValueError:
            continue
        if e.get("type") == "corrupt_frames":
            m = re.search(r"\((\d+) in all\)", e.get("detail", ""))
            corrupt = int(m.group(1)) if m else corrupt + 1
        elif e.get("type") == "board_lost":
            lost += 1
        elif e.get("type") == "frames_dropped":
            m = re.match(r"(\d+) frame", e.get("detail", ""))
            dropped += int(m.group(1)) if m else 0
    parts = [f"{corrupt} corrupt skipped" if corrupt else "", f"{dropped} frames missing" if dropped else "",
             f"board lost {lost}x" if lost else ""]
    return ", ".join(p for p in parts if p)


class Eval:
    def __init__(self, build):
        self.build = build
        self.kifucam = os.path.join(build, "kifucam")
        self.out = os.path.join(build, "eval-games")
        os.makedirs(self.out, exist_ok=True)
        self.plies = int(os.environ.get("EVAL_PLIES", "60"))
        self.end_plies = int(os.environ.get("EVAL_END_PLIES", "40"))
        self.held_out = os.environ.get("EVAL_HELD_OUT", "1") != "0"
        self.rows = []
        self.piece_look = os.environ.get("EVAL_PIECE_LOOK", "set")
        if self.piece_look not in ("set", "piece"):
            sys.exit(f"EVAL_PIECE_LOOK must be set or piece (got {self.piece_look!r})")
        self.t_render = 0.0
        self.t_record = 0.0

    # ------------------------------------------------------------ clips
    def clip(self, path, frm, n, extra=(), tag=""):
        """Renders (or reuses) a clip; returns its path without extension, or None on failure."""
        stem = os.path.splitext(os.path.basename(path))[0]
        # "-set": pieces of a kind share one design (make_clip.py --piece-look set); without it, each piece
        # is drawn on its own (EVAL_PIECE_LOOK=piece, the clips before commit 6f157f5)
        name = f"{stem}-{'h' if self.held_out else 't'}{frm}-{n}{tag}{'-set' if self.piece_look == 'set' else ''}"
        base = os.path.join(self.out, name)
        if all(os.path.exists(base + x) for x in (".mp4", ".usi", ".json")):
            return base
        seed = zlib.crc32(stem.encode()) % 1000 + 1
        cmd = ["nice", "-n", "10", "/usr/bin/python3", os.path.join(ROOT, "samples", "make_clip.py"), path,
               base + ".mp4", "--from-ply", str(frm), "--plies", str(n), "--seed", str(seed), "--kifucam",
               self.kifucam, "--piece-look", self.piece_look, *extra] + (["--held-out"] if self.held_out else [])
        t = time.time()
        with open(base + ".render.log", "w") as lf:
            rc = subprocess.call(cmd, stderr=lf)
        self.t_render += time.time() - t
        if rc != 0:
            log(f"{name}: render failed (see {base}.render.log)")
            for x in (".mp4", ".usi", ".json"):
                if os.path.exists(base + x):
                    os.remove(base + x)
            return None
        return base

    def frames_dir(self, base, drop=None):
        """The clip as a folder of JPEGs (base-frames/000001.jpg ...), made once; drop: (first, last)
        frame numbers left out (a camera that delivered nothing then)."""
        d = base + ("-frames" if drop is None else "-gap")
        if os.path.isdir(d) and os.path.exists(os.path.join(d, ".done")):
            return d
        os.makedirs(d, exist_ok=True)
        subprocess.check_call(["nice", "-n", "10", "ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i",
                               base + ".mp4", "-q:v", "3", os.path.join(d, "%06d.jpg")])
        if drop:
            for i in range(drop[0], drop[1] + 1):
                os.remove(os.path.join(d, f"{i:06d}.jpg"))
        open(os.path.join(d, ".done"), "w").close()
        return d

    # ------------------------------------------------------------ recording
    def record(self, source, rec, start_sfen, fps=None, resume=False, kill_at=0, declare_at=0, start_args=None):
        """Runs kifucam record; returns (summary line, wall seconds, note). kill_at > 0: SIGKILL once
        that many moves are in events.jsonl (the caller resumes). declare_at > 0: sends `declare` once
        that many moves are in events.jsonl. start_args: given in place of --start start_sfen (e.g.
        ["--handicap", "lance"])."""
        cmd = [self.kifucam, "record", "--source", source]
        cmd += ["--resume", rec] if resume else ["--out", rec] + (start_args or ["--start", start_sfen])
        if fps:
            cmd += ["--fps", str(fps)]
        cmd += os.environ.get("EVAL_RECORD_ARGS", "").split()
        t = time.time()
        with open(rec + (".resume" if resume else "") + ".log", "w") as lf:
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=lf, text=True)
            note = ""
            watch = kill_at or declare_at
            if watch:
                def watcher():
                    nonlocal note
                    while p.poll() is None:
                        if count_moves(rec) >= watch:
                            if kill_at:
                                p.send_signal(signal.SIGKILL)
                                note = f"killed after {count_moves(rec)} moves"
                            else:
                                try:
                                    p.stdin.write("declare\n")
                                    p.stdin.flush()
                                    note = "declare sent"
                                except (BrokenPipeError, ValueError):
                                    pass
                            return
                        time.sleep(0.02)
                th = threading.Thread(target=watcher)
                th.start()
            out = p.stdout.read()
            if watch:
                th.join()
                if not note:
                    note = f"{'not killed' if kill_at else 'declare not sent'}: {count_moves(rec)} moves < {watch}"
            try:
                p.stdin.close()
            except BrokenPipeError:
                pass
            rc = p.wait()
        wall = time.time() - t
        self.t_record += wall
        if rc != 0 and not (kill_at and rc == -signal.SIGKILL):
            last = open(lf.name, encoding="utf-8", errors="replace").read().strip().splitlines()
            note = (note + "; " if note else "") + f"record exit {rc}" + (": " + last[-1][:80] if last else "")
        return out.strip(), wall, note

    def row(self, name, base, rec, exp, summary, wall, note=""):
        import compare_moves as C

        info = json.load(open(base + ".json"))
        events = C.read_events(rec, info["moves"], info["sfen"])
        c = C.compare(info["moves"], events, exp["ply"] if exp["reason"] == "illegal_move" else 0)
        got = ending_found(events)
        src = source_note(rec)
        note = "; ".join(x for x in (note, src) if x)
        m = re.search(r"([0-9.]+) fps", summary)
        fps = m.group(1) if m else "-"
        r = {"game": name, "plies": f"{info['from_ply']}+{len(info['moves'])}", "right": c["right"],
             "total": c["total"], "wrong": c["wrong"], "missed": c["missed"], "extra": c["extra"],
             "uncertain": c["uncertain"], "hidden": c["hidden"], "expected": ending_text(expected_list(exp)),
             "found": ending_text(got), "ok": ending_agrees(expected_list(exp), got), "fps": fps, "wall": wall, "note": note}
        self.rows.append(r)
        print(fmt_row(r), flush=True)

    def game(self, path):
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            frm, n, exp = plan(self.kifucam, path, self.plies, self.end_plies)
        except (OSError, ValueError, KeyError, IndexError) as e:
            log(f"{stem}: cannot replay: {e}")
            return
        base = self.clip(path, frm, n, ["--end-still", "100" if exp["reason"] == "impasse" else "30"])
        if not base:
            return
        info = json.load(open(base + ".json"))
        rec = base + ".rec"
        subprocess.call(["rm", "-rf", rec])
        summary, wall, note = self.record(base + ".mp4", rec, info["sfen"],
                                          declare_at=n if exp["reason"] == "impasse" else 0)
        self.row(stem[:30], base, rec, exp, summary, wall, note)
        return base, info, exp

    def faults(self, path, kinds, held_out):
        stem = os.path.splitext(os.path.basename(path))[0][:18]
        self.held_out = held_out
        frm, n, exp = plan(self.kifucam, path, self.plies, self.end_plies)
        base = self.clip(path, frm, n, ["--end-still", "30"])
        if not base:
            return
        info = json.load(open(base + ".json"))
        rec = base + ".rec"
        subprocess.call(["rm", "-rf", rec])
        summary, wall, note = self.record(base + ".mp4", rec, info["sfen"])
        self.row(f"{stem} {'held-out' if held_out else 'training'} (base)", base, rec, exp, summary, wall, note)
        if "corrupt" in kinds:
            d = self.frames_dir(base)
            c = base + "-corrupt"
            subprocess.call(["rm", "-rf", c])
            subprocess.check_call(["cp", "-r", d, c])
            names = sorted(f for f in os.listdir(c) if f.endswith(".jpg"))
            rnd = random.Random(zlib.crc32(stem.encode()))
            bad = sorted(rnd.sample(range(len(names)), max(1, round(len(names) / 100))))
            for k, i in enumerate(bad):
                p = os.path.join(c, names[i])
                data = bytearray(open(p, "rb").read())
                if k % 3 == 0:
                    data = data[: int(len(data) * 0.4)]
                elif k % 3 == 1:
                    data[:512] = bytes(512)
                else:
                    for _ in range(16):
                        at = rnd.randrange(1024, len(data) - 8)
                        data[at : at + 8] = bytes(rnd.randrange(256) for _ in range(8))
                open(p, "wb").write(bytes(data))
            rec = c + ".rec"
            subprocess.call(["rm", "-rf", rec])
            summary, wall, note = self.record(c, rec, info["sfen"], fps=info["fps"])
            self.row(f"{stem} corrupt {len(bad)}/{len(names)}", base, rec, exp, summary, wall, note)
        if "blackout" in kinds or "gap" in kinds:
            nb = int(os.environ.get("EVAL_BLACKOUT_MOVES", "2"))
            at = max(1, n // 2)
            bbase = self.clip(path, frm, n, ["--end-still", "30", "--blackout", f"{at}:10:{nb}"],
                              tag=f"-bo{at}x{nb}")
            if bbase:
                binfo = json.load(open(bbase + ".json"))
                if "blackout" in kinds:
                    rec = bbase + ".rec"
                    subprocess.call(["rm", "-rf", rec])
                    summary, wall, note = self.record(bbase + ".mp4", rec, binfo["sfen"])
                    self.row(f"{stem} black 10s {nb}mv", bbase, rec, exp, summary, wall, note)
                if "gap" in kinds:
                    d = self.frames_dir(bbase, drop=binfo["blackout"])
                    rec = d + ".rec"
                    subprocess.call(["rm", "-rf", rec])
                    summary, wall, note = self.record(d, rec, binfo["sfen"], fps=binfo["fps"])
                    self.row(f"{stem} gap 10s {nb}mv", bbase, rec, exp, summary, wall, note)
        if "kill" in kinds:
            rec = base + "-kill.rec"
            subprocess.call(["rm", "-rf", rec])
            _, w1, note = self.record(base + ".mp4", rec, info["sfen"], kill_at=max(1, n // 2))
            summary, w2, note2 = self.record(base + ".mp4", rec, info["sfen"], resume=True)
            self.row(f"{stem} kill-9+resume", base, rec, exp, summary, w1 + w2, "; ".join(x for x in (note, note2) if x))


COLS = ("game", "plies", "right", "total", "wrong", "missed", "extra", "uncertain", "expected", "found", "ok",
        "fps", "wall")


def fmt_row(r):
    return (f"{r['game']:<32} {r['plies']:>7} {r['right']:>5}/{r['total']:<4} {r['wrong']:>5} {r['missed']:>6} "
            f"{r['extra']:>5} {r['uncertain']:>6}  {r['expected']:<28} {r['found']:<28} "
            f"{'yes' if r['ok'] else 'NO':<4} {r['fps']:>5} {r['wall']:6.1f}{'  ' + r['note'] if r['note'] else ''}")


def totals(rows):
    """The move counts of rows summed: right, total, wrong, missed, extra, uncertain."""
    return {k: sum(r[k] for r in rows) for k in ("right", "total", "wrong", "missed", "extra", "uncertain")}


def write_results(rows, path):
    """The rows as a TSV file: COLS, then hidden and note."""
    with open(path, "w") as f:
        f.write("\t".join(COLS + ("hidden", "note")) + "\n")
        for r in rows:
            f.write("\t".join(str(r[c]) for c in COLS + ("hidden", "note")) + "\n")


def main():
    args = sys.argv[1:]
    build = args.pop(0) if args else "build"
    if not os.path.isdir(K):
        print("skipped: ../shared/data not found (eval-games)")
        return 0
    ev = Eval(build)
    if not os.access(ev.kifucam, os.X_OK):
        sys.exit(f"eval-games: {ev.kifucam} not built")
    games = args or os.environ.get("EVAL_GAMES", "").split() or GAMES
    faults = os.environ.get("EVAL_FAULTS", "corrupt blackout gap kill").split()
    fault_game = os.environ.get("EVAL_FAULT_GAME", f"{K}/shogi-kifu-converter/csa/floodgate.csa")
    t0 = time.time()
    print(f"{'game':<32} {'plies':>7} {'right/total':>10} {'wrong':>5} {'missed':>6} {'extra':>5} {'uncert':>6}  "
          f"{'ending expected':<28} {'ending found':<28} {'ok':<4} {'fps':>5} {'wall s':>6}", flush=True)
    for g in games:
        ev.game(g)
    if faults:
        ev.faults(fault_game, faults, os.environ.get("EVAL_FAULT_HELD_OUT", "0") != "0")
    rows = ev.rows
    tot = totals(rows)
    print(f"rows {len(rows)}: moves right {tot['right']}/{tot['total']}, wrong {tot['wrong']}, missed {tot['missed']}, "
          f"extra {tot['extra']}, uncertain {tot['uncertain']}; endings right {sum(r['ok'] for r in rows)}/{len(rows)}; "
          f"wall {time.time() - t0:.0f} s (rendering {ev.t_render:.0f} s, recording {ev.t_record:.0f} s)")
    write_results(rows, os.path.join(ev.out, "results.tsv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
