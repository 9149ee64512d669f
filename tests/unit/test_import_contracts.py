"""The layer rules of docs/architecture.md, checked by import-linter with the contracts in `.importlinter`.

Imports inside functions count (grimp reads every import statement), so a lazy import cannot hide a cycle.
"""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_are_kept():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe, "import-linter is a test dependency: pip install -e '.[test]'"
    r = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout


def test_a_forbidden_import_breaks_a_contract(tmp_path):
    """The check can fail: a rules module that imports the web layer is reported."""
    cfg = tmp_path / "contracts.ini"
    cfg.write_text(
        "[importlinter]\nroot_package = companion\n\n"
        "[importlinter:contract:x]\nname = x\ntype = forbidden\n"
        "source_modules =\n    companion.web\nforbidden_modules =\n    companion.rules\n"
    )
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    r = subprocess.run([exe, "--no-cache", "--config", str(cfg)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "BROKEN" in r.stdout
