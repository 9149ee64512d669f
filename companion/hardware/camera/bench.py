"""`companion bench camera`: what the camera service and the live view cost, measured on this machine.

A replayed 1280x720 table at the configured rate feeds the camera service; a consumer takes
every newest frame the way the vision pipeline does; 0, 1 and 3 live-view viewers pull
overlaid JPEGs at `view_fps` (each encoding its own pictures, the worst case, and 3 sharing
the encoded picture as the dashboard does). Printed: frames delivered per second, JPEG encoding time per
picture, and the process's CPU use in each case, so the live view's share is visible.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import click
import cv2
import numpy as np


def _scene(i: int) -> np.ndarray:
    rng = np.random.default_rng(i)
    img = np.full((720, 1280, 3), (40, 110, 50), np.uint8)
    for _ in range(144):  # tile-sized blocks, so JPEG has edges to encode
        x, y = int(rng.integers(0, 1250)), int(rng.integers(0, 690))
        cv2.rectangle(img, (x, y), (x + 18, y + 24), (200, 200, 190), -1)
    return img


class _Services:
    """Just enough of the composition root for the live view."""

    def __init__(self, camera, hub, settings) -> None:
        self.camera, self.hub, self.settings = camera, hub, settings

    def find(self, name):
        return self.camera if name == "camera" else None


def run_case(camera, view, viewers: int, seconds: float, view_fps: float, shared: bool = False) -> dict:
    stop = threading.Event()
    encode_ms: list[float] = []
    consumed = [0]

    def consumer():  # the vision pipeline's way: newest frame not seen yet
        seen = None
        while not stop.is_set():
            frame = camera.latest(after_seq=seen, timeout=1)
            if frame is not None:
                seen = frame.seq
                consumed[0] += 1

    def viewer():
        last = None
        while not stop.is_set():
            started = time.perf_counter()
            frame = camera.latest(after_seq=last, timeout=1)  # waiting for a new frame is not encoding
            if frame is None:
                continue
            if not shared:
                view._cache = None  # every picture encoded for this viewer alone: the worst case
            t0 = time.perf_counter()
            _, seq = view.jpeg(timeout=1)
            encode_ms.append((time.perf_counter() - t0) * 1000)
            last = seq
            rest = 1 / view_fps - (time.perf_counter() - started)
            if rest > 0:
                stop.wait(rest)

    threads = [threading.Thread(target=consumer)] + [threading.Thread(target=viewer) for _ in range(viewers)]
    cpu0, t0, seq0 = os.times(), time.monotonic(), camera.latest(timeout=2).seq
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    cpu1, elapsed = os.times(), time.monotonic() - t0
    frames = camera.latest(timeout=2).seq - seq0
    cpu = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / elapsed
    out = {"viewers": f"{viewers}{' shared' if shared else ''}", "frames_per_s": frames / elapsed, "consumed_per_s": consumed[0] / elapsed,
           "cpu_percent_of_one_core": 100 * cpu}
    if encode_ms:
        encode_ms.sort()
        out["jpeg_ms_p50"] = statistics.median(encode_ms)
        out["jpeg_ms_p99"] = encode_ms[min(len(encode_ms) - 1, int(len(encode_ms) * 0.99))]
    return out


@click.command("camera")
@click.option("--seconds", type=click.FloatRange(0.1, 3600), default=5.0, show_default=True, help="Length of each case.")
@click.option("--fps", type=click.FloatRange(1, 120), default=15.0, show_default=True, help="Frame rate of the replayed camera.")
@click.option("--view-fps", type=click.FloatRange(0.5, 30), default=5.0, show_default=True, help="Live view frames per second.")
def camera_bench(seconds: float, fps: float, view_fps: float) -> None:
    """Camera service throughput and the live view's cost with 0, 1 and 3 viewers."""
    from companion.config import load_settings
    from companion.hardware.camera.replay import ReplaySource
    from companion.hardware.camera.service import CameraService
    from companion.hub import Hub
    from companion.web.camera import LiveView

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(8):
            cv2.imwrite(str(Path(tmp) / f"{i}.png"), _scene(i))
        settings = load_settings(env={}, overrides={"data_dir": tmp, "camera": {"view_fps": view_fps}})
        hub = Hub()
        camera = CameraService(ReplaySource(tmp, fps=fps), hub, spec="replay", max_fps=fps * 1.25)
        camera.start()
        try:
            view = LiveView(_Services(camera, hub, settings))
            hub.publish("observation", {"size": [1280, 720], "tiles": [
                {"tile": "5p", "box": [100 + 30 * k, 300, 122 + 30 * k, 330], "score": 0.9} for k in range(14)]})
            click.echo(f"replayed 1280x720 camera at {fps:g} fps, live view {settings.camera.view_width} px wide at "
                       f"{view_fps:g} fps, {seconds:g} s per case, {os.cpu_count()} CPU cores")
            click.echo(f"{'viewers':>9}  {'frames/s':>8}  {'consumer/s':>10}  {'CPU % of a core':>15}  "
                       f"{'JPEG ms p50':>11}  {'p99':>5}")
            for viewers, shared in ((0, False), (1, False), (3, False), (3, True)):
                r = run_case(camera, view, viewers, seconds, view_fps, shared)
                jp = f"{r['jpeg_ms_p50']:11.1f}  {r['jpeg_ms_p99']:5.1f}" if "jpeg_ms_p50" in r else f"{'-':>11}  {'-':>5}"
                click.echo(f"{r['viewers']:>9}  {r['frames_per_s']:8.1f}  {r['consumed_per_s']:10.1f}  "
                           f"{r['cpu_percent_of_one_core']:15.1f}  {jp}")
        finally:
            camera.stop()
