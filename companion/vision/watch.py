"""The live cross-checks: read the table when it holds still and compare it with the game.

`StillScene` says when the picture has stopped changing for `still_seconds` (hands moving over
the table keep it from ever being still, so they never cause an event). `TableWatcher` reads
each new still scene once (`companion.vision.scene.analyse`), publishes what it saw on hub topic
"observation" (pixel coordinates, for the live view) and checks it against `table.state`:

* dice lying still in the square become a throw (source "camera"), once per dice lying there; a
  cocked die makes the throw wait and asks for it to be thrown again (R18, warning "rethrow"); a
  die whose face the reader is unsure of asks the players to check it (warning "dice_unsure").
  Only a real throw counts: dice already lying there when the watcher first looks (a restart),
  dice nudged a little without a new face, and dice that another source (the dice box, a phone)
  has just reported are taken as known, never recorded again;
* the break as seen becomes a WallBroken(source "camera") event; a break at the wrong stack warns
  "wrong_break" with the expected and observed positions (R17, R19); when every wall is later
  seen whole again, the watcher undoes the break it recorded (it took something for one);
* the East marker at another seat than East's warns "wrong_marker" (R11); a wind disc showing
  another wind than the prevalent one warns "wrong_wind" (R13);
* the live wall running low warns "few_tiles_left" (each count once).

Each still scene on which it recorded something or warned (but for "few_tiles_left"), or whose
dice it reads otherwise than a phone typed them, is kept in the data folder as a sample with what
was read and expected (`samples.SampleKeeper`), for whoever improves the reading.

The camera is anything with `latest(after_seq=None, timeout=...) -> Frame | None`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.game.events import DiceThrown, WallBroken
from companion.hardware.camera.base import Frame
from companion.rules.diagram import counted
from companion.rules.seats import WIND_NAMES
from companion.rules.variant import Variant
from companion.vision.calibrate import CalibrationError, CalibrationTracker, manual
from companion.vision.corners import clear_corners, corners_path, load_corners, save_corners
from companion.vision.dice import UNSURE_FACE_P
from companion.vision.geometry import TileSize
from companion.vision.samples import SampleKeeper, samples_path
from companion.vision.scene import SceneSettings, analyse, warm_up
from companion.worker import Worker

log = logging.getLogger(__name__)


class LatestFrames(Protocol):
    """What the watcher needs from the camera service."""

    def latest(self, after_seq: int | None = None, timeout: float = 1.0) -> Frame | None: ...


#: a still scene is a new one when this many pixels of a 320x180 grey copy differ by more than
#: LOCAL_DIFF grey levels from where it began: dice thrown in (about 35 pixels), a stack lifted
#: out for the break (about 17), while camera noise of sigma 12 changes none
LOCAL_DIFF = 20.0
LOCAL_PIXELS = 8


class StillScene:
    """Tells when the scene has held still for `hold` seconds; once per still scene.

    Two measures: the mean change between frames (`threshold`), which hands moving over the
    table exceed, and a local one against the frame the still period began with, which a small
    change exceeds (dice rolled in, the wall broken, a marker moved) without any big motion
    before it: a changed scene is read again once it holds still."""

    def __init__(self, hold: float = 1.0, threshold: float = 2.0) -> None:
        self.hold, self.threshold = hold, threshold
        self._prev: np.ndarray | None = None
        self._anchor: np.ndarray | None = None  # the fine copy of the frame the still period began with
        self._still_since: float | None = None
        self._reported = False
        self.motion = 0.0

    def feed(self, image: np.ndarray, t: float) -> bool:
        """True exactly when this frame completes a still period (the scene is worth reading)."""
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        fine = cv2.resize(grey, (320, 180), interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.resize(fine, (160, 90), interpolation=cv2.INTER_AREA)
        if self._prev is None:
            self._prev, self._anchor, self._still_since = small, fine, t
            return False
        self.motion = float(np.abs(small - self._prev).mean())
        self._prev = small
        if self.motion > self.threshold:
            self._still_since, self._anchor, self._reported = None, None, False
            return False
        if self._anchor is None or int((np.abs(fine - self._anchor) > LOCAL_DIFF).sum()) >= LOCAL_PIXELS:
            self._still_since, self._anchor, self._reported = t, fine, False  # a new scene: it must hold still too
            return False
        if not self._reported and t - self._still_since >= self.hold:
            self._reported = True
            return True
        return False

    def read_again(self) -> None:
        """The scene's reading was set aside: the next frame of this still scene is read again."""
        self._reported = False


@dataclass
class _Memory:
    """What the watcher already acted on, so that nothing is recorded or said twice."""

    dice: tuple | None = None  # None until the first look
    dice_positions: list[tuple[float, float]] = field(default_factory=list)
    dice_faces: list[int] = field(default_factory=list)  # the face of the die at each of dice_positions
    throws: tuple | None = None  # the game's throws when the dice were last taken (`_throw_mark`)
    breaks: set = field(default_factory=set)
    #: the break this watcher recorded last: (game, hand, seat, stack, event id), or None
    camera_break: tuple | None = None
    warned: set = field(default_factory=set)
    #: the throw (`_throw_mark`) whose typed dice the camera last read otherwise (a sample kept)
    disagreed: tuple | None = None


#: a die that moved less than this many of its own widths, showing the same face, was nudged
NUDGE_WIDTHS = 1.5
#: warnings that keep no sample: said once per count as the wall runs down, the same picture each time
NOT_SAMPLED = frozenset({"few_tiles_left"})


def _throw_mark(state) -> tuple:
    """Changes whenever a throw is recorded, completed or undone."""
    return (state.game, state.hand, len(state.throws), tuple(state.pending.faces) if state.pending else None)


def _latest_throw_source(state) -> str | None:
    if state.pending is not None:
        return state.pending.source
    return state.throw_sources[-1] if state.throw_sources else None


class TableWatcher(Worker):
    """Component "vision": reads still scenes from the camera and cross-checks them with the game."""

    name = "vision"

    def __init__(self, table, hub, camera: LatestFrames | None, settings, corners_file: Path | None = None,
                 samples: SampleKeeper | None = None) -> None:
        super().__init__()
        self.table, self.hub, self.camera, self.settings = table, hub, camera, settings
        #: where the still scenes it acted on are kept (None: nowhere)
        self.samples = samples
        #: what the check of the scene being read did: warnings' codes and the ids it recorded
        self._acted: dict[str, list] = {"why": [], "recorded": []}
        self.still = StillScene(settings.still_seconds, settings.still_threshold)
        size = tuple(settings.table_size_cm)
        self.calibration = CalibrationTracker(size, manual_corners=settings.manual_corners)
        #: where the corners set by hand on the dashboard are kept (`corners.py`); None: nowhere
        self.corners_file = corners_file
        #: the corners set on the dashboard in use, with the size of the picture they were set on
        self._corners: dict | None = None
        try:
            saved = load_corners(corners_file) if corners_file else None
            if saved is not None:
                self.calibration.set_manual(saved["corners"])
                self._corners = saved
        except CalibrationError as e:  # a damaged or impossible file: the host sets them again
            log.warning("vision: %s", e)
        self.memory = _Memory()
        #: readings set aside because the game changed while their frame was read (`process`)
        self.stale_readings = 0

    # --- corners set by hand (the dashboard's /calibrate) -------------------------------------
    def set_corners(self, corners: list[list[float]], size: tuple[int, int]) -> None:
        """Calibrate from the table's four corners (pixels of a `size` picture) now and after a
        restart. Raises CalibrationError, changing nothing, for corners that outline no table."""
        corners = [[round(float(x), 1), round(float(y), 1)] for x, y in corners]  # as kept, so a restart agrees
        manual(corners, self.calibration.table_size)  # refused before anything is kept
        if self.corners_file is not None:
            save_corners(self.corners_file, corners, size)
        self.calibration.set_manual(corners)
        self._corners = {"corners": corners, "image_size": list(size)}
        if self.running:
            self._status(True)

    def forget_corners(self) -> bool:
        """Back to the markers (or the configuration's `manual_corners`); True if corners were set here."""
        had = clear_corners(self.corners_file) if self.corners_file is not None else False
        self.calibration.set_manual(None)
        self._corners = None
        if self.settings.manual_corners:
            self.calibration.set_manual(self.settings.manual_corners)
        if self.running:
            self._status(True)
        return had

    def _fit_corners(self, width: int, height: int) -> None:
        """Corners set on a picture of another size (the camera's resolution changed since): scaled
        to this one when its shape is the same, else dropped (another shape is another view), so
        that they never calibrate the wrong place; the host then sees "not calibrated"."""
        if self._corners is None:
            return
        w0, h0 = self._corners["image_size"]
        if (w0, h0) == (width, height):
            return
        cal = self.calibration.current
        in_use = cal is not None and cal.source == "manual"
        if abs(width / height - w0 / h0) < 0.01 * w0 / h0:
            scaled = [[x * width / w0, y * height / h0] for x, y in self._corners["corners"]]
            self._corners = {"corners": scaled, "image_size": [width, height]}
            if in_use:
                self.calibration.set_manual(scaled)
            log.warning("vision: the table corners were set on a %dx%d picture; scaled to the camera's %dx%d",
                        w0, h0, width, height)
        else:
            self._corners = None
            if in_use:
                self.calibration.set_manual(None)
            log.warning("vision: the table corners were set on a %dx%d picture, the camera now gives %dx%d: "
                        "set them again (Settings -> Table corners)", w0, h0, width, height)

    def saved_corners(self) -> dict[str, Any] | None:
        """The corners set here: {"corners", "image_size"}, or None; a damaged file raises CalibrationError."""
        return load_corners(self.corners_file) if self.corners_file is not None else None

    # --- the component ---------------------------------------------------------------------
    def start(self) -> None:
        if self.camera is None:
            self._status(False, error="no camera")
            return
        super().start()

    def _run(self) -> None:
        seq = None
        period = 1.0 / self.settings.fps
        self._status(True)
        try:  # build detectors and templates now, so the first still scene is read as fast as the rest
            warm_up()
        except Exception:
            log.exception("vision: warm-up failed")
        blind = False
        while not self._stop.is_set():
            try:
                frame = self.camera.latest(after_seq=seq, timeout=1.0)
                if frame is not None:
                    made_on = self.table.version  # the game as it stood when the frame was taken
                    seq = frame.seq
                    if blind:  # the camera is back
                        blind = False
                        self._status(True)
                    self.process(frame, version=made_on)
                elif not blind and not self._camera_connected():
                    blind = True  # the phones see that the cross-checks are off while it is away
                    self._status(False, error="no pictures: the camera is not connected")
            except Exception:  # a bad frame must not stop the watcher
                log.exception("vision: frame failed")
            self._stop.wait(period)

    def _status(self, ok: bool, **more: Any) -> None:
        """The "vision" link status the phones show: `connected` as the other links say it, and what
        calibrates the camera now (`calibration`: "markers", "manual" or None)."""
        cal = self.calibration.current
        self.hub.set_status("vision", {"ok": ok, "connected": ok, "calibrated": bool(cal and cal.calibrated),
                                       "calibration": cal.source if cal else None,
                                       "recalibrations": self.calibration.recalibrations, **more})

    def _camera_connected(self) -> bool:
        status = getattr(self.camera, "status", None)
        return bool(status().get("connected", True)) if callable(status) else True

    # --- one frame -----------------------------------------------------------------------------
    def process(self, frame: Frame, version: int | None = None) -> dict[str, Any] | None:
        """Feed one frame; returns the observation when the frame completed a still scene.

        The frame is judged against the game as it stood when it was taken (`version`, the table's
        version then; default: now, before reading it). If the game changed before the reading is
        compared (a result recorded while the frame was read: the round's wind, the dealer, the
        break are others now), the picture may show the table as it was: the reading is set aside
        (`stale_readings`) and the next frame of the scene is read against the new state. Nothing
        can be recorded between the comparison and the events it records (the table's lock).
        """
        made_on = self.table.version if version is None else version
        if not self.still.feed(frame.image, frame.t):
            return None
        state = self.table.state
        if state is None:
            return None
        self._fit_corners(frame.image.shape[1], frame.image.shape[0])
        cal = self.calibration.update(frame.image)
        scene = self.scene_settings(state.variant, state.dealer)
        seen = analyse(frame.image, scene, calibration=cal, with_tiles=self.settings.read_tiles, name=f"frame {frame.seq}")
        seen.seq = frame.seq
        seen.size = [int(frame.image.shape[1]), int(frame.image.shape[0])]
        obs = seen.to_json()  # what the live view draws and a sample keeps
        self.hub.publish("observation", obs)
        self._status(True)
        self._acted = {"why": [], "recorded": []}
        with self.table.lock:
            if self.table.version != made_on:
                self.stale_readings += 1
                self.still.read_again()
                log.info("vision: frame %s was taken before event %s: read again", frame.seq, self.table.version)
                return None
            self.check(obs)
        if self.samples is not None and (self._acted["why"] or self._acted["recorded"]):
            self._keep_sample(frame, obs, state)
        return obs

    def _keep_sample(self, frame: Frame, obs: dict[str, Any], state) -> None:
        """Keep the frame just read with what the watcher did and what the game expected then
        (`state`: the game as it stood before the check recorded anything)."""
        cal = self.calibration.current
        typed = {"typed": self._acted["typed"]} if "typed" in self._acted else {}
        self.samples.keep(frame.image, {
            "why": list(dict.fromkeys(self._acted["why"])), "recorded": self._acted["recorded"], **typed,
            "game": state.game, "hand": state.hand, "after_event": state.last_event,
            "expected": {"break": [state.brk.wall, state.brk.stack] if state.brk else None,
                         "prevalent": state.prevalent, "east": state.east, "dealer": state.dealer,
                         "variant": state.variant.name},
            "calibration": cal.source if cal else None, "read": obs})

    def scene_settings(self, variant: Variant, dealer: int) -> SceneSettings:
        s = self.settings
        return SceneSettings(variant=variant, first_east_side=s.first_east_side, dealer=dealer, die_cm=s.die_cm,
                             tile=TileSize(*s.tile_cm), table_size=tuple(s.table_size_cm),
                             camera_height_cm=s.camera_height_cm)

    # --- comparison with the game -------------------------------------------------------------
    def check(self, obs: dict[str, Any]) -> None:
        """Compare one still observation with the game state; record events and warn."""
        if self.settings.read_dice:
            self._check_dice(obs)
        state = self.table.state
        if state is None or not obs.get("calibrated"):
            return
        self._check_break(obs, state)
        hand = (state.game, state.hand)
        seen = (obs.get("walls") or {}).get("stacks_seen")
        if seen is not None:  # walls built for another variant (longer or shorter): every stack number would be off
            n = state.variant.stacks_per_wall
            self._warn_once(("walls", state.game, seen), "wrong_wall_length",
                            f"The walls look {seen} stacks long, but {state.variant.title} builds {n}: "
                            "is this the right variant?", observed=seen, expected=n, variant=state.variant.title)
        marker = obs.get("east_marker")
        if marker is not None and marker != "E":  # R11: the marker stands in front of East
            self._warn_once(("marker", hand, marker), "wrong_marker",
                            f"The East marker is at {WIND_NAMES[marker]}'s seat — East is {state.east}",
                            expected="E", observed=marker)
        wind = obs.get("wind_shown")
        if wind is not None and wind != state.prevalent:  # R13: the disc shows the round's wind
            self._warn_once(("wind", hand, wind), "wrong_wind",
                            f"The wind disc shows {WIND_NAMES[wind]} — this is the {WIND_NAMES[state.prevalent]} round",
                            expected=state.prevalent, observed=wind)
        live = (obs.get("walls") or {}).get("live_tiles")
        if live is not None and state.brk is not None and live <= self.settings.warn_tiles_left:
            self._warn_once(("live", hand, live), "few_tiles_left", f"{live} tiles left in the live wall",
                            live_tiles=live)

    def _warn_once(self, key, code: str, message: str, **details) -> None:
        if key in self.memory.warned:
            return
        self.memory.warned.add(key)
        self._warn(code, message, **details)

    def _warn(self, code: str, message: str, **details) -> None:
        if code not in NOT_SAMPLED:
            self._acted["why"].append(code)
        self.hub.warn(code, message, **details)

    def _recorded(self, why: str, recorded) -> None:
        self._acted["why"].append(why)
        self._acted["recorded"].append(recorded.id)

    def _check_break(self, obs: dict[str, Any], state) -> None:
        walls = obs.get("walls") or {}
        seen = walls.get("break")
        if state.brk is None:
            return
        if seen is None:
            self._withdraw_break(walls, state)
            return
        seat, stack = seen
        key = (state.game, state.hand, seat, stack)
        if key in self.memory.breaks:
            return
        self.memory.breaks.add(key)
        if state.observed_break != (seat, stack):
            try:
                recorded = self.table.record(WallBroken(seat=seat, stack=stack, source="camera"))
                self.memory.camera_break = (*key, recorded.id)
                self._recorded("break", recorded)
            except CompanionError as e:
                log.warning("vision: break not recorded: %s", e)
        expected = [state.brk.wall, state.brk.stack]
        if [seat, stack] != expected:  # R19: the count went wrong
            n, end = state.variant.stacks_per_wall, state.variant.break_.count_from  # as the players counted
            self._warn(
                "wrong_break",
                f"The break should be at {WIND_NAMES[expected[0]]}'s {counted(expected[1], n, end)} — "
                f"you broke at {'the' if seat == expected[0] else WIND_NAMES[seat] + chr(39) + 's'} "
                f"{counted(stack, n, end)}",
                expected=expected, observed=[seat, stack])

    def _withdraw_break(self, walls: dict[str, Any], state) -> None:
        """Undo the break this watcher recorded when every wall now stands whole: what it took for
        the break was not one (most often a hand resting on a wall that it did not see as a hand,
        gone now). A break a player recorded is theirs and stays."""
        mark = self.memory.camera_break
        if mark is None or mark[:2] != (state.game, state.hand) or state.observed_break != mark[2:4]:
            return
        n = state.variant.stacks_per_wall
        seats = walls.get("seats") or {}
        if len(seats) != 4 or walls.get("hidden") or any(
                w["count"] != n or w["splits"] or w["hidden"] for w in seats.values()):
            return
        try:
            self.table.undo(target=mark[4])
        except CompanionError as e:
            log.warning("vision: break seen before not withdrawn: %s", e)
            return
        log.info("vision: the walls stand whole: the break seen at %s %s is withdrawn", mark[2], mark[3])
        self.memory.camera_break = None
        self.memory.breaks.discard(mark[:4])  # seen there again, it is recorded (and checked) again

    def _check_dice(self, obs: dict[str, Any]) -> None:
        state = self.table.state
        if state is None:
            return
        dice = obs.get("dice") or []
        sig = tuple(sorted((d["face"], d["cocked"], round(d["box"][0] / 8), round(d["box"][1] / 8)) for d in dice))
        positions = [((d["box"][0] + d["box"][2]) / 2, (d["box"][1] + d["box"][3]) / 2) for d in dice]
        seen = [d["face"] for d in dice]  # each die's face, in the order of `positions`
        mem, mark = self.memory, _throw_mark(state)
        if mem.dice is None or state.phase != "throw" or (mark != mem.throws and _latest_throw_source(state) not in (None, "camera")):
            # The first look (dice left from before a restart), dice lying about during play, or
            # dice the box or a phone has just reported (or a throw a player undid): known dice.
            self._disagrees(state, dice, mark)
            self._take_dice(sig, positions, mark, seen)
            return
        if sig == mem.dice or not dice:
            return  # the same dice still lying there, or none yet
        if self._nudged(dice, positions):
            self._take_dice(sig, positions, mark, seen)  # picked up or pushed aside: not a throw
            return
        expected = state.expected_throw() or {}
        rethrow = expected.get("rethrow") or []
        if not rethrow and self._one_lies_still(dice, positions):
            # a throw moves every die: one still lying where it lay, with its face, means the
            # others came into view (a hand or a sleeve lifted off them), not that they were thrown
            self._take_dice(sig, positions, mark, seen)
            return
        if rethrow:  # R18: only the dice that moved were thrown again
            old = mem.dice_positions
            moved = [i for i, p in enumerate(positions) if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 6 for q in old)]
            dice = [dice[i] for i in moved]
            if len(dice) != len(rethrow):
                return
        elif len(dice) != state.variant.dice.dice:
            return
        faces = [d["face"] for d in dice]
        cocked = [i for i, d in enumerate(dice) if d["cocked"]]
        try:
            recorded = self.table.record(DiceThrown(faces=faces, source="camera", cocked=cocked))
            self._recorded("dice", recorded)
        except CompanionError as e:
            log.warning("vision: dice not recorded: %s", e)
            return
        finally:
            self._take_dice(sig, positions, _throw_mark(self.table.state), seen)
        for i in cocked:  # R18: a cocked die is thrown again
            self._warn("rethrow", f"Die {i + 1} is cocked: throw it again", die=i, faces=faces)
        for i, d in enumerate(dice):
            if not d["cocked"] and d.get("face_p", 1.0) < UNSURE_FACE_P:  # recorded as read, but checked
                # `event`: the throw as recorded, for a phone to offer its undo
                self._warn("dice_unsure", f"Die {i + 1} reads {faces[i]}, but the camera is not sure: "
                              "check it, and correct the throw if it is wrong", die=i, face=faces[i], faces=faces,
                              event=recorded.id)

    def _disagrees(self, state, dice: list[dict], mark: tuple) -> None:
        """Dice typed on a phone (or by hand) that the camera reads otherwise, as many and none
        cocked: the typed faces are the truth, so the scene is a labelled sample of a misreading
        (kept once a throw; nothing is recorded or said, the players' word stands)."""
        typed = state.throws[-1] if state.throws and state.throw_sources[-1] in ("phone", "manual") else None
        if (typed is None or mark == self.memory.disagreed or len(dice) != len(typed)
                or any(d["cocked"] for d in dice) or sorted(d["face"] for d in dice) == sorted(typed)):
            return
        self.memory.disagreed = mark
        self._acted["why"].append("dice_disagree")
        self._acted["typed"] = list(typed)

    def _take_dice(self, sig: tuple, positions: list, mark: tuple, faces: list[int]) -> None:
        self.memory.dice, self.memory.dice_positions, self.memory.throws = sig, positions, mark
        self.memory.dice_faces = faces

    def _one_lies_still(self, dice: list[dict], positions: list) -> bool:
        """Whether some die lies where a die lay before, showing the same face (within a quarter
        of its width: not moved at all)."""
        for d, p in zip(dice, positions):
            reach = 0.25 * max(d["box"][2] - d["box"][0], d["box"][3] - d["box"][1])
            if any(face == d["face"] and np.hypot(p[0] - q[0], p[1] - q[1]) <= reach
                   for face, q in zip(self.memory.dice_faces, self.memory.dice_positions)):
                return True
        return False

    def _nudged(self, dice: list[dict], positions: list) -> bool:
        """The same faces as before, each die close to where one lay: moved by hand, not thrown."""
        old = self.memory.dice_positions
        if len(dice) != len(old) or sorted(d["face"] for d in dice) != sorted(self.memory.dice_faces):
            return False
        for d, p in zip(dice, positions):
            reach = NUDGE_WIDTHS * max(d["box"][2] - d["box"][0], d["box"][3] - d["box"][1])
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > reach for q in old):
                return False
        return True


def build(services) -> None:
    """ADAPTER_BUILDERS entry: the watcher on the "camera" component (the camera service; on
    simulated hardware its source "sim" draws the table as the game says it looks)."""
    vs = services.settings.vision
    if not vs.enabled:
        return
    camera = services.find("camera")
    if camera is None:
        log.warning("vision: no camera component; the table is not watched")
    data = services.settings.data_path
    services.add(TableWatcher(services.table, services.hub, camera, vs, corners_file=corners_path(data),
                              samples=SampleKeeper(samples_path(data), vs.keep_samples) if vs.keep_samples else None))
