"""Every scoring item a scorer can give is named in cs/de/fr by its stable key (the phones'
"Score the hand" step, static/score.js), and the step's words exist in every language."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from companion.scoring import classical, hongkong, mcr, riichi
from companion.web.scoring_words import ITEMS, WORDS, scoring_strings

LANGS = ("cs", "de", "fr")
ROOT = Path(__file__).resolve().parents[2]


def emitted_keys() -> set[str]:
    """The keys the scorers emit, as a grep of their sources and tables finds them."""
    keys = {key for key, _name, _value in mcr.FANS.values()} | {"flower_tiles"}
    keys |= set(riichi.YAKU_NAMES) | {"fu"}
    keys |= set(classical.LIMIT_NAMES) | set(hongkong.LIMIT_NAMES) | {"limit"}
    source = (ROOT / "companion" / "scoring" / "classical.py").read_text()
    keys |= set(re.findall(r't\.add\("([a-z_]+)"', source))
    for word in ("pung", "kong"):  # t.add(f"{word}_of_…")
        keys |= {f"{word}_of_{what}" for what in re.findall(r't\.add\(f"\{word\}_of_([a-z_]+)"', source)}
        keys |= {f"{word}_{grade}_{how}" for grade in ("major", "minor") for how in ("exposed", "concealed")}
    faan = tomllib.loads((ROOT / "companion" / "rules" / "variants" / "hongkong.toml").read_text())
    keys |= set(faan["scoring"]["faan"])
    return keys


def test_every_item_a_scorer_gives_is_named_in_every_language():
    missing = {lang: sorted(k for k in emitted_keys() if lang not in ITEMS.get(k, {})) for lang in LANGS}
    assert missing == {lang: [] for lang in LANGS}


def test_the_steps_words_exist_in_every_language_and_keep_their_placeholders():
    for key, words in WORDS.items():
        for lang in LANGS:
            assert words.get(lang), (key, lang)
            assert re.findall(r"%\(\w+\)s", words[lang]) == re.findall(r"%\(\w+\)s", words["en"]), (key, lang)


def test_the_page_gets_tile_names_and_falls_back_to_english():
    de = scoring_strings("de", {"E": "Ton"})
    assert de["record"] == "Eintragen" and de["items"]["all_pungs"] == "Alles Pungs"
    assert de["tiles"]["1z"] == "Ton" and len(de["tiles"]) == 42
    assert scoring_strings("xx")["record"] == "Record" and scoring_strings("xx")["items"] == {}
