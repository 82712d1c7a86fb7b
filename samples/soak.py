"""A day's recording at a tournament table, as fast as it runs: `make soak` (not in CI).

  python3 samples/soak.py BUILD     (BUILD/kifucam; works in BUILD/soak/)

The source is a camera's day: SOAK_CLIP (default tests/data/record-clip.mp4, 12 moves of a real game,
its moves in the .usi beside it) at 30 fps, looped for SOAK_CAMERA_HOURS (default 8) of camera time,
each loop a game, 2 s of black frames after it (the view covered while the board is set up again;
set up again in one cut, the recorder takes the new game for the old one's, lost track of, and takes it
up again a few moves later). It is an image folder (--fps 30: frame
N is at N/30 s), one symlink a frame, so that the frames' times are a camera's and the faults can be
placed. The loops take the faults in turn:
  none       the clip as it is
  damaged    2 % of the frames damaged (cut JPEGs: the recorder counts and skips them)
  blackout   30 s of black frames in the middle of the game (the lights out; play waits)
  disk full  the output folder's writes fail from the middle of the game (RLIMIT_FSIZE lowered on the
             running recorder, which is started with SIGXFSZ ignored: a write that would grow a file
             fails as on a full disk, without root or a quota); the recorder stops on the failed write
             of the next move; a minute later (the players thinking) it is started with --resume
  kill       kill -9 in the middle of the game, then --resume
After kill -9 and the disk full the recorder goes on as on a camera: the frames it did not see while it
was down (a second after the kill; the minute) are gone (removed from the folder, the first frame kept
so that the frames' times still count from it).
Every half second the recorder's RSS, open files and threads are sampled (/proc). At the end one table:
camera hours covered, RSS / fds / threads at the start and end, and for each fault the games and the
moves right / wrong / missing (the moves whose frames fall in a loop against the clip's game, in
order). Exit 1 if any move is wrong. SOAK_SEED (default 1) picks the damaged frames; SOAK_FAULTS (a
comma-separated list of the faults above, default all in that order) the loops' faults in turn.
"""

import bisect
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

FPS = 30
FAULTS = ["none", "damaged", "blackout", "disk full", "kill"]
BLACKOUT_FRAMES = 30 * FPS
DISK_FULL_FRAMES = 60 * FPS
RESET_FRAMES = 2 * FPS  # between two games: the view covered while the board is set up again


def read_truth(path):
    line = [ln for ln in open(path, encoding="utf-8").read().splitlines() if ln.startswith("position")][0].split()
    return line[line.index("moves") + 1:] if "moves" in line else []


def lcs(a, b):
    """Length of the longest common subsequence of a and b (moves found in the game's order)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def make_frames(clip, work):
    """The clip's frames at 30 fps (JPEG), a black frame and a cut copy of each (the damaged ones)."""
    fdir = os.path.join(work, "frames")
    if os.path.isdir(fdir) and os.path.exists(os.path.join(fdir, "black.jpg")):
        return sorted(f for f in os.listdir(fdir) if f.startswith("f"))
    os.makedirs(fdir, exist_ok=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", clip, "-vf", f"fps={FPS}", "-q:v", "3",
                    os.path.join(fdir, "f%05d.jpg")], check=True)
    names = sorted(f for f in os.listdir(fdir) if f.startswith("f"))
    w, h = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                           "stream=width,height", "-of", "csv=p=0", clip], check=True, capture_output=True,
                          text=True).stdout.strip().split(",")[:2]
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"color=black:s={w}x{h}",
                    "-frames:v", "1", os.path.join(fdir, "black.jpg")], check=True)
    for n in names:  # a transfer cut short: the headers and a part of the picture
        data = open(os.path.join(fdir, n), "rb").read()
        open(os.path.join(fdir, "cut-" + n), "wb").write(data[:len(data) * 3 // 5])
    return names


def plan(names, hours, seed, faults):
    """The loops: [(fault, first frame, frames, middle frame)] and the frame list (file names)."""
    rng = random.Random(seed)
    total = int(hours * 3600 * FPS)
    loops, seq = [], []
    i = 0
    while len(seq) < total:
        fault = faults[i % len(faults)]
        start, mid = len(seq), len(names) // 2
        frames = list(names)
        if fault == "damaged":
            for k in rng.sample(range(len(frames)), max(1, len(frames) * 2 // 100)):
                frames[k] = "cut-" + frames[k]
        if fault == "blackout":
            frames = frames[:mid] + ["black.jpg"] * BLACKOUT_FRAMES + frames[mid:]
        if fault == "disk full":  # the players think for the minute the recorder is down
            frames = frames[:mid] + [frames[mid]] * DISK_FULL_FRAMES + frames[mid:]
        frames += ["black.jpg"] * RESET_FRAMES
        seq.extend(frames)
        loops.append((fault, start, len(frames), start + mid))
        i += 1
    return loops, seq


def make_source(work, seq):
    src = os.path.join(work, "src")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    fdir = os.path.join(work, "frames")
    for k, name in enumerate(seq):
        os.symlink(os.path.join(fdir, name), os.path.join(src, f"{k:08d}.jpg"))
    return src


class Recorder:
    """One kifucam record process: its samples, its log (stderr, read by a thread)."""

    def __init__(self, kifucam, src, out, resume, log):
        args = [kifucam, "record", "--source", src, "--fps", str(FPS)]
        args += ["--resume", out] if resume else ["--out", out]
        self.p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGXFSZ,
                                                                                           signal.SIG_IGN))
        self.samples = []
        self.log = log
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stderr:
            self.log.write(line.decode("utf-8", "replace"))

    def sample(self):
        try:
            st = open(f"/proc/{self.p.pid}/status").read().split("\n")
            rss = int([ln for ln in st if ln.startswith("VmRSS:")][0].split()[1]) / 1024
            thr = int([ln for ln in st if ln.startswith("Threads:")][0].split()[1])
            fds = len(os.listdir(f"/proc/{self.p.pid}/fd"))
            self.samples.append((rss, fds, thr))
        except (OSError, IndexError, ValueError):
            pass


def last_event_frame(out):
    """Frame index of the last event in out/events.jsonl (-1 if none)."""
    try:
        with open(os.path.join(out, "events.jsonl"), "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 8192))
            lines = f.read().decode("utf-8", "replace").splitlines()
        for ln in reversed(lines):
            try:
                return round(json.loads(ln)["ts_us"] * FPS / 1e6)
            except (ValueError, KeyError):
                continue
    except OSError:
        pass
    return -1


def drop_frames(src, upto):
    """A camera does not replay: the frames before upto go (frame 0 stays, so that the folder's frame
    numbers, and with them the frames' times, still count from it)."""
    for name in os.listdir(src):
        k = int(name.split(".")[0])
        if 0 < k < upto:
            os.unlink(os.path.join(src, name))


def run(kifucam, src, out, loops, logf):
    """Records the whole source, injecting the kill and disk-full faults; returns the processes and the
    wall time. After either, the recorder is started again with --resume on the frames from where the
    camera is then (those it did not see while it was down are lost, as with a camera)."""
    triggers = sorted((mid, fault) for fault, _, _, mid in loops if fault in ("kill", "disk full"))
    procs = [Recorder(kifucam, src, out, False, logf)]
    t0 = time.monotonic()
    while True:
        r = procs[-1]
        time.sleep(0.5)
        r.sample()
        at = last_event_frame(out)
        if triggers and at >= triggers[0][0] - FPS:
            mid, fault = triggers.pop(0)
            if fault == "kill":
                r.p.kill()
                r.p.wait()
                at = max(at, last_event_frame(out))
                logf.write(f"soak: kill -9 after the event at frame {at}\n")
                drop_frames(src, at + FPS)  # the camera ran on for a second while it restarted
                procs.append(Recorder(kifucam, src, out, True, logf))
                continue
            # the disk fills before the move at the middle of the game; the recorder stops on the
            # write of its event; a minute later there is room again and it goes on with --resume
            logf.write(f"soak: disk full after the event at frame {at}\n")
            resource.prlimit(r.p.pid, resource.RLIMIT_FSIZE, (1, resource.RLIM_INFINITY))
            while r.p.poll() is None and last_event_frame(out) < mid + DISK_FULL_FRAMES:
                time.sleep(0.2)
                r.sample()
            if r.p.poll() is None:  # no write failed (no event in the minute): room again
                resource.prlimit(r.p.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                continue
            logf.write(f"soak: the recorder stopped (exit {r.p.returncode}); --resume a minute later\n")
            drop_frames(src, mid + DISK_FULL_FRAMES)
            procs.append(Recorder(kifucam, src, out, True, logf))
            continue
        if r.p.poll() is not None:
            logf.write(f"soak: the recorder exited ({r.p.returncode})\n")
            break
    return procs, time.monotonic() - t0


def score(out, loops, truth):
    """Per fault: games, right, wrong, missing (the moves whose frames fall in each loop)."""
    starts = [s for _, s, _, _ in loops]
    found = [[] for _ in loops]
    for ln in open(os.path.join(out, "events.jsonl"), encoding="utf-8"):
        try:
            e = json.loads(ln)
        except ValueError:
            continue
        if e.get("type") in ("move", "illegal_move") and "move" in e:
            k = bisect.bisect_right(starts, round(e["ts_us"] * FPS / 1e6)) - 1
            if k >= 0:
                found[k].append(e["move"])
    rows = {f: [0, 0, 0, 0] for f in FAULTS}
    for (fault, _, _, _), moves in zip(loops, found):
        right = lcs(moves, truth)
        row = rows[fault]
        row[0] += 1
        row[1] += right
        row[2] += len(moves) - right
        row[3] += len(truth) - right
    return rows


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    kifucam = os.path.abspath(os.path.join(build, "kifucam"))
    hours = float(os.environ.get("SOAK_CAMERA_HOURS", "8"))
    clip = os.environ.get("SOAK_CLIP", "tests/data/record-clip.mp4")
    seed = int(os.environ.get("SOAK_SEED", "1"))
    truth = read_truth(os.path.splitext(clip)[0] + ".usi")
    work = os.path.abspath(os.path.join(build, "soak"))
    os.makedirs(work, exist_ok=True)
    names = make_frames(clip, work)
    faults = [f.strip() for f in os.environ.get("SOAK_FAULTS", ",".join(FAULTS)).split(",") if f.strip()]
    if not faults or any(f not in FAULTS for f in faults):
        sys.exit(f"soak: SOAK_FAULTS must name some of: {', '.join(FAULTS)}")
    loops, seq = plan(names, hours, seed, faults)
    src = make_source(work, seq)
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    print(f"soak: {len(seq)} frames ({len(seq) / FPS / 3600:.2f} camera hours at {FPS} fps), {len(loops)} games "
          f"of {len(truth)} moves; log {work}/soak.log", flush=True)
    with open(os.path.join(work, "soak.log"), "w", encoding="utf-8", buffering=1) as logf:
        procs, wall = run(kifucam, src, out, loops, logf)
    rows = score(out, loops, truth)
    samples = [s for p in procs for s in p.samples]
    first = procs[0].samples[min(4, len(procs[0].samples) - 1)] if procs[0].samples else (0, 0, 0)
    last = procs[-1].samples[-1] if procs[-1].samples else (0, 0, 0)
    print(f"camera hours covered   {len(seq) / FPS / 3600:.2f} ({len(seq)} frames at {FPS} fps) in {wall:.0f} s "
          f"({len(seq) / wall:.0f} fps), {len(procs)} recorder processes (kill -9 and disk full: --resume)")
    if samples:
        print(f"RSS MiB start / end    {first[0]:.0f} / {last[0]:.0f} (max {max(s[0] for s in samples):.0f})")
        print(f"open files start / end {first[1]} / {last[1]} (max {max(s[1] for s in samples)})")
        print(f"threads start / end    {first[2]} / {last[2]} (max {max(s[2] for s in samples)})")
    print(f"{'fault':<10} {'games':>5} {'right':>6} {'wrong':>6} {'missing':>7}")
    for f in FAULTS:
        g, r, w, m = rows[f]
        print(f"{f:<10} {g:>5} {r:>6} {w:>6} {m:>7}")
    if any(rows[f][2] for f in FAULTS):
        print("soak: wrong moves were written (see the table)")
        sys.exit(1)


if __name__ == "__main__":
    main()
