"""Typed settings: defaults → TOML file → environment → command-line options.

Every setting has a sane default, so `companion run` needs no file at all. A config
file holds only what differs; unknown keys are errors that name the key. The
environment overrides the data directory and the port (COMPANION_DATA_DIR,
COMPANION_PORT, COMPANION_HOST; COMPANION_CONFIG names the file).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal, Mapping

import msgspec
import platformdirs

from companion.errors import ConfigError
from companion.validation import convert

APP_NAME = "mahjong-companion"
CONFIG_FILE_NAME = "companion.toml"


class _Section(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class ServerSettings(_Section):
    #: address the dashboard listens on; 0.0.0.0 lets the players' phones reach it
    host: str = "0.0.0.0"
    #: 0 picks any free port (the URL printed at start says which)
    port: int = 8080
    #: waitress worker threads; every phone's live connection (SSE) holds one, so this bounds the
    #: phones that can watch at once (a few are kept back for ordinary requests)
    threads: int = 64
    #: the code players type (or scan) to join; empty: one is made up and kept in the data dir
    table_code: str = ""
    #: the code that makes a phone the host (new games, new table code); empty: made up and kept
    host_code: str = ""
    #: false: anyone on the network may watch (spectate); true: watching needs the table code too
    require_code_for_reads: bool = False
    #: mark the session cookie Secure: only when the dashboard is served over HTTPS (a proxy)
    secure_cookies: bool = False
    #: the Pi's own screen (a browser on 127.0.0.1) shows the join QR code and table code
    local_screen_shows_code: bool = True
    #: wrong codes accepted from one address per minute before it must wait (429)
    join_attempts_per_minute: int = 5

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError("port must be between 1 and 65535 (or 0 for any free port)")
        if not 4 <= self.threads <= 1024:
            raise ValueError("threads must be between 4 and 1024")
        for field_name in ("table_code", "host_code"):
            code = getattr(self, field_name)
            if code and not (4 <= len(code) <= 32 and code.isalnum()):
                raise ValueError(f"{field_name} must be 4 to 32 letters or digits")
        if self.join_attempts_per_minute < 1:
            raise ValueError("join_attempts_per_minute must be at least 1")


class GameSettings(_Section):
    #: variant for new games: a built-in name, a name of a file in <data_dir>/variants, or a path
    variant: str = "classical"
    #: names for the first game when none has been played yet (first-hand seats E, S, W, N)
    players: list[str] = msgspec.field(default_factory=lambda: ["East", "South", "West", "North"])


class DiceSettings(_Section):
    #: "sim" runs the virtual dice box; otherwise a pyserial URL: /dev/ttyACM0, socket://host:port, rfc2217://…
    url: str = "sim"


class CameraSettings(_Section):
    #: "sim" renders the table; other sources come with the camera adapters
    source: str = "sim"


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


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in override.items():
        out[k] = _merge(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k), dict) else v
    return out


def read_config_file(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None


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
    data = _merge(data, _env_overrides(env))
    data = _merge(data, overrides or {})
    settings = convert(data, Settings, origin, ConfigError)
    if not settings.data_dir:
        settings.data_dir = str(default_data_dir())
    return settings
