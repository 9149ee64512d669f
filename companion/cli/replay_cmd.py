"""`companion replay`: play a game from a list of results and show who is East, the winds, the scores."""

from __future__ import annotations

import sys

import click

from companion.cli.common import config_options, emit_json, fail, resolve_variant, settings_from, variant_option
from companion.errors import CompanionError
from companion.game.events import SCORE_LIMIT, HandDrawn, HandWon
from companion.game.fold import GameState
from companion.game.notation import NotationError, UndoLatest, parse_line
from companion.hub import Hub
from companion.rules.seats import WIND_NAMES
from companion.rules.variant import Variant
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
    # gains and losses carry a sign; scores that start from a stake (riichi's 25000) are points held
    signed = state.variant.settlement.start_score == 0
    scores = " ".join(f"{p} {s:+d}" if s and signed else f"{p} {s}" for p, s in zip(state.players, state.scores))
    return f"{head}; seats {winds}; scores {scores}"


def describe_result(state: GameState) -> str:
    h = state.history[-1]
    riichi = state.variant.scoring == "riichi"

    def worth(value, fu) -> str:
        if value is None:
            return ""
        if riichi:  # a riichi hand is counted in han and fu
            return f" {value} han" + (f" {fu} fu" if fu else "")
        return f" value {value}" + (f"/{fu}fu" if fu else "")

    if h["result"] == "win":
        others = h.get("also", [])  # several winners on one discard (seed 002)
        who = ", ".join([h["winner"]] + [a["winner"] for a in others])
        what = f"{who} win{'' if others else 's'}" + (f" from {h['from']}" if h["from"] else " (self-drawn)")
        what += worth(h["value"], h["fu"]) + "".join(f"; {a['winner']}{worth(a['value'], a['fu'])}" for a in others)
    else:
        what = "draw"
    return f"hand {h['hand']} ({WIND_NAMES[h['prevalent']]} round, East {h['east']}): {what}"


def check_bounds(event: HandWon, players: list[str]) -> None:
    """Refuse a value, fu or hand score beyond the bound the web API sets (no hand comes near it)."""
    given = [("hand value", event.value), ("fu", event.fu)]
    given += [(f"{players[p]}'s hand score", v) for p, v in event.hand_scores.items()]
    for a in event.also:  # the others who won on the same discard
        given += [(f"{players[a.winner]}'s hand value", a.value), (f"{players[a.winner]}'s fu", a.fu)]
    for what, v in given:
        if v is not None and not -SCORE_LIMIT <= v <= SCORE_LIMIT:
            raise NotationError(f"{what} {v} is out of range: it must be between {-SCORE_LIMIT} and {SCORE_LIMIT}")


def unused(event: HandWon | HandDrawn, variant: Variant) -> list[str]:
    """What a result line says that this variant's scoring does not use: recorded as said (the log
    keeps what players said), but the player should know that no score moved for it."""
    method = variant.scoring
    notes = []
    if isinstance(event, HandWon) and event.hand_scores:
        if method != "classical":
            notes.append("losers' hand scores count only in classical scoring; ignored here")
        elif event.value is None:
            notes.append("hand scores need the winner's hand value to be settled; no scores moved")
        elif not variant.settlement.losers_settle:
            notes.append("these rules do not settle the losers' hand scores among themselves; ignored here")
    if method != "riichi":
        words = ["riichi="] if event.riichi else []
        # ready= also decides whether East keeps the seat at a draw where the rotation says so
        if isinstance(event, HandDrawn) and event.ready and variant.rotation.keep_on_draw != "if_dealer_ready":
            words.append("ready=")
        if isinstance(event, HandWon) and any(fu is not None for fu in [event.fu, *(a.fu for a in event.also)]):
            words.append("fu")
        if words:
            verb = "count" if len(words) > 1 else "counts"
            notes.append(f"{' and '.join(words)} {verb} only in riichi scoring; ignored here")
    return notes


@click.command("replay")
@variant_option()
@click.option("--players", metavar="A,B,C,D",
              help="The four players in first-hand seat order: East, South, West, North.  "
                   "[default: the configured game.players, East,South,West,North]")
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
    What the variant's scoring does not use (riichi= outside riichi, hand scores without the
    winner's value) is kept in the log, with a note on stderr.
    Example: printf 'win A\\nwin C from B\\ndraw\\n' | companion replay --variant classical --players A,B,C,D -
    """
    try:
        settings = settings_from(config_file, data_dir)
        variant = resolve_variant(variant_ref, settings)
    except CompanionError as e:
        raise fail(e) from None
    # the players named here, else those of the configuration (as `companion run` starts its first game)
    names, named_by = (settings.game.players, "game.players") if players is None else (players.split(","), "--players")
    table = Table(EventStore(":memory:"), Hub())
    try:
        table.start_game(variant, names)
    except CompanionError as e:
        raise fail(f"{named_by}: {e}") from None
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
                if isinstance(event, HandWon):
                    check_bounds(event, table.require_state().players)
                table.record(event)
        except CompanionError as e:
            raise fail(f"{where}, line {number}: {e}") from None
        if isinstance(event, (HandWon, HandDrawn)):
            for note in unused(event, variant):
                click.echo(f"{where}, line {number}: {note}", err=True)
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
