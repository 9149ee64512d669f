"""`companion hub`: the club hub — every table of a club on one screen, gathered over MQTT."""

from __future__ import annotations

import logging
import signal
from pathlib import Path

import click

from companion.cli.common import fail
from companion.errors import CompanionError


@click.command("hub")
@click.option("--broker", required=True, metavar="mqtt://HOST:PORT",
              help="The club's MQTT broker (mqtts:// for TLS).")
@click.option("--port", type=int, default=8090, show_default=True, help="Port of the projector page and API.")
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Where the hub keeps every table's events (club.sqlite3).")
@click.option("--username", default="", envvar="COMPANION_HUB_USERNAME", help="The hub's broker login.")
@click.option("--password", default="", envvar="COMPANION_HUB_PASSWORD",
              help="Its password (better in COMPANION_HUB_PASSWORD than on the command line).")
@click.option("--referee-code", default=None, envvar="COMPANION_REFEREE_CODE",
              help="The code the referee logs in with on /referee  [default: made up, kept in the data folder]")
@click.option("--ca-file", default="", help="The club's CA certificate for mqtts:// (else the system's).")
@click.option("-v", "--verbose", is_flag=True, help="Log more.")
def hub(broker, port, host, data_dir, username, password, referee_code, ca_file, verbose):
    """Gather every table's game log from the broker; serve the projector page and the API."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from companion.cli.stopping import SignalWaiter

    # the handler only notes the signal (SignalWaiter: one that set an Event could hang the hub for good)
    signals = SignalWaiter()
    signals.catch((signal.SIGINT, signal.SIGTERM), "stop")
    try:
        from companion.club.hub import ClubHub
        from companion.club.referee import Referee
        from companion.club.web import create_hub_app
        from companion.config import parse_broker
        from companion.storage.lock import DataDirLock
        from companion.web.server import WebServer

        parse_broker(broker)
        lock = DataDirLock(data_dir)  # one hub per data folder
        lock.acquire()
        club = ClubHub(broker, data_dir, username=username, password=password, ca_file=ca_file)
        referee = Referee(club, data_dir, referee_code)
        web = WebServer(create_hub_app(club, referee), host, port, threads=32)
        club.start()
        web.start()
    except ValueError as e:
        raise fail(str(e)) from None
    except CompanionError as e:
        raise fail(e) from None
    except OSError as e:
        raise fail(f"cannot start: {e}") from None
    click.echo(f"Club hub: http://{host if host not in ('0.0.0.0', '') else '127.0.0.1'}:{web.port}/ "
               f"(broker {broker}; data {data_dir})")
    click.echo(f"Referee: /referee, code {referee.code}")
    try:
        while "stop" not in signals.wait(None):
            pass
    finally:
        signals.close()
        web.stop()
        club.stop()
        lock.release()
        click.echo("Stopped.")
