"""Errors the companion raises on purpose.

Every one inherits both `CompanionError` (catch all of ours) and the matching builtin
(catch it the way Python code already does), as gpiozero does.

A message that reaches a player's phone is written as a template marked with `N_` and its
parameters by name, so that the dashboard can say it in the phone's language::

    raise GameRuleError(N_("event %(id)s is already undone"), id=7)

`str(e)` is the English text ("event 7 is already undone": the CLI and the logs), and
`e.template` / `e.params` are what the web layer translates (`companion.web.i18n.error_message`).
The engine needs no Flask for this: `N_` only marks the text for the catalogs (pybabel -k N_).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


def N_(template: str) -> str:
    """Mark an engine message for the dashboard's catalogs; it is returned as it is (English)."""
    return template


class CompanionError(Exception):
    """Base of every error the companion raises on purpose; its message is for a player.

    With keyword parameters, the message is a %-template (``%(name)s``) filled in for `str(e)`;
    `template` and `params` keep it unfilled for a translation.
    """

    template: str | None = None
    params: Mapping[str, Any] = MappingProxyType({})

    def __init__(self, *args: Any, **params: Any) -> None:
        one_text = len(args) == 1 and isinstance(args[0], str)
        if params and not one_text:
            raise TypeError("a message with parameters is one template string and the parameters by name")
        self.template = args[0] if one_text else None
        self.params = params
        super().__init__(*((args[0] % params,) if params else args))


class ConfigError(CompanionError, ValueError):
    """The configuration file or environment has a bad value."""


class VariantError(CompanionError, ValueError):
    """A rule variant file is missing or invalid; the message names the field."""


class DiceError(CompanionError, ValueError):
    """Dice that cannot be: a face outside 1..6, the wrong number of dice or throws."""


class GameRuleError(CompanionError, ValueError):
    """An event that the game cannot accept now (e.g. a result after the game is over)."""


class NothingToUndo(GameRuleError):
    """An undo of "the latest event" when no event of the game counts any more."""


class ImageError(CompanionError, ValueError):
    """An image that cannot be read or decoded."""
