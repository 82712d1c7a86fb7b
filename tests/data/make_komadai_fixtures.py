"""Renders the komadai test frames of tests/vision/test_komadai.c with models/render/game.py's scene (a
training style, not the held-out one) and prints, per frame, the canonical-board -> image homography and
the hands that the test asserts. Run once from the project root; the JPEGs are committed:

  /usr/bin/python3 tests/data/make_komadai_fixtures.py

komadai-sente-end.jpg: seed 32, 1280x720, camera at sente's end, hands BGPsnl (JPEG quality 75)
komadai-gote-end.jpg:  seed 33, 1280x720, camera at gote's end,  hands BGPsnl
komadai-empty.jpg:     seed 41, 800x450, camera at sente's end, no pieces in hand
The board is the even start whatever the hands (only the stands are read from these frames).
"""

import os
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "models"))

from render import game as G  # noqa: E402

FRAMES = [("komadai-sente-end.jpg", 32, 1280, 720, "BGPsnl"),
          ("komadai-gote-end.jpg", 33, 1280, 720, "BGPsnl"),
          ("komadai-empty.jpg", 41, 800, 450, "-")]


def main():
    for name, seed, w, h, hs in FRAMES:
        board, hands, _ = G.parse_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b " + hs + " 1")
        sc = G.Scene(seed, w, h)
        world, (gx, gy, sw, sh) = sc.world(board, hands)
        Hm = sc.homography(world.shape)
        img = sc.frame(world, Hm, None, np.random.default_rng([seed, 9]))
        Hc = Hm @ np.array([[sw, 0, gx], [0, sh, gy], [0, 0, 1]])  # canonical (u, v) -> image
        Hc /= Hc[2, 2]
        out = os.path.join(ROOT, "tests", "data", name)
        cv2.imwrite(out, img, [cv2.IMWRITE_JPEG_QUALITY, 75])
        print(name, "H", ", ".join("%.6f" % x for x in Hc.ravel()), "hands P L N S B R G:", hands, "camera end",
              sc.cam_end)


if __name__ == "__main__":
    main()
