"""`companion run`: the companion with its dashboard, on simulated hardware unless told otherwise."""

from __future__ import annotations

import logging
import signal
import socket
from pathlib import Path

import click

from companion.cli.common import fail
from companion.config import load_settings
from companion.errors import CompanionError

log = logging.getLogger("companion")


def lan_address() -> str:
    """The address phones on the same network can reach (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET address: only picks the outgoing interface
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


@click.command("run")
@click.option("--host", default=None, help="Address to listen on  [default: 0.0.0.0]")
@click.option("--port", type=int, default=None, help="Port of the dashboard  [default: 8080]")
@click.option("--public-url", default=None, metavar="URL",
              help="Address phones open, for the join link and QR code (e.g. http://mahjong.local:8080)  "
                   "[default: this machine's network address]")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the game log lives  [default: the user's data directory]")
@click.option("--variant", default=None, help="Rule variant for a new game  [default: classical]")
@click.option("--dice", "dice_url", default=None, metavar="URL",
              help="Dice box: a serial URL (/dev/ttyACM0, socket://host:port) or 'sim'  [default: sim]")
@click.option("--camera", "camera_spec", default=None, metavar="SPEC", help="Camera source  [default: sim]")
@click.option("--club", "club_broker", default=None, metavar="mqtt://HOST:PORT",
              help="Publish the game log to the club's hub through this MQTT broker (docs/club.md).")
@click.option("--table-id", default=None, metavar="ID", help="This table's name in the club (with --club).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Configuration file (TOML).")
@click.option("-v", "--verbose", is_flag=True, help="Log more.")
def run(host, port, public_url, data_dir, variant, dice_url, camera_spec, club_broker, table_id, config_file, verbose):
    """Start the companion: game log, dice, camera, lamps and the dashboard for the phones."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    overrides: dict = {}
    if data_dir is not None:
        overrides["data_dir"] = str(data_dir)
    server = {k: v for k, v in {"host": host, "port": port, "public_url": public_url}.items() if v is not None}
    if server:
        overrides["server"] = server
    if variant:
        overrides["game"] = {"variant": variant}
    if dice_url:
        overrides["dice"] = {"url": dice_url}
    if camera_spec:
        overrides["camera"] = {"source": camera_spec}
    club = {k: v for k, v in {"broker": club_broker, "table_id": table_id}.items() if v is not None}
    if club:
        overrides["club"] = club
    from companion.cli.stopping import SignalWaiter
    from companion.storage.lock import DataDirLock

    # a signal while the services are built (the first second or two) must not raise
    # KeyboardInterrupt in the middle of starting threads and claiming devices: it is noted, and
    # the companion stops as soon as it has started, as it would a moment later. The handler
    # takes no lock (see SignalWaiter: one that did could hang the companion for good).
    signals = SignalWaiter()
    signals.catch((signal.SIGINT, signal.SIGTERM), "stop")
    try:
        settings = load_settings(config_file, overrides=overrides)
        from companion.services import build_services
        from companion.web.server import add_dashboard

        lock = DataDirLock(settings.data_path, settings.db_path)  # one companion per game log, before it is opened
        lock.acquire()
        services = build_services(settings)
        web = add_dashboard(services)
        services.start()
    except CompanionError as e:
        signals.close()
        raise fail(e) from None
    except OSError as e:
        signals.close()
        raise fail(f"cannot start: {e}") from None

    shown = lan_address() if settings.server.host in ("0.0.0.0", "") else settings.server.host
    click.echo(f"Dashboard: http://{shown}:{web.port}/   (game log: {settings.db_path})")
    from companion.web.terminal import join_banner
    click.echo(join_banner(web.app, settings.server.public_url.rstrip("/") or f"http://{shown}:{web.port}"))
    if not signals.noted("stop"):
        click.echo("Press Ctrl+C to stop.")
    try:
        while "stop" not in signals.wait(None):
            pass
    finally:
        click.echo("Stopping …")
        services.stop()
        lock.release()
        signals.close()
        click.echo("Stopped.")
