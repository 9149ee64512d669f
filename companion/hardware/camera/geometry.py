"""Camera geometry: what a camera straight above the table sees, and whether it is enough to recognise.

A pinhole model: a camera `height` cm above the table top, centred and looking straight
down, sees 2·h·tan(fov/2) in each direction. The frame the vision pipeline analyses
(`camera.width` x `camera.height`, 1280x720 by default) spans the sensor's full width; a
frame of another aspect than the sensor's is cropped top and bottom. Tiles lie flat: a
wall stack shows the back of its top tile, `tile width` along the wall; a discard shows
its face, width x height.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Sensor:
    key: str
    name: str
    #: full-sensor picture size, pixels
    pixels: tuple[int, int]
    #: field of view, degrees (published by the maker for fixed lenses; computed for lens mounts)
    hfov: float
    vfov: float
    note: str = ""


def _lens(sensor_mm: tuple[float, float], focal_mm: float) -> tuple[float, float]:
    return tuple(math.degrees(2 * math.atan(s / 2 / focal_mm)) for s in sensor_mm)  # type: ignore[return-value]


#: sensor (active area, mm) of the lens-mount cameras, for --focal-mm
SENSOR_MM = {"imx477": (6.287, 4.712), "imx296": (5.023, 3.754)}

SENSORS: dict[str, Sensor] = {s.key: s for s in [
    Sensor("imx708", "Raspberry Pi Camera Module 3 (IMX708)", (4608, 2592), 66.0, 41.0, "autofocus"),
    Sensor("imx708_wide", "Raspberry Pi Camera Module 3 Wide (IMX708)", (4608, 2592), 102.0, 67.0,
           "autofocus; wide lens: straight lines bow near the edges"),
    Sensor("imx219", "Raspberry Pi Camera Module 2 (IMX219)", (3280, 2464), 62.2, 48.8, "fixed focus"),
    Sensor("ov5647", "Raspberry Pi Camera Module 1.3 (OV5647)", (2592, 1944), 53.5, 41.41, "fixed focus"),
    Sensor("imx477", "Raspberry Pi HQ Camera (IMX477) with a 6 mm lens", (4056, 3040),
           *_lens(SENSOR_MM["imx477"], 6.0), "C/CS lens mount: --focal-mm for another lens"),
    Sensor("imx296", "Raspberry Pi Global Shutter Camera (IMX296) with a 6 mm lens", (1456, 1088),
           *_lens(SENSOR_MM["imx296"], 6.0), "C/CS lens mount: --focal-mm for another lens"),
    Sensor("c920", "USB webcam, Logitech C920 class (78 degrees diagonal)", (1920, 1080), 70.4, 43.3,
           "autofocus; plug into USB, camera.source = \"opencv:0\""),
]}

#: The table scale the vision pipeline needs in the analysed frame, pixels per cm. It is tuned for
#: about 8 px/cm (a 1280x720 frame over an 80 cm table); below 7 a die's pips (3 mm) shrink under
#: 2 px and neighbouring wall stacks blur together. Follow the vision models' cards if they change.
NEEDS_PX_PER_CM = 7.0


#: margin round the table so a camera slightly off centre still sees all four corner markers
MARGIN = 0.10


@dataclass(frozen=True)
class Plan:
    sensor: str
    sensor_name: str
    table_cm: tuple[float, float]
    height_cm: float
    frame: tuple[int, int]
    fov_deg: tuple[float, float]
    sees_cm: tuple[float, float]
    fits: bool
    fits_with_margin: bool
    px_per_cm: float
    stack_px: float
    tile_face_px: tuple[float, float]
    die_px: float
    enough: bool
    min_height_cm: float
    max_height_cm: float
    full_sensor_px_per_cm: float
    ok: bool

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for k, v in out.items():
            if isinstance(v, float):
                out[k] = round(v, 2)
            elif isinstance(v, tuple):
                out[k] = [round(x, 2) if isinstance(x, float) else x for x in v]
        out["needs_px_per_cm"] = NEEDS_PX_PER_CM
        return out


def sensor_with_lens(key: str, focal_mm: float | None) -> Sensor:
    """The sensor by key; a lens-mount sensor with another lens when `focal_mm` is given."""
    try:
        s = SENSORS[key]
    except KeyError:
        raise ValueError(f"unknown sensor {key!r}; known: {', '.join(SENSORS)}") from None
    if focal_mm is None:
        return s
    if key not in SENSOR_MM:
        raise ValueError(f"{s.name} has a fixed lens; --focal-mm is for {', '.join(SENSOR_MM)}")
    if not 1 <= focal_mm <= 100:
        raise ValueError("--focal-mm must be between 1 and 100")
    h, v = _lens(SENSOR_MM[key], focal_mm)
    return Sensor(s.key, s.name.split(" with ")[0] + f" with a {focal_mm:g} mm lens", s.pixels, h, v, s.note)


def plan(sensor: Sensor, table_cm: tuple[float, float], height_cm: float, frame: tuple[int, int] = (1280, 720),
         tile_mm: tuple[float, float] = (30.0, 22.0), die_mm: float = 16.0) -> Plan:
    """What the camera sees from `height_cm` above a table of `table_cm`, analysed at `frame` pixels."""
    sizes = [height_cm, *table_cm, *tile_mm, die_mm]
    if not all(math.isfinite(v) and v > 0 for v in sizes):
        raise ValueError("the table, tile and die sizes and the camera height must be numbers above 0")
    if frame[0] > sensor.pixels[0] or frame[1] > sensor.pixels[1]:
        raise ValueError(f"the {sensor.name} gives at most {sensor.pixels[0]}x{sensor.pixels[1]} pixels, "
                         f"not {frame[0]}x{frame[1]}")
    tan_h, tan_v = (math.tan(math.radians(a / 2)) for a in (sensor.hfov, sensor.vfov))
    # a frame of another aspect than the sensor's spans its width and is cropped top and bottom
    tan_v = min(tan_v, tan_h * frame[1] / frame[0])
    long_cm, short_cm = 2 * height_cm * tan_h, 2 * height_cm * tan_v
    big, small = max(table_cm), min(table_cm)  # the table's long side along the picture's long side
    fits = long_cm >= big and short_cm >= small
    fits_margin = long_cm >= big * (1 + MARGIN) and short_cm >= small * (1 + MARGIN)
    px_cm = frame[0] / long_cm
    tile_h_mm, tile_w_mm = tile_mm
    stack = tile_w_mm / 10 * px_cm
    face = (tile_w_mm / 10 * px_cm, tile_h_mm / 10 * px_cm)
    die = die_mm / 10 * px_cm
    enough = px_cm >= NEEDS_PX_PER_CM
    min_h = max(big * (1 + MARGIN) / (2 * tan_h), small * (1 + MARGIN) / (2 * tan_v))
    max_h = frame[0] / (NEEDS_PX_PER_CM * 2 * tan_h)  # the highest mount that still gives the scale needed
    full = sensor.pixels[0] / long_cm
    return Plan(sensor.key, sensor.name, tuple(table_cm), height_cm, tuple(frame), (sensor.hfov, sensor.vfov),
                (long_cm, short_cm), fits, fits_margin, px_cm, stack, face, die, enough, min_h, max_h, full,
                ok=fits_margin and enough)


def describe(p: Plan) -> str:
    """The plan in plain words, with what to change when it is not enough."""
    t = f"{p.table_cm[0]:g} x {p.table_cm[1]:g} cm"
    lines = [f"{p.sensor_name}, lens {p.height_cm:g} cm above a {t} table, analysed at {p.frame[0]}x{p.frame[1]}:",
             f"  sees {p.sees_cm[0]:.0f} x {p.sees_cm[1]:.0f} cm ({p.fov_deg[0]:.0f} x {p.fov_deg[1]:.0f} degrees "
             "field of view)"]
    if p.fits_with_margin:
        lines.append(f"  the whole table fits, with room to spare (needs {MARGIN:.0%} round it)")
    elif p.fits:
        lines.append(f"  the table only just fits: a camera slightly off centre loses a corner marker; "
                     f"{p.min_height_cm:.0f} cm or more is safer")
    else:
        lines.append(f"  the table does NOT fit: raise the camera to at least {p.min_height_cm:.0f} cm, "
                     "or use a wider lens")

    lines += [
        f"  {p.px_per_cm:.1f} px per cm on the table (the vision pipeline needs {NEEDS_PX_PER_CM:g}): "
        + ("enough" if p.enough else "TOO FEW"),
        f"    a wall stack is {p.stack_px:.0f} px along the wall, a face-up tile {p.tile_face_px[0]:.0f} x "
        f"{p.tile_face_px[1]:.0f} px, a die {p.die_px:.0f} px",
        f"    (at the full sensor, {p.full_sensor_px_per_cm:.0f} px per cm: for photos, not live)",
    ]
    if p.min_height_cm <= p.max_height_cm:
        lines.append(f"  good heights for this camera and table: {p.min_height_cm:.0f} to {p.max_height_cm:.0f} cm")
    else:
        lines.append(f"  no height works at {p.frame[0]}x{p.frame[1]}: the table needs {p.min_height_cm:.0f} cm, "
                     f"the tiles at most {p.max_height_cm:.0f} cm; use a larger frame (camera.width/height): "
                     "another lens moves both heights alike")
    lines.append("  verdict: " + verdict(p))
    return "\n".join(lines)


def _heights(p: Plan) -> str:
    lo, hi = f"{p.min_height_cm:.0f}", f"{p.max_height_cm:.0f}"
    return f"{lo} cm" if lo == hi else f"between {lo} and {hi} cm"


def verdict(p: Plan) -> str:
    """The plan in one sentence: does it work, and if not, what to change."""
    h, frame = f"{p.height_cm:g} cm", f"{p.frame[0]}x{p.frame[1]}"
    if p.ok:
        return f"this works: from {h} the camera sees the whole table and enough detail to read the tiles and dice"
    if p.min_height_cm > p.max_height_cm:
        return (f"this camera cannot do it at {frame}: the table needs it at {p.min_height_cm:.0f} cm or higher, "
                f"the tiles and dice at {p.max_height_cm:.0f} cm or lower; analyse a larger frame "
                "(camera.width/height)")
    if not p.fits_with_margin:
        seen = "the table only just fits in the picture" if p.fits else "the camera does not see the whole table"
        return f"this does not work yet: at {h} {seen}; raise the camera to {_heights(p)}, or use a wider lens"
    return (f"this does not work yet: at {h} the camera is too high to make out the tiles and dice; lower it to "
            f"{_heights(p)}, or analyse a larger frame (camera.width/height)")


def side_view_svg(p: Plan) -> str:
    """A side view of the mount: the table, the camera at its height and what it sees (to scale)."""
    scale = 3.0  # px per cm
    h, half_fov = p.height_cm, p.sees_cm[1] / 2  # the picture's short side runs across the drawing
    table = min(p.table_cm)
    width = max(int(max(table, 2 * half_fov) * scale + 260), 820)
    height = int((h + 90) * scale)
    cx, floor = (width - 160) / 2, (h + 40) * scale  # the table top; the arm and its label on the right
    cam_y = floor - h * scale
    t0, t1 = cx - table / 2 * scale, cx + table / 2 * scale
    s0, s1 = cx - half_fov * scale, cx + half_fov * scale
    colour = "#2e7d32" if p.fits_with_margin else "#c62828"
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="13">',
        f'<rect width="{width}" height="{height}" fill="#fff"/>',
        f'<polygon points="{cx:.1f},{cam_y:.1f} {s0:.1f},{floor:.1f} {s1:.1f},{floor:.1f}" fill="{colour}" '
        'opacity="0.12"/>',
        f'<line x1="{cx:.1f}" y1="{cam_y:.1f}" x2="{s0:.1f}" y2="{floor:.1f}" stroke="{colour}" stroke-dasharray="6 4"/>',
        f'<line x1="{cx:.1f}" y1="{cam_y:.1f}" x2="{s1:.1f}" y2="{floor:.1f}" stroke="{colour}" stroke-dasharray="6 4"/>',
        f'<rect x="{t0:.1f}" y="{floor:.1f}" width="{t1 - t0:.1f}" height="8" fill="#6d4c41"/>',
        f'<rect x="{t0 + 10:.1f}" y="{floor + 8:.1f}" width="8" height="{30 * scale - 8:.1f}" fill="#6d4c41"/>',
        f'<rect x="{t1 - 18:.1f}" y="{floor + 8:.1f}" width="8" height="{30 * scale - 8:.1f}" fill="#6d4c41"/>',
        f'<rect x="{cx - 14:.1f}" y="{cam_y - 18:.1f}" width="28" height="18" rx="3" fill="#263238"/>',
        f'<line x1="{cx + 14:.1f}" y1="{cam_y - 9:.1f}" x2="{t1 + 60:.1f}" y2="{cam_y - 9:.1f}" stroke="#555" '
        'stroke-width="5"/>',
        f'<line x1="{t1 + 60:.1f}" y1="{cam_y - 9:.1f}" x2="{t1 + 60:.1f}" y2="{floor + 30 * scale:.1f}" '
        'stroke="#555" stroke-width="5"/>',
        f'<line x1="{t1 + 85:.1f}" y1="{cam_y:.1f}" x2="{t1 + 85:.1f}" y2="{floor:.1f}" stroke="#000" '
        'marker-start="url(#a)" marker-end="url(#a)"/>',
        '<defs><marker id="a" markerWidth="8" markerHeight="8" refX="4" refY="4" orient="auto">'
        '<circle cx="4" cy="4" r="2.5"/></marker></defs>',
        f'<text x="{t1 + 92:.1f}" y="{(cam_y + floor) / 2:.1f}">{p.height_cm:g} cm</text>',
        f'<text x="{cx:.1f}" y="{floor + 30 * scale + 22:.1f}" text-anchor="middle">table {table:g} cm; the camera '
        f'sees {p.sees_cm[1]:.0f} cm across this view ({p.sees_cm[0]:.0f} cm the other way)</text>',
        f'<text x="{width / 2:.1f}" y="24" text-anchor="middle" font-size="14">{p.sensor_name}: '
        f'{p.px_per_cm:.1f} px/cm at {p.frame[0]}x{p.frame[1]}, '
        f'{"fits" if p.fits_with_margin else "does not fit"}; good heights {p.min_height_cm:.0f} to '
        f'{p.max_height_cm:.0f} cm</text>',
        f'<text x="{cx + 20:.1f}" y="{cam_y - 24:.1f}">camera, lens pointing straight down</text>',
        "</svg>",
    ]
    return "\n".join(lines) + "\n"
