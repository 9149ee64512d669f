"""A Mosquitto of its own on 127.0.0.1, for the fault tests and `companion bench club`.

A club runs the system's Mosquitto service (docs/club.md); this starts the same binary on a
free port with a temporary configuration, so that it can be stopped and started again
(a broker restarted mid-game) without touching the machine's own broker.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from companion.errors import CompanionError


class BrokerError(CompanionError, RuntimeError):
    """Mosquitto is not installed or does not start."""


def mosquitto_binary() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).is_file()), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalMosquitto:
    """`mosquitto -c <temp config>` listening on 127.0.0.1:`port`; `persistence`: the broker keeps
    its sessions and retained messages across a restart (in its temp folder), as a club's should."""

    def __init__(self, port: int | None = None, *, persistence: bool = False, max_queued: int = 100_000,
                 extra: list[str] | None = None) -> None:
        binary = mosquitto_binary()
        if binary is None:
            raise BrokerError("mosquitto is not installed (Debian: sudo apt install mosquitto)")
        self.binary = binary
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="companion-mosquitto-"))
        self.persistence = persistence
        self.max_queued = max_queued
        self.extra = list(extra or [])  # more configuration lines (a password file, an ACL)
        self._proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _write_config(self) -> Path:
        conf = self.dir / "mosquitto.conf"
        lines = [f"listener {self.port} 127.0.0.1", *(self.extra or ["allow_anonymous true"]),
                 # started as root, mosquitto becomes user "mosquitto", who cannot read a test's files
                 *(["user root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
                 f"max_queued_messages {self.max_queued}", "max_inflight_messages 0",
                 f"persistence {'true' if self.persistence else 'false'}",
                 f"persistence_location {self.dir}/", "log_dest stderr", "log_type error", "log_type warning"]
        conf.write_text("\n".join(lines) + "\n")
        return conf

    def start(self, timeout: float = 10.0) -> LocalMosquitto:
        conf = self._write_config()
        self._log = open(self.dir / "mosquitto.log", "ab")
        self._proc = subprocess.Popen([self.binary, "-c", str(conf)], stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise BrokerError(f"mosquitto ended at start (code {self._proc.returncode}): "
                                  f"{(self.dir / 'mosquitto.log').read_text(errors='replace')[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)  # polling the port: mosquitto says nothing when it is ready
        self.stop()
        raise BrokerError(f"mosquitto did not listen on port {self.port} within {timeout:g} s")

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()  # SIGTERM: with persistence it writes its database first
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
            self._log.close()

    def kill(self) -> None:
        """A power cut: nothing written on the way out."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None
            self._log.close()

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LocalMosquitto:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
