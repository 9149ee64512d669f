"""Typed settings: defaults → TOML file → environment → command-line options.

Every setting has a sane default, so `companion run` needs no file at all. A config
file holds only what differs; unknown keys are errors that name the key. The
environment overrides the data directory and the port (COMPANION_DATA_DIR,
COMPANION_PORT, COMPANION_HOST; COMPANION_CONFIG names the file). Without --config or
COMPANION_CONFIG the file is the user's own, else the appliance's /etc/companion/companion.toml.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec
import platformdirs

from companion.errors import ConfigError
from companion.validation import convert, deep_merge, read_toml

APP_NAME = "mahjong-companion"
CONFIG_FILE_NAME = "companion.toml"
#: the appliance's configuration (deploy/install.sh puts it there): read when no other is given,
#: so that `companion doctor` on the Pi checks the hardware the service uses, not simulated twins
SYSTEM_CONFIG_FILE = Path("/etc/companion") / CONFIG_FILE_NAME


class _Section(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


#: an address phones can open: http(s)://host[:port][/path], no query or fragment
_PUBLIC_URL = re.compile(r"https?://[A-Za-z0-9.\-\[\]:]+(?::\d{1,5})?(?:/[^\s?#]*)?")


class ServerSettings(_Section):
    #: address the dashboard listens on; 0.0.0.0 lets the players' phones reach it
    host: str = "0.0.0.0"
    #: 0 picks any free port (the URL printed at start says which)
    port: int = 8080
    #: waitress worker threads; every live connection (event stream, camera view) holds one: 6 are
    #: kept for ordinary requests and camera.max_viewers (+ spectator_viewers) for the camera view,
    #: the rest take event streams (64: 55 streams, a table needs about 10; docs/security.md)
    threads: int = 64
    #: open connections at once (idle, slow or busy); above this new ones wait. Each is a file
    #: descriptor, not a thread: the limit is raised to fit at start
    max_connections: int = 2000
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
    #: the address phones reach the dashboard at, for the join QR code and link (e.g.
    #: http://mahjong.local:8080 or a proxy's https://…); empty: the Pi's own screen (a browser on
    #: 127.0.0.1) shows the Pi's address on its network, found at each request
    public_url: str = ""
    #: wrong codes accepted from one address per minute before it must wait (429); each further
    #: lock-out of that address lasts twice as long (1, 2, 4 … 60 minutes)
    join_attempts_per_minute: int = 5
    #: reverse proxies in front of the dashboard whose X-Forwarded-For/-Proto are believed (0: none,
    #: the peer's own address counts; 1: one nginx/Caddy on the Pi). Too many lets anyone fake theirs
    trusted_proxies: int = 0
    #: hours a joined phone stays joined, counted from joining (not renewed by use); "Leave" ends it
    session_hours: int = 24
    #: live event streams for spectators who joined without the table code (0: none; they see the
    #: game when a page loads, and refresh it every few seconds). Joined phones always get one
    spectator_streams: int = 0

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
        if self.public_url and not _PUBLIC_URL.fullmatch(self.public_url):
            raise ValueError(f"public_url {self.public_url!r}: give the address phones open, such as "
                             "http://mahjong.local:8080 (http:// or https://, a host, an optional port and path)")
        if not 0 <= self.trusted_proxies <= 5:
            raise ValueError("trusted_proxies must be between 0 (no proxy) and 5")
        if not 1 <= self.session_hours <= 24 * 365:
            raise ValueError("session_hours must be between 1 and 8760 (a year)")
        if not 100 <= self.max_connections <= 100000:
            raise ValueError("max_connections must be between 100 and 100000")
        if self.spectator_streams < 0:
            raise ValueError("spectator_streams must be 0 or more")
        if self.spectator_streams and self.threads - 6 - self.spectator_streams < 8:
            raise ValueError(f"threads ({self.threads}) leave fewer than 8 event streams for joined phones "
                             f"beside 6 for requests and spectator_streams ({self.spectator_streams}); "
                             "raise threads or lower spectator_streams")


class GameSettings(_Section):
    #: variant for new games: a built-in name, a name of a file in <data_dir>/variants, or a path
    variant: str = "classical"
    #: names for the first game when none has been played yet (first-hand seats E, S, W, N)
    players: list[str] = msgspec.field(default_factory=lambda: ["East", "South", "West", "North"])


#: pyserial's URL handlers (serial_for_url); the network ones need host:port
_SERIAL_SCHEMES = {"socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110"}
_NETWORK_URL = re.compile(r"(?:socket|rfc2217)://[^/:?]+:\d{1,5}(?:[/?].*)?")


def _check_serial_url(url: str) -> None:
    """A port path or a pyserial URL that can be opened at all (a relative name, a made-up scheme
    or a network URL without its port only fails later, deep inside pyserial)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else None
    if scheme is None:
        if not url.startswith("/"):
            raise ValueError(f"url {url!r}: give the port's full path (e.g. /dev/{url.lstrip('./')}, or "
                             "/dev/serial/by-id/… which stays the same after a replug), 'sim', or a pyserial URL")
    elif scheme not in _SERIAL_SCHEMES:
        raise ValueError(f"url {url!r}: {scheme}:// is not a serial URL pyserial knows "
                         f"(one of: {', '.join(sorted(s + '://' for s in _SERIAL_SCHEMES))})")
    elif scheme in ("socket", "rfc2217") and not _NETWORK_URL.fullmatch(url):
        raise ValueError(f"url {url!r}: a network port needs its host and port, e.g. {scheme}://192.168.1.20:4000")


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
        if self.url.strip().lower() == "sim":  # as camera.source: "Sim" is the sim, not a port named Sim
            self.url = "sim"
        else:
            _check_serial_url(self.url)
        if not 0.1 <= self.ping_interval <= 60 or not 0.1 <= self.reconnect_max <= 300:
            raise ValueError("ping_interval must be 0.1-60 s and reconnect_max 0.1-300 s")
        if not 0 <= self.sim_roll_ms <= 10_000:
            raise ValueError("sim_roll_ms must be 0-10000")


class CameraSettings(_Section):
    #: where frames come from: "sim" (rendered table), "picamera2" (Pi camera module), "opencv:0" or
    #: "opencv:/dev/video0" (USB webcam), "replay:/path/to/folder-or-video", or "off" (no camera)
    source: str = "sim"
    #: frame size asked of the camera; the vision pipeline is tuned for 1280x720
    width: int = 1280
    height: int = 720
    #: frames per second asked of the camera (a replay is paced to this rate)
    fps: float = 15.0
    #: lock exposure and gain after a short warm-up, so the table's brightness stays constant for recognition
    exposure_lock: bool = False
    #: degrees clockwise to turn each frame, for a camera mounted turned on its arm
    rotation: Literal[0, 90, 180, 270] = 0
    #: the dashboard's live view: at most this many frames per second (recognition always gets every frame)
    view_fps: float = 5.0
    #: the live view is scaled down to this width (pixels) before JPEG encoding, to spare the CPU
    view_width: int = 960
    #: live-view viewers at once among joined phones; each holds one web server thread
    max_viewers: int = 3
    #: live-view viewers at once among spectators who joined without the table code (0: the live
    #: view is for joined phones only)
    spectator_viewers: int = 0

    def __post_init__(self) -> None:
        from companion.hardware.camera.sources import parse_source  # one parser for config, `run` and `doctor`

        problems = []  # all of them at once, so `companion config check` can explain every one
        try:
            parse_source(self.source)
        except ValueError as e:
            problems.append(str(e))
        if self.width < 16 or self.height < 16:
            problems.append("width and height must be at least 16 pixels")
        if not 0 < self.fps <= 120:
            problems.append("fps must be above 0 and at most 120")
        if not 0 < self.view_fps <= 30:
            problems.append("view_fps must be above 0 and at most 30")
        if self.view_width < 160:
            problems.append("view_width must be at least 160 pixels")
        if not 1 <= self.max_viewers <= 16:
            problems.append("max_viewers must be between 1 and 16")
        if not 0 <= self.spectator_viewers <= 16:
            problems.append("spectator_viewers must be between 0 and 16")
        if problems:
            raise ValueError("; ".join(problems))


#: "none": the part is not fitted
NoPin = Literal["none"]


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
    #: the camera lens's height over the table in cm, measured once at installation; unset, it is
    #: estimated from the markers (roughly: 0.8-1.4 times the truth), which puts the point below
    #: the camera, and so the parallax the walls and dice are read with, up to 10 cm off
    camera_height_cm: float | None = None
    #: seconds the scene must hold still before it is read (hands moving over the table are ignored)
    still_seconds: float = 1.0
    #: mean grey-level change between frames (0..255) below which the scene counts as still
    still_threshold: float = 2.0
    #: record dice read by the camera as throws (source "camera"); off when only the dice box is used
    read_dice: bool = True
    #: read the face-up tiles of each still scene for the live view (0.15-0.5 s a scene on a
    #: 2-core machine; off on a slow board, the other checks do not need them)
    read_tiles: bool = True
    #: warn when this many live tiles or fewer remain
    warn_tiles_left: int = 14
    #: frames per second the watcher looks at
    fps: float = 4.0
    #: still scenes the camera acted on (a throw or break recorded, a warning) kept in the data
    #: folder's vision_samples/ for whoever improves the reading, oldest dropped first (0.1-0.3
    #: MB each at 1280x720); 0 keeps none. The host downloads them from Settings -> Camera samples.
    keep_samples: int = 60

    def __post_init__(self) -> None:
        if len(self.table_size_cm) != 2 or min(self.table_size_cm) < 30:
            raise ValueError("table_size_cm must be [width, depth], each at least 30")
        if len(self.tile_cm) != 3 or min(self.tile_cm) <= 0:
            raise ValueError("tile_cm must be [width, depth, thickness] in cm")
        if self.still_seconds < 0 or self.fps <= 0 or self.warn_tiles_left < 0:
            raise ValueError("still_seconds, warn_tiles_left must be >= 0 and fps > 0")
        if self.keep_samples < 0:
            raise ValueError("keep_samples must be 0 (keep none) or more")
        if self.camera_height_cm is not None and not 20 <= self.camera_height_cm <= 400:
            raise ValueError("camera_height_cm must be the lens's height over the table, 20-400 cm "
                             "(leave it out to estimate it from the markers)")
        corners = self.manual_corners
        if corners is not None and (len(corners) != 4 or any(len(c) != 2 for c in corners)):
            raise ValueError("manual_corners must be the table's four corners in image pixels, "
                             "[[x, y], [x, y], [x, y], [x, y]] (top left, top right, bottom right, bottom left)")


#: pins the Pi also uses for something else: a lamp or button there works badly or clashes with it
SHARED_PINS = {
    2: "I²C SDA, with a fixed pull-up on the Pi: a lamp there glows when off, and I²C devices clash with it",
    3: "I²C SCL, with a fixed pull-up on the Pi: a lamp there glows when off, and I²C devices clash with it",
    14: "UART TX, the serial console: a lamp there flickers with its text, and using the pin cuts the console off",
    15: "UART RX, the serial console: a button there types into it, and using the pin cuts the console off",
}


class GpioSettings(_Section):
    """Pins are BCM GPIO numbers (as printed on pinout.xyz), not header positions; see hardware_docs/wiring.md."""

    #: "mock" uses gpiozero's MockFactory (no hardware); "real" uses the Pi's pins
    backend: Literal["mock", "real"] = "mock"
    #: dealer lamps, one in front of each seat, for the players who began as East, South, West, North
    #: ([] = none fitted); the lit one follows the current East (R11)
    seat_lamps: list[int] = msgspec.field(default_factory=lambda: [17, 27, 22, 23])
    #: prevalent-wind lamps for East, South, West, North (R13); [] = none fitted
    wind_lamps: list[int] = msgspec.field(default_factory=lambda: [24, 25, 5, 6])
    #: "hand over" buttons, one at each seat in the same order as seat_lamps ([] = none fitted):
    #: press = "I won"; the discarder's press within discard_window = "from me"; hold = the hand is drawn
    seat_buttons: list[int] = msgspec.field(default_factory=lambda: [12, 16, 20, 21])
    #: the undo button: cancels a win being entered, else undoes the latest event
    undo_button: int | NoPin = 26
    #: an active buzzer (through a transistor) that beeps on warnings; "none" if not fitted
    buzzer: int | NoPin = 19
    #: seconds a button is held for a long press (a drawn hand)
    hold_time: float = 1.5
    #: seconds after "I won" in which the discarder may press to say "from me"; then it counts as self-drawn
    discard_window: float = 6.0
    #: seconds of contact bounce ignored after a press
    bounce_time: float = 0.05

    def __post_init__(self) -> None:
        problems = []  # all of them at once, so `companion config check` can explain every one
        for name in ("seat_lamps", "wind_lamps", "seat_buttons"):
            if len(getattr(self, name)) not in (0, 4):
                problems.append(f"{name} needs 4 pins (East, South, West, North) or [] for none")
        seen: dict[int, str] = {}
        for name, pin in self._pins():
            if not 2 <= pin <= 27:
                problems.append(f"{name}: GPIO{pin} is not a usable pin (BCM numbers 2 to 27)")
            elif pin in seen:
                problems.append(f"GPIO{pin} is used twice" + (f" in {name}" if seen[pin] == name else
                                                               f": by {seen[pin]} and by {name}"))
            seen.setdefault(pin, name)
        if not 0.2 <= self.hold_time <= 10:
            problems.append("hold_time must be between 0.2 and 10 seconds")
        if not 1 <= self.discard_window <= 60:
            problems.append("discard_window must be between 1 and 60 seconds")
        if not 0 <= self.bounce_time <= 0.5:
            problems.append("bounce_time must be between 0 and 0.5 seconds")
        if problems:
            raise ValueError("; ".join(problems))

    def _pins(self) -> list[tuple[str, int]]:
        """(setting, pin) for every pin in use."""
        pins = [(name, p) for name in ("seat_lamps", "wind_lamps", "seat_buttons") for p in getattr(self, name)]
        pins += [(name, getattr(self, name)) for name in ("undo_button", "buzzer") if getattr(self, name) != "none"]
        return pins

    def warnings(self) -> list[str]:
        """Pins that work, but badly or at the cost of I²C or the serial console: warnings, not errors."""
        return [f"{name}: GPIO{pin} is {SHARED_PINS[pin]}; better a free pin (hardware_docs/wiring.md)"
                for name, pin in self._pins() if pin in SHARED_PINS]


_MQTT_URL = re.compile(r"(mqtts?)://([^/:?#\s]+)(?::(\d{1,5}))?/?")
#: a table id goes into MQTT topic names: no "/", "+", "#" and nothing a file name or a URL must escape
_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def parse_broker(url: str) -> tuple[str, int, bool]:
    """(host, port, tls) of an MQTT broker URL: mqtt://host[:1883] or mqtts://host[:8883]."""
    m = _MQTT_URL.fullmatch(url.strip())
    if not m:
        raise ValueError(f"broker {url!r}: give the broker as mqtt://HOST:PORT (or mqtts://HOST:PORT for TLS)")
    tls = m.group(1) == "mqtts"
    port = int(m.group(3)) if m.group(3) else (8883 if tls else 1883)
    if not 1 <= port <= 65535:
        raise ValueError(f"broker {url!r}: port must be between 1 and 65535")
    return m.group(2), port, tls


def check_table_id(table_id: str) -> str:
    if not _TABLE_ID.fullmatch(table_id):
        raise ValueError(f"table_id {table_id!r}: 1 to 32 letters, digits, '-', '_' or '.', beginning with a "
                         "letter or digit (it is part of the MQTT topics)")
    return table_id


class ClubSettings(_Section):
    """The club hub (docs/club.md): the table publishes its game log to an MQTT broker. Off while
    `broker` is empty: the table then works exactly as on its own."""

    #: the club's broker, mqtt://HOST:PORT (mqtts:// for TLS); empty: no club
    broker: str = ""
    #: this table's name in the club (part of the topics): "1", "table-7", "A3"
    table_id: str = ""
    #: the broker login of this table (docs/club.md makes one per table); empty: anonymous
    username: str = ""
    password: str = ""
    #: TLS to the broker (also implied by mqtts://); `ca_file` names the club's CA where it is not a public one
    tls: bool = False
    ca_file: str = ""
    #: seconds without the hub acknowledging what was sent before it is sent again from the last ack
    resend_after: float = 5.0
    #: events sent ahead of the hub's acknowledgement (go-back-N window)
    window: int = 100

    def __post_init__(self) -> None:
        problems = []
        if self.broker:
            try:
                parse_broker(self.broker)
            except ValueError as e:
                problems.append(str(e))
            if not self.table_id:
                problems.append("table_id is needed with a broker: the table's name in the club")
        if self.table_id:
            try:
                check_table_id(self.table_id)
            except ValueError as e:
                problems.append(str(e))
        if self.password and not self.username:
            problems.append("a password needs its username")
        if not 0.5 <= self.resend_after <= 600:
            problems.append("resend_after must be 0.5-600 seconds")
        if not 1 <= self.window <= 10_000:
            problems.append("window must be 1-10000 events")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def enabled(self) -> bool:
        return bool(self.broker)

    @property
    def use_tls(self) -> bool:
        return self.tls or parse_broker(self.broker)[2]


class Settings(_Section):
    #: where the game log and house-rule variants live; survives upgrades
    data_dir: str = ""
    server: ServerSettings = msgspec.field(default_factory=ServerSettings)
    game: GameSettings = msgspec.field(default_factory=GameSettings)
    dice: DiceSettings = msgspec.field(default_factory=DiceSettings)
    camera: CameraSettings = msgspec.field(default_factory=CameraSettings)
    gpio: GpioSettings = msgspec.field(default_factory=GpioSettings)
    vision: VisionSettings = msgspec.field(default_factory=VisionSettings)
    club: ClubSettings = msgspec.field(default_factory=ClubSettings)

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


def config_path(config_file: str | Path | None = None, env: Mapping[str, str] | None = None) -> Path | None:
    """The configuration file in use: the one named (--config, then COMPANION_CONFIG), else the
    user's own, else the appliance's; None when there is none (all defaults)."""
    env = os.environ if env is None else env
    if config_file:
        return Path(config_file)
    if env.get("COMPANION_CONFIG"):
        return Path(env["COMPANION_CONFIG"])
    return next((f for f in (default_config_file(), SYSTEM_CONFIG_FILE) if f.is_file()), None)


def load_settings(
    config_file: str | Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    no_file: bool = False,
    overrides_from: str = "command-line options",
) -> Settings:
    """Build the settings. `overrides` (from command-line options) win over everything;
    `no_file`: read no configuration file at all (`config check` passes a file's sound keys as
    overrides, `overrides_from` naming the file in messages)."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    origin = "defaults"
    path = None if no_file else config_path(config_file, env)
    if path is not None:
        data = read_config_file(path)
        origin = str(path)
    data = deep_merge(data, _env_overrides(env))
    data = deep_merge(data, overrides or {})
    # a bad value is named with where it may have come from: the file, the environment, the options
    given = [n for n in ("COMPANION_DATA_DIR", "COMPANION_HOST", "COMPANION_PORT") if env.get(n)]
    given += [overrides_from] if overrides else []
    if given:
        origin += " with " + ", ".join(given)
    settings = convert(data, Settings, origin, ConfigError)
    if not settings.data_dir:
        settings.data_dir = str(default_data_dir())
    return settings
