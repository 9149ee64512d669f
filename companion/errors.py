"""Errors the companion raises on purpose.

Every one inherits both `CompanionError` (catch all of ours) and the matching builtin
(catch it the way Python code already does), as gpiozero does.
"""


class CompanionError(Exception):
    """Base of every error the companion raises on purpose; its message is for a player."""


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
