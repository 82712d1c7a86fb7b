#!/usr/bin/env python3
"""hall_faults.py KIFUCAM [broker|recorder|hall|stall ...] - the tournament hall's fault tests
(make test-hall-faults, part of make test). Real parts only: a mosquitto started on a free loopback
port, `kifucam hall` and `kifucam record --mqtt` processes recording the shipped sample clip
(samples/sample-clip.mp4, 80 moves), killed and started again by process id.

  faults   (one run, about 90 s, --realtime sources, so that a recorder on a fast machine does not end
           its clip while the broker is away): the broker killed -9 mid-game and started again, the hall killed -9
           and started again (it rebuilds from the retained messages), a recorder killed -9 and
           continued with --resume.
  stall    (about 90 s, --realtime sources): the broker stopped (SIGSTOP) for 30 s mid-game, a network
           stall as every client sees it, then continued.

After each, for every board: the hall's /board/B/state.json holds every move exactly once, in order,
equal to what the recorder wrote on disk and to the clip's moves; the hall's game.kif, .csa and .jkf
are byte for byte the recorder's files; the round's files (/round/R/games.csa ...) hold each game
once. Exit 0 when every check holds, 1 with the failed checks, 77 when mosquitto is not installed."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

MOSQUITTO = "/usr/sbin/mosquitto"
CLIP = "samples/sample-clip.mp4"
CLIP_USI = "samples/sample-clip.usi"
ROUND = "5"
FAILED = []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what, flush=True)
    if not ok:
        FAILED.append(what)
    return ok


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


class Broker:
    """mosquitto on a free loopback port, its database (persistence) and log in its own folder."""

    def __init__(self, top):
        self.dir = tempfile.mkdtemp(prefix="broker-", dir=top)
        os.chmod(self.dir, 0o777)  # started as root, mosquitto runs as its own user
        self.port = free_port()
        self.conf = os.path.join(self.dir, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence true\n"
                    "persistence_location %s/\nlog_dest file %s/log\nmax_queued_messages 10000\n"
                    % (self.port, self.dir, self.dir))
        self.p = None

    def start(self):
        self.p = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        return wait_port(self.port, 5)

    def kill(self, sig=signal.SIGKILL):
        if self.p:
            self.p.send_signal(sig)
            self.p.wait()
            self.p = None


class Hall:
    def __init__(self, kc, url, top, port):
        self.kc, self.url, self.top, self.port, self.p, self.n = kc, url, top, port, None, 0

    def start(self):
        self.n += 1
        self.log = os.path.join(self.top, "hall%d.log" % self.n)
        with open(self.log, "w") as lf:
            self.p = subprocess.Popen([self.kc, "hall", "--mqtt", self.url, "--port", str(self.port)],
                                      stdout=lf, stderr=subprocess.STDOUT)
        return wait_port(self.port, 10)

    def kill(self, sig=signal.SIGKILL):
        if self.p:
            self.p.send_signal(sig)
            self.p.wait()
            self.p = None

    def get(self, path):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.port, path), timeout=10) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except OSError:
            return -1, b""


class Recorder:
    def __init__(self, kc, url, top, board, realtime):
        self.kc, self.url, self.board, self.realtime = kc, url, board, realtime
        self.dir = os.path.join(top, "board" + board)
        self.log = os.path.join(top, "record%s.log" % board)
        self.p = None

    def start(self, resume=False):
        cmd = [self.kc, "record", "--source", CLIP, "--mqtt", self.url]
        cmd += ["--resume", self.dir] if resume else [
            "--out", self.dir, "--board", self.board, "--round", ROUND, "--event", "fault test",
            "--sente-name", "S" + self.board, "--gote-name", "G" + self.board]
        if self.realtime:
            cmd.append("--realtime")
        lf = open(self.log, "a")
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT)
        lf.close()

    def events(self):
        try:
            with open(os.path.join(self.dir, "events.jsonl"), "rb") as f:
                return f.read().count(b"\n")
        except OSError:
            return 0

    def last_seq(self):
        seq = 0
        with open(os.path.join(self.dir, "events.jsonl"), "rb") as f:
            for line in f:
                try:
                    seq = max(seq, json.loads(line)["seq"])
                except (ValueError, KeyError):
                    pass
        return seq

    def disk_moves(self):
        with open(os.path.join(self.dir, "game.usi")) as f:
            for line in f:
                if line.startswith("position"):
                    w = line.split()
                    return w[w.index("moves") + 1:] if "moves" in w else []
        return []


def wait_until(cond, timeout, step=0.1):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(step)
    return cond()


def clip_moves():
    w = open(CLIP_USI).read().split()
    return w[w.index("moves") + 1:]


def check_boards(hall, recs, truth):
    """Every move exactly once on the hall and in its files, equal to the recorders' disks."""
    for r in recs:
        last = r.last_seq()
        got = {}

        def caught_up():
            st, body = hall.get("/board/%s/state.json" % r.board)
            if st != 200:
                return False
            got["s"] = json.loads(body)
            return got["s"]["seq"] == last

        check(wait_until(caught_up, 30), "board %s: the hall's state reached seq %d (has %s)"
              % (r.board, last, got.get("s", {}).get("seq")))
        s = got.get("s", {})
        moves = [m["usi"] for m in s.get("moves", [])]
        disk = r.disk_moves()
        check(moves == disk and s.get("ply") == len(disk),
              "board %s: the hall's %d moves are the recorder's %d on disk, once each, in order"
              % (r.board, len(moves), len(disk)))
        check(disk == truth, "board %s: the recorder's %d moves are the clip's %d" % (r.board, len(disk),
                                                                                   len(truth)))
        for ext in ("kif", "csa", "jkf"):
            st, body = hall.get("/board/%s/game.%s" % (r.board, ext))
            with open(os.path.join(r.dir, "game." + ext), "rb") as f:
                mine = f.read()
            check(st == 200 and body == mine, "board %s: the hall's game.%s is the recorder's (%d bytes, got %d)"
                  % (r.board, ext, len(mine), len(body)))
    st, body = hall.get("/round/%s/games.csa" % ROUND)
    if check(st == 200, "/round/%s/games.csa: %d" % (ROUND, st)):
        text = body.decode("utf-8", "replace")
        games = text.split("\n/\n")
        for r in recs:
            n = sum(1 for g in games if ("N+S%s\n" % r.board) in g)
            mv = sum(1 for g in games if ("N+S%s\n" % r.board) in g
                     for line in g.split("\n") if len(line) >= 7 and line[0] in "+-" and line[1:5].isdigit()
                     and line[5:7].isalpha())
            check(n == 1 and mv == len(truth), "the round's CSA holds board %s once (%d), with %d moves"
                  % (r.board, n, mv))


    st, body = hall.get("/round/%s/games.jkf" % ROUND)
    try:
        arr = json.loads(body) if st == 200 else []
    except ValueError:
        arr = []
    names = sorted(g.get("header", {}).get("先手", "") for g in arr)
    nmov = [len([m for m in g.get("moves", []) if "move" in m]) for g in arr]
    check(names == sorted("S" + r.board for r in recs) and nmov == [len(truth)] * len(recs),
          "the round's JKF: one game per board (%s), %s moves" % (", ".join(names), nmov))
    st, body = hall.get("/round/%s/games.kif" % ROUND)
    check(st == 200 and body.count("#KIF".encode()) == len(recs), "the round's KIF: %d games" % len(recs))


def start_all(kc, top, boards, realtime):
    b = Broker(top)
    if not b.start():
        check(False, "the broker starts")
        return None
    url = "mqtt://127.0.0.1:%d/faults" % b.port
    h = Hall(kc, url, top, free_port())
    check(h.start(), "the hall serves")
    recs = [Recorder(kc, url, top, str(i), realtime) for i in boards]
    for r in recs:
        r.start()
    return b, h, recs


def stop_all(parts):
    b, h, recs = parts
    for r in recs:
        if r.p and r.p.poll() is None:
            r.p.kill()
            r.p.wait()
    h.kill(signal.SIGTERM)
    b.kill(signal.SIGTERM)


def wait_recorders(recs, timeout):
    ok = True
    for r in recs:
        try:
            rc = r.p.wait(timeout=max(1, timeout))
        except subprocess.TimeoutExpired:
            rc = None
        ok &= check(rc == 0, "recorder %s ended (exit %s)" % (r.board, rc))
    return ok


def test_faults(kc, top, truth):
    print("faults: broker killed -9 and restarted, hall killed -9 and restarted, recorder killed -9 "
          "and resumed")
    parts = start_all(kc, top, ["1", "2"], True)
    if parts is None:
        return
    b, h, (r1, r2) = parts
    try:
        check(wait_until(lambda: r1.events() >= 15, 120), "board 1 reached 15 events")
        b.kill()
        time.sleep(2)
        at = r1.events()
        check(b.start(), "the broker starts again (board 1 at %d events while it was away)" % at)
        check(wait_until(lambda: r1.events() >= 35, 120), "board 1 reached 35 events")
        h.kill()
        time.sleep(1)
        check(h.start(), "the hall starts again")
        check(wait_until(lambda: r2.events() >= 50, 120), "board 2 reached 50 events")
        r2.p.kill()
        r2.p.wait()
        at = r2.events()
        time.sleep(1)
        r2.start(resume=True)
        print("  recorder 2 killed -9 at %d events, resumed" % at)
        wait_recorders([r1, r2], 180)
        check_boards(h, [r1, r2], truth)
        st, body = h.get("/board/1")
        check(st == 200 and b"<script>" in body, "/board/1: the board page")
    finally:
        stop_all(parts)


def test_stall(kc, top, truth):
    print("stall: the broker stopped for 30 s mid-game (--realtime recorders)")
    parts = start_all(kc, top, ["3", "4"], True)
    if parts is None:
        return
    b, h, (r3, r4) = parts
    try:
        check(wait_until(lambda: r3.events() >= 8, 120), "board 3 reached 8 events")
        b.p.send_signal(signal.SIGSTOP)
        t0 = time.time()
        at = r3.events()
        time.sleep(30)
        b.p.send_signal(signal.SIGCONT)
        print("  the broker stopped for %.0f s: board 3 went from %d to %d events meanwhile"
              % (time.time() - t0, at, r3.events()))
        check(r3.events() > at + 10, "board 3 went on recording during the stall")
        wait_recorders([r3, r4], 150)
        check_boards(h, [r3, r4], truth)
    finally:
        stop_all(parts)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    kc = os.path.abspath(sys.argv[1])
    which = sys.argv[2:] or ["faults", "stall"]
    if not os.access(MOSQUITTO, os.X_OK):
        print("hall faults: skipped: mosquitto not installed (make deps)")
        return 77
    truth = clip_moves()
    top = tempfile.mkdtemp(prefix="kifucam-faults-")
    os.chmod(top, 0o755)
    t0 = time.time()
    try:
        for w in which:
            {"faults": test_faults, "stall": test_stall}[w](kc, top, truth)
        bad = []  # a sanitizer build's reports (make sanitize's kifucam) in any process's log
        for root, _, files in os.walk(top):
            for f in files:
                if f.endswith(".log"):
                    with open(os.path.join(root, f), "rb") as lf:
                        text = lf.read()
                    if b"ERROR: AddressSanitizer" in text or b"ERROR: LeakSanitizer" in text or \
                            b"runtime error:" in text:
                        bad.append(f)
        check(not bad, "no sanitizer report in the processes' logs (%s)" % (", ".join(bad) or "none"))
    finally:
        if FAILED:
            print("hall faults: logs kept in %s" % top)
        else:
            shutil.rmtree(top, ignore_errors=True)
    print("hall faults: %d failed checks, %.0f s" % (len(FAILED), time.time() - t0))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
