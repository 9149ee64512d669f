"""The square of walls as SVG, from the viewing player's own seat.

Drawn from the same geometry as the CLI's picture (`companion.rules.diagram`): each stack's
cell comes from `Square.grid(viewer)` (the viewer's wall along the bottom) and its meaning from
`cell_marks(brk)`. Every mark has a letter as well as a colour, so it reads without colour too.
"""

from __future__ import annotations

from flask_babel import gettext as _
from markupsafe import Markup, escape

from companion.game.fold import GameState
from companion.rules.diagram import cell_marks
from companion.rules.wall import Square
from companion.web.i18n import wind_label, wind_name

CELL = 20
MARGIN = 26  # room for stack numbers outside the square
#: text sizes in the SVG's units: on a 360 px phone the square is about 0.7 px per unit, so stack
#: numbers come out about 10 px tall (9 units made them 6 px, too small to read at the table)
NUM_SIZE, MARK_SIZE, SEAT_SIZE, DICE_SIZE = 14, 13, 16, 17

#: mark -> (css class, fill, letter shown in the stack)
STYLES: dict[str, tuple[str, str, str]] = {
    "o": ("live", "#f6f0dc", ""),
    "1": ("deal", "#1b6b2a", "1"),
    "X": ("gap", "none", ""),
    "D": ("dead", "#9fb3bf", ""),
    "L": ("loose", "#9fb3bf", "L"),
    "R": ("repl", "#c15400", "R"),
    "*": ("dora", "#9fb3bf", "★"),
}
TEXT_ON = {"deal": "#ffffff", "repl": "#ffffff", "loose": "#1a1a1a", "dora": "#1a1a1a"}


def legend() -> list[tuple[str, str, str, str]]:
    """(css class, fill, letter, label) for the page's legend, in the phone's language."""
    labels = {
        "o": _("live wall"), "1": _("first stack dealt"), "X": _("gap of the lifted stack"),
        "D": _("dead wall"), "L": _("loose tile on top"), "R": _("next replacement tiles"),
        "*": _("dora indicator (top tile)"),
    }
    return [(*STYLES[m], labels[m]) for m in STYLES]


def describe(state: GameState) -> str:
    """The break in words for screen readers (the picture's <desc>)."""
    terms = state.variant.terms
    name = lambda w: wind_name(w, terms)  # noqa: E731
    brk = state.brk
    if brk is None:
        return _("The wall is not broken yet: waiting for the dice.")
    parts = [_("The wall is broken at stack %(stack)d of %(wind)s's wall.", stack=brk.stack, wind=name(brk.wall))]
    if brk.count_from == "left":  # seed 003's players counted from the left end: say it their way too
        parts.append(_("Counted from the left end of that wall, it is stack %(left)d.", left=brk.stack_from_left))
    if brk.dead_wall:
        first, last = brk.dead_wall[0], brk.dead_wall[-1]
        parts.append(_("Dead wall: %(n)d stacks, from %(w1)s %(s1)d to %(w2)s %(s2)d.", n=len(brk.dead_wall),
                       w1=name(first.seat), s1=first.stack, w2=name(last.seat), s2=last.stack))
    for t in brk.loose:
        parts.append(_("Loose tile %(n)d on %(wind)s's stack %(stack)d.", n=t.draw_order, wind=name(t.seat), stack=t.stack))
    if brk.dora_indicator:
        d = brk.dora_indicator
        parts.append(_("Dora indicator on %(wind)s's stack %(stack)d.", wind=name(d.seat), stack=d.stack))
    parts.append(_("The deal starts at %(wind)s's stack %(stack)d.", wind=name(brk.deal_start.seat),
                   stack=brk.deal_start.stack))
    return " ".join(parts)


def wall_svg(state: GameState, viewer: str = "E", *, you: int | None = None) -> Markup:
    """The square seen from above with `viewer`'s wall along the bottom; `you` marks the phone's player."""
    square = Square.for_variant(state.variant)
    n = square.n
    marks = cell_marks(state.brk) if state.brk else {}
    terms = state.variant.terms
    size = (n + 2) * CELL + 2 * MARGIN
    title = _("Square of walls seen from %(wind)s's seat", wind=wind_name(viewer, terms))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="wall-svg" viewBox="0 0 {size} {size}" '
        f'role="img" aria-labelledby="wall-title wall-desc">',
        f'<title id="wall-title">{escape(title)}</title>',
        f'<desc id="wall-desc">{escape(describe(state))}</desc>',
    ]
    grid = square.grid(viewer)
    for stack, (col, row) in grid.items():
        mark = marks.get((stack.seat, stack.stack), "o")
        cls, fill, letter = STYLES[mark]
        x, y = MARGIN + col * CELL + 1, MARGIN + row * CELL + 1
        dash = ' stroke-dasharray="3 2"' if mark == "X" else ""
        stroke = "#b3261e" if mark == "X" else "#4a3f2a"
        out.append(f'<rect class="stack {cls}" data-seat="{stack.seat}" data-stack="{stack.stack}" x="{x}" y="{y}" '
                   f'width="{CELL - 2}" height="{CELL - 2}" rx="3" fill="{fill}" stroke="{stroke}"{dash}/>')
        if letter:
            out.append(f'<text class="mark" x="{x + (CELL - 2) / 2}" y="{y + CELL / 2 + 4}" text-anchor="middle" '
                       f'font-size="{MARK_SIZE}" font-weight="bold" fill="{TEXT_ON.get(cls, "#1a1a1a")}">{letter}</text>')
        if stack.stack == 1 or stack.stack % 5 == 0:
            out.append(_number(stack.stack, col, row, n))
    out.extend(_seat_labels(state, square, viewer, you))
    out.append("</svg>")
    return Markup("".join(out))


def _number(k: int, col: int, row: int, n: int) -> str:
    """Stack numbers outside the square, next to their stack (position contract: from each wall's right end)."""
    cx, cy = MARGIN + col * CELL + CELL / 2, MARGIN + row * CELL + CELL / 2
    if row == n + 1:
        cy += CELL / 2 + NUM_SIZE
    elif row == 0:
        cy -= CELL / 2 + 4
    elif col == 0:
        cx -= CELL / 2 + 11
        cy += 5
    else:
        cx += CELL / 2 + 11
        cy += 5
    return f'<text class="num" x="{cx}" y="{cy}" text-anchor="middle" font-size="{NUM_SIZE}" fill="#333">{k}</text>'


def _seat_labels(state: GameState, square: Square, viewer: str, you: int | None) -> list[str]:
    """Each wall's seat wind and player, written inside the square along that wall."""
    n = square.n
    start = square.clockwise.index(viewer)  # type: ignore[arg-type]
    bottom, left, top, right = (square.clockwise[(start + k) % 4] for k in range(4))
    mid = MARGIN + (n + 2) * CELL / 2
    near, far = MARGIN + CELL * 2.1, MARGIN + (n + 2) * CELL - CELL * 1.6
    out = []
    for seat, x, y, rot in ((bottom, mid, far, 0), (top, mid, near, 0),
                            (left, near - CELL * 0.2, mid, -90), (right, far - CELL * 0.2, mid, 90)):
        player = state.rotation.player_at(seat)
        label = f"{wind_label(seat, state.variant.terms)} · {state.players[player]}"
        if player == you:
            label += f" ({_('you')})"
        extra = " east" if seat == "E" else ""
        transform = f' transform="rotate({rot} {x} {y})"' if rot else ""
        out.append(f'<text class="seat{extra}" x="{x}" y="{y}" text-anchor="middle" font-size="{SEAT_SIZE}" '
                   f'font-weight="{"bold" if seat == "E" else "normal"}" fill="#1a1a1a"{transform}>{escape(label)}</text>')
    if state.brk is not None:
        dice = " + ".join("·".join(str(f) for f in t) for t in state.brk.throws)
        out.append(f'<text class="dice" x="{mid}" y="{mid + 5}" text-anchor="middle" font-size="{DICE_SIZE}" fill="#1a1a1a">'
                   f'{escape(_("Dice"))} {escape(dice)}</text>')
    return out
