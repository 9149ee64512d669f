"""`companion replay`: play a game from a list of results and show who is East, the winds, the scores."""

from __future__ import annotations

import sys

import click

from companion.cli.common import config_options, emit_json, fail, resolve_variant, settings_from, variant_option
from companion.errors import CompanionError
from companion.game.events import HandDrawn, HandWon
from companion.game.fold import GameState
from companion.game.notation import UndoLatest, parse_line
from companion.hub import Hub
from companion.rules.seats import WIND_NAMES
from companion.storage import EventStore
from companion.table import Table


def summary(state: GameState) -> str:
    """One line about where the game stands."""
    if state.game_over:
        head = "game over"
    else:
        # the counter is consecutive repeats, or riichi's honba (which draws raise too)
        label = "honba" if state.variant.rotation.counter == "honba" else "repeat"
        head = (f"next: hand {state.hand}, {WIND_NAMES[state.prevalent]} round, "
                f"East {state.east}" + (f" ({label} {state.rotation.counter})" if state.rotation.counter else ""))
    winds = " ".join(f"{p}={state.seat_wind(i)}" for i, p in enumerate(state.players))
    scores = " ".join(f"{p} {s:+d}" if s else f"{p} 0" for p, s in zip(state.players, state.scores))
    return f"{head}; seats {winds}; scores {scores}"


def describe_result(state: GameState) -> str:
    h = state.history[-1]
    what = f"{h['winner']} wins" + (f" from {h['from']}" if h["from"] else " (self-drawn)") if h["result"] == "win" else "draw"
    value = "" if h["value"] is None else f" value {h['value']}" + (f"/{h['fu']}fu" if h["fu"] else "")
    return f"hand {h['hand']} ({WIND_NAMES[h['prevalent']]} round, East {h['east']}): {what}{value}"


@click.command("replay")
@variant_option()
@click.option("--players", required=True, metavar="A,B,C,D",
              help="The four players in first-hand seat order: East, South, West, North.")
@click.argument("results", type=click.File("r", encoding="utf-8-sig"), metavar="RESULTS")  # a BOM is no word
@click.option("--json", "as_json", is_flag=True, help="Print the final state as a JSON object.")
@config_options
def replay(variant_ref, players, results, as_json, config_file, data_dir):
    """Replay a game from RESULTS (a file, or - for stdin), one result per line.

    \b
    Lines:
      win A                    A wins, self-drawn
      win C from B 24          C wins on B's discard; hand value 24
      win A 32 B=8 C=4 D=0     classical: the losers' own hand scores (they settle among themselves)
      win B from A 3/30 riichi=B,C   riichi: han/fu (3han30fu, or mangan, haneman, baiman, ...)
      draw                     no mahjong
      draw ready=A,C riichi=A  riichi: who was tenpai, who declared riichi
      dice 3,4                 a throw (dice 3,0 cocked=2: the second die cocked, R18)
      undo                     undo the latest result or throw
    Players by name (as in --players, any case) or current seat wind; '#' starts a comment.
    Example: printf 'win A\\nwin C from B\\ndraw\\n' | companion replay --variant classical --players A,B,C,D -
    """
    try:
        settings = settings_from(config_file, data_dir)
        variant = resolve_variant(variant_ref, settings)
        table = Table(EventStore(":memory:"), Hub())
        table.start_game(variant, players.split(","))
    except CompanionError as e:
        raise fail(e) from None
    where = getattr(results, "name", "RESULTS")
    where = "stdin" if where in ("<stdin>", "-") else where
    for number, line in _lines(results, where):
        try:
            event = parse_line(line, table.player_index)
            if event is None:
                continue
            if isinstance(event, UndoLatest):
                table.undo()
            else:
                table.record(event)
        except CompanionError as e:
            raise fail(f"{where}, line {number}: {e}") from None
        state = table.require_state()
        if not as_json and isinstance(event, (HandWon, HandDrawn)):
            click.echo(describe_result(state))
            click.echo(f"  {summary(state)}")
    state = table.require_state()
    if as_json:
        emit_json(state.to_json())
    elif not state.history:
        click.echo(summary(state))


def _lines(results, where: str):
    """(number, line) of the results; text that is not UTF-8 is a clear error, not a traceback
    (the text is decoded a block at a time, so the line cannot be named)."""
    try:
        yield from enumerate(results, 1)
    except UnicodeDecodeError:
        raise fail(f"{where}: not UTF-8 text; save the results as UTF-8") from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(replay())
