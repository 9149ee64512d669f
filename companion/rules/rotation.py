"""Who is East, the seat winds, the prevalent wind and when the game ends.

Players are numbered 0..3 by the seat they had in the first hand (0 began as East,
3 began as North). Only the count of times the East title has passed is needed:
R11 the title passes to the player on East's right (old South), so after p passes
player p mod 4 is East; R12 a round ends each time the title has gone round all four;
R13/R14 the prevalent wind follows the rounds and the game ends after the last one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.rules.seats import WINDS, Wind
from companion.rules.variant import Variant


@dataclass(frozen=True)
class Rotation:
    #: times the East title has passed to the next player (R11)
    passes: int = 0
    #: hands played (wins and draws)
    hands: int = 0
    #: the variant's repeat counter (consecutive repeats, or riichi honba)
    counter: int = 0

    @property
    def dealer(self) -> int:
        """Player index of the current East."""
        return self.passes % 4

    @property
    def round_index(self) -> int:
        """0-based round: R12 a round ends when the player who began as North loses the title."""
        return self.passes // 4

    @property
    def hand_in_round(self) -> int:
        """1..4: which player's turn as East this is within the round ("East 2")."""
        return self.passes % 4 + 1

    def seat_wind(self, player: int) -> Wind:
        return WINDS[(player - self.dealer) % 4]

    def player_at(self, wind: str) -> int:
        return (self.dealer + WINDS.index(wind)) % 4  # type: ignore[arg-type]


def game_over(variant: Variant, rot: Rotation) -> bool:
    """R14: the game ends when, in the last round, the player who began as North loses the title."""
    return rot.round_index >= len(variant.rounds.winds)


def prevalent_wind(variant: Variant, rot: Rotation) -> Wind:
    """R13: the wind of the current round (the last round's wind once the game is over)."""
    winds = variant.rounds.winds
    return winds[min(rot.round_index, len(winds) - 1)]


def dealer_keeps(variant: Variant, *, winner: int | None, dealer: int, dealer_ready: bool = False) -> bool:
    """Does East keep the title after this hand? `winner` None means a drawn hand."""
    spec = variant.rotation
    if winner is not None:
        return winner == dealer and spec.keep_on_dealer_win  # R11: when another wins, the title passes
    if spec.keep_on_draw == "always":  # R11: also when a hand ends with no mahjong
        return True
    if spec.keep_on_draw == "if_dealer_ready":  # riichi: renchan at a draw when the dealer is tenpai
        return dealer_ready
    return False  # seed 004: after every hand, even a washout, the seats rotate


def after_hand(variant: Variant, rot: Rotation, *, winner: int | None, dealer_ready: bool = False) -> Rotation:
    """The rotation for the next hand."""
    keeps = dealer_keeps(variant, winner=winner, dealer=rot.dealer, dealer_ready=dealer_ready)
    counter = rot.counter
    match variant.rotation.counter:
        case "repeats":
            counter = counter + 1 if keeps else 0
        case "honba":  # +1 on a dealer repeat or any draw; 0 when another player wins
            counter = counter + 1 if (keeps or winner is None) else 0
        case _:
            counter = 0
    return replace(rot, passes=rot.passes + (0 if keeps else 1), hands=rot.hands + 1, counter=counter)
