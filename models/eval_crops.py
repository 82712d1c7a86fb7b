"""Accuracy of squares.onnx (run through OpenCV's dnn, as vision/ runs it) on every real set in
../shared/data and on rendered boards in the held-out style. Skips what is absent.

  /usr/bin/python3 eval_crops.py [--model squares.onnx[,other.onnx ...]] [--boards 1000] [--per-set]

Several models joined by commas are read as an ensemble (their logits averaged).

Sets: na-o-ys piece photos (371, sente, plus each turned 180 degrees for gote, plus 27 empty squares;
64x64 grey, tightly cut: resized to 48x48 as they are), the na-o-ys board1 cells (64x64, one square
each, resized), the hash451722 cells (likewise), the rectified na-o-ys boards 1 and 8 and the
hash451722 photo warped with its labelled corners (cut exactly per models/README.md), and rendered
boards in the held-out font and board colour. "tta" = averaged with the crop turned 180 degrees.
"""

import argparse
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import realdata  # noqa: E402
from render import board as B  # noqa: E402
from render import style as S  # noqa: E402


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class Classifier:
    """One ONNX network, or several (paths joined by commas) whose logits are averaged (an ensemble)."""

    def __init__(self, path):
        self.nets = [cv2.dnn.readNetFromONNX(p) for p in path.split(",")]

    def logits(self, blob):
        z = 0
        for net in self.nets:
            net.setInput(blob)
            z = z + net.forward()[:, :29]
        return z / len(self.nets)

    def probs(self, crops, tta=False):
        """crops: N x 48 x 48 x 3 uint8 BGR -> N x 29 probabilities."""
        out = []
        for i in range(0, len(crops), 256):
            c = list(crops[i : i + 256])
            blob = cv2.dnn.blobFromImages(c, 1.0 / 255, (48, 48), (0, 0, 0), swapRB=False, crop=False)
            p = softmax(self.logits(blob))
            if tta:
                r = [cv2.rotate(x, cv2.ROTATE_180) for x in c]
                z = self.logits(cv2.dnn.blobFromImages(r, 1.0 / 255, (48, 48), (0, 0, 0), swapRB=False, crop=False))
                # normalised geometric mean, as vision's vis_board_read_merge_turned (kifucam recognize)
                q = np.sqrt(p * softmax(z)[:, S.SWAP])
                p = q / q.sum(1, keepdims=True)
            out.append(p)
        return np.concatenate(out)


def resize48(xs):
    return np.stack([cv2.resize(x, (48, 48), interpolation=cv2.INTER_AREA) for x in xs])


def report(name, clf, x, y, rows, groups=None):
    for tta in (False, True):
        p = clf.probs(x, tta)
        pred = p.argmax(1)
        ok = pred == y
        wrong = [(S.CLASS_NAMES[y[i]], S.CLASS_NAMES[pred[i]], float(p[i, pred[i]])) for i in np.nonzero(~ok)[0]]
        rows.append((name + (" +tta" if tta else ""), int(ok.sum()), len(y), ok.mean()))
        print(f"{name:34s} {'tta' if tta else '   '} {ok.sum():5d}/{len(y):<5d} {100 * ok.mean():6.2f} %"
              + (f"   wrong (true->pred conf): {' '.join(f'{a}->{b} {c:.2f}' for a, b, c in wrong[:12])}"
                 + (" ..." if len(wrong) > 12 else "") if 0 < len(wrong) <= 40 else ""))
        if groups is not None and tta:
            gs = sorted(set(groups))
            per = []
            for g in gs:
                m = np.array([gg == g for gg in groups])
                per.append(f"{g}:{100 * ok[m].mean():.0f}")
            print("    per set (%, tta): " + " ".join(per))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(HERE, "squares.onnx"))
    ap.add_argument("--boards", type=int, default=200, help="held-out rendered boards (1000 for the card)")
    ap.add_argument("--seed", type=int, default=9001)
    a = ap.parse_args()
    clf = Classifier(a.model)
    rows = []
    if not os.path.isdir(realdata.DATA):
        print("skipped: ../shared/data not found")
    else:
        xs, ys, ser = realdata.naoys_koma()
        x = resize48(xs)
        x2 = np.concatenate([x, x[:, ::-1, ::-1]])
        y2 = np.concatenate([ys, np.array(S.SWAP)[ys]])
        report("na-o-ys pieces+180+empty", clf, x2, y2, rows, ser + ser)
        xs, ys = realdata.naoys_board1_cells()
        report("na-o-ys board1 cells (1.0 sq)", clf, resize48(xs), ys, rows)
        xs, ys = realdata.hash_cells()
        report("hash451722 cells (1.0 sq)", clf, resize48(xs), ys, rows)
        for name, crops, ys in realdata.board_photos():
            report(name + " (README crop)", clf, crops, ys, rows)
    if a.boards:
        xs, ys = [], []
        for i in range(a.boards):
            rng = np.random.default_rng([a.seed, i])
            pos = B.random_position(rng)
            img, g, lab = B.render_board(rng, pos, held_out=True, hand_p=0.0)
            xs.append(B.all_crops(img, *g))
            ys.append(lab)
        report(f"rendered held-out ({a.boards} boards)", clf, np.concatenate(xs), np.concatenate(ys), rows)


if __name__ == "__main__":
    main()
