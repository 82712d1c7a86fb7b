"""Trains the square classifier on rendered crops (+ the MIT dk-flylab close-ups) on the CPU.

  /usr/bin/python3 train.py --data ../build/models/train.npz --epochs 6 --out ../build/models/squares.pt

Never reads the na-o-ys or sanjaykumar695 data (no licence: evaluation only); prints the na-o-ys crop
accuracy after each epoch only as a progress number, never uses it to choose anything but the epoch count
reported in MODEL_CARD.md. Augmentation: 180-degree turn with the owner swapped, grey, brightness,
contrast, shifts and scale.
"""

import argparse
import os
import time

import cv2
import numpy as np
import torch
import torch.nn.functional as F

import realdata
import net
from net import SquareNet
from render import style as S

SWAP = torch.tensor(S.SWAP)


def dk_crops(rng, n):
    """n augmented 48x48 crops from the two MIT close-ups (tight piece photos)."""
    xs, ys = [], []
    src = realdata.dk_flylab()
    for i in range(n):
        img, c = src[i % len(src)]
        H, W = img.shape[:2]
        f = rng.uniform(1.0, 1.5)
        side = max(H, W) * f
        cx, cy = W / 2 + rng.normal(0, 0.03 * W), H / 2 + rng.normal(0, 0.03 * H)
        M = cv2.getRotationMatrix2D((cx, cy), rng.normal(0, 3), 48 / side)
        M[0, 2] += 24 - cx
        M[1, 2] += 24 - cy
        out = cv2.warpAffine(img, M, (48, 48), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        if rng.uniform() < 0.5:
            out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        xs.append(out)
        ys.append(c)
    return np.stack(xs), np.array(ys)


def augment(x, y, gen, geo=False):
    """x: B x 3 x 48 x 48 float 0..1, y: B. Returns augmented copies. geo: also turn (+-5 degrees),
    shear (+-0.1) and blur a quarter of the crops (3x3 box), as real pieces lie and cameras focus."""
    B = x.shape[0]
    rot = torch.rand(B, generator=gen) < 0.5
    x = torch.where(rot[:, None, None, None], torch.flip(x, dims=(2, 3)), x)
    y = torch.where(rot, SWAP[y], y)
    grey = torch.rand(B, generator=gen) < 0.25
    g = x.mean(dim=1, keepdim=True).expand_as(x)
    x = torch.where(grey[:, None, None, None], g, x)
    c = 0.7 + 0.6 * torch.rand(B, 1, 1, 1, generator=gen)
    b = -0.15 + 0.3 * torch.rand(B, 1, 1, 1, generator=gen)
    m = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - m) * c + m + b
    x = x * (0.9 + 0.2 * torch.rand(B, 3, 1, 1, generator=gen))
    # random scale/shift (small affine)
    s = 1.0 + 0.15 * (torch.rand(B, generator=gen) - 0.5) * 2
    t = 0.06 * (torch.rand(B, 2, generator=gen) - 0.5) * 2
    theta = torch.zeros(B, 2, 3)
    theta[:, 0, 0] = s
    theta[:, 1, 1] = s
    theta[:, :, 2] = t
    if geo:
        a = (torch.rand(B, generator=gen) - 0.5) * 2 * 0.087
        sh = (torch.rand(B, generator=gen) - 0.5) * 2 * 0.1
        theta[:, 0, 0] = s * torch.cos(a)
        theta[:, 0, 1] = -s * torch.sin(a) + sh
        theta[:, 1, 0] = s * torch.sin(a)
        theta[:, 1, 1] = s * torch.cos(a)
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    if geo:
        blur = torch.rand(B, generator=gen) < 0.25
        xb = F.avg_pool2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), 3, stride=1)
        x = torch.where(blur[:, None, None, None], xb, x)
    return x.clamp(0, 1), y


def load_data(path):
    """(x: N x 48 x 48 x 3 uint8 BGR, y: N classes) from a .npz of x and y (the renderer's), or from a folder
    that `kifucam crops OUT_DIR DEST` wrote: DEST/labels.csv (file, class, ...) and the 48x48 PNGs it names."""
    if not os.path.isdir(path):
        z = np.load(path)
        return z["x"], z["y"]
    import csv

    xs, ys = [], []
    with open(os.path.join(path, "labels.csv")) as f:
        for r in csv.DictReader(f):
            im = cv2.imread(os.path.join(path, r["file"]), cv2.IMREAD_COLOR)
            if im is None or im.shape[:2] != (48, 48):
                raise SystemExit("train.py: %s: not a 48x48 crop" % os.path.join(path, r["file"]))
            xs.append(im)
            ys.append(int(r["class"]))
    return np.stack(xs), np.array(ys, np.int64)


def to_tensor(xs):
    return torch.from_numpy(np.ascontiguousarray(xs.transpose(0, 3, 1, 2)))


def naoys_eval(model, size=48):
    xs, ys, _ = realdata.naoys_koma()
    x = np.stack([cv2.resize(i, (size, size), interpolation=cv2.INTER_AREA) for i in xs])
    x = np.concatenate([x, x[:, ::-1, ::-1]])
    y = np.concatenate([ys, np.array(S.SWAP)[ys]])
    model.eval()
    with torch.no_grad():
        p = model(to_tensor(x).float() / 255).argmax(1).numpy()
    model.train()
    return (p == y).mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="+", required=True,
                    help=".npz files of x and y, or folders of labelled crops that kifucam crops wrote")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dk", type=int, default=2000, help="augmented crops from the dk-flylab close-ups")
    ap.add_argument("--init", default=None)
    ap.add_argument("--take", type=int, nargs="*", default=None,
                    help="per --data file, how many crops to draw at random from it (0: all)")
    ap.add_argument("--geo", action="store_true", help="also turn, shear and blur (augment's geo)")
    ap.add_argument("--widths", type=int, nargs=6, default=None, help="conv widths (net.WIDTHS by default)")
    ap.add_argument("--teacher", nargs="*", default=None,
                    help="checkpoints whose averaged probabilities the model also learns (distillation)")
    ap.add_argument("--kd-alpha", type=float, default=0.5, help="weight of the teacher term (the labels: 1 - alpha)")
    ap.add_argument("--kd-temp", type=float, default=2.0, help="temperature of the teacher term")
    ap.add_argument("--kd-agree", action="store_true",
                    help="the teacher term only on crops whose label the teachers' average ranks first (faces "
                         "the teachers never saw, such as the cursive promoted faces, learn from their labels)")
    ap.add_argument("--size", type=int, default=48,
                    help="input side of the model, pixels: the 48-pixel crops are shrunk (area) after augmenting; "
                         "teachers still see 48")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    xs, ys = [], []
    for i, d in enumerate(a.data):
        x, y = load_data(d)
        n = a.take[i] if a.take and i < len(a.take) else 0
        if n and n < len(y):
            keep = np.sort(rng.choice(len(y), n, replace=False))
            x, y = x[keep], y[keep]
        xs.append(x)
        ys.append(y)
    if a.dk:
        dx, dy = dk_crops(rng, a.dk)
        xs.append(dx)
        ys.append(dy)
    X = to_tensor(np.concatenate(xs))
    Y = torch.from_numpy(np.concatenate(ys))
    print(f"{len(Y)} crops, classes {np.bincount(Y.numpy(), minlength=29).tolist()}", flush=True)
    model = SquareNet(widths=tuple(a.widths) if a.widths else net.WIDTHS)
    if a.init:
        model.load_state_dict(torch.load(a.init))
    teachers = [net.load(p).eval() for p in (a.teacher or [])]
    print(f"parameters: {sum(p.numel() for p in model.parameters())}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    steps = a.epochs * (len(Y) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps, pct_start=0.15)
    gen = torch.Generator().manual_seed(a.seed)
    t0 = time.time()
    for ep in range(a.epochs):
        perm = torch.randperm(len(Y), generator=gen)
        tot, n, correct = 0.0, 0, 0
        for k in range(len(Y) // a.batch):
            idx = perm[k * a.batch : (k + 1) * a.batch]
            x, y = augment(X[idx].float() / 255, Y[idx], gen, a.geo)
            out = model(x if a.size == 48 else F.interpolate(x, size=(a.size, a.size), mode="area"))
            ce_each = F.cross_entropy(out, y, label_smoothing=0.05, reduction="none")
            loss = ce_each.mean()
            if teachers:
                T = a.kd_temp
                with torch.no_grad():
                    p = sum(F.softmax(m(x) / T, 1) for m in teachers) / len(teachers)
                if a.kd_agree:
                    agree = (p.argmax(1) == y).float()
                    kd_each = F.kl_div(F.log_softmax(out / T, 1), p, reduction="none").sum(1) * T * T
                    w = a.kd_alpha * agree
                    loss = ((1 - w) * ce_each + w * kd_each).mean()
                else:
                    kd = F.kl_div(F.log_softmax(out / T, 1), p, reduction="batchmean") * T * T
                    loss = (1 - a.kd_alpha) * loss + a.kd_alpha * kd
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(y)
            n += len(y)
            correct += (out.argmax(1) == y).sum().item()
            if k % 200 == 0:
                print(f"  ep {ep} step {k} loss {tot / n:.4f} acc {correct / n:.4f} {time.time() - t0:.0f}s", flush=True)
        torch.save(model.state_dict(), a.out)
        print(f"epoch {ep}: loss {tot / n:.4f} train acc {correct / n:.4f} na-o-ys crops {naoys_eval(model, a.size):.4f} "
              f"({time.time() - t0:.0f}s)", flush=True)


if __name__ == "__main__":
    main()
