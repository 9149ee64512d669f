"""Who pays whom, per variant, from an entered hand value."""

import pytest

from companion.errors import GameRuleError
from companion.rules.settlement import HandResult, riichi_base, settle
from companion.rules.variant import load_variant

CLASSICAL = load_variant("classical").settlement
MCR = load_variant("mcr").settlement
RIICHI = load_variant("riichi").settlement
HK = load_variant("hongkong").settlement


def test_classical_everyone_pays_the_winner_east_double_and_losers_settle_differences():
    # East (player 0) loses; C (2) wins 24; losers' own scores: A 0, B 4, D 8.
    r = HandResult(winner=2, discarder=1, value=24, hand_scores={0: 0, 1: 4, 3: 8})
    p = settle(CLASSICAL, r, dealer=0)
    assert p.deltas == (-48 - 8 - 16, -24 + 8 - 4, 96, -24 + 16 + 4)
    assert sum(p.deltas) == 0


def test_classical_a_losers_own_hand_score_cannot_be_negative():
    # a negative one would have the other losers paid for it when they settle among themselves
    with pytest.raises(GameRuleError, match="cannot be negative"):
        settle(CLASSICAL, HandResult(winner=0, discarder=None, value=10, hand_scores={1: -50}), dealer=0)


def test_classical_east_winning_receives_double_from_everyone():
    p = settle(CLASSICAL, HandResult(winner=0, value=10), dealer=0)
    assert p.deltas == (60, -20, -20, -20)


def test_classical_limit_caps_the_hand():
    spec = load_variant("classical").settlement
    import msgspec

    capped = msgspec.structs.replace(spec, limit=500)
    p = settle(capped, HandResult(winner=1, value=2000), dealer=0)
    assert p.deltas[1] == 500 * 2 + 500 + 500


def test_classical_limit_caps_each_losers_hand_before_they_settle():
    # a loser's 1500 counts as the limit 1000: player 2 (200) pays player 1 800, not 1300
    import msgspec

    capped = msgspec.structs.replace(load_variant("classical").settlement, limit=1000)
    p = settle(capped, HandResult(winner=0, discarder=1, value=500, hand_scores={1: 1500, 2: 200, 3: 0}), dealer=3)
    # player 1: pays the winner 500, receives 800 from 2 and 2 × 1000 from East (3)
    assert p.deltas[1] == -500 + 800 + 2000
    assert sum(p.deltas) == 0


def test_mcr_discarder_pays_8_plus_fan_others_8():
    p = settle(MCR, HandResult(winner=2, discarder=0, value=10), dealer=0)
    assert p.deltas == (-18, -8, 34, -8)


def test_mcr_self_drawn_everyone_pays_8_plus_fan():
    p = settle(MCR, HandResult(winner=1, value=8), dealer=0)
    assert p.deltas == (-16, 48, -16, -16)


def test_mcr_needs_8_fan():
    with pytest.raises(GameRuleError, match="8 fan"):
        settle(MCR, HandResult(winner=1, value=6), dealer=0)


@pytest.mark.parametrize("han, fu, base", [(1, 30, 240), (2, 40, 640), (3, 60, 1920), (4, 40, 2000), (5, None, 2000),
                                           (6, None, 3000), (8, None, 4000), (11, None, 6000), (13, None, 8000)])
def test_riichi_basic_points(han, fu, base):
    assert riichi_base(han, fu) == base


def test_riichi_non_dealer_ron_dealer_ron_and_tsumo_with_honba_and_sticks():
    # non-dealer ron 3han30fu = 3900; 2 honba = +600; a riichi stick on the table
    p = settle(RIICHI, HandResult(winner=1, discarder=2, value=3, fu=30), dealer=0, counter=2, pot=1000)
    assert p.deltas == (0, 3900 + 600 + 1000, -4500, 0) and p.pot == 0
    # dealer ron 3han30fu = 5800
    p = settle(RIICHI, HandResult(winner=0, discarder=3, value=3, fu=30), dealer=0)
    assert p.deltas == (5800, 0, 0, -5800)
    # non-dealer tsumo 1han30fu: dealer 500, others 300; 1 honba: +100 each
    p = settle(RIICHI, HandResult(winner=2, value=1, fu=30), dealer=0, counter=1)
    assert p.deltas == (-600, -400, 1400, -400)


def test_riichi_noten_payments_and_sticks_stay_on_the_table_at_a_draw():
    p = settle(RIICHI, HandResult(winner=None, ready=(1,), riichi=(1,)), dealer=0)
    assert p.deltas == (-1000, 3000 - 1000, -1000, -1000) and p.pot == 1000


def test_riichi_needs_fu_below_mangan():
    with pytest.raises(GameRuleError, match="fu"):
        settle(RIICHI, HandResult(winner=1, discarder=0, value=2), dealer=0)


def test_hongkong_half_shooter_and_self_drawn():
    base = HK.faan_points[3]
    p = settle(HK, HandResult(winner=1, discarder=2, value=3), dealer=0)
    assert p.deltas == (-base, 4 * base, -2 * base, -base)
    p = settle(HK, HandResult(winner=1, value=3), dealer=0)
    assert p.deltas == (-2 * base, 6 * base, -2 * base, -2 * base)


def test_every_settlement_sums_to_zero_outside_the_riichi_pot():
    for spec, value in ((CLASSICAL, 30), (MCR, 9), (HK, 5)):
        for winner in range(4):
            for discarder in [None, *[p for p in range(4) if p != winner]]:
                p = settle(spec, HandResult(winner=winner, discarder=discarder, value=value), dealer=1)
                assert sum(p.deltas) == 0


@pytest.mark.parametrize("han, fu, discarder, words", [
    (1, 20, None, "20 fu"),  # pinfu tsumo is 2 han already
    (2, 20, 1, "never on a discard"),  # a discard win with pinfu is 30 fu
    (1, 25, 1, "seven pairs"),
])
def test_riichi_han_and_fu_that_no_hand_can_have_are_refused(han, fu, discarder, words):
    with pytest.raises(GameRuleError, match=words):
        settle(RIICHI, HandResult(winner=0, discarder=discarder, value=han, fu=fu), dealer=0)


def test_riichi_the_smallest_real_hands_score():
    assert settle(RIICHI, HandResult(winner=1, discarder=None, value=2, fu=20), dealer=0).deltas[1] == 1500
    assert settle(RIICHI, HandResult(winner=1, discarder=2, value=2, fu=25), dealer=0).deltas[1] == 1600
