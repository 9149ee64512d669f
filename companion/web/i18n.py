"""Languages: English, Czech, German and French (the rule texts' languages), via Flask-Babel.

The language comes from the phone's manual choice (kept in the session), else the browser's
Accept-Language, else English. Wind names follow the variant's customary terms
(`variant.terms`, e.g. riichi "Ton", "Nan") and otherwise the phone's language.
Catalogs: `translations/<lang>/LC_MESSAGES/messages.po`, compiled `.mo` committed beside them so
that `pip install -e .` needs no extra step (`babel.cfg` and the README say how to update them).
"""

from __future__ import annotations

import functools
from pathlib import Path

from babel.support import Translations
from flask import Flask, request, session
from flask_babel import Babel, get_locale, lazy_gettext
from flask_babel import gettext as _

from companion.errors import CompanionError

#: code -> the language's own name (what the switch shows)
LANGUAGES: dict[str, str] = {"en": "English", "cs": "Čeština", "de": "Deutsch", "fr": "Français"}

_WIND_ENGLISH = {"E": "East", "S": "South", "W": "West", "N": "North"}
WIND_LABELS = {"E": lazy_gettext("East"), "S": lazy_gettext("South"), "W": lazy_gettext("West"), "N": lazy_gettext("North")}
SUIT_LABELS = {"m": lazy_gettext("Characters"), "p": lazy_gettext("Circles"), "s": lazy_gettext("Bamboo")}
DRAGON_LABELS = (lazy_gettext("White dragon"), lazy_gettext("Green dragon"), lazy_gettext("Red dragon"))


def select_locale() -> str:
    chosen = session.get("lang")
    if chosen in LANGUAGES:
        return chosen
    # by the browser's order of preference, a regional tag counting for its language (en-GB → en)
    for tag, _quality in request.accept_languages:
        primary = tag.replace("_", "-").split("-")[0].lower()
        if primary in LANGUAGES:
            return primary
    return "en"


def current_language() -> str:
    return str(get_locale() or "en")


def error_message(e: BaseException) -> str:
    """An engine error's message in the phone's language: its template (marked with `N_` in the
    engine, see `companion.errors`) translated, then its parameters filled in; the English text
    for a message the catalogs do not know (gettext gives an unknown message back as it is)."""
    template = getattr(e, "template", None)
    if not isinstance(e, CompanionError) or not template:
        return str(e)
    try:
        return _(template, **e.params)
    except (KeyError, ValueError, TypeError):  # a translation whose placeholders do not fit: English, not a 500
        return str(e)


def wind_name(wind: str, terms: dict[str, str] | None = None) -> str:
    """The seat or prevalent wind in the phone's language, for sentences and labels: a variant's
    own word inside another language's sentence reads as a slip ("Süd" in English); `wind_label`
    adds it where a wind stands alone. (`terms` is accepted for the callers that pass it.)"""
    return str(WIND_LABELS.get(wind, wind))


@functools.cache
def _wind_words() -> dict[str, frozenset[str]]:
    """Each wind's word in every language of the dashboard (casefolded), from the catalogs."""
    folder = Path(__file__).parent / "translations"
    words: dict[str, set[str]] = {w: {english.casefold()} for w, english in _WIND_ENGLISH.items()}
    for lang in LANGUAGES:
        if lang == "en":
            continue
        catalog = Translations.load(str(folder), [lang])
        for w, english in _WIND_ENGLISH.items():
            words[w].add(catalog.gettext(english).casefold())
    return {w: frozenset(v) for w, v in words.items()}


def variant_term(wind: str, terms: dict[str, str] | None) -> str | None:
    """The variant's customary word for a wind (riichi's "Ton") where it is more than a
    translation: German house rules' "Süd" is only the German word, said in German anyway."""
    term = (terms or {}).get(wind)
    if not term or term.casefold() in _wind_words().get(wind, frozenset()):
        return None
    return term


def wind_label(wind: str, terms: dict[str, str] | None = None) -> str:
    """A wind standing alone (a seat, the prevalent wind's disc): the phone's word, with the
    variant's customary word after it: "East (Ton)", "Ost (Ton)"."""
    term = variant_term(wind, terms)
    return f"{wind_name(wind)} ({term})" if term else wind_name(wind)


#: the built-in variants' titles (their files' `title`), in the phone's language
VARIANT_TITLES = {"Classical Chinese": lazy_gettext("Classical Chinese"),
                  "German home rules": lazy_gettext("German home rules"),
                  "Japanese riichi": lazy_gettext("Japanese riichi"),
                  "Mahjong Competition Rules (MCR)": lazy_gettext("Mahjong Competition Rules (MCR)"),
                  "Hong Kong": lazy_gettext("Hong Kong")}


def variant_title(title: str) -> str:
    """A variant's title in the phone's language; a house rule's own title as the club wrote it."""
    return str(VARIANT_TITLES.get(title, title))


#: the names a game gets when nobody has typed any (config `[game] players`' default)
PLACEHOLDER_NAMES = frozenset({"East", "South", "West", "North"})


def seat_player(wind: str, player: str, terms: dict[str, str] | None = None) -> str:
    """"East · Ann"; a seat whose player has no name yet is not called "East · East"."""
    if player in PLACEHOLDER_NAMES:
        return _("%(wind)s · no name yet", wind=wind_label(wind, terms))
    return f"{wind_label(wind, terms)} · {player}"


def tile_name(code: str, terms: dict[str, str] | None = None) -> str:
    """A tile code (see `companion.rules.tiles`) in the phone's language; winds in the variant's terms."""
    if len(code) == 2 and code[0].isdigit():
        n, kind = int(code[0]), code[1]
        if kind in SUIT_LABELS and 1 <= n <= 9:
            return f"{SUIT_LABELS[kind]} {n}"
        if kind == "z" and 1 <= n <= 4:  # a tile is named as the table names it ("Nan")
            return variant_term("ESWN"[n - 1], terms) or wind_name("ESWN"[n - 1])
        if kind == "z" and 5 <= n <= 7:
            return str(DRAGON_LABELS[n - 5])
        if kind == "f" and 1 <= n <= 4:
            return _("Flower %(n)d", n=n)
        if kind == "f" and 5 <= n <= 8:
            return _("Season %(n)d", n=n - 4)
    raise ValueError(f"not a tile code: {code!r}")


def counter_name(kind: str, terms: dict[str, str] | None = None) -> str:
    """The repeat counter's name: riichi's honba, or "repeats"."""
    if terms and terms.get("counter"):
        return terms["counter"]
    return _("Honba") if kind == "honba" else _("Repeats")


def client_strings() -> dict[str, str]:
    """The words the page's script shows, in the phone's language (rendered into each page)."""
    return {
        "live": _("Live"),
        "reconnecting": _("Reconnecting…"),
        "offline": _("Offline: reconnecting…"),
        "you": _("you"),
        "east_marker": _("East (dealer)"),
        "self_drawn": _("Self-drawn"),
        "discarder": _("Won on the discard of"),
        "draw": _("Draw"),
        "won": _("%(winner)s won"),
        "won_from": _("%(winner)s won from %(from)s"),
        # variants where several may win on one discard (seed 002)
        "also_won": _("Also won on this discard"),
        "also_value": _("%(value)s of %(player)s"),
        "drawn": _("Hand drawn"),
        "undone": _("Undone"),
        "corrected": _("Corrected"),
        "dice_event": _("Dice %(faces)s"),
        "new_game": _("New game started"),
        "undo": _("Undo"),
        "correct": _("Correct"),
        "recorded": _("Recorded"),
        "who_won": _("Who won?"),
        # a whole game (docs/game.md): sitting down, a misdeal, a penalty, the end, the standings
        "seat_throw_by": _("Choosing the first East: %(who)s throws (%(index)d of %(of)d)"),
        "seats_title": _("Sitting down"),
        "seats_by_dice": _("Each player throws the dice; the highest throw is the first East (a tie throws again)."),
        "seats_as_typed": _("The first name entered is East, unless you choose another or draw the wind tiles."),
        "seat_throw": _("%(who)s threw %(total)s"),
        "first_east": _("First East"),
        "set_first_east": _("Set the first East"),
        "draw_seats": _("Draw the wind tiles at random"),
        "redeal": _("Misdeal: throw again"),
        "penalty": _("Penalty"),
        "penalty_player": _("Who pays"),
        "penalty_points": _("Points (shared by the other three)"),
        "reason": _("Reason"),
        "record_penalty": _("Record the penalty"),
        "end_game": _("End the game"),
        "end_game_note": _("The hand in play is not scored: the scores before it stand."),
        "end_how": _("Why"),
        "end_by_time": _("Time is up"),
        "end_by_agreement": _("By agreement"),
        "end_game_confirm": _("End the game now"),
        "standings": _("Standings"),
        "game_ended": _("The game was ended early; the hand in play was not scored."),
        "rank": _("Place"),
        "final": _("Final"),
        "ev_redeal": _("Misdeal: new throws"),
        "ev_penalty": _("Penalty: %(player)s pays %(points)s"),
        "ev_adjustment": _("Points moved: %(moves)s"),
        "ev_game_ended": _("The game was ended"),
        "ev_seats": _("Seats chosen: %(east)s is the first East"),
        "from_whom": _("%(winner)s won — from whom?"),
        "cancel": _("Cancel"),
        "value": _("Value"),
        "hand": _("Hand %(hand)d"),
        "round": _("%(wind)s round"),
        "throw_by": _("Throw %(index)d of %(of)d: %(who)s throws"),
        "throw_unknown": _("Throw %(index)d of %(of)d"),
        "rethrow": _("Throw the cocked dice again (R18)"),
        "no_dice": _("No dice yet"),
        # where a throw came from (DiceThrown.source): shown with the last dice, so that a
        # misread by the camera is noticed and corrected from the history
        "source_serial": _("dice box"),
        "source_sim": _("virtual dice box"),
        "source_phone": _("typed on a phone"),
        "source_camera": _("read by the camera"),
        "source_manual": _("entered by hand"),
        "game_over": _("The game is over."),
        "error": _("Error"),
        "connected": _("connected"),
        "disconnected": _("not connected"),
        "unknown_link": _("not present"),
        "link_dice": _("dice box"),
        "link_camera": _("camera"),
        "link_gpio": _("lamps and buttons"),
        "link_vision": _("table watching"),
        "link_errors": _("%(n)s bad lines"),
        "vision_markers": _("calibrated by the corner markers"),
        "vision_manual": _("calibrated by corners set by hand"),
        "vision_uncalibrated": _("not calibrated: no markers seen; the host can set the table corners"),
        "pot": _("Pot"),
        "wait_dice": _("Waiting for the dice"),
        "play": _("Play"),
        "discard": _("Discard"),
        "assign": _("Count as this throw"),
        "nothing_yet": _("No hands played yet."),
        "warning": _("Warning"),
        # labels before a message: French puts a space before the colon
        "error_colon": _("Error: "),
        "warning_colon": _("Warning: "),
        "too_many": _("Too many requests; wait a moment."),
        # writes (companion/web/writes.py), and the outbox of writes that could not be sent yet
        "not_live": _("Not live: reconnecting…"),
        "state_changed": _("The game has changed since this page showed it; nothing was recorded."),
        "outbox_pending": _("Not sent yet (kept on this phone, sent when the companion can be reached):"),
        "outbox_recorded": _("Sent and recorded: %(what)s"),
        "outbox_refused": _("Not recorded: %(what)s. %(reason)s"),
        "write_other": _("a change"),
        "pick_seat": _("Choose your seat to record results."),
        "break_at": _("Break: %(wind)s's wall, stack %(stack)d"),
        "break_wrong": _("The wall was broken at %(observed)s, but the dice say %(expected)s."),
        # a variant that counts the break from the left end (seed 003): its stack numbers that way too
        "counted_left": _("%(stack)s (%(left)s counted from the left)"),
        # warnings from the camera and the dice box, worded from their code and details
        "warn_wrong_marker": _("The %(east)s marker stands at %(seat)s's seat, but %(east)s is %(player)s."),
        "warn_wrong_wind": _("The wind disc shows %(shown)s, but this is the %(round)s round."),
        "warn_few_tiles": _("Tiles left in the live wall: %(n)s."),
        "warn_wall_length": _("The walls look %(seen)s stacks long, but %(variant)s builds %(n)s: is this the right variant?"),
        "warn_rethrow": _("Die %(die)s is cocked: throw it again (R18)."),
        "warn_dice_unsure": _("Die %(die)s reads %(face)s, but the camera is not sure: check it, and correct the throw if it is wrong."),
        "warn_dice_refused": _("Dice %(faces)s not counted: %(reason)s"),
        "warn_dice_disconnected": _("The dice box was disconnected; reconnecting …"),
        "warn_dice_silent": _("The dice box does not answer."),
        "counter_repeats": _("Repeats"),
        "counter_honba": _("Honba"),
        "you_are_east": _("You are East"),
        "score": _("Score"),
        "player": _("Player"),
        "seat": _("Seat"),
        "round_of": _("round %(round)d of %(rounds)d"),
        "undone_mark": _("undone"),
        "ignored_mark": _("set aside"),
        "started": _("Game started: %(variant)s"),
        "wall_broken": _("Wall broken at %(wind)s %(stack)d"),
        "save": _("Save"),
        "confirm_draw": _("Record a draw"),
        "tenpai": _("Ready (tenpai)"),
        "han": _("Han"),
        "fu": _("Fu"),
        "riichi_declared": _("Declared riichi"),
        "camera_alt": _("Live camera view of the table"),
        **{f"wind_{w}": str(label) for w, label in WIND_LABELS.items()},
        # a variant's own word for a wind is shown beside the phone's (app.js windLabel) unless it is
        # only the wind's name in one of the dashboard's languages
        **{f"wind_words_{w}": "|".join(sorted(words)) for w, words in _wind_words().items()},
        "placeholder_names": "|".join(sorted(PLACEHOLDER_NAMES)),
        **{f"title_{english}": str(title) for english, title in VARIANT_TITLES.items()},
        "won_self": _("%(winner)s won, self-drawn"),
        "renamed": _("Name changed: %(name)s"),
        # spoken by the table's screen when the wall's break is known (speech synthesis)
        "say_break": _("Break at %(wind)s's wall, stack %(stack)s"),
        "resumed": _("Game reopened"),
    }


def install(app: Flask) -> None:
    Babel(app, locale_selector=select_locale)
    app.jinja_env.globals.update(LANGUAGES=LANGUAGES, wind_name=wind_name, wind_label=wind_label,
                                 variant_title=variant_title, seat_player=seat_player, tile_name=tile_name,
                                 counter_name=counter_name, current_language=current_language)
