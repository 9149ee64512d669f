"""The load benchmark runs end to end on a few phones (the real figures come from `companion bench web`)."""

from __future__ import annotations

from click.testing import CliRunner

from companion.cli import main


def test_bench_web_measures_every_phone_getting_every_result():
    result = CliRunner().invoke(main, ["bench", "web", "--phones", "4", "--results", "3", "--interval", "0.05"])
    assert result.exit_code == 0, result.output
    assert "4 phones x 3 results: 12 updates delivered, 0 missing, 0 phone errors" in result.output
    assert "update latency" in result.output and "p99" in result.output and "server RSS" in result.output
