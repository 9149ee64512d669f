"""MCR scoring against published known answers (RULES.md "MCR"; seed 004).

Two sources, each case cited in its data file under tests/unit/scoring_cases/:
- mcr_rulebook.json: every fan's worked example from the fan definitions that follow the rule book
  《国际麻将竞赛规则》, with the fans it counts: the fans found must be exactly those, and the total
  their sum at the rule book's fan values (below, not the library's).
- mcr_hidden_me.json: an independent MCR calculator's per-fan test hands with their totals.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from companion.rules.variant import load_variant
from companion.scoring import parse_hand, score_hand, score_obj
from companion.scoring.mcr import FANS

CASES = Path(__file__).with_name("scoring_cases")
RULEBOOK = json.loads((CASES / "mcr_rulebook.json").read_text(encoding="utf-8"))
HIDDEN_ME = json.loads((CASES / "mcr_hidden_me.json").read_text(encoding="utf-8"))

#: the rule book's fan values (Mahjong Competition Rules, ch. 8 / appendix 8), by Chinese name
BOOK_POINTS = {
    **dict.fromkeys(["大四喜", "大三元", "绿一色", "九莲宝灯", "四杠", "连七对", "十三幺"], 88),
    **dict.fromkeys(["清幺九", "小四喜", "小三元", "字一色", "四暗刻", "一色双龙会"], 64),
    **dict.fromkeys(["一色四同顺", "一色四节高"], 48),
    **dict.fromkeys(["一色四步高", "三杠", "混幺九"], 32),
    **dict.fromkeys(["七对", "七星不靠", "全双刻", "清一色", "一色三同顺", "一色三节高", "全大", "全中", "全小"], 24),
    **dict.fromkeys(["清龙", "三色双龙会", "一色三步高", "全带五", "三同刻", "三暗刻"], 16),
    **dict.fromkeys(["全不靠", "组合龙", "大于五", "小于五", "三风刻"], 12),
    **dict.fromkeys(["花龙", "推不倒", "三色三同顺", "三色三节高", "无番和", "妙手回春", "海底捞月", "杠上开花", "抢杠和"], 8),
    **dict.fromkeys(["碰碰和", "混一色", "三色三步高", "五门齐", "全求人", "双暗杠", "双箭刻"], 6),
    **dict.fromkeys(["全带幺", "不求人", "双明杠", "和绝张"], 4),
    **dict.fromkeys(["箭刻", "圈风刻", "门风刻", "门前清", "平和", "四归一", "双同刻", "双暗刻", "暗杠", "断幺"], 2),
    **dict.fromkeys(["一般高", "喜相逢", "连六", "老少副", "幺九刻", "明杠", "缺一门", "无字", "边张", "嵌张", "单钓将", "单钓", "自摸", "花牌"], 1),
    "明暗杠": 5,  # one melded and one concealed kong (the fan definitions' 双明杠 note: 5 points)
}
#: the fan definitions' short names -> the names the library reports
ALIASES = {"单钓将": "独听・单钓", "单钓": "独听・单钓", "边张": "独听・边张", "嵌张": "独听・嵌张"}
HONOURS = {"E": "1z", "S": "2z", "W": "3z", "N": "4z", "P": "5z", "F": "6z", "C": "7z"}
WIND_WORDS = {"东": "E", "南": "S", "西": "W", "北": "N"}

MCR = load_variant("mcr")


def tiles(text: str) -> list[str]:
    """'123m55pEEC' -> ['1m', '2m', '3m', '5p', '5p', '1z', '1z', '7z']."""
    out, digits = [], ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        elif ch in "mpsf":
            out += [d + ch for d in digits]
            digits = ""
        else:
            out.append(HONOURS[ch])
    assert not digits, text
    return out


def rulebook_hand(case: dict) -> dict:
    hand: dict = {"variant": "mcr", "melds": []}
    for body, mark in re.findall(r"\[([^\]]+)\](?:\((明|暗)\))?", case.get("melds", "")):
        hand["melds"].append({"tiles": tiles(body), "concealed": mark == "暗"})
    standing = case.get("erratum", {}).get("standing", case["standing"])
    m = re.fullmatch(r"\[([^\]]+)\](自摸和|点和)\[([^\]]+)\]", standing)
    assert m, standing
    hand["concealed"], hand["winning_tile"] = tiles(m.group(1)), tiles(m.group(3))[0]
    hand["self_drawn"] = m.group(2) == "自摸和"
    if winds := case.get("winds"):  # e.g. 南风圈北家: the South round, the North seat
        w = re.fullmatch(r"(.)风圈(.)家", winds)
        hand["prevalent_wind"], hand["seat_wind"] = WIND_WORDS[w.group(1)], WIND_WORDS[w.group(2)]
    hand["fourth_tile"] = "和绝张" in case["fans"]  # the answer says the winning tile was the last one
    return hand


def expected_fans(text: str, erratum: dict | None = None) -> Counter:
    out: Counter = Counter()
    for part in text.split("、"):
        name, _, times = part.partition("×")
        out[name] += int(times or 1)
    out.update((erratum or {}).get("add", []))
    return out


@pytest.mark.parametrize("case", RULEBOOK["cases"], ids=[c["fan"] for c in RULEBOOK["cases"]])
def test_rule_book_example(case):
    want = expected_fans(case["fans"], case.get("erratum"))
    score = score_hand(parse_hand(rulebook_hand(case)), MCR)
    got = Counter({item.native: item.count for item in score.items})
    assert got == Counter({ALIASES.get(k, k): v for k, v in want.items()}), case["fan"]
    assert score.total == sum(BOOK_POINTS[name] * n for name, n in want.items())
    assert score.valid and score.total >= 8
    for item in score.items:  # stable English keys and names, the standard name kept
        assert (item.key, item.name) == FANS[item.native][:2]


def hidden_me_hand(notation: str) -> dict:
    flowers, sets, hand_tiles, flags = notation.split(";")
    prevalent, seat, self_drawn, fourth, kong, last = flags.split(",")
    melds = []
    for s in filter(None, sets.split(",")):
        ts, who = tiles(s[:-1]), s[-1]
        melds.append({"tiles": ts, "concealed": len(ts) == 4 and who == "0"})
    ts = tiles(hand_tiles)
    return {"variant": "mcr", "melds": melds, "concealed": ts[:-1], "winning_tile": ts[-1],
            "flowers": tiles(flowers) if flowers else [], "prevalent_wind": prevalent, "seat_wind": seat,
            "self_drawn": self_drawn == "1", "fourth_tile": fourth == "1", "last_tile": last == "1",
            "replacement": kong == "1" and self_drawn == "1", "robbing_kong": kong == "1" and self_drawn == "0"}


@pytest.mark.parametrize("name,notation,total", HIDDEN_ME["cases"],
                         ids=[f"{c[0]}-{c[1]}" for c in HIDDEN_ME["cases"]])
def test_independent_calculator_total(name, notation, total):
    score = score_obj(hidden_me_hand(notation), MCR)
    if total == 0:
        assert not score.valid and "not a winning hand" in score.reason
    else:
        assert score.valid, score.reason
        assert score.total == total


def test_every_fan_is_in_the_known_answers():
    """The rule book's examples and the independent tests between them show nearly every fan."""
    seen = set()
    for case in RULEBOOK["cases"]:
        seen |= {ALIASES.get(k, k) for k in expected_fans(case["fans"])}
    missing = set(FANS) - seen
    # the examples the fan definitions leave out ("牌例 略"): kongs shown by the independent totals
    # (four kongs, three kongs), the win circumstances by test_win_circumstances below
    assert missing <= {"四杠", "三杠", "妙手回春", "海底捞月", "杠上开花", "抢杠和", "暗杠", "花牌"}, missing


def test_count_of_known_answers():
    assert len(RULEBOOK["cases"]) + len(HIDDEN_ME["cases"]) >= 100


# --- circumstances and the minimum (rule texts; no worked example in the sources) ---------------

CHICKEN = {"variant": "mcr", "melds": [{"tiles": ["1m", "2m", "3m"]}, {"tiles": ["3m", "4m", "5m"]}],
           "concealed": ["6p", "7p", "8p", "5s", "6s", "3z", "3z"], "winning_tile": "7s"}


def test_chicken_hand_flowers_and_payments():
    """RULES.md MCR: discarder pays 8 + fans, the other two 8; flowers 1 fan each, not toward the 8."""
    s = score_obj(dict(CHICKEN, flowers=["1f", "6f"]), MCR)
    assert s.valid and s.total == 10
    assert [(i.key, i.value) for i in s.items] == [("chicken_hand", 8), ("flower_tiles", 2)]
    assert s.payments == {"discarder": 18, "others": 8, "winner": 34}
    s = score_hand(parse_hand(rulebook_hand(RULEBOOK["cases"][0])), MCR)  # big four winds, self-drawn
    assert s.total == 98 and s.payments == {"each": 8 + 98, "winner": 3 * (8 + 98)}


def test_below_eight_fans_is_refused_even_with_flowers():
    hand = {"variant": "mcr", "melds": [{"tiles": ["2m", "3m", "4m"]}],
            "concealed": ["5p", "6p", "7p", "2s", "3s", "4s", "6s", "7s", "8s", "9m"], "winning_tile": "9m",
            "flowers": ["1f", "2f", "3f", "4f", "5f", "6f", "7f", "8f"]}
    s = score_obj(hand, MCR)
    assert not s.valid and "below the minimum of 8" in s.reason
    assert s.total == sum(i.value for i in s.items)


@pytest.mark.parametrize("flags,fan", [
    ({"self_drawn": True, "last_tile": True}, "last_tile_draw"),       # 妙手回春
    ({"last_tile": True}, "last_tile_claim"),                          # 海底捞月
    ({"robbing_kong": True}, "robbing_the_kong"),                      # 抢杠和
])
def test_win_circumstances(flags, fan):
    """Fan definitions: last tile draw, last tile claim, robbing the kong (8 each; the first not with
    self-drawn, the last not with last tile)."""
    hand = {"variant": "mcr", "concealed": ["1m", "2m", "4p", "5p", "6p", "7s", "8s", "9s", "5s", "5s",
                                            "2p", "3p", "4p"], "winning_tile": "3m", **flags}
    s = score_obj(hand, MCR)
    keys = {i.key for i in s.items}
    assert fan in keys and s.valid
    assert "self_drawn" not in keys and "last_tile" not in keys


def test_out_with_replacement_tile_needs_a_kong():
    hand = {"variant": "mcr", "melds": [{"tiles": ["9s", "9s", "9s", "9s"]}],
            "concealed": ["1m", "2m", "4p", "5p", "6p", "7s", "8s", "5s", "5s", "6s"], "winning_tile": "3m",
            "self_drawn": True, "replacement": True}
    s = score_obj(hand, MCR)
    assert s.valid and "out_with_replacement_tile" in {i.key for i in s.items}
    assert "self_drawn" not in {i.key for i in s.items}
    hand.update(melds=[{"tiles": ["9s", "9s", "9s"]}])
    assert "needs a kong" in score_obj(hand, MCR).reason


def test_robbed_tile_cannot_be_in_the_hand():
    hand = {"variant": "mcr", "concealed": ["3m", "2m", "4p", "5p", "6p", "7s", "8s", "9s", "5s", "5s",
                                            "2p", "3p", "4p"], "winning_tile": "1m", "robbing_kong": True}
    assert score_obj(dict(hand), MCR).valid
    hand.update(concealed=["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5s", "2p", "3p", "4p"],
                winning_tile="5s")
    assert "cannot also be in" in score_obj(hand, MCR).reason


def test_not_a_winning_hand_and_a_losing_hand():
    hand = dict(CHICKEN, winning_tile="9s")
    assert score_obj(hand, MCR).reason == "not a winning hand (MCR)"
    assert "losing hand" in score_obj(dict(CHICKEN, winning_tile=None, concealed=CHICKEN["concealed"]), MCR).reason


def test_flower_fan_is_a_variant_setting(tmp_path):
    f = tmp_path / "club.toml"
    f.write_text('extends = "mcr"\nname = "club"\ntitle = "Club"\n[scoring]\nflower_fan = 0\n')
    s = score_obj(dict(CHICKEN, flowers=["1f"]), load_variant(str(f)))
    assert s.total == 8
    f.write_text('extends = "mcr"\nname = "club"\ntitle = "Club"\n[scoring]\nflower_fans = 2\n')
    from companion.errors import VariantError
    from companion.scoring import check_variant

    with pytest.raises(VariantError, match="scoring: Object contains unknown field `flower_fans`"):
        check_variant(load_variant(str(f)))
