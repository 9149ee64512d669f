"""Who pays whom after a hand, per variant, from a hand value entered by the players.

Calculating a hand's value from its tiles is not done here: players enter the value
(classical points, MCR fan, riichi han and fu, Hong Kong faan).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from companion.errors import N_, GameRuleError
from companion.rules.variant import (
    ClassicalSettlement,
    HongKongSettlement,
    McrSettlement,
    RiichiSettlement,
    Settlement,
)


@dataclass(frozen=True)
class HandResult:
    """A finished hand as the players report it. Players are indices 0..3."""

    winner: int | None  # None: a drawn hand (washout)
    discarder: int | None = None  # None with a winner: self-drawn
    value: int | None = None  # points / fan / han / faan, as the variant counts
    fu: int | None = None  # riichi only
    hand_scores: dict[int, int] = field(default_factory=dict)  # classical: the losers' own hand scores
    riichi: tuple[int, ...] = ()  # riichi: players who declared riichi this hand
    ready: tuple[int, ...] = ()  # riichi: players tenpai at an exhaustive draw
    #: the others who won on the same discard (seed 002): they neither pay for this win nor are paid
    also_won: tuple[int, ...] = ()

    def pays(self, p: int) -> bool:
        """Whether player `p` is one of those who pay for this win."""
        return p != self.winner and p not in self.also_won


@dataclass(frozen=True)
class Payment:
    deltas: tuple[int, int, int, int]
    pot: int  # riichi sticks left on the table after the hand


def _ceil100(x: float) -> int:
    return int(math.ceil(x / 100.0) * 100)


def settle(spec: Settlement, result: HandResult, *, dealer: int, counter: int = 0, pot: int = 0) -> Payment:
    """Score changes for the four players; raise GameRuleError if the value does not fit the variant."""
    if isinstance(spec, RiichiSettlement):
        return _riichi(spec, result, dealer=dealer, honba=counter, pot=pot)
    deltas = [0, 0, 0, 0]
    if result.winner is None or result.value is None:
        return Payment(tuple(deltas), pot)  # type: ignore[arg-type]
    if isinstance(spec, ClassicalSettlement):
        _classical(spec, result, dealer, deltas)
    elif isinstance(spec, McrSettlement):
        _mcr(spec, result, deltas)
    elif isinstance(spec, HongKongSettlement):
        _hongkong(spec, result, dealer, deltas)
    return Payment(tuple(deltas), pot)  # type: ignore[arg-type]


def _pay(deltas: list[int], payer: int, payee: int, amount: int) -> None:
    deltas[payer] -= amount
    deltas[payee] += amount


def _classical(spec: ClassicalSettlement, r: HandResult, dealer: int, deltas: list[int]) -> None:
    assert r.winner is not None and r.value is not None
    if r.value < 0 or any(v < 0 for v in r.hand_scores.values()):
        raise GameRuleError(N_("a hand score cannot be negative"))

    def scored(value: int) -> int:  # a house limit caps every hand, the losers' ones too
        return value if spec.limit is None else min(value, spec.limit)

    won = scored(r.value) * (spec.self_drawn_factor if r.discarder is None else 1)
    factor = lambda a, b: spec.east_factor if dealer in (a, b) else 1  # noqa: E731 - East pays and receives double
    losers = [p for p in range(4) if r.pays(p)]
    for p in losers:
        _pay(deltas, p, r.winner, won * factor(p, r.winner))
    if spec.losers_settle:  # the losers pay each other the difference of their hand scores
        for i, a in enumerate(losers):
            for b in losers[i + 1 :]:
                diff = scored(r.hand_scores.get(a, 0)) - scored(r.hand_scores.get(b, 0))
                _pay(deltas, b, a, diff * factor(a, b))


def _mcr(spec: McrSettlement, r: HandResult, deltas: list[int]) -> None:
    assert r.winner is not None and r.value is not None
    if r.value < spec.min_fan:
        raise GameRuleError(N_("an MCR win needs at least %(min)s fan, not %(value)s"), min=spec.min_fan, value=r.value)
    for p in range(4):
        if not r.pays(p):
            continue
        # MCR's own payments (seed 004 says only that the winner "is paid by his/her opponents"):
        # self-drawn, all pay base + fan; else the discarder pays base + fan, the others base
        amount = spec.base + r.value if r.discarder in (None, p) else spec.base
        _pay(deltas, p, r.winner, amount)


def _hongkong(spec: HongKongSettlement, r: HandResult, dealer: int, deltas: list[int]) -> None:
    assert r.winner is not None and r.value is not None
    if r.value < spec.min_faan:
        raise GameRuleError(N_("a Hong Kong win needs at least %(min)s faan, not %(value)s"), min=spec.min_faan,
                            value=r.value)
    base = spec.faan_points[min(r.value, len(spec.faan_points) - 1)]
    factor = lambda p: spec.east_factor if dealer in (p, r.winner) else 1  # noqa: E731
    others = [p for p in range(4) if r.pays(p)]
    if r.discarder is None:  # self-drawn: everyone pays double
        for p in others:
            _pay(deltas, p, r.winner, 2 * base * factor(p))
    elif spec.discard == "full":  # the discarder pays for all three
        _pay(deltas, r.discarder, r.winner, sum(2 * base * factor(p) for p in others))
    else:  # "half": the discarder pays double, the others single
        for p in others:
            _pay(deltas, p, r.winner, (2 if p == r.discarder else 1) * base * factor(p))


def riichi_base(han: int, fu: int | None, *, kiriage: bool = False) -> int:
    """Basic points of a riichi hand: fu × 2^(2+han), with the limits (mangan and up)."""
    if han <= 0:
        raise GameRuleError(N_("a riichi win needs at least 1 han"))
    if han >= 13:
        return 8000 * (han // 13)  # yakuman (counted)
    if han >= 11:
        return 6000
    if han >= 8:
        return 4000
    if han >= 6:
        return 3000
    if han == 5:
        return 2000
    if fu is None:
        raise GameRuleError(N_("a riichi hand under 5 han needs its fu (e.g. 3han30fu)"))
    if fu < 20 or (fu != 25 and fu % 10):
        raise GameRuleError(N_("fu must be 20, 25, 30, 40 … not %(fu)s"), fu=fu)
    base = fu * 2 ** (2 + han)
    if kiriage and (han, fu) in ((4, 30), (3, 60)):
        return 2000
    return min(base, 2000)


def _riichi(spec: RiichiSettlement, r: HandResult, *, dealer: int, honba: int, pot: int) -> Payment:
    deltas = [0, 0, 0, 0]
    for p in r.riichi:  # each riichi declaration puts a stick on the table
        deltas[p] -= spec.riichi_stick
        pot += spec.riichi_stick
    if r.winner is None:  # exhaustive draw: noten payments
        ready = set(r.ready)
        if 0 < len(ready) < 4:
            pay = spec.noten_total // (4 - len(ready))
            get = spec.noten_total // len(ready)
            for p in range(4):
                deltas[p] += get if p in ready else -pay
        return Payment(tuple(deltas), pot)  # type: ignore[arg-type]
    if r.value is None:  # a win without a value moves only the sticks
        deltas[r.winner] += pot
        return Payment(tuple(deltas), 0)  # type: ignore[arg-type]
    if r.value < 5 and r.fu == 20 and (r.discarder is not None or r.value < 2):
        # 20 fu is only a self-drawn pinfu hand, which has pinfu and tsumo: 2 han at least
        raise GameRuleError(N_("20 fu is a self-drawn pinfu hand: never on a discard, and at least 2 han"))
    if r.value < 5 and r.fu == 25 and r.value < 2:
        raise GameRuleError(N_("25 fu is seven pairs, which is 2 han at least"))  # chiitoitsu alone is 2 han
    base = riichi_base(r.value, r.fu, kiriage=spec.kiriage_mangan)
    w = r.winner
    if r.discarder is None:  # tsumo
        for p in range(4):
            if p == w:
                continue
            share = 2 * base if (w == dealer or p == dealer) else base
            _pay(deltas, p, w, _ceil100(share) + spec.honba_tsumo * honba)
    else:  # ron: the discarder pays it all
        _pay(deltas, r.discarder, w, _ceil100((6 if w == dealer else 4) * base) + spec.honba_ron * honba)
    deltas[w] += pot
    return Payment(tuple(deltas), 0)  # type: ignore[arg-type]
