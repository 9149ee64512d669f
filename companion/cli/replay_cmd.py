"""`companion replay`: play a game from a list of results and show who is East, the winds, the scores."""

from __future__ import annotations

import sys

import click

from companion.cli.common import config_options, emit_json, fail, resolve_variant, settings_from, variant_option
from companion.errors import CompanionError
from companion.game.events import (
    SCORE_LIMIT,
    Adjustment,
    DiceThrown,
    GameEnded,
    HandDrawn,
    HandWon,
    Penalty,
    Recorded,
    Redeal,
    SeatsChosen,
    Undone,
)
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
        head = f"game over (ended by {state.ended['how']})" if state.ended else "game over"
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


def describe_event(record: Recorded, before: GameState, state: GameState, records: list[Recorded]) -> str:
    """One line for an event that is not a hand result: what the table did with it."""
    event = record.event
    if isinstance(event, Undone):
        target = next((r for r in records if r.id == event.target), None)
        what = target.type if target is not None else "event"
        return f"undone: event {event.target} ({what.replace('_', ' ')})"
    if isinstance(event, DiceThrown):
        faces = "+".join(str(f) for f in event.faces)
        if len(state.seat_throws) > len(before.seat_throws):
            t = state.seat_throws[-1]
            line = f"dice {faces}: {t['by']} throws {t['total']} for the seats"
            if state.seating is None and state.seated:
                line += f"; first East: {state.seated['east']}"
            elif state.seating is not None and len(state.seating.contenders) < len(before.seating.contenders
                                                                                      if before.seating else ()):
                line += f"; a tie: {', '.join(state.players[p] for p in state.seating.contenders)} throw again"
            return line
        if len(state.unassigned) > len(before.unassigned):
            return f"dice {faces}: no throw is due now; kept as an unassigned roll (event {record.id})"
        if state.pending is not None:
            return f"dice {faces}: die {', '.join(str(c + 1) for c in state.pending.cocked)} cocked, throw it again (R18)"
        done = len(state.throws)
        line = f"dice {faces}: throw {done} of {len(state.variant.dice.throws)}"
        if state.brk is not None:
            line += f"; break at {WIND_NAMES[state.brk.wall]}'s wall, stack {state.brk.stack}"
        return line
    if isinstance(event, Redeal):
        return f"redeal of hand {state.hand} (R25/R26): new throws are due" + (f" ({event.reason})" if event.reason else "")
    if isinstance(event, (Penalty, Adjustment)):
        a = state.adjustments[-1]
        moves = ", ".join(f"{p} {d:+d}" for p, d in a["deltas"].items())
        return f"{a['kind']}: {moves}" + (f" ({a['reason']})" if a["reason"] else "")
    if isinstance(event, GameEnded):
        return (f"game ended by {event.how} before hand {before.hand}; that hand is not scored"
                + (f" ({event.reason})" if event.reason else ""))
    if isinstance(event, SeatsChosen):
        seats = " ".join(f"{p}={state.seat_wind(i)}" for i, p in enumerate(state.players))
        return f"seats: {seats}; first East: {state.east}"
    return f"{record.type.replace('_', ' ')}"


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
      redeal [reason]          a misdeal (R25/R26): new throws for the hand in play
      penalty A 30 [reason]    A pays 30, shared equally by the other three
      adjust A=-10 B=+10 [reason]   scores moved by agreement (must sum to zero)
      end [time] [reason]      the game ends now; the hand in play is not scored
      seats A=E B=S C=W D=N    the seats drawn before hand 1 (wind tiles)
      first-east C             C is the first East, the others keep their places
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
            before = table.require_state()
            if isinstance(event, UndoLatest):
                record = table.undo()
            else:
                if isinstance(event, HandWon):
                    check_bounds(event, table.require_state().players)
                record = table.record(event)
        except CompanionError as e:
            raise fail(f"{where}, line {number}: {e}") from None
        if isinstance(event, (HandWon, HandDrawn)):
            for note in unused(event, variant):
                click.echo(f"{where}, line {number}: {note}", err=True)
        state = table.require_state()
        if as_json:
            continue
        if isinstance(event, (HandWon, HandDrawn)):
            click.echo(describe_result(state))
            click.echo(f"  {summary(state)}")
        else:  # every line read gets its line: throws, undos, penalties, the end
            click.echo(describe_event(record, before, state, table.records()))
            if not isinstance(event, DiceThrown) or state.seated is not before.seated:
                click.echo(f"  {summary(state)}")
    state = table.require_state()
    for problem in state.zero_sum_problems():  # none in a sound game: said, never silently kept
        click.echo(f"{where}: scores do not balance: {problem}", err=True)
    if as_json:
        emit_json(state.to_json())
        return
    if not state.history and len(table.records()) == 1:
        click.echo(summary(state))
    if state.game_over:
        click.echo(describe_standings(state))


def describe_standings(state: GameState) -> str:
    """The final standings on one line: rank, player, score (and the final result where uma counts)."""
    rows = state.to_json()["standings"]
    return "standings: " + "; ".join(
        f"{r['rank']}. {r['player']} {r['score']}" + (f" ({r['final']:+g})" if "final" in r else "") for r in rows)


def _lines(results, where: str):
    """(number, line) of the results; text that is not UTF-8 is a clear error, not a traceback
    (the text is decoded a block at a time, so the line cannot be named)."""
    try:
        yield from enumerate(results, 1)
    except UnicodeDecodeError:
        raise fail(f"{where}: not UTF-8 text; save the results as UTF-8") from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(replay())
