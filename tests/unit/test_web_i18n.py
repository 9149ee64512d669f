"""Message catalogs: complete, placeholders kept, compiled files up to date; language choice; variant words."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask import Flask, session

import companion.web
from companion.web.i18n import LANGUAGES, install, select_locale, tile_name, wind_name

WEB = Path(companion.web.__file__).parent
ROOT = WEB.parent.parent
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


def source_messages() -> set[str]:
    """What the code and templates ask to translate now (the same extraction as babel.cfg)."""
    method_map = [("**.py", "python"), ("templates/**.html", "jinja2")]
    keywords = {"_": None, "gettext": None, "lazy_gettext": None, "ngettext": (1, 2)}
    return {m[2] if isinstance(m[2], str) else m[2][0]
            for m in extract_from_dir(str(WEB), method_map, keywords=keywords)}


def test_babel_cfg_names_the_same_extraction():
    cfg = (ROOT / "babel.cfg").read_text()
    assert "[python: **.py]" in cfg and "[jinja2: templates/**.html]" in cfg


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(lang):
    po = read_po((WEB / "translations" / lang / "LC_MESSAGES" / "messages.po").open("rb"))
    translated = {m.id: m.string for m in po if m.id}
    missing = source_messages() - {k for k, v in translated.items() if v}
    assert not missing, f"{lang}: untranslated: {sorted(missing)[:5]}"
    for msgid, text in translated.items():
        assert sorted(PLACEHOLDER.findall(msgid)) == sorted(PLACEHOLDER.findall(text)), (lang, msgid)


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
        assert wind_name("S") == "Süd" and wind_name("S", riichi) == "Nan"
        assert tile_name("3p") == "Kreise 3" and tile_name("2z", riichi) == "Nan" and tile_name("7z") == "Roter Drache"
    with app.test_request_context(headers={"Accept-Language": "cs"}):
        assert wind_name("N") == "Sever" and tile_name("1f") == "Květina 1"
    with pytest.raises(ValueError):
        tile_name("0x")
