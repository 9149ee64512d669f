"""Typed settings: defaults → TOML file → environment → command-line options.

Every setting has a sane default, so `companion run` needs no file at all. A config
file holds only what differs; unknown keys are errors that name the key. The
environment overrides the data directory and the port (COMPANION_DATA_DIR,
COMPANION_PORT, COMPANION_HOST; COMPANION_CONFIG names the file).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, Mapping

import msgspec
import platformdirs

from companion.errors import ConfigError
from companion.validation import convert, deep_merge, read_toml

APP_NAME = "mahjong-companion"
CONFIG_FILE_NAME = "companion.toml"


class _Section(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class ServerSettings(_Section):
    #: address the dashboard listens on; 0.0.0.0 lets the players' phones reach it
    host: str = "0.0.0.0"
    #: 0 picks any free port (the URL printed at start says which)
    port: int = 8080

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError("port must be between 1 and 65535 (or 0 for any free port)")


class GameSettings(_Section):
    #: variant for new games: a built-in name, a name of a file in <data_dir>/variants, or a path
    variant: str = "classical"
    #: names for the first game when none has been played yet (first-hand seats E, S, W, N)
    players: list[str] = msgspec.field(default_factory=lambda: ["East", "South", "West", "North"])


class DiceSettings(_Section):
    #: "sim" runs the virtual dice box; otherwise a pyserial URL: /dev/ttyACM0, socket://host:port, rfc2217://…
    url: str = "sim"
    #: seconds between PINGs to the box; after three unanswered it is shown as not answering
    ping_interval: float = 2.0
    #: longest wait in seconds between attempts to reopen a box that went away (back-off starts at 0.1 s)
    reconnect_max: float = 5.0
    #: virtual box only: how long its dice tumble (ms) after the press or the last shake
    sim_roll_ms: int = 900

    def __post_init__(self) -> None:
        if not self.url.strip():
            raise ValueError("url must be 'sim' or a serial port URL such as /dev/ttyACM0")
        if not 0.1 <= self.ping_interval <= 60 or not 0.1 <= self.reconnect_max <= 300:
            raise ValueError("ping_interval must be 0.1-60 s and reconnect_max 0.1-300 s")
        if not 0 <= self.sim_roll_ms <= 10_000:
            raise ValueError("sim_roll_ms must be 0-10000")


class CameraSettings(_Section):
    #: "sim" renders the table; other sources come with the camera adapters
    source: str = "sim"


class VisionSettings(_Section):
    """The camera's view of the table (companion/vision): calibration, cross-checks, warnings."""

    #: watch the table and check it against the game (needs a camera)
    enabled: bool = True
    #: table side (as the corner markers define it) where the player who began as East sits
    first_east_side: Literal["bottom", "right", "top", "left"] = "bottom"
    #: table size in cm (width, depth), as the corner markers were laid out
    table_size_cm: list[float] = msgspec.field(default_factory=lambda: [80.0, 80.0])
    #: manual calibration: the four table corners in image pixels (TL, TR, BR, BL), when no markers are used
    manual_corners: list[list[float]] | None = None
    #: tile size in cm: width along the wall, depth across it, thickness
    tile_cm: list[float] = msgspec.field(default_factory=lambda: [2.2, 2.9, 1.6])
    #: side of the ordinary dice in cm
    die_cm: float = 1.8
    #: seconds the scene must hold still before it is read (hands moving over the table are ignored)
    still_seconds: float = 1.0
    #: mean grey-level change between frames (0..255) below which the scene counts as still
    still_threshold: float = 2.0
    #: record dice read by the camera as throws (source "camera"); off when only the dice box is used
    read_dice: bool = True
    #: warn when this many live tiles or fewer remain
    warn_tiles_left: int = 14
    #: frames per second the watcher looks at
    fps: float = 4.0

    def __post_init__(self) -> None:
        if len(self.table_size_cm) != 2 or min(self.table_size_cm) < 30:
            raise ValueError("table_size_cm must be [width, depth], each at least 30")
        if len(self.tile_cm) != 3 or min(self.tile_cm) <= 0:
            raise ValueError("tile_cm must be [width, depth, thickness] in cm")
        if self.still_seconds < 0 or self.fps <= 0 or self.warn_tiles_left < 0:
            raise ValueError("still_seconds, warn_tiles_left must be >= 0 and fps > 0")


class GpioSettings(_Section):
    #: "mock" uses gpiozero's MockFactory (no hardware); "real" uses the Pi's pins
    backend: Literal["mock", "real"] = "mock"


class Settings(_Section):
    #: where the game log and house-rule variants live; survives upgrades
    data_dir: str = ""
    server: ServerSettings = msgspec.field(default_factory=ServerSettings)
    game: GameSettings = msgspec.field(default_factory=GameSettings)
    dice: DiceSettings = msgspec.field(default_factory=DiceSettings)
    camera: CameraSettings = msgspec.field(default_factory=CameraSettings)
    gpio: GpioSettings = msgspec.field(default_factory=GpioSettings)
    vision: VisionSettings = msgspec.field(default_factory=VisionSettings)

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser()

    @property
    def db_path(self) -> Path:
        return self.data_path / "games.sqlite3"

    @property
    def variant_dirs(self) -> list[Path]:
        """Where house-rule variant files are looked for, before the built-ins."""
        return [self.data_path / "variants"]


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_config_file() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / CONFIG_FILE_NAME


def read_config_file(path: Path) -> dict[str, Any]:
    return read_toml(path, ConfigError, "config file")


def _env_overrides(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if env.get("COMPANION_DATA_DIR"):
        out["data_dir"] = env["COMPANION_DATA_DIR"]
    server: dict[str, Any] = {}
    if env.get("COMPANION_HOST"):
        server["host"] = env["COMPANION_HOST"]
    if env.get("COMPANION_PORT"):
        try:
            server["port"] = int(env["COMPANION_PORT"])
        except ValueError:
            raise ConfigError(f"COMPANION_PORT must be a number, not {env['COMPANION_PORT']!r}") from None
    if server:
        out["server"] = server
    return out


def load_settings(
    config_file: str | Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build the settings. `overrides` (from command-line options) win over everything."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    origin = "defaults"
    path = Path(config_file) if config_file else (Path(env["COMPANION_CONFIG"]) if env.get("COMPANION_CONFIG") else None)
    if path is None and default_config_file().is_file():
        path = default_config_file()
    if path is not None:
        data = read_config_file(path)
        origin = str(path)
    data = deep_merge(data, _env_overrides(env))
    data = deep_merge(data, overrides or {})
    settings = convert(data, Settings, origin, ConfigError)
    if not settings.data_dir:
        settings.data_dir = str(default_data_dir())
    return settings
