"""A text picture of the square of walls after the break, and the break told in words.

The web dashboard draws the same picture as SVG from the same `Square.grid()` cells.
"""

from __future__ import annotations

from companion.rules.seats import WIND_NAMES
from companion.rules.wall import Break, Square

LEGEND = {
    "o": "live wall",
    "1": "first stack dealt",
    "X": "gap of the lifted stack",
    "D": "dead wall",
    "L": "dead-wall stack with a loose tile on top",
    "R": "next replacement tiles",
    "*": "dora indicator (top tile)",
}


def cell_marks(brk: Break) -> dict[tuple[str, int], str]:
    """Symbol per stack, the same classification the SVG diagram colours by."""
    marks: dict[tuple[str, int], str] = {}
    for s in brk.dead_wall:
        marks[(s.seat, s.stack)] = "D"
    for t in brk.loose:
        marks[(t.seat, t.stack)] = "L" if t.lying == "on_wall" else "R"
    if brk.dora_indicator:
        marks[(brk.dora_indicator.seat, brk.dora_indicator.stack)] = "*"
    if brk.style == "lift":
        marks[(brk.at.seat, brk.at.stack)] = "X"
    marks[(brk.deal_start.seat, brk.deal_start.stack)] = "1"
    return marks


def ascii_square(brk: Break, square: Square, viewer: str = "E") -> str:
    """The square seen from above with `viewer`'s wall along the bottom."""
    n = square.n
    marks = cell_marks(brk)
    rows = [[" "] * (n + 2) for _ in range(n + 2)]
    for stack, (col, row) in square.grid(viewer).items():
        rows[row][col] = marks.get((stack.seat, stack.stack), "o")
    start = square.clockwise.index(viewer)
    bottom, left, top, right = (square.clockwise[(start + k) % 4] for k in range(4))
    width = 2 * (n + 2) - 1
    label_w = max(len(WIND_NAMES[w]) for w in (left, right)) + 1
    out = [" " * label_w + f"{WIND_NAMES[top]}'s wall".center(width)]
    for r, row in enumerate(rows):
        text = " ".join(row)
        l_label = WIND_NAMES[left] if r == n // 2 + 1 else ""
        r_label = WIND_NAMES[right] if r == n // 2 + 1 else ""
        out.append(f"{l_label:>{label_w - 1}} {text} {r_label}".rstrip())
    out.append(" " * label_w + f"{WIND_NAMES[bottom]}'s wall".center(width))
    used = sorted(set(marks.values()) | {"o"}, key=list(LEGEND).index)
    out.append("")
    out.append("  ".join(f"{sym} {LEGEND[sym]}" for sym in used))
    out.append("Stacks are numbered from each wall's right end as seen by the player behind it.")
    return "\n".join(out)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st (English, for the CLI and the logs)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def counted(stack: int, stacks_per_wall: int, count_from: str) -> str:
    """A stack (numbered from its wall's right end) as the players of a variant count it: "18th stack from the left end"."""
    k = stack if count_from == "right" else stacks_per_wall + 1 - stack
    return f"{ordinal(k)} stack from the {count_from} end"


def describe(brk: Break) -> str:
    """The break in words, for players."""
    name = WIND_NAMES
    dice = " and ".join("+".join(str(f) for f in t) for t in brk.throws)
    lines = [
        f"Dice {dice}: {name[brk.chosen_wall]}'s wall is broken; count {brk.count} stacks from its {brk.count_from} end"
        if len(brk.throws) == 1
        else f"Dice {dice}: {name[brk.chosen_wall]} breaks; count {brk.count} stacks from the {brk.count_from} end"
        f" of {name[brk.chosen_wall]}'s wall",
    ]
    where = f"{name[brk.wall]}'s stack {brk.stack}"
    if brk.count_from == "left":  # the players counted from the left: say it their way too
        where += f" (the {ordinal(brk.stack_from_left)} from the left end)"
    if brk.style == "lift":
        lines.append(f"Lift out {where}: its two tiles are the loose tiles.")
    else:
        lines.append(f"Split the wall after {where}.")
    if brk.dead_wall:
        first, last = brk.dead_wall[0], brk.dead_wall[-1]
        lines.append(
            f"Dead wall: {len(brk.dead_wall)} stacks, {name[first.seat]} {first.stack} to {name[last.seat]} {last.stack}"
            f" ({brk.kong_box} tiles)."
        )
    else:
        lines.append("No dead wall: replacement tiles come from the far end of the live wall.")
    for t in brk.loose:
        verb = "lies on" if t.lying == "on_wall" else "is the"
        lines.append(
            f"Loose tile {t.draw_order}: the former {t.layer} tile, {verb} {name[t.seat]}'s stack {t.stack}"
            if t.lying == "on_wall"
            else f"Replacement {t.draw_order}: {t.layer} tile of {name[t.seat]}'s stack {t.stack}"
        )
    if brk.dora_indicator:
        d = brk.dora_indicator
        lines.append(f"Dora indicator: top tile of {name[d.seat]}'s stack {d.stack}.")
    lines.append(
        f"The deal starts at {name[brk.deal_start.seat]}'s stack {brk.deal_start.stack}; "
        f"{brk.live_after_deal} tiles remain in the live wall after the deal."
    )
    return "\n".join(lines)
