"""`companion doctor`: is the camera, dice box, GPIO, disk and game log healthy? In plain words or JSON."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import click

from companion.cli.common import config_options, emit_json, fail, settings_from
from companion.errors import CompanionError


def local_url(host: str, port: int) -> str | None:
    """Where this machine reaches its own companion's /healthz (None: port 0, chosen at start)."""
    if not port:
        return None
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}/healthz" if ":" in host else f"http://{host}:{port}/healthz"


def ask_service(url: str, timeout: float = 3.0) -> dict | None:
    """The running companion's own report from /healthz, or None if no companion answers there."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 503: the service answers, and something is broken
        try:
            return json.load(e)
        except ValueError:
            return None
    except (OSError, ValueError):
        return None


@click.command("doctor")
@config_options
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--standalone", is_flag=True,
              help="Probe the hardware here even if a companion is running (it may hold the camera and pins).")
@click.option("--url", default=None, metavar="URL",
              help="Ask this companion's /healthz  [default: http://127.0.0.1:<server.port>/healthz]")
def doctor(config_file: Path | None, data_dir: Path | None, as_json: bool, standalone: bool, url: str | None):
    """Check the camera, dice link, GPIO, disk and game log; exit 1 if something is broken.

    If a companion is running on this machine its live report is shown (it holds the camera and
    the pins); otherwise each part is opened briefly and closed again.
    """
    from companion.health import HealthReport, standalone_report
    from companion.storage.lock import DataDirLock

    try:
        settings = settings_from(config_file, data_dir)
    except CompanionError as e:
        raise fail(e) from None
    if url is not None and not url.startswith(("http://", "https://")):
        raise fail(f"--url: give the companion's address, e.g. http://mahjong.local:8080/healthz, not {url!r}")
    report = None
    # a companion on this data folder or its game log, whatever it answers
    running = DataDirLock(settings.data_path, settings.db_path).holder()
    if not standalone:
        target = url or local_url(settings.server.host, settings.server.port)
        data = ask_service(target) if target else None
        if data is not None:
            try:
                report = HealthReport.from_json(data)
            except (KeyError, TypeError, ValueError, AttributeError):
                report = None
            if report is None and url:  # asked for that one: this machine's report would mislead
                if isinstance(data, dict) and set(data) == {"ok"} and isinstance(data["ok"], bool):  # a stranger's /healthz
                    raise fail(f"{url} says {'ok' if data['ok'] else 'NOT ok'}; it gives its full report only to "
                               "the Pi itself and the host: run `companion doctor` on the Pi")
                raise fail(f"{url} answers, but not with a companion's health report")
        elif url:
            raise fail(f"no companion answers at {url}")
        elif running:  # it holds the camera, the dice box and the pins: probing them would only clash
            raise fail(f"a companion is running on {settings.data_path} (process {running}) but does not answer"
                       f" at {target or 'its address (server.port = 0)'}; try --url, or --standalone")
    if report is None:
        report = standalone_report(settings)
    if as_json:
        emit_json(report.to_json())
    else:
        where = ("the running companion" if report.source == "service" else
                 f"this machine (probed directly, beside the companion running as process {running})" if running else
                 "this machine (no companion running)")
        click.echo(f"Health of {where}:")
        click.echo(report.text())
    raise SystemExit(0 if report.ok else 1)
