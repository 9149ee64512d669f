"""What is on the table, as data: the input of the renderer and the ground truth of a scene.

Positions are in the table frame of `markers_spec` (cm). Walls are given per table side as a
list of heights per stack slot, stack 1 first (the position contract): 0 = gone, 1 = half a
stack, 2 = a full stack, 3 = a full stack with a loose tile lying on top (R19).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Camera:
    height: float = 95.0  # cm above the table
    tilt_x: float = 0.0  # degrees; a camera not quite straight above the table
    tilt_y: float = 0.0
    yaw: float = 0.0  # the image turned about the optical axis
    focal: float = 760.0  # pixels at 720 px image height and 95 cm height
    k1: float = 0.0  # radial lens distortion
    shift: tuple[float, float] = (0.0, 0.0)  # where it looks, from the table centre (cm)
    size: tuple[int, int] = (1280, 720)


@dataclass
class Look:
    felt: int = 0
    tile_back: int = 0
    light_gradient: tuple[float, float] = (0.0, 0.0)
    vignette: float = 0.0
    exposure: float = 1.0
    noise: float = 0.0
    blur: float = 0.0


@dataclass
class Die:
    face: int
    x: float
    y: float
    angle: float = 0.0
    cocked: bool = False
    tilt: float = 35.0  # degrees, when cocked
    colour: int = 0
    turn: int = 0  # which side faces show (a die has several orientations for one top face)
    size: float = 1.8  # cm


@dataclass
class Marker:
    """The East marker: a dealer "button" or the wind "box" (chuangtzu, R11/R13)."""

    kind: str
    x: float
    y: float
    angle: float = 0.0


@dataclass
class WindDisc:
    """The prevalent-wind indicator (R13): shown in the wind box, or a disc lying on the table."""

    wind: str
    x: float = 0.0
    y: float = 0.0
    angle: float = 0.0


@dataclass
class Discard:
    code: str
    x: float
    y: float
    angle: float = 0.0


@dataclass
class Hand:
    """A hand over the table: fingertips at (x, y), reaching in along `angle`, `height` cm up;
    `colour` (BGR) None for skin."""

    x: float
    y: float
    angle: float
    height: float = 9.0
    colour: tuple[int, int, int] | None = None


@dataclass
class Scene:
    seed: int
    stacks: int
    table_size: tuple[float, float] = (80.0, 80.0)
    walls: dict[str, list[int]] = field(default_factory=dict)
    #: per side, per slot: how far each stack was pushed along its wall (cm; splits, separated dead wall)
    offsets: dict[str, list[float]] = field(default_factory=dict)
    #: per side: the whole wall built a little off (along, outwards) in cm
    wall_shift: dict[str, tuple[float, float]] = field(default_factory=dict)
    dice: list[Die] = field(default_factory=list)
    east_marker: Marker | None = None
    wind: WindDisc | None = None
    discards: list[Discard] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    markers: bool = True
    camera: Camera = field(default_factory=Camera)
    look: Look = field(default_factory=Look)
    #: what the scene means in game terms (seats, break, live tiles …), filled by the generator
    truth: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
