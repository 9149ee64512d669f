"""`companion score`: what a winning hand is worth under a variant, item by item (docs/scoring.md)."""

from __future__ import annotations

import sys
from typing import Any

import click

from companion.cli.common import config_options, emit_json, fail, settings_from

_WINDS = click.Choice(["E", "S", "W", "N"], case_sensitive=False)


def _read(path: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise click.ClickException(f"{path}: cannot read: {e.strerror}") from None


class _Variants:
    """Variants by name, loaded once each: a file of hands may name several."""

    def __init__(self, settings, forced: str | None) -> None:
        self.settings, self.forced, self.cache = settings, forced, {}

    def get(self, hand_variant: Any):
        from companion.rules.variant import load_variant

        ref = self.forced or (hand_variant if isinstance(hand_variant, str) and hand_variant else None)
        ref = ref or self.settings.game.variant
        if ref not in self.cache:
            self.cache[ref] = load_variant(ref, self.settings.variant_dirs)
        return self.cache[ref]


def _flags_hand(concealed: list[str], opts: dict[str, Any]) -> dict[str, Any]:
    """A hand (JSON shape) from tiles and the command line's flags."""
    from companion.scoring.hand import tiles_from_text

    hand: dict[str, Any] = {"concealed": concealed, "melds": []}
    for text in opts["meld"]:
        hand["melds"].append({"tiles": tiles_from_text(text), "concealed": False})
    for text in opts["concealed_kong"]:
        hand["melds"].append({"tiles": tiles_from_text(text), "concealed": True})
    for key in ("self_drawn", "fourth_tile", "last_tile", "replacement", "robbing_kong", "riichi", "ippatsu",
                "double_riichi", "heavenly", "earthly", "original_call"):
        if opts[key]:
            hand[key] = True
    hand["winning_tile"] = opts["winning_tile"]
    hand["seat_wind"] = opts["seat_wind"].upper()
    hand["prevalent_wind"] = opts["prevalent_wind"].upper()
    hand["dora_indicators"] = [t for text in opts["dora"] for t in tiles_from_text(text)]
    hand["ura_indicators"] = [t for text in opts["ura"] for t in tiles_from_text(text)]
    hand["honba"], hand["riichi_sticks"] = opts["honba"], opts["sticks"]
    return hand


def _from_photo(path: str, opts: dict[str, Any], unsure_below: float, settings) -> tuple[dict, list[dict]]:
    """The hand in a photo: every tile read, then the melds and the winning tile the command line
    names taken out of them (companion.scoring.photo, as the phones do); the rest is the
    concealed hand. Returns (hand, unsure tiles)."""
    from companion.errors import CompanionError
    from companion.scoring.hand import BadHand, tiles_from_text
    from companion.scoring.photo import marked, take
    from companion.vision.tiles.recognizer import TileRecognizer
    from companion.vision.tiles.teach import load_or_shipped, use_data_dir

    try:
        use_data_dir(settings.data_path)
        taught, why = load_or_shipped()
        if why:
            click.echo(f"Warning: {why}", err=True)
        tiles = marked(TileRecognizer(taught=taught).recognize_file(path)[0], unsure_below)
    except CompanionError as e:
        raise click.ClickException(str(e)) from None
    unsure = [dict({k: t[k] for k in ("tile", "box", "score")}, position=i + 1)
              for i, t in enumerate(tiles) if t["unsure"]]
    codes = [t["tile"] for t in tiles]
    pool = [c for c in codes if not c.endswith("f")]
    if opts["winning_tile"] is None:
        raise click.UsageError("--photo needs --winning-tile: which tile completed the hand")
    try:
        for text in opts["meld"]:
            take(pool, tiles_from_text(text), f"--meld {text}")
        for text in opts["concealed_kong"]:
            take(pool, tiles_from_text(text), f"--concealed-kong {text}")
        take(pool, [opts["winning_tile"]], "--winning-tile")
    except BadHand as e:
        raise BadHand(f"{e} (read from the photo: {' '.join(codes)})") from None
    hand = _flags_hand(pool, opts)
    hand["flowers"] = [c for c in codes if c.endswith("f")]
    hand["recognized"] = codes
    return hand, unsure


def _describe(result: dict[str, Any], variant_name: str) -> str:
    """A readable breakdown of one result."""
    system = result.get("system") or "?"
    if not result["valid"]:
        head = f"{variant_name} ({system}): not a valid win — {result.get('reason')}"
        if not result["items"]:
            return head
    elif system == "riichi":
        limit = f", {result['limit']}" if result.get("limit") else ""
        head = f"{variant_name} (riichi): {result['han']} han {result['fu']} fu{limit} — {result['total']} points"
    elif system == "mcr":
        head = f"{variant_name} (mcr): {result['total']} fans"
    else:
        head = f"{variant_name} ({system}): {result['total']} points"
    lines = [head]
    for item in result["items"]:
        native = f" ({item['native']})" if item.get("native") and item["native"] != item["name"] else ""
        times = f" ×{item['count']}" if item.get("count", 1) > 1 and item.get("unit") not in ("han",) else ""
        lines.append(f"  {item['value']:>5} {item.get('unit', ''):<7} {item['name']}{native}{times}")
    if result.get("payments"):
        lines.append("  payments: " + ", ".join(f"{k} {v}" for k, v in result["payments"].items()))
    return "\n".join(lines)


@click.command("score")
@click.argument("hand_file", required=False, metavar="[FILE|-]")
@click.option("--json", "json_file", metavar="FILE|-",
              help="Read one hand or a JSON array of hands and print one result or an array, in order.")
@click.option("--hand", "hand_text", metavar="TILES",
              help="The concealed tiles without the winning tile, e.g. '123m 456p 789s 1z'; with the flags below.")
@click.option("--photo", type=click.Path(dir_okay=False), default=None,
              help="Read the tiles from a photo of the hand; name the melds and the winning tile with the flags.")
@click.option("--variant", "variant_ref", metavar="NAME|FILE", default=None,
              help="Rule variant (default: the hand's \"variant\", else the configured one).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output of FILE, --hand and --photo.")
@click.option("--winning-tile", metavar="TILE", default=None, help="The tile that completed the hand, e.g. 4z.")
@click.option("--meld", multiple=True, metavar="TILES", help="An exposed set, e.g. 111z (repeatable).")
@click.option("--concealed-kong", multiple=True, metavar="TILES", help="A concealed kong, e.g. 5555p (repeatable).")
@click.option("--self-drawn", is_flag=True, help="Won on a tile from the wall.")
@click.option("--seat-wind", type=_WINDS, default="E", show_default=True)
@click.option("--prevalent-wind", type=_WINDS, default="E", show_default=True)
@click.option("--fourth-tile", is_flag=True, help="The winning tile was the last of its kind (MCR).")
@click.option("--last-tile", is_flag=True, help="Won on the wall's last tile or its discard.")
@click.option("--replacement", is_flag=True, help="Won on a kong's replacement tile.")
@click.option("--robbing-kong", is_flag=True, help="Won by robbing a kong.")
@click.option("--riichi", is_flag=True)
@click.option("--ippatsu", is_flag=True)
@click.option("--double-riichi", is_flag=True)
@click.option("--heavenly", is_flag=True, help="Won on the deal (tenhou, Heaven's blessing).")
@click.option("--earthly", is_flag=True, help="Won on the first draw (chiihou) / East's first discard (classical).")
@click.option("--original-call", is_flag=True, help="Classical: completed an original call.")
@click.option("--dora", multiple=True, metavar="TILES", help="Dora indicators (riichi).")
@click.option("--ura", multiple=True, metavar="TILES", help="Ura-dora indicators (riichi).")
@click.option("--honba", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--sticks", type=click.IntRange(min=0), default=0, show_default=True, help="Riichi sticks on the table.")
@click.option("--unsure-below", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="--photo: a tile read with a lower score is named for the player to check.")
@config_options
def score(hand_file, json_file, hand_text, photo, variant_ref, fmt, unsure_below, config_file, data_dir, **opts):
    """Score a hand: its total and the reasons, under the variant's scoring system.

    \b
    companion score --json hands.json         one hand or an array → JSON results
    companion score hand.json                 a readable breakdown
    companion score --hand '5p5p 333z 44z' --meld 111z --meld 2222z --winning-tile 4z --self-drawn --variant mcr
    companion score --photo hand.jpg --winning-tile 4z --meld 111z --variant mcr

    The exit status is 1 when a hand cannot be scored as given (unknown tiles, five of a tile,
    the wrong number of tiles); a hand that is simply not a winning hand is a result with
    "valid": false and its reason.
    """
    from companion.errors import CompanionError
    from companion.scoring import parse_hand, score_hand, score_obj
    from companion.scoring.hand import BadHand, hand_from_json

    sources = [s for s in (hand_file, json_file, hand_text, photo) if s is not None]
    if len(sources) != 1:
        raise click.UsageError("give one of FILE, --json FILE, --hand TILES or --photo IMAGE")
    try:
        settings = settings_from(config_file, data_dir)
        variants = _Variants(settings, variant_ref)
        unsure: list[dict] = []
        if json_file is not None or hand_file is not None:
            data = hand_from_json(_read(json_file if json_file is not None else hand_file))
            many = isinstance(data, list)
            hands = data if many else [data]
        else:
            many = False
            if photo is not None:
                hand, unsure = _from_photo(photo, opts, unsure_below, settings)
            else:
                from companion.scoring.hand import tiles_from_text

                hand = _flags_hand(tiles_from_text(hand_text), opts)
            hands = [hand]
        results, names, bad = [], [], False
        for obj in hands:
            recognized = obj.pop("recognized", None) if isinstance(obj, dict) else None
            variant = variants.get(obj.get("variant") if isinstance(obj, dict) else None)
            try:
                result = score_hand(parse_hand(obj), variant).to_json()
            except BadHand as e:
                bad = True
                result = score_obj(obj, variant).to_json() if isinstance(obj, dict) else {
                    "valid": False, "reason": str(e), "system": "", "total": 0, "items": []}
            if recognized is not None:
                result["recognized"] = recognized
                result["unsure"] = unsure
            results.append(result)
            names.append(variant.name)
    except CompanionError as e:
        raise fail(e) from None
    if json_file is not None or fmt == "json":
        emit_json(results if many else results[0])
    else:
        for result, name in zip(results, names):
            if "recognized" in result:
                click.echo("Read from the photo: " + " ".join(result["recognized"]))
                for u in result["unsure"]:
                    click.echo(f"  check tile {u['position']}: read as {u['tile']} (score {u['score']})")
            click.echo(_describe(result, name))
    if bad:
        sys.exit(1)

