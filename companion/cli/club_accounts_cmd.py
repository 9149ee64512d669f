"""`companion club-accounts`: broker logins and an ACL for a club's tables and its hub (docs/club.md)."""

from __future__ import annotations

from pathlib import Path

import click

from companion.cli.common import fail


@click.command("club-accounts")
@click.option("--tables", "spec", required=True, metavar="IDS", help="Table ids: 1-20, or A1,A2,B1, or 1-8,12.")
@click.option("--broker", required=True, metavar="mqtt://HOST:PORT", help="The broker as the tables reach it.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for club.passwd, club.acl, club.conf, hub.env and tables/<id>.toml.")
def club_accounts(spec, broker, out):
    """A login per table (and the hub's), the ACL that keeps each table to its own topics, and
    each table's [club] section."""
    from companion.club.accounts import parse_tables, write_accounts
    from companion.config import parse_broker

    try:
        tables = parse_tables(spec)
        _, port, _ = parse_broker(broker)
    except ValueError as e:
        raise fail(str(e)) from None
    write_accounts(out, tables, broker, listen_port=port)
    click.echo(f"{len(tables)} table logins and the hub's written to {out}:")
    click.echo(f"  sudo install -o mosquitto -m 600 {out}/club.passwd {out}/club.acl /etc/mosquitto/conf.d/ && "
               f"sudo install -m 644 {out}/club.conf /etc/mosquitto/conf.d/ && sudo systemctl restart mosquitto")
    click.echo(f"  the hub:   set -a; . {out}/hub.env; set +a; companion hub --broker {broker} …")
    click.echo(f"  each table: append {out}/tables/<id>.toml to its /etc/companion/companion.toml")
