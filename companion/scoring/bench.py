"""`companion bench scoring`: how long scoring one hand takes (no photo), per scoring system.

Each sample hand is parsed from its JSON form and scored, as the CLI and the API do; the first
call of each system (library import, variant load) is reported apart from the steady state.
Target (issue "Score the winning hand"): p99 <= 20 ms per hand on the table's computer.
"""

from __future__ import annotations

import json
import statistics
import time

import click

#: sample hands per system (JSON form); the classical-family systems score losers' hands too
SAMPLES: dict[str, list[dict]] = {
    "mcr": [
        {"concealed": ["5p", "5p", "3z", "3z", "3z", "4z", "4z"], "melds": [{"tiles": ["1z"] * 3},
         {"tiles": ["2z"] * 4}], "winning_tile": "4z", "self_drawn": True},
        {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2m", "2m", "3z", "3z"],
         "winning_tile": "3z"},
        {"concealed": ["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "9m", "9m"],
         "winning_tile": "5m"},
        {"concealed": ["1m", "4m", "7m", "2p", "8p", "6s", "9s", "1z", "2z", "3z", "4z", "6z", "5z"],
         "winning_tile": "3s", "self_drawn": True},
    ],
    "riichi": [
        {"concealed": ["2s", "3s", "4s", "5s", "6s", "7s", "2m", "3m", "4m", "5m", "6m", "2p", "2p"],
         "winning_tile": "7m", "riichi": True, "seat_wind": "S", "dora_indicators": ["1p"]},
        {"concealed": ["1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "6m", "7m", "7m", "8m", "8m"],
         "winning_tile": "9m", "self_drawn": True},
        {"concealed": ["1s", "1s", "3s", "3s", "5s", "5s", "1m", "1m", "3m", "3m", "0p", "5p", "9p"],
         "winning_tile": "9p", "riichi": True, "ura_indicators": ["8p"]},
    ],
    "classical": [
        {"concealed": ["1m", "1m", "1m", "5p", "6p", "7p", "2s", "2s", "2s", "7z", "7z", "3z", "3z"],
         "winning_tile": "3z", "flowers": ["1f"]},
        {"concealed": ["1m", "2m", "3m", "5p", "6p", "7p", "2s", "3s", "4s", "7z", "7z", "3z", "9p"]},
    ],
}
SAMPLES["german"] = SAMPLES["classical"]
SAMPLES["hongkong"] = [
    {"concealed": ["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "1z", "1z", "7z", "7z"], "winning_tile": "7z"},
    *SAMPLES["mcr"][1:3],
]


def run(repeat: int) -> list[dict]:
    """Per system: cold (first call) and steady-state latencies in ms; systems this installation
    lacks are reported as such."""
    from companion.errors import CompanionError
    from companion.rules.variant import load_variant
    from companion.scoring import ScoringUnavailable, score_obj

    rows = []
    for system, hands in SAMPLES.items():
        t0 = time.perf_counter()
        try:
            variant = load_variant(system)
            first = score_obj(dict(hands[0]), variant)
        except ScoringUnavailable as e:
            rows.append({"system": system, "error": str(e)})
            continue
        except CompanionError as e:
            rows.append({"system": system, "error": str(e)})
            continue
        cold = (time.perf_counter() - t0) * 1000
        times = []
        for i in range(repeat):
            obj = dict(hands[i % len(hands)])
            t = time.perf_counter()
            score_obj(obj, variant)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        rows.append({"system": system, "hands": len(hands), "runs": repeat, "first_ms": round(cold, 2),
                     "p50_ms": round(statistics.median(times), 3),
                     "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
                     "max_ms": round(times[-1], 3), "valid_first": first.valid})
    return rows


@click.command("scoring")
@click.option("--repeat", type=click.IntRange(min=10), default=2000, show_default=True,
              help="Hands scored per system (the sample hands in turn).")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def scoring_bench(repeat: int, as_json: bool) -> None:
    """Latency of scoring one hand (parse + score, no photo) per scoring system: p50, p99, max."""
    rows = run(repeat)
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    click.echo(f"{'system':<10} {'first ms':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  (target p99 <= 20 ms)")
    for r in rows:
        if "error" in r:
            click.echo(f"{r['system']:<10} {r['error']}")
        else:
            click.echo(f"{r['system']:<10} {r['first_ms']:>9} {r['p50_ms']:>8} {r['p99_ms']:>8} {r['max_ms']:>8}"
                       f"  ({r['runs']} runs over {r['hands']} hands)")
