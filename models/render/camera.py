"""A pinhole camera placed as in a tournament hall, for rendering clips: overhead, or on a tripod at
sente's end, gote's end or either side, tilted a given angle from vertical, the board filling a given
share of the frame (../shared/DESIGN.md: 20-45 degrees, the board as little as a third of the frame).

  cam = Camera.placed("end-gote", 30, 0.5, (1280, 720), board_w, centre, rng=rng)
  H = cam.homography()        # world picture (top-down, pixels) -> frame
  lean = cam.lean(height_px)  # where a piece's top face (height_px above the board) falls in the world
                              # picture, relative to its base: what makes tall pieces lean in oblique views

Coordinates: the world picture is the top-down render of board, komadai and table (x right, y down,
sente sits at the bottom, y large); world units are its pixels, the board centre at `centre`. The
camera looks at the board centre from `elev` degrees off vertical, from the side named by `where`.
"""

import cv2
import numpy as np

PLACEMENTS = ("overhead", "end-sente", "end-gote", "side-left", "side-right")


class Camera:
    def __init__(self, C, R, f, frame, centre):
        self.C = np.asarray(C, np.float64)  # camera centre in world units (z up, above the board)
        self.R = R  # world -> camera rotation (rows: camera x, y, z axes)
        self.f = f  # focal length in frame pixels
        self.W, self.H = frame
        self.centre = centre

    @classmethod
    def placed(cls, where, elev_deg, board_frac, frame, board_w, centre, rng=None, hfov_deg=62.0):
        """A camera at `where` (PLACEMENTS), elev_deg from vertical (0 overhead), aimed at the board
        centre, at the distance that makes the board (board_w world units wide, square) span about
        board_frac of the frame width, or less where the whole board and its border would not be in
        the frame (as an operator frames it). A little jitter (aim, roll, azimuth) from rng."""
        rng = rng or np.random.default_rng(0)
        state = rng.bit_generator.state
        scale = 1.0
        cx, cy = centre
        h = 0.6 * board_w  # the board's edge and border beyond the grid's centre, and a little table
        rim = np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])
        while True:
            rng.bit_generator.state = state  # the same jitter at every distance
            cam = cls._placed(where, elev_deg, board_frac / scale, frame, board_w, centre, rng, hfov_deg)
            p = cam.project(np.c_[rim, np.zeros(4)])
            W, H = frame
            if (p[:, 0].min() >= 0.02 * W and p[:, 0].max() <= 0.98 * W and p[:, 1].min() >= 0.02 * H
                    and p[:, 1].max() <= 0.98 * H) or scale > 4:
                return cam
            scale *= 1.05

    @classmethod
    def _placed(cls, where, elev_deg, board_frac, frame, board_w, centre, rng, hfov_deg):
        if where not in PLACEMENTS:
            raise ValueError(f"camera placement must be one of {PLACEMENTS}")
        W, H = frame
        f = (W / 2) / np.tan(np.radians(hfov_deg) / 2)
        # azimuth: the direction from the board centre towards the camera, in the world plane
        az = {"overhead": 90.0, "end-sente": 90.0, "end-gote": -90.0, "side-left": 180.0, "side-right": 0.0}[where]
        az = np.radians(az + rng.normal(0, 3))
        el = np.radians(max(0.0, elev_deg + rng.normal(0, 1.5)))
        dist = f * board_w / (board_frac * W)
        cx, cy = centre
        d = np.array([np.cos(az), np.sin(az), 0.0])
        C = np.array([cx, cy, 0.0]) + dist * (np.sin(el) * d + np.array([0, 0, np.cos(el)]))
        target = np.array([cx, cy, 0.0]) + rng.normal(0, 0.03 * board_w, 3) * np.array([1, 1, 0])
        z = target - C
        z /= np.linalg.norm(z)
        # image "up" points away from the camera along the board, so the far side is at the top
        up_world = -d if el > np.radians(2) else np.array([0.0, -1.0, 0.0])
        if where == "overhead":
            up_world = np.array([0.0, -1.0, 0.0])  # sente at the bottom of the frame
        x = np.cross(z, up_world)
        if np.linalg.norm(x) < 1e-6:
            x = np.array([1.0, 0.0, 0.0])
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        R = np.stack([x, y, z])
        # the world picture has y down, so (x, y, z up) is a mirrored frame: flip the camera's x if the
        # picture would come out mirrored (its x and y axes must keep their turning sense)
        cam = cls(C, R, f, frame, centre)
        q = cam.project(np.array([[cx, cy, 0], [cx + 1, cy, 0], [cx, cy + 1, 0]]))
        ex, ey = q[1] - q[0], q[2] - q[0]
        if ex[0] * ey[1] - ex[1] * ey[0] < 0:
            R[0] = -R[0]
        roll = np.radians(rng.normal(0, 1.5))
        cr, sr = np.cos(roll), np.sin(roll)
        R = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]]) @ R
        return cls(C, R, f, frame, centre)

    def project(self, pts):
        """World points (N x 3; z up, world units) -> frame pixels (N x 2)."""
        p = (np.asarray(pts, np.float64) - self.C) @ self.R.T
        return np.stack([self.f * p[:, 0] / p[:, 2] + self.W / 2, self.f * p[:, 1] / p[:, 2] + self.H / 2], axis=1)

    def homography(self, z=0.0):
        """3x3 homography from the world picture's plane at height z to the frame (world y is down in
        the picture, so the world point (x, y, z) is drawn at picture pixel (x, y))."""
        src = np.float64([[0, 0], [1000, 0], [1000, 1000], [0, 1000]]) + np.float64(self.centre) - 500
        dst = self.project(np.c_[src, np.full(4, z)])
        return cv2.getPerspectiveTransform(np.float32(src), np.float32(dst))

    def lean(self, height):
        """Offset (world units) from a piece's base to where its top face, `height` above the board,
        falls on the board plane along the camera's ray, at the board centre: (0, 0) overhead."""
        cx, cy = self.centre
        top = np.array([cx, cy, height])
        ray = top - self.C
        t = -self.C[2] / ray[2]
        hit = self.C + t * ray
        return np.array([hit[0] - cx, hit[1] - cy])

    def board_in_frame(self, corners):
        """Share of the world corners (N x 2, on the board plane) that project inside the frame."""
        p = self.project(np.c_[np.asarray(corners, np.float64), np.zeros(len(corners))])
        inside = (p[:, 0] >= 0) & (p[:, 0] < self.W) & (p[:, 1] >= 0) & (p[:, 1] < self.H)
        return float(inside.mean())
