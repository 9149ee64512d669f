"""Rule variants as data: the schema of a variant file and its loader.

A variant file is TOML. Every setting where rule books disagree (see the README's
variants table) is a field here, never a code branch. A club's house rules are a
file that `extends` a built-in variant and changes only what differs:

    extends = "classical"
    name = "our-club"
    title = "Our club's rules"
    [dead_wall]
    stacks = 6

Unknown fields are errors (a misspelt key must not be silently ignored) and every
error names the field, e.g. ``house.toml: dead_wall.stacks: Expected `int`, got `str```.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from companion.errors import VariantError
from companion.rules.seats import Wind
from companion.validation import convert, deep_merge, read_toml

BUILTIN_DIR = Path(__file__).with_name("variants")


class _Spec(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Base of every section: unknown keys are errors."""


class TilesSpec(_Spec):
    """Which tiles are in the set; the walls are a quarter of them each, 2 high."""

    flowers: bool = True
    seasons: bool = True
    jokers: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.jokers <= 16:
            raise ValueError("jokers must be between 0 and 16")
        if self.total % 8:
            raise ValueError(f"{self.total} tiles cannot build four walls of two-tile stacks")

    @property
    def total(self) -> int:
        return 136 + 4 * self.flowers + 4 * self.seasons + self.jokers

    @property
    def stacks_per_wall(self) -> int:
        return self.total // 8


class SeatingSpec(_Spec):
    #: "anticlockwise": South on East's right (R23, classical, MCR, riichi);
    #: "clockwise": compass-style, South on East's left (seed 003)
    direction: Literal["anticlockwise", "clockwise"] = "anticlockwise"
    #: how the first East is chosen before hand 1: "typed" (the first name entered is East);
    #: "highest_throw" (each throws the dice, the highest total is East, ties throw again: seed
    #: 003); "counted_throw" (the first player throws and counts round the table from themselves,
    #: as R17 counts walls); "wind_tiles" (the players draw wind tiles for their seats: seed 004;
    #: the draw is recorded as a `seats` event). A throw for this is never a break throw.
    first_east: Literal["typed", "highest_throw", "counted_throw", "wind_tiles"] = "typed"


class DiceSpec(_Spec):
    #: who throws, in order: R17 East throws, R19 then the player whose wall was chosen
    throws: list[Literal["dealer", "breaker"]] = msgspec.field(default_factory=lambda: ["dealer", "breaker"])
    #: dice per throw
    dice: int = 2
    #: which throw's total chooses the wall (1-based; R17: the first)
    wall_by: int = 1
    #: R17: walls are counted from the dealer's own (= 1) in turn order E, S, W, N
    wall_count: Literal["turn_order", "reverse_turn_order"] = "turn_order"
    #: how many stacks are counted: R19 "sum" of all throws, or the "last" or "first" throw alone
    stacks_by: Literal["sum", "last", "first"] = "sum"

    def __post_init__(self) -> None:
        if not 1 <= len(self.throws) <= 3:
            raise ValueError("throws must list 1 to 3 throws")
        if self.throws[0] != "dealer":
            raise ValueError("the first throw is the dealer's (it chooses the wall)")
        if not 1 <= self.dice <= 3:
            raise ValueError("dice must be 1, 2 or 3")
        if not 1 <= self.wall_by <= len(self.throws):
            raise ValueError("wall_by must name one of the throws")
        if "breaker" in self.throws[: self.wall_by]:
            raise ValueError("the breaker cannot throw before the throw that chooses the breaker's wall")


class BreakSpec(_Spec):
    #: R19: counting starts at the "right" end of the chosen wall as seen by its owner (seed 003: "left")
    count_from: Literal["right", "left"] = "right"
    #: R19: past the wall's end the count goes on along the "next_wall"; "same_wall" starts again on it
    overflow: Literal["next_wall", "same_wall"] = "next_wall"
    #: "lift": R19, the counted stack is lifted out and becomes the two loose tiles;
    #: "split": the wall is split after the counted stack (riichi, MCR)
    style: Literal["lift", "split"] = "lift"


class DeadWallSpec(_Spec):
    #: R20: stacks in the dead wall (kong box), loose tiles not counted
    stacks: int = 7
    #: R20: the side of the break it lies on, as seen by a player behind the wall; the deal goes the other way
    side: Literal["right", "left"] = "right"
    #: R22: False = no tiles move from the live wall to the dead wall. True (riichi): the live wall's
    #: last tile joins the dead wall after each kong, which keeps its size, so the replacements are
    #: only the four tiles nearest the split (replacement.source "dead_wall")
    keep_size: bool = False
    #: riichi: the dora indicator is the top tile of this stack counted from the break (None: no indicator)
    indicator_at: int | None = None


class ReplacementSpec(_Spec):
    """Where loose (replacement) tiles for kongs and bonus tiles come from (R19–R22)."""

    #: "loose": the lifted stack's two tiles laid on the dead wall, replenished from it (R19–R21);
    #: "dead_wall": straight from the dead-wall stacks nearest the break (riichi rinshan);
    #: "live_end": from the far end of the live wall (seed 004, MCR)
    source: Literal["loose", "dead_wall", "live_end"] = "loose"
    #: R20 custom: the former top tile lies on the 5th dead-wall stack from the break …
    loose_top_at: int = 5
    #: … and the former bottom tile on the 3rd
    loose_bottom_at: int = 3
    #: R21: the loose tile "farther" from the break is taken first
    first: Literal["farther", "nearer"] = "farther"


class DealSpec(_Spec):
    hand_size: int = 13
    #: tiles each seat takes per pass, in turn order from East (R24: two stacks = 4 tiles, three times)
    blocks: list[int] = msgspec.field(default_factory=lambda: [4, 4, 4])
    #: the last pass, tiles for E, S, W, N (R24: East one more stack, the others one tile each)
    final: list[int] = msgspec.field(default_factory=lambda: [2, 1, 1, 1])
    #: optional: which tiles of the last pass each seat takes, numbered 1.. along the live wall
    #: (riichi "chonchon": [[1, 5], [2], [3], [4]]); default in order
    final_picks: list[list[int]] | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.hand_size <= 20:
            raise ValueError("hand_size must be between 1 and 20")
        if any(b < 1 for b in self.blocks) or len(self.final) != 4 or any(f < 0 for f in self.final):
            raise ValueError("blocks must be positive tile counts and final must give 4 counts (E, S, W, N)")
        for seat, extra in enumerate(self.final):
            got = sum(self.blocks) + extra
            want = self.hand_size + (1 if seat == 0 else 0)
            if got != want:
                raise ValueError(
                    f"{'ESWN'[seat]} would be dealt {got} tiles, not {want} (hand_size {self.hand_size}, East one more)"
                )
        if self.final_picks is not None:
            if [len(p) for p in self.final_picks] != self.final:
                raise ValueError("final_picks must give each seat as many tiles as final says")
            flat = sorted(n for picks in self.final_picks for n in picks)
            if flat != list(range(1, sum(self.final) + 1)):
                raise ValueError(f"final_picks must use each of the tiles 1..{sum(self.final)} once")


class ClaimsSpec(_Spec):
    """Claims on a discard."""

    #: seed 002: "Il est possible pour plusieurs joueurs de gagner avec le même écart" (several
    #: players may win on one discard); the numbered classical rules and seed 003 give the tile to
    #: one of them (the higher-valued hand, else the next in turn), as do MCR and common riichi
    several_winners: bool = False


class RotationSpec(_Spec):
    """Who is East next (R11)."""

    #: R11: East keeps the title while winning; MCR (seed 004) and seed 003: never
    keep_on_dealer_win: bool = True
    #: R11: "always" (a draw keeps East); MCR "never"; riichi "if_dealer_ready" (tenpai)
    keep_on_draw: Literal["always", "never", "if_dealer_ready"] = "always"
    #: repeat counter shown to players: "none"; "repeats" (hands East has kept the title in a row);
    #: "honba" (riichi: +1 on a dealer repeat or a draw, back to 0 when another player wins)
    counter: Literal["none", "repeats", "honba"] = "none"


class RoundsSpec(_Spec):
    #: R13: the prevalent wind of each round in order; a round ends when the title has passed
    #: round the table once (R12) and the game after the last round (R14)
    winds: list[Wind] = msgspec.field(default_factory=lambda: ["E", "S", "W", "N"])

    def __post_init__(self) -> None:
        if not 1 <= len(self.winds) <= 16:
            raise ValueError("winds must list 1 to 16 rounds")


class StandingsSpec(_Spec):
    """How the players are ranked at the end (companion.game.standings)."""

    #: equal scores: "shared" rank (1, 1, 3, 4), or broken by "seat_order" (nearer first East ranks higher)
    ties: Literal["shared", "seat_order"] = "shared"
    #: riichi uma in thousands by place, best first (e.g. [15, 5, -5, -15]); empty: no final results
    uma: list[float] = msgspec.field(default_factory=list)
    #: the score each player gives back before uma (riichi "return", e.g. 30000); None: the start score
    return_score: int | None = None
    #: the first place's extra, in thousands: what the four gave back beyond their start, 4 × (return − start) / 1000
    oka: float = 0

    def __post_init__(self) -> None:
        if self.uma and len(self.uma) != 4:
            raise ValueError("standings.uma: give 4 numbers, first place to fourth")
        if self.uma and abs(sum(self.uma)) > 1e-9:
            raise ValueError(f"standings.uma: must sum to zero, not {sum(self.uma):g}")
        if self.oka < 0:
            raise ValueError("standings.oka: must not be negative")
        if not self.uma and (self.oka or self.return_score is not None):
            raise ValueError("standings.oka and standings.return_score go with standings.uma")


class _Settlement(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, tag_field="method"):
    start_score: int = 0


class ClassicalSettlement(_Settlement, tag="classical"):
    """Every loser pays the winner the winner's hand score; losers may settle among themselves."""

    #: seed 003 / classical: East pays and receives double
    east_factor: Annotated[int, msgspec.Meta(ge=1)] = 2
    #: losers pay each other the difference of their own hand scores
    losers_settle: bool = True
    #: multiply a self-drawn win (most books: 1, the doubling is in the hand score)
    self_drawn_factor: Annotated[int, msgspec.Meta(ge=1)] = 1
    #: the most a hand can score (None: no limit)
    limit: Annotated[int, msgspec.Meta(ge=1)] | None = None


class McrSettlement(_Settlement, tag="mcr"):
    """MCR: the discarder pays base + fan, the others base; self-drawn: all pay base + fan."""

    base: int = 8
    min_fan: int = 8


class RiichiSettlement(_Settlement, tag="riichi"):
    """Riichi: han and fu to points, with honba and riichi sticks."""

    start_score: int = 25000
    riichi_stick: int = 1000
    honba_ron: int = 300
    honba_tsumo: int = 100
    noten_total: int = 3000
    #: round 4 han 30 fu and 3 han 60 fu up to mangan
    kiriage_mangan: bool = False
    #: abortive draws (nine terminals, four winds, four riichi, four kans) end a hand; entered as
    #: `draw` all the same: this says whether the table's rules have them
    abortive_draws: bool = True


class HongKongSettlement(_Settlement, tag="hongkong"):
    """Hong Kong: faan to points by a table; the discarder pays for the others ("full") or double ("half")."""

    #: points for a win of 0, 1, 2 … faan; the last entry is the limit
    faan_points: list[int] = msgspec.field(
        default_factory=lambda: [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384]
    )
    min_faan: int = 3
    #: "half": the discarder pays double, the others single; "full": the discarder pays for all three
    discard: Literal["half", "full"] = "half"
    #: East pays and receives this factor (1: no dealer factor)
    east_factor: Annotated[int, msgspec.Meta(ge=1)] = 1


class NoSettlement(_Settlement, tag="none"):
    """Keep no scores."""


Settlement = ClassicalSettlement | McrSettlement | RiichiSettlement | HongKongSettlement | NoSettlement


class Variant(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One rule variant: everything the companion needs to know about how a table plays."""

    name: str
    title: str
    #: where the rules come from (rule texts, rule numbers)
    source: str = ""
    tiles: TilesSpec = msgspec.field(default_factory=TilesSpec)
    seating: SeatingSpec = msgspec.field(default_factory=SeatingSpec)
    dice: DiceSpec = msgspec.field(default_factory=DiceSpec)
    break_: BreakSpec = msgspec.field(default_factory=BreakSpec, name="break")
    dead_wall: DeadWallSpec = msgspec.field(default_factory=DeadWallSpec)
    replacement: ReplacementSpec = msgspec.field(default_factory=ReplacementSpec)
    deal: DealSpec = msgspec.field(default_factory=DealSpec)
    claims: ClaimsSpec = msgspec.field(default_factory=ClaimsSpec)
    rotation: RotationSpec = msgspec.field(default_factory=RotationSpec)
    rounds: RoundsSpec = msgspec.field(default_factory=RoundsSpec)
    settlement: Settlement = msgspec.field(default_factory=ClassicalSettlement)
    standings: StandingsSpec = msgspec.field(default_factory=StandingsSpec)
    #: the variant's customary words shown to players, e.g. {E = "Ton"} for riichi
    terms: dict[str, str] = msgspec.field(default_factory=dict)
    #: `[scoring]`: how a hand is scored. `system` (classical, german, mcr, riichi, hongkong;
    #: default: the settlement method) and that system's own settings, which companion.scoring
    #: validates (`companion variants check` names a bad field)
    scoring_rules: dict[str, Any] = msgspec.field(default_factory=dict, name="scoring")

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,39}", self.name):
            raise ValueError("name must be 1-40 lower-case letters, digits, '-' or '_'")
        n = self.tiles.stacks_per_wall
        dead = self.dead_wall.stacks
        if not 0 <= dead <= 2 * n:
            raise ValueError(f"dead_wall.stacks must be between 0 and {2 * n}")
        lift = self.break_.style == "lift"
        if lift != (self.replacement.source == "loose"):
            raise ValueError('break.style "lift" makes loose tiles: it goes with replacement.source "loose" (and only it)')
        if lift:
            at = (self.replacement.loose_top_at, self.replacement.loose_bottom_at)
            if at[0] == at[1] or not all(1 <= a <= dead for a in at):
                raise ValueError(f"loose tiles must lie on two different dead-wall stacks 1..{dead}")
        if self.replacement.source == "dead_wall" and dead < 1:
            raise ValueError('replacement.source "dead_wall" needs a dead wall')
        if self.dead_wall.keep_size and self.replacement.source != "dead_wall":
            raise ValueError('dead_wall.keep_size goes with replacement.source "dead_wall" (riichi\'s rinshan tiles)')
        if self.dead_wall.indicator_at is not None and not 1 <= self.dead_wall.indicator_at <= dead:
            raise ValueError(f"dead_wall.indicator_at must be a dead-wall stack 1..{dead}")
        spec = self.standings
        if spec.uma:
            back = spec.return_score if spec.return_score is not None else self.settlement.start_score
            oka = 4 * (back - self.settlement.start_score) / 1000
            if abs(spec.oka - oka) > 1e-9:
                raise ValueError(f"standings.oka: must be 4 × (return_score − settlement.start_score) / 1000 = "
                                 f"{oka:g}, so that the final results sum to zero")
        live = self.tiles.total - 2 * dead - (2 if lift else 0) - (4 * self.deal.hand_size + 1)
        if live < 1:
            raise ValueError(f"the deal and the dead wall leave no live wall ({live} tiles)")

    @property
    def stacks_per_wall(self) -> int:
        return self.tiles.stacks_per_wall

    @property
    def scoring(self) -> str:
        """How a hand is settled: "classical", "mcr", "riichi", "hongkong" or "none"."""
        return type(self.settlement).__struct_config__.tag

    def to_dict(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)


# --- loading -----------------------------------------------------------------------------------

def _extend(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """A house-rule file laid over its base; a different settlement method starts from its own defaults."""
    settlement = override.get("settlement")
    if isinstance(settlement, dict) and settlement.get("method", base.get("settlement", {}).get("method")) != base.get(
        "settlement", {}
    ).get("method"):
        base = {k: v for k, v in base.items() if k != "settlement"}
    return deep_merge(base, override)


def builtin_names() -> list[str]:
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def _locate(ref: str, search_dirs: tuple[Path, ...], skip: tuple[Path, ...] = ()) -> Path:
    """The file of variant `ref`: the first found in `search_dirs`, then the built-ins, passing
    over the files in `skip` (a club's `classical.toml` that extends "classical" means the
    built-in one, not itself)."""
    if ref.endswith(".toml") or "/" in ref or "\\" in ref:
        return Path(ref)
    found = None
    for d in (*search_dirs, BUILTIN_DIR):
        candidate = Path(d) / f"{ref}.toml"
        if candidate.is_file():
            if candidate.resolve() not in skip:
                return candidate
            found = found or candidate
    if found is not None:
        return found  # every file of that name is already on the way: a circle, said by the caller
    known = sorted(set(builtin_names()) | {p.stem for d in search_dirs for p in Path(d).glob("*.toml")})
    raise VariantError(f"unknown variant {ref!r}; known: {', '.join(known)} (or give a path to a .toml file)")


def _resolve(ref: str, search_dirs: tuple[Path, ...], seen: tuple[Path, ...]) -> tuple[dict[str, Any], str]:
    path = _locate(ref, search_dirs, seen)
    if path.resolve() in seen:
        raise VariantError(f"{path}: 'extends' goes round in a circle")
    data = read_toml(path, VariantError, "variant file")
    parent = data.pop("extends", None)
    if parent is not None:
        if not isinstance(parent, str):
            raise VariantError(f"{path}: extends: must be the name of a variant")
        base, _ = _resolve(parent, search_dirs + (path.parent,), seen + (path.resolve(),))
        data = _extend(base, data)
    return data, str(path.name if path.parent == BUILTIN_DIR else path)


def parse_variant(data: dict[str, Any], origin: str = "variant") -> Variant:
    """Validate a variant given as a dict (already merged); errors name the field."""
    return convert(data, Variant, origin, VariantError)


def load_variant(ref: str, search_dirs: tuple[Path, ...] | list[Path] = ()) -> Variant:
    """Load a variant by name (searched in `search_dirs`, then the built-ins) or by path."""
    data, origin = _resolve(ref, tuple(Path(d) for d in search_dirs), ())
    return parse_variant(data, origin)


def assumptions(ref: str, search_dirs: tuple[Path, ...] | list[Path] = ()) -> list[str]:
    """The choices a variant makes where its rule text is silent: the `# not in the seed: …`
    comments of its file and of the files it extends, base first (`companion variants show`)."""
    chain: list[Path] = []
    dirs = tuple(Path(d) for d in search_dirs)
    while ref is not None and len(chain) < 16:
        path = _locate(ref, dirs, tuple(p.resolve() for p in chain))
        if path.resolve() in {p.resolve() for p in chain}:
            break
        chain.append(path)
        data = read_toml(path, VariantError, "variant file")
        ref = data.get("extends") if isinstance(data.get("extends"), str) else None
        dirs = dirs + (path.parent,)
    found = []
    for path in reversed(chain):
        for line in path.read_text(encoding="utf-8").splitlines():
            _, hash_, comment = line.partition("#")
            at = comment.lower().find("not in the seed")
            if hash_ and at >= 0:
                found.append(f"{path.stem}: {comment[at:].strip()}")
    return found
