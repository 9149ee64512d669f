"""Turn plain data (TOML, JSON) into typed settings with errors a player can act on.

msgspec says "Invalid enum value 'middle' - at `$.break.count_from`"; players get
"house.toml: break.count_from: Invalid enum value 'middle' (one of: right, left)".
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import msgspec.inspect as mi

T = TypeVar("T")
_AT = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)


def choices(root: type, path: str) -> list[str] | None:
    """The allowed values of the field at `path` if it is a choice (Literal or tagged union)."""
    info: Any = mi.type_info(root)
    for part in filter(None, re.split(r"\.|\[\d+\]", path)):
        candidates = info.types if isinstance(info, mi.UnionType) else [info]
        for cand in candidates:
            if isinstance(cand, mi.StructType):
                if cand.tag_field == part:
                    return [str(t.tag) for t in candidates if isinstance(t, mi.StructType)]
                match = next((f for f in cand.fields if f.encode_name == part), None)
                if match is not None:
                    info = match.type
                    break
        else:
            return None
    while isinstance(info, (mi.ListType, mi.UnionType)) and not isinstance(info, mi.LiteralType):
        if isinstance(info, mi.ListType):
            info = info.item_type
        else:
            lits = [t for t in info.types if isinstance(t, mi.LiteralType)]
            if not lits:
                return None
            info = lits[0]
    return [str(v) for v in info.values] if isinstance(info, mi.LiteralType) else None


def split(err: msgspec.ValidationError) -> tuple[str, str]:
    """(msgspec's message, the field's path as `a.b[0]`, "" for the whole document)."""
    m = _AT.match(str(err))
    return (m.group("msg"), (m.group("path") or "").lstrip(".")) if m else (str(err), "")


def explain(err: msgspec.ValidationError, root: type) -> str:
    """'field.path: message (one of: …)' from a msgspec validation error."""
    msg, path = split(err)
    if "Invalid enum value" in msg or "Invalid value" in msg:
        allowed = choices(root, path)
        if allowed:
            msg += f" (one of: {', '.join(allowed)})"
    elif re.fullmatch(r"Expected `int( \| null)?`, got `float`", msg):
        msg = "a whole number, not a fraction"  # e.g. a hand value of 2.5 typed on a phone
    return f"{path}: {msg}" if path else msg


def convert(data: Any, type_: type[T], origin: str, error: type[Exception]) -> T:
    """msgspec.convert with an `error` that starts with `origin` and names the field."""
    try:
        return msgspec.convert(data, type_)
    except msgspec.ValidationError as e:
        raise error(f"{origin}: {explain(e, type_)}") from None


def read_toml(path: Path, error: type[Exception], what: str = "file") -> dict[str, Any]:
    """A TOML file as a dict; `error` with the path and the reason if it cannot be read."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except tomllib.TOMLDecodeError as e:
        raise error(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:  # TOML is UTF-8 text
        raise error(f"{path}: not UTF-8 text (byte {e.start + 1}); save it as UTF-8") from None
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror}") from None


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `override` laid over it, tables merged key by key."""
    out = dict(base)
    for k, v in override.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k), Mapping) else v
    return out


def without_none(data: Mapping[str, Any]) -> dict[str, Any]:
    """TOML has no null: an unset optional setting is left out (tables recursively)."""
    return {k: without_none(v) if isinstance(v, Mapping) else v for k, v in data.items() if v is not None}
