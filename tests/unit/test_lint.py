"""The lint gate: ruff's rules chosen in pyproject.toml ([tool.ruff.lint]) hold for the whole tree."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ruff() -> str:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert exe, "ruff is a test dependency: pip install -e '.[test]'"
    return exe


def test_the_tree_passes_ruff():
    r = subprocess.run([_ruff(), "check", "--no-cache", "companion", "tests", "firmware", "models"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_ruff_reports_an_unused_import(tmp_path):
    """The gate can fail: a module with an unused import is reported under the project's settings."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    r = subprocess.run([_ruff(), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(bad)],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "F401" in r.stdout
