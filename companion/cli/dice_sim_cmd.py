"""`companion dice-sim`: the virtual dice box on a pty or a TCP port, for demos and tests."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

import click

from companion.cli.common import fail

HELP_KEYS = """Type a command and Enter:
  r  press ROLL         s  shake the box       n  nudge it (not a roll)
  c  next roll lands with a cocked die        a  drop the next ACK
  g  send a line of garbage                   d  pull the cable (disconnect)
  b  reboot the box (power cycle)             q  quit"""


def help_keys(at_terminal: bool) -> str:
    """The keys, and how to stop: the end of input stops it only at a terminal (see read_commands)."""
    if at_terminal:
        return HELP_KEYS + "\nCtrl+D (the end of input) or Ctrl+C also quits."
    return HELP_KEYS + "\nThe end of standard input does not stop it: q, Ctrl+C or SIGTERM does."


def _probability(ctx, param, value):
    if value is not None and not 0.0 <= value <= 1.0:
        raise click.BadParameter("must be between 0 and 1")
    return value


@click.command("dice-sim")
@click.option("--tcp", "tcp_port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Listen on this TCP port (0: any free one) instead of a pty; connect with socket://HOST:PORT.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address for --tcp.")
@click.option("--link", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Keep a symlink here pointing at the current pty (stays valid across simulated unplugs). "
                   "A link left by a killed dice-sim is replaced; anything else there is refused.")
@click.option("--seed", type=int, default=None, help="Seed for the box's entropy source and the faults (the press timing still varies the dice).")
@click.option("--roll-ms", type=click.IntRange(0, 10_000), default=None, help="How long the dice tumble  [default: 900]")
@click.option("--garbage", type=float, default=0.0, callback=_probability, help="Probability of a noise line before each line.")
@click.option("--corrupt", type=float, default=0.0, callback=_probability, help="Probability that a line's bytes are corrupted.")
@click.option("--drop-acks", type=float, default=0.0, callback=_probability, help="Probability that an ACK from the host is lost.")
@click.option("--cocked", type=float, default=0.0, callback=_probability, help="Probability that a roll reports a cocked die (R18).")
@click.option("--disconnect-every", type=click.FloatRange(0), default=0.0, metavar="SECONDS",
              help="Pull the cable every SECONDS (0: never).")
@click.option("--auto-roll", type=click.FloatRange(0), default=0.0, metavar="SECONDS",
              help="Press ROLL every SECONDS (0: only when told).")
@click.option("--trace", is_flag=True, help="Print every line on the wire.")
def dice_sim(tcp_port, host, link, seed, roll_ms, garbage, corrupt, drop_acks, cocked, disconnect_every,
             auto_roll, trace):
    """Run the virtual dice box (the real firmware logic) and print where to connect.

    Reads commands from standard input (r + Enter presses ROLL); SIGUSR1 also presses ROLL.
    Stop with q, Ctrl+C or SIGTERM; at a terminal Ctrl+D (the end of input) quits too. When
    standard input is not a terminal (a pipe, or run in the background) its end does not stop it.
    """
    from companion.hardware.dice.sim import Faults, PtyLinkError, PtyTransport, TcpTransport, VirtualDiceBox

    faults = Faults(garbage=garbage, corrupt=corrupt, drop_acks=drop_acks, cocked=cocked,
                    disconnect_every=disconnect_every)
    box = VirtualDiceBox(seed=seed, faults=faults, roll_ms=roll_ms)
    try:
        transport = TcpTransport(box, host, tcp_port) if tcp_port is not None else PtyTransport(box, link=link)
        box.start()
        transport.start()
    except PtyLinkError as e:  # says itself what is wrong with --link
        box.stop()
        raise fail(e) from None
    except OSError as e:
        box.stop()
        raise fail(f"cannot start the virtual dice box: {e}") from None

    seen: set[tuple[str, ...]] = set()

    def show(direction: str, line: bytes) -> None:
        if trace:
            click.echo(("box  → " if direction == "box" else "host → ") + line.decode("ascii", "replace").rstrip())
            return
        body = line[1:line.find(b"*")].decode("ascii", "replace").split(",")
        key = tuple(body[:3])
        if key in seen or len(body) < 3:
            return
        if direction == "box" and body[0] == "ROLL":
            click.echo(f"rolled {' '.join(body[3:])}   (boot {body[1]}, seq {body[2]})")
        elif direction == "box" and body[0] == "COCKED":
            click.echo(f"rolled {' '.join(body[4:])}, die {int(body[3]) + 1} cocked   (boot {body[1]}, seq {body[2]})")
        elif direction == "host" and body[0] == "ACK":
            click.echo(f"  acknowledged by the host (seq {body[2]})")
        else:
            return
        seen.add(key)

    box.listeners.append(show)
    # before the banner: a script that reads it and then signals must find the handlers in place.
    # The handlers only note the signal (no lock: see SignalWaiter); the main loop acts on it.
    from companion.cli.stopping import SignalWaiter

    signals = SignalWaiter()
    signals.catch((signal.SIGINT, signal.SIGTERM), "stop")
    if hasattr(signal, "SIGUSR1"):
        signals.catch(signal.SIGUSR1, "roll")
    click.echo(f"Virtual dice box ({box.describe()}) on {transport.url}")
    click.echo(f"Connect with:  companion run --dice {transport.url}")
    if isinstance(transport, PtyTransport) and transport.stale_link:
        click.echo(f"Replaced the stale link {link}: its pty {transport.stale_link} is gone "
                   "(left by a dice-sim that was killed).")
    at_terminal = sys.stdin.isatty()
    click.echo(help_keys(at_terminal))
    sys.stdout.flush()

    actions = {"r": box.press_roll, "s": box.shake, "n": box.nudge, "c": box.cock_next_roll,
               "a": box.drop_next_acks, "g": box.send_garbage, "d": box.disconnect, "b": box.reboot}

    def read_commands() -> None:
        for raw in sys.stdin:
            cmd = raw.strip().lower()[:1]
            if cmd == "q":
                signals.note("stop")
                return
            if cmd in actions:
                actions[cmd]()
            elif cmd:
                click.echo(help_keys(at_terminal))
            if not raw.endswith("\n"):
                break  # input ended mid-line (Ctrl+D twice after typed text): iterating on would wait for more
        if at_terminal:
            signals.note("stop")  # Ctrl+D at a terminal quits; run in the background (stdin closed) it keeps going

    threading.Thread(target=read_commands, daemon=True).start()
    next_roll = time.monotonic() + auto_roll if auto_roll else None
    try:
        while True:
            noted = signals.wait(None if next_roll is None else max(0.0, next_roll - time.monotonic()))
            if "stop" in noted:
                break
            for _ in range(noted.count("roll")):
                box.press_roll()
            if next_roll is not None and time.monotonic() >= next_roll:
                box.press_roll()
                next_roll = time.monotonic() + auto_roll
    finally:
        transport.stop()
        box.stop()
        signals.close()
        click.echo("Virtual dice box stopped.")
