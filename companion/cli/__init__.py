"""The `companion` command line.

Each subcommand lives in its own module and is imported only when it runs, so that
`companion break` does not pay for OpenCV or the web stack (the click "lazy group"
pattern). To add a command, write `companion/cli/<name>_cmd.py` with a click command
and add one line to COMMANDS.
"""

from __future__ import annotations

import importlib

import click

from companion import __version__

#: command name -> "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "bench": "companion.cli.bench_cmd:bench",
    "break": "companion.cli.break_cmd:break_",
    "camera-plan": "companion.cli.camera_plan_cmd:camera_plan",
    "club-accounts": "companion.cli.club_accounts_cmd:club_accounts",
    "config": "companion.cli.config_cmd:config",
    "dice-sim": "companion.cli.dice_sim_cmd:dice_sim",
    "doctor": "companion.cli.doctor_cmd:doctor",
    "hub": "companion.cli.hub_cmd:hub",
    "markers": "companion.cli.markers_cmd:markers",
    "observe": "companion.cli.observe_cmd:observe",
    "recognize": "companion.cli.recognize_cmd:recognize",
    "replay": "companion.cli.replay_cmd:replay",
    "run": "companion.cli.run_cmd:run",
    "score": "companion.cli.score_cmd:score",
    "teach": "companion.cli.teach_cmd:teach",
    "variants": "companion.cli.variants_cmd:variants",
    "wiring": "companion.cli.wiring_cmd:wiring",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def __init__(self, *args, lazy_commands: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy_commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands:
            module_name, attr = self.lazy_commands[cmd_name].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, lazy_commands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="companion")
def main() -> None:
    """Mahjong table companion: dice, wall break, dealer, winds and scores for a real table."""
