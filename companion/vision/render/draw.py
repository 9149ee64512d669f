"""Draw a `Scene` as a camera above the table sees it: perspective, lens distortion, light, noise.

The table frame is `markers_spec`'s (x right, y towards the bottom side, in cm); heights go up
from the table. Solids (stacks of tiles, dice, the wind box, face-up tiles) are cuboids drawn
face by face far-to-near (painter's order), which is exact enough for boxes on a plane seen from
above. Everything is a pure function of the scene, so the same scene always gives the same image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision import markers_spec
from companion.vision.geometry import WALL_FRAMES, TableLayout
from companion.vision.render.scene import Camera, Scene
from companion.vision.render.tiles import face as tile_face

UP = np.array([0.0, 0.0, -1.0])  # world z points down into the table, so "up" is -z

#: tile back colours (BGR) of common sets: green, blue, yellow, pink
TILE_BACKS = [(70, 130, 40), (150, 90, 30), (60, 170, 215), (150, 130, 220)]
TILE_FACE = (215, 228, 235)
FELT = [(70, 110, 40), (110, 80, 30), (60, 60, 60), (90, 110, 130)]
SKIN = (120, 150, 205)
#: height of the lamp over the table, and of a tile lying flat (cm): how much more light a higher top catches
LAMP_CM, TILE_CM = 120.0, 1.6


@dataclass
class View:
    """The camera of one scene: projection of table points (cm, z up is negative) to pixels."""

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    centre: np.ndarray  # camera position in table coordinates
    size: tuple[int, int]

    def project(self, pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, np.float64).reshape(-1, 3)
        out, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return out.reshape(-1, 2)


def _rot(ax: float, ay: float, az: float) -> np.ndarray:
    rx, _ = cv2.Rodrigues(np.array([math.radians(ax), 0.0, 0.0]))
    ry, _ = cv2.Rodrigues(np.array([0.0, math.radians(ay), 0.0]))
    rz, _ = cv2.Rodrigues(np.array([0.0, 0.0, math.radians(az)]))
    return rx @ ry @ rz


def make_view(cam: Camera, table_size: tuple[float, float]) -> View:
    """The camera looking down at the table centre (plus `cam.shift`), tilted and turned."""
    w, h = cam.size
    R = _rot(cam.tilt_x, cam.tilt_y, cam.yaw)  # world -> camera
    look = np.array([table_size[0] / 2 + cam.shift[0], table_size[1] / 2 + cam.shift[1], 0.0])
    centre = look - cam.height * (R.T @ np.array([0.0, 0.0, 1.0]))
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ centre
    dist = np.array([cam.k1, cam.k1 * 0.2, 0.0, 0.0, 0.0])
    focal = cam.focal * min(w, h) / 720 * cam.height / 95.0
    K = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]], np.float64)
    return View(K, dist, rvec.reshape(3), tvec.reshape(3), centre, (w, h))


# --- primitives ---------------------------------------------------------------------------------


def _fill(img: np.ndarray, pts: np.ndarray, colour) -> None:
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def _outline(img: np.ndarray, pts: np.ndarray, colour, thickness: int = 1) -> None:
    cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], True, colour, thickness, cv2.LINE_AA, shift=4)


def _warp(img: np.ndarray, tex: np.ndarray, quad: np.ndarray, mask: np.ndarray | None = None) -> None:
    """Paint texture `tex` into the image quad (TL, TR, BR, BL pixels), clipped to the image."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    th, tw = tex.shape[:2]
    src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
    H = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tex, H, size, flags=cv2.INTER_LINEAR)
    m = mask if mask is not None else np.full((th, tw), 255, np.uint8)
    wm = cv2.warpPerspective(m, H, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi * (1 - wm) + warped * wm).astype(np.uint8)


def _shade(colour, k: float):
    return tuple(int(min(255, max(0, c * k))) for c in colour)


class Cuboid:
    """A box on the table: centre (x, y), bottom height z0, half extents, turned by `R` (body -> world)."""

    FACES = {  # body axis of each face's outward normal, and its four corners (indices into corners)
        "+x": (0, [1, 3, 7, 5]), "-x": (0, [0, 4, 6, 2]),
        "+y": (1, [2, 6, 7, 3]), "-y": (1, [0, 1, 5, 4]),
        "+z": (2, [4, 5, 7, 6]), "-z": (2, [0, 2, 3, 1]),
    }

    def __init__(self, centre: np.ndarray, half: tuple[float, float, float], R: np.ndarray) -> None:
        self.centre, self.half, self.R = np.asarray(centre, float), np.asarray(half, float), R
        signs = np.array([[sx, sy, sz] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)], float)
        self.corners = self.centre + (signs * self.half) @ R.T

    def normal(self, name: str) -> np.ndarray:
        axis = self.FACES[name][0]
        return self.R[:, axis] * (1 if name[0] == "+" else -1)

    def visible_faces(self, eye: np.ndarray) -> list[str]:
        out = []
        for name, (_, idx) in self.FACES.items():
            mid = self.corners[idx].mean(0)
            if np.dot(self.normal(name), eye - mid) > 1e-6:
                out.append(name)
        # far faces first
        return sorted(out, key=lambda n: -np.linalg.norm(eye - self.corners[self.FACES[n][1]].mean(0)))

    def face_quad(self, name: str) -> np.ndarray:
        return self.corners[self.FACES[name][1]]


def _yaw(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])


def _light(normal: np.ndarray) -> float:
    """Simple lambert shading from a light above and a little to the top-left."""
    light = np.array([-0.3, -0.4, -1.0])
    light /= np.linalg.norm(light)
    return 0.55 + 0.45 * max(0.0, float(np.dot(normal, light)))


# --- the scene -----------------------------------------------------------------------------------


def render(scene: Scene, frame: int = 0) -> tuple[np.ndarray, dict]:
    """The camera image (BGR uint8) of `scene` and its pixel ground truth (dice boxes, markers).

    `frame`: which of the camera's frames of the unchanged scene: each has its own sensor noise
    (frame 0 draws it as `render` always did, so scene sets keep their pictures)."""
    rng = np.random.default_rng(scene.seed)
    view = make_view(scene.camera, scene.table_size)
    w, h = view.size
    look = scene.look
    img = np.full((h, w, 3), (50, 55, 60), np.uint8)  # the floor around the table
    tw, th = scene.table_size
    felt = FELT[look.felt % len(FELT)]
    # the table top, edges subdivided so lens distortion bends them
    edge = [(x, 0) for x in np.linspace(0, tw, 17)] + [(tw, y) for y in np.linspace(0, th, 17)][1:]
    edge += [(x, th) for x in np.linspace(tw, 0, 17)][1:] + [(0, y) for y in np.linspace(th, 0, 17)][1:]
    _fill(img, view.project([(x, y, 0) for x, y in edge]), felt)

    truth: dict = {"markers": {}, "dice": [], "tiles": []}
    if scene.markers:
        _draw_markers(img, view, scene, truth)

    layout = TableLayout(scene.table_size, scene.stacks)
    solids: list[tuple[float, object]] = []  # (sort key, draw function)
    eye = view.centre

    def add(cub: Cuboid, paint, bias: float = 0.0) -> None:
        d = float(np.hypot(*(cub.centre[:2] - eye[:2])))
        solids.append((-d + bias, lambda: paint(cub)))

    back = TILE_BACKS[look.tile_back % len(TILE_BACKS)]
    t = layout.tile
    for side, heights in scene.walls.items():
        f = WALL_FRAMES[side]
        angle = math.degrees(math.atan2(f.u[1], f.u[0]))
        R = _yaw(angle)
        shifts = scene.wall_shift.get(side, (0.0, 0.0))
        for k, layers in enumerate(heights, 1):
            if layers <= 0:
                continue
            along = scene.offsets.get(side, [0.0] * len(heights))[k - 1] + shifts[0]
            c = layout.stack_centre(side, k) + np.array(f.u) * along - np.array(f.inward) * shifts[1]
            for layer in range(min(layers, 2)):
                cub = Cuboid(np.array([c[0], c[1], -(layer + 0.5) * t.height]),
                             (t.width / 2 * 0.97, t.depth / 2, t.height / 2 * 0.98), R)
                add(cub, _tile_painter(img, view, back, layer), bias=0.01 * layer)
            if layers >= 3:  # a loose tile lying on top (R19), slightly askew
                jitter = rng.normal(0, 0.15, 2)
                cub = Cuboid(np.array([c[0] + jitter[0], c[1] + jitter[1], -2.5 * t.height]),
                             (t.width / 2 * 0.97, t.depth / 2, t.height / 2 * 0.98),
                             _yaw(angle + rng.normal(0, 4)))
                add(cub, _tile_painter(img, view, back, 2), bias=0.03)

    for tile in scene.discards:
        cub = Cuboid(np.array([tile.x, tile.y, -t.height / 2]), (t.width / 2, t.depth / 2, t.height / 2),
                     _yaw(tile.angle))
        add(cub, _discard_painter(img, view, tile.code, rng, truth))

    from companion.vision.render.dice import die_cuboid, die_painter  # dice.py builds on this module

    for die in scene.dice:
        add(die_cuboid(die), die_painter(img, view, die, truth), bias=0.02)

    marker = scene.east_marker
    if marker is not None and marker.kind == "box":
        cub = Cuboid(np.array([marker.x, marker.y, -2.0]), (3.5, 3.5, 2.0), _yaw(marker.angle))
        add(cub, _wind_box_painter(img, view, scene))
    elif marker is not None:
        _draw_disc(img, view, marker.x, marker.y, 0.6, 2.2, (30, 30, 170), ring=(40, 170, 210))
    if scene.wind is not None and not (marker is not None and marker.kind == "box"):
        _draw_wind_disc(img, view, scene.wind.wind, scene.wind.x, scene.wind.y, 0.5, scene.wind.angle)

    for _, paint in sorted(solids, key=lambda s: s[0]):
        paint()
    hands = np.zeros(img.shape[:2], np.uint8)
    for hand in scene.hands:
        _draw_hand(img, view, hand, hands)
    # how much of the East marker and of the wind disc a hand hides: a hidden one cannot be read
    truth["hidden"] = {"east_marker": 0.0, "wind": 0.0}
    if marker is not None:
        box = marker.kind == "box"
        truth["hidden"]["east_marker"] = _covered(hands, view, marker.x, marker.y, 4.0 if box else 0.6, 3.5 if box else 2.2)
    if scene.wind is not None:
        in_box = marker is not None and marker.kind == "box"
        x, y = (marker.x, marker.y) if in_box else (scene.wind.x, scene.wind.y)
        truth["hidden"]["wind"] = _covered(hands, view, x, y, 4.0 if in_box else 0.5, 1.8)

    img = _finish(img, scene, rng if frame == 0 else np.random.default_rng([scene.seed, frame]))
    return img, truth


def _draw_markers(img: np.ndarray, view: View, scene: Scene, truth: dict) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, markers_spec.DICTIONARY))
    for mid, corners in markers_spec.marker_corners(scene.table_size).items():
        bits = cv2.aruco.generateImageMarker(dictionary, mid, 60, borderBits=1)
        tex = cv2.copyMakeBorder(bits, 15, 15, 15, 15, cv2.BORDER_CONSTANT, value=255)  # white quiet zone
        tex = cv2.cvtColor(tex, cv2.COLOR_GRAY2BGR)
        # the texture's outer square is the marker grown by the white border (15 px of 60)
        c = np.array(corners)
        mid_pt = c.mean(0)
        outer = mid_pt + (c - mid_pt) * (90 / 60)
        quad = view.project([(x, y, 0) for x, y in outer])
        _warp(img, tex, quad)
        truth["markers"][mid] = view.project([(x, y, 0) for x, y in corners]).round(1).tolist()


def _tile_painter(img: np.ndarray, view: View, back, layer: int):
    # a higher top is nearer the lamp (about 1.2 m up): inverse square, a few percent per layer
    lift = ((LAMP_CM - 2 * TILE_CM) / (LAMP_CM - (layer + 1) * TILE_CM)) ** 2

    def paint(cub: Cuboid) -> None:
        for name in cub.visible_faces(view.centre):
            quad = view.project(cub.face_quad(name))
            k = _light(cub.normal(name))
            if name == "-z":  # the top of a face-down tile is its back
                _fill(img, quad, _shade(back, k * lift))
                _outline(img, quad, _shade(back, 0.55))
            else:  # sides: the ivory face layer below, the coloured back above
                _fill(img, quad, _shade(TILE_FACE, k * 0.9))
                _outline(img, quad, _shade(TILE_FACE, 0.5))
    return paint


def _discard_painter(img: np.ndarray, view: View, code: str, rng, truth: dict):
    def paint(cub: Cuboid) -> None:
        for name in cub.visible_faces(view.centre):
            quad = view.project(cub.face_quad(name))
            if name == "-z":
                q = quad[[0, 3, 2, 1]]  # the top face's corners (x-y-, x-y+, x+y+, x+y-) as TL, TR, BR, BL
                _warp(img, tile_face(code, 44, 58, rng), q)
                _outline(img, q, (120, 130, 140))
                truth["tiles"].append({"tile": code, "box": _box(quad)})
            else:
                _fill(img, quad, _shade(TILE_FACE, _light(cub.normal(name)) * 0.85))
    return paint


def _box(pts: np.ndarray) -> list[float]:
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    return [round(float(x0), 1), round(float(y0), 1), round(float(x1), 1), round(float(y1), 1)]


def _disc_points(x: float, y: float, z: float, r: float, n: int = 32) -> np.ndarray:
    return np.array([(x + r * math.cos(a), y + r * math.sin(a), -z) for a in np.linspace(0, 2 * math.pi, n, False)])


def _draw_disc(img, view, x, y, z, r, colour, ring=None) -> None:
    _fill(img, view.project(_disc_points(x, y, 0, r * 1.02)), (25, 25, 25))  # its shadow/edge
    _fill(img, view.project(_disc_points(x, y, z, r)), colour)
    if ring is not None:
        _outline(img, view.project(_disc_points(x, y, z, r * 0.78)), ring, 2)


def wind_disc_texture(wind: str, size: int = 96) -> tuple[np.ndarray, np.ndarray]:
    """The face of a prevalent-wind disc: a dark letter E/S/W/N on white, and its round mask."""
    tex = np.full((size, size, 3), 245, np.uint8)
    cv2.circle(tex, (size // 2, size // 2), int(size * 0.47), (120, 60, 30), max(2, size // 24), cv2.LINE_AA)
    scale = size / 48
    (tw, th), _ = cv2.getTextSize(wind, cv2.FONT_HERSHEY_DUPLEX, scale, max(2, size // 16))
    cv2.putText(tex, wind, ((size - tw) // 2, (size + th) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, (30, 30, 30),
                max(2, size // 16), cv2.LINE_AA)
    mask = np.zeros((size, size), np.uint8)
    cv2.circle(mask, (size // 2, size // 2), size // 2 - 1, 255, -1, cv2.LINE_AA)
    return tex, mask


def _draw_wind_disc(img, view, wind, x, y, z, angle, r: float = 1.8, thickness: float = 0.5) -> None:
    """A disc `thickness` cm thick whose face is `z` cm up: its dark edge, then its face."""
    tex, mask = wind_disc_texture(wind)
    a = math.radians(angle)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    c = np.array([x, y])
    pts = [c + r * (-u - v), c + r * (u - v), c + r * (u + v), c + r * (-u + v)]
    # the edge from where it rests (the table, or the floor of the wind box's hole) up to its face;
    # drawn at the table before, which put a dark disc across the lid of the wind box
    _fill(img, view.project(_disc_points(x, y, z - thickness, r * 1.03)), (40, 40, 40))
    _warp(img, tex, view.project([(p[0], p[1], -z) for p in pts]), mask)


def _wind_box_painter(img, view, scene: Scene):
    """The chuangtzu (R13 note 1): a wooden box in front of East, the prevalent wind seen through its lid."""
    def paint(cub: Cuboid) -> None:
        wood = (40, 80, 140)
        for name in cub.visible_faces(view.centre):
            quad = view.project(cub.face_quad(name))
            _fill(img, quad, _shade(wood, _light(cub.normal(name))))
            _outline(img, quad, _shade(wood, 0.5))
        m = scene.east_marker
        _fill(img, view.project(_disc_points(m.x, m.y, 4.0, 2.1)), (20, 30, 45))  # the hole in the lid
        if scene.wind is not None:
            _draw_wind_disc(img, view, scene.wind.wind, m.x, m.y, 4.0, scene.wind.angle, r=1.8)
    return paint


def _covered(mask: np.ndarray, view: View, x: float, y: float, z: float, r: float) -> float:
    """The part (0..1) of a disc at height `z` that `mask` covers in the picture."""
    disc = np.zeros_like(mask)
    _fill(disc, view.project(_disc_points(x, y, z, r)), 255)
    area = int(np.count_nonzero(disc))
    return round(float(np.count_nonzero(disc & mask)) / area, 3) if area else 0.0


def _draw_hand(img, view, hand, mask: np.ndarray | None = None) -> None:
    """A player's hand and forearm reaching over the table, with its shadow (and its pixels in `mask`)."""
    a = math.radians(hand.angle)
    d, n = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    tip = np.array([hand.x, hand.y])
    palm_c = tip - d * 6
    shapes = []
    palm = [palm_c + d * 4.5 * math.cos(t) + n * 4.2 * math.sin(t) for t in np.linspace(0, 2 * math.pi, 20, False)]
    shapes.append(palm)
    for off in (-2.7, -0.9, 0.9, 2.7):
        base = palm_c + n * off + d * 2
        length = 5.5 - abs(off) * 0.5
        shapes.append([base - n * 0.8, base + n * 0.8, base + n * 0.8 + d * length, base - n * 0.8 + d * length])
    arm0 = palm_c - d * 3
    shapes.append([arm0 - n * 3.5, arm0 + n * 3.5, arm0 + n * 4.5 - d * 60, arm0 - n * 4.5 - d * 60])
    shadow = np.zeros(img.shape[:2], np.uint8)
    for s in shapes:
        pts = np.array([(p[0] + 3.0, p[1] + 4.0, 0) for p in s])
        _fill(shadow, view.project(pts), 255)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 6)
    img[:] = (img * (1 - 0.45 * shadow[..., None] / 255)).astype(np.uint8)
    for i, s in enumerate(shapes):
        pts = np.array([(p[0], p[1], -hand.height) for p in s])
        _fill(img, view.project(pts), _shade(hand.colour or SKIN, 0.9 + 0.03 * i))
        if mask is not None:
            _fill(mask, view.project(pts), 255)


def _finish(img: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Uneven light, vignetting, blur and sensor noise."""
    look = scene.look
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    if look.light_gradient or look.vignette:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        xx, yy = xx / w - 0.5, yy / h - 0.5
        gx, gy = look.light_gradient
        gain = 1 + gx * xx + gy * yy - look.vignette * (xx * xx + yy * yy)
        out *= gain[..., None]
    if look.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), look.blur)
    if look.noise > 0:
        out += rng.normal(0, look.noise, out.shape).astype(np.float32)
    return np.clip(out * look.exposure, 0, 255).astype(np.uint8)
