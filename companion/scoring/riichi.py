"""Japanese riichi: a thin adapter over the `mahjong` library (MahjongRepository).

The library finds the yaku, fu and limit of a hand (validated on Tenhou's records); this module
turns our hand into its 136-tile arguments, names each yaku in English with a stable key (the
Japanese name kept), and works out the payment with the variant's honba and riichi-stick
values. The optional rules are the variant's `[scoring]` settings (see `RiichiRules`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

import msgspec

from companion.rules.variant import RiichiSettlement, Variant
from companion.scoring.hand import Hand, is_red, normal
from companion.scoring.result import Item, Score

#: the library's yaku (YakuConfig attribute) -> English name; the key is the attribute
YAKU_NAMES: dict[str, str] = {
    "tsumo": "Fully concealed self-draw", "riichi": "Riichi", "open_riichi": "Open riichi",
    "ippatsu": "One-shot (ippatsu)", "chankan": "Robbing a kong", "rinshan": "After a kong (rinshan)",
    "haitei": "Last tile drawn (haitei)", "houtei": "Last discard (houtei)", "daburu_riichi": "Double riichi",
    "daburu_open_riichi": "Double open riichi", "nagashi_mangan": "Nagashi mangan",
    "renhou": "Blessing of man (renhou)", "pinfu": "All sequences (pinfu)", "tanyao": "All simples",
    "iipeiko": "Pure double sequence", "haku": "White dragon", "hatsu": "Green dragon", "chun": "Red dragon",
    "seat_wind_east": "Seat wind East", "seat_wind_south": "Seat wind South",
    "seat_wind_west": "Seat wind West", "seat_wind_north": "Seat wind North",
    "round_wind_east": "Round wind East", "round_wind_south": "Round wind South",
    "round_wind_west": "Round wind West", "round_wind_north": "Round wind North",
    "sanshoku": "Mixed triple sequence", "ittsu": "Pure straight", "chantai": "Half outside hand",
    "honroto": "All terminals and honours", "toitoi": "All triplets", "sanankou": "Three concealed triplets",
    "sankantsu": "Three kongs", "sanshoku_douko": "Triple triplets", "chiitoitsu": "Seven pairs",
    "shosangen": "Little three dragons", "honitsu": "Half flush", "junchan": "Fully outside hand",
    "ryanpeiko": "Twice pure double sequence", "chinitsu": "Full flush",
    "kokushi": "Thirteen orphans", "chuuren_poutou": "Nine gates", "suuankou": "Four concealed triplets",
    "daisangen": "Big three dragons", "shosuushi": "Little four winds", "ryuisou": "All green",
    "suukantsu": "Four kongs", "tsuisou": "All honours", "chinroto": "All terminals",
    "daisharin": "Big wheels", "daichisei": "Big seven stars", "daisuushi": "Big four winds",
    "daburu_kokushi": "Thirteen orphans, 13-sided wait", "suuankou_tanki": "Four concealed triplets, single wait",
    "daburu_chuuren_poutou": "True nine gates", "tenhou": "Blessing of heaven (tenhou)",
    "chiihou": "Blessing of earth (chiihou)", "renhou_yakuman": "Blessing of man (renhou)",
    "sashikomi": "Sashikomi", "paarenchan": "Eight dealer wins (paarenchan)",
    "dora": "Dora", "aka_dora": "Red fives", "ura_dora": "Ura dora",
}
_BY_ID: dict[int, str] = {}
_SUIT_BASE = {"m": 0, "p": 9, "s": 18}
_KAZOE = {"limited": 0, "sanbaiman": 1, "none": 2}


class RiichiRules(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`[scoring]` settings of a riichi variant: the optional rules club rule books disagree on."""

    #: tanyao on an open hand (kuitan; EMA and WRC allow it)
    open_tanyao: bool = True
    #: red fives (`0m`/`0p`/`0s`) are dora; off: they count as plain fives
    red_fives: bool = True
    #: 4 han 30 fu and 3 han 60 fu count as mangan (None: the settlement's kiriage_mangan)
    kiriage_mangan: bool | None = None
    #: double yakuman for big four winds, 13-sided thirteen orphans, etc.
    double_yakuman: bool = True
    #: 13 han or more from ordinary yaku: "limited" (a yakuman), "sanbaiman", "none" (no cap)
    kazoe: Literal["limited", "sanbaiman", "none"] = "limited"


def _rules(variant: Variant) -> RiichiRules:
    from companion.scoring import rules_of

    return rules_of(variant, RiichiRules)


def check(variant: Variant) -> None:
    _rules(variant)


def _index34(code: str) -> int:
    t = normal(code)
    return _SUIT_BASE[t[1]] + int(t[0]) - 1 if t[1] in _SUIT_BASE else 27 + int(t[0]) - 1


class _Tiles:
    """Hands out the library's 136-format indices: copy 0 of a five is the red one."""

    def __init__(self, red_fives: bool) -> None:
        self.red_fives = red_fives
        self.used: dict[int, list[int]] = defaultdict(list)

    def take(self, code: str) -> int:
        k = _index34(code)
        copies = [4 * k + i for i in range(4)]
        five = normal(code)[0] == "5" and code[1] in "mps"
        if self.red_fives and five:
            order = copies[:1] if is_red(code) else copies[1:] + copies[:1]
        else:
            order = copies
        for c in order:
            if c not in self.used[k]:
                self.used[k].append(c)
                return c
        return copies[len(self.used[k]) % 4]  # (a fifth tile cannot pass parse_hand)


def _settlement(variant: Variant) -> RiichiSettlement:
    s = variant.settlement
    return s if isinstance(s, RiichiSettlement) else RiichiSettlement()


def _key(yaku) -> str:
    if not _BY_ID:
        from mahjong.hand_calculating.yaku_config import YakuConfig

        _BY_ID.update({y.yaku_id: attr for attr, y in vars(YakuConfig()).items()})
    return _BY_ID.get(yaku.yaku_id, yaku.name.lower().replace(" ", "_"))


def score(hand: Hand, variant: Variant) -> Score:
    """Han, fu, yaku and the payment of a winning riichi hand."""
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld

    rules = _rules(variant)
    settle = _settlement(variant)
    if not hand.winning:
        return Score.invalid("a losing hand scores nothing in riichi", "riichi")
    if hand.flowers:
        return Score.invalid("riichi is played without flowers and seasons", "riichi")
    dealer = hand.seat_wind == "E"
    if hand.heavenly and not dealer:
        return Score.invalid("tenhou (heavenly) is the dealer's win on the deal; a non-dealer's is chiihou "
                             "(earthly)", "riichi")
    if hand.earthly and dealer:
        return Score.invalid("chiihou (earthly) is a non-dealer's win on the first draw; the dealer's is tenhou "
                             "(heavenly)", "riichi")
    if hand.replacement and not any(m.kind == "kong" for m in hand.melds):
        return Score.invalid("a win on a replacement tile (rinshan) needs a kong in the hand", "riichi")
    if hand.robbing_kong and hand.counts()[normal(hand.winning_tile)] > 1:
        return Score.invalid("robbing a kong: the robbed tile cannot also be in the winner's hand", "riichi")
    tiles = _Tiles(rules.red_fives)
    melds, all136 = [], []
    for m in hand.melds:
        ts = [tiles.take(t) for t in m.tiles]
        kind = {"chow": Meld.CHI, "pung": Meld.PON, "kong": Meld.KAN}[m.kind]
        melds.append(Meld(meld_type=kind, tiles=ts, opened=not m.concealed))
        all136 += ts
    concealed = [tiles.take(t) for t in hand.concealed]
    win = tiles.take(hand.winning_tile)
    all136 += concealed + [win]
    indicators = _Tiles(False)
    dora = [indicators.take(t) for t in hand.dora_indicators]
    ura = [indicators.take(t) for t in hand.ura_indicators]
    kiriage = settle.kiriage_mangan if rules.kiriage_mangan is None else rules.kiriage_mangan
    options = OptionalRules(has_open_tanyao=rules.open_tanyao, has_aka_dora=rules.red_fives,
                            has_double_yakuman=rules.double_yakuman, kazoe_limit=_KAZOE[rules.kazoe],
                            kiriage=kiriage)
    config = HandConfig(
        is_tsumo=hand.self_drawn, is_riichi=hand.riichi and not hand.double_riichi,
        is_daburu_riichi=hand.double_riichi, is_ippatsu=hand.ippatsu,
        is_rinshan=hand.replacement, is_chankan=hand.robbing_kong,
        is_haitei=hand.last_tile and hand.self_drawn, is_houtei=hand.last_tile and not hand.self_drawn,
        is_tenhou=hand.heavenly, is_chiihou=hand.earthly,
        player_wind=EAST + "ESWN".index(hand.seat_wind), round_wind=EAST + "ESWN".index(hand.prevalent_wind),
        options=options,
    )
    result = HandCalculator.estimate_hand_value(all136, win, melds=melds, dora_indicators=dora, config=config,
                                                ura_dora_indicators=ura if (hand.riichi or hand.double_riichi)
                                                else None)
    if result.error:
        return Score.invalid(result.error.replace("_", " "), "riichi")
    opened = result.is_open_hand
    items = []
    for y in result.yaku:
        key = _key(y)
        han = y.han_open if opened else y.han_closed
        items.append(Item(key=key, name=YAKU_NAMES.get(key, y.name), value=han, unit="han", native=y.name,
                          count=han if key in ("dora", "aka_dora", "ura_dora") else 1))
    items.append(Item(key="fu", name="Fu", value=result.fu, unit="fu"))
    cost = result.cost
    main, additional = cost["main"], cost["additional"]
    if not hand.self_drawn:
        total, payments = main, {"ron": main}
        honba = hand.honba * settle.honba_ron
    elif dealer:
        total, payments = 3 * main, {"each": main}
        honba = 3 * hand.honba * settle.honba_tsumo
    else:
        total, payments = main + 2 * additional, {"dealer": main, "others": additional}
        honba = 3 * hand.honba * settle.honba_tsumo
    sticks = hand.riichi_sticks * settle.riichi_stick
    payments.update(honba=honba, sticks=sticks, winner=total + honba + sticks)
    return Score(valid=True, system="riichi", total=total, items=items, han=result.han, fu=result.fu,
                 yaku=[i.name for i in items if i.unit == "han"], limit=cost.get("yaku_level") or None,
                 payments=payments)
