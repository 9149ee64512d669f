"""Message catalogs: complete, placeholders kept, compiled files up to date; language choice; variant words."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask import Flask, session

import companion.web
from companion.web.i18n import LANGUAGES, install, select_locale, tile_name, wind_label, wind_name

WEB = Path(companion.web.__file__).parent
ROOT = WEB.parent.parent
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


#: the folders extracted: the dashboard, and the game engine's messages that reach a phone (marked N_)
SOURCES = [WEB, ROOT / "companion" / "game", ROOT / "companion" / "rules"]
#: and single files of the engine outside those folders
SOURCE_FILES = [ROOT / "companion" / "table.py"]


def source_messages() -> set[str]:
    """What the code and templates ask to translate now (the same extraction as babel.cfg)."""
    method_map = [("**.py", "python"), ("templates/**.html", "jinja2")]
    keywords = {"_": None, "gettext": None, "lazy_gettext": None, "ngettext": (1, 2), "N_": None}
    found = [m[2] for folder in SOURCES for m in extract_from_dir(str(folder), method_map, keywords=keywords)]
    found += [m[1] for path in SOURCE_FILES for m in extract_from_file("python", str(path), keywords=keywords)]
    return {m if isinstance(m, str) else m[0] for m in found}


def test_babel_cfg_names_the_same_extraction():
    cfg = (ROOT / "babel.cfg").read_text()
    assert "[python: **.py]" in cfg and "[jinja2: templates/**.html]" in cfg
    inputs = "companion/web companion/game companion/rules companion/table.py"
    assert "keywords = N_" in cfg and inputs in cfg
    docs = (ROOT / "docs" / "dashboard.md").read_text()
    assert "-k N_" in docs and inputs in docs


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(lang):
    po = read_po((WEB / "translations" / lang / "LC_MESSAGES" / "messages.po").open("rb"))
    translated = {m.id: m.string for m in po if m.id}
    missing = source_messages() - {k for k, v in translated.items() if v}
    assert not missing, f"{lang}: untranslated: {sorted(missing)[:5]}"
    for msgid, text in translated.items():
        assert sorted(PLACEHOLDER.findall(msgid)) == sorted(PLACEHOLDER.findall(text)), (lang, msgid)


#: one word per thing in each language: a player who reads two words looks for two things
GLOSSARY = {"dice box": {"cs": "krabičk", "de": "Würfelbox", "fr": "boîte à dés"},
            "stack": {"cs": "dvojic", "de": "stapel", "fr": "pile"}}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_thing_has_one_word_in_a_language(lang):
    po = read_po((WEB / "translations" / lang / "LC_MESSAGES" / "messages.po").open("rb"))
    for english, words in GLOSSARY.items():
        for m in po:
            if m.id and english in PLACEHOLDER.sub("", m.id).lower():
                assert words[lang].lower() in m.string.lower(), (lang, m.id, m.string)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalog_matches_the_po_file(lang):
    folder = WEB / "translations" / lang / "LC_MESSAGES"
    po = {m.id: m.string for m in read_po((folder / "messages.po").open("rb")) if m.id}
    mo = {m.id: m.string for m in read_mo(io.BytesIO((folder / "messages.mo").read_bytes())) if m.id}
    assert mo == po, "run: pybabel compile -d companion/web/translations"


@pytest.fixture
def app():
    app = Flask("companion.web.app", root_path=str(WEB))
    app.secret_key = "test"
    install(app)
    return app


@pytest.mark.parametrize("header, expected", [
    ("cs-CZ,cs;q=0.9,en;q=0.5", "cs"), ("de-AT", "de"), ("fr-CA,fr;q=0.9", "fr"),
    ("ja,zh;q=0.8", "en"), ("", "en"), ("en-GB,de;q=0.5", "en"),
])
def test_language_follows_accept_language(app, header, expected):
    with app.test_request_context(headers={"Accept-Language": header}):
        assert select_locale() == expected


def test_manual_choice_beats_the_browser(app):
    with app.test_request_context(headers={"Accept-Language": "de"}):
        session["lang"] = "fr"
        assert select_locale() == "fr"


def test_winds_and_tiles_in_the_variants_words_or_the_phones_language(app):
    riichi = {"E": "Ton", "S": "Nan", "W": "Shaa", "N": "Pei"}
    with app.test_request_context(headers={"Accept-Language": "de"}):
        # in sentences the phone's word; standing alone, the variant's own word beside it (not a
        # word that is only a translation: German house rules' "Süd" on an English phone)
        assert wind_name("S") == "Süd" and wind_name("S", riichi) == "Süd"
        assert wind_label("S", riichi) == "Süd (Nan)" and wind_label("S", {"S": "Süd"}) == "Süd"
        assert tile_name("3p") == "Kreise 3" and tile_name("2z", riichi) == "Nan" and tile_name("7z") == "Roter Drache"
    with app.test_request_context(headers={"Accept-Language": "cs"}):
        assert wind_name("N") == "Sever" and tile_name("1f") == "Květina 1"
    with app.test_request_context(headers={"Accept-Language": "en"}):
        assert wind_label("S", {"S": "Süd"}) == "South" and wind_label("E", {"E": "Ost"}) == "East"
    with pytest.raises(ValueError):
        tile_name("0x")


# --- the game engine's messages ------------------------------------------------------------------

def test_an_engine_message_is_english_text_with_its_template_and_parameters_kept():
    from companion.errors import N_, DiceError, GameRuleError

    e = GameRuleError(N_("event %(id)s is already undone"), id=7)
    assert str(e) == "event 7 is already undone" and e.args == ("event 7 is already undone",)
    assert e.template == "event %(id)s is already undone" and e.params == {"id": 7}
    plain = DiceError("a plain message, 100% English")
    assert str(plain) == plain.template == "a plain message, 100% English" and not plain.params
    with pytest.raises(TypeError):
        GameRuleError("two", "texts", id=1)


def test_the_engine_needs_no_flask_to_say_its_messages():
    import subprocess
    import sys

    code = ("import sys, companion.game.fold, companion.rules.settlement, companion.table; "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('flask', 'flask_babel', 'babel')]")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


@pytest.mark.parametrize("lang, expected", [
    ("de", "ein MCR-Sieg braucht mindestens 8 Fan, nicht 3"),
    ("fr", "une victoire en MCR demande au moins 8 fan, pas 3"),
    ("en", "an MCR win needs at least 8 fan, not 3"),
])
def test_error_message_translates_the_template_then_fills_it_in(app, lang, expected):
    from companion.errors import N_, GameRuleError, VariantError
    from companion.web.i18n import error_message

    with app.test_request_context(headers={"Accept-Language": lang}):
        assert error_message(GameRuleError(N_("an MCR win needs at least %(min)s fan, not %(value)s"),
                                           min=8, value=3)) == expected
        # a message the catalogs do not know, and an error that is not ours, stay as they are
        assert error_message(VariantError("house.toml: jokers must be between 0 and 16")) == \
            "house.toml: jokers must be between 0 and 16"
        assert error_message(ValueError("not a wind: 'X'")) == "not a wind: 'X'"
        # parameters that do not fit the template: the English text, not a server error
        odd = GameRuleError(N_("event %(id)s is already undone"), id=3)
        odd.params = {"ref": 3}
        assert error_message(odd) == "event 3 is already undone"


def test_the_games_refusals_that_reach_a_phone_are_marked_for_translation():
    """Every message raised in the fold, the settlement and the table is an N_ template, except the few that only
    a damaged log or a camera's wall event can cause (never a phone's request)."""
    import ast

    internal = {"a game's log must begin with the start of the game", "a new game starts a new log",
                "the record stored is not the one tried",  # LiveFold.recorded_as: a bug in the table only
                "nothing to undo"}  # the last: the API answers NothingToUndo with its own translated text
    for path in (ROOT / "companion" / "game" / "fold.py", ROOT / "companion" / "rules" / "settlement.py",
                 ROOT / "companion" / "table.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
                continue
            first = node.exc.args[0]
            marked = isinstance(first, ast.Call) and getattr(first.func, "id", None) == "N_"
            known_plain = (isinstance(first, ast.Constant) and first.value in internal) or (
                isinstance(first, ast.JoinedStr) and "unknown event" in ast.unparse(first)) or (
                # LiveFold.then: the table appends ids in order; only a bug in the caller gets here
                isinstance(first, ast.JoinedStr) and "is not newer than" in ast.unparse(first)) or (
                isinstance(first, ast.Call) and ast.unparse(first) == "str(e)")  # a camera's wall event
            assert marked or known_plain, f"{path.name}:{node.lineno}: mark the message with N_()"
