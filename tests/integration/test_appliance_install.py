"""deploy/install.sh into a scratch root: a complete install, then a second run that changes nothing.

System tools that would change this machine (apt-get, useradd, usermod, chown) are stand-ins on
PATH that record what they were asked in a scratch 'system'; everything else is real: the venv,
pip, `systemctl --root` enabling the unit, and `systemd-analyze verify` of the installed unit.
"""

import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "deploy" / "install.sh"

FAKES = {
    # a tiny package database: dpkg-query reports what fake apt-get installed
    "dpkg-query": 'grep -qx "${@: -1}" "$FAKE/dpkg" 2>/dev/null && echo "install ok installed" || exit 1',
    "apt-cache": 'case "$2" in python3-picamera2|python3-lgpio) exit 100 ;; esac; echo "Package: $2"',
    "apt-get": 'echo "apt-get $*" >> "$FAKE/log"; [ "$1" = install ] || [ "${*: -1}" = "-qq" ] || true\n'
               'if printf "%s\\n" "$@" | grep -qx install; then for a in "$@"; do case "$a" in -*|install) ;; '
               '*) echo "$a" >> "$FAKE/dpkg" ;; esac; done; fi',
    "getent": 'f="$FAKE/$1"; grep -q "^$2:" "$f" 2>/dev/null || exit 2; grep "^$2:" "$f"',
    "useradd": 'echo "useradd $*" >> "$FAKE/log"; echo "${@: -1}:x:999:999::/var/lib/companion:/usr/sbin/nologin"'
               ' >> "$FAKE/passwd"',
    "usermod": 'echo "usermod $*" >> "$FAKE/log"; g="$2"; u="$3"; '
               'sed -i "s/^\\($g:[^:]*:[^:]*:\\)\\(.*\\)$/\\1\\2,$u/; s/^\\($g:[^:]*:[^:]*:\\),/\\1/" "$FAKE/group"',
    "chown": 'echo "chown $*" >> "$FAKE/log"',
}


@pytest.fixture
def system(tmp_path):
    fake = tmp_path / "system"
    bin_ = fake / "bin"
    bin_.mkdir(parents=True)
    for name, body in FAKES.items():
        (bin_ / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
        (bin_ / name).chmod(0o755)
    (fake / "group").write_text("video:x:44:\ngpio:x:997:pi\ndialout:x:20:pi\n")
    (fake / "passwd").write_text("")
    (fake / "log").write_text("")
    return fake


def install(root, system, *args):
    env = {**os.environ, "DESTDIR": str(root), "FAKE": str(system), "PATH": f"{system / 'bin'}:{os.environ['PATH']}",
           "PYTHON": sys.executable, "PIP_ARGS": "--no-deps"}
    return subprocess.run(["bash", str(INSTALL), *args], env=env, capture_output=True, text=True, timeout=300)


def snapshot(root: Path) -> dict:
    """Every path under root with its type, mode and content digest (or link target)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if "__pycache__" in rel:
            continue
        st = p.lstat()
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(p))
        elif p.is_dir():
            out[rel] = ("dir", stat.S_IMODE(st.st_mode))
        else:
            out[rel] = ("file", stat.S_IMODE(st.st_mode), hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mtime_ns)
    return out


@pytest.mark.slow
def test_install_then_reinstall_changes_nothing(tmp_path, system):
    root = tmp_path / "root"
    first = install(root, system)
    assert first.returncode == 0, first.stdout + first.stderr
    log = (system / "log").read_text()
    assert "apt-get install" in log and "python3-venv" in log
    assert "useradd --system --user-group --home-dir /var/lib/companion" in log
    assert "usermod -aG video companion" in log and "usermod -aG gpio companion" in log
    assert (root / "etc/companion/companion.toml").read_bytes() == (REPO / "deploy/companion.toml").read_bytes()
    assert (root / "opt/companion/venv/bin/companion").exists()
    assert os.readlink(root / "usr/local/bin/companion") == "/opt/companion/venv/bin/companion"
    assert (root / "var/lib/companion").is_dir()
    wants = root / "etc/systemd/system/multi-user.target.wants/companion.service"
    assert os.readlink(wants) == "/etc/systemd/system/companion.service"

    before, calls = snapshot(root), (system / "log").read_text()
    second = install(root, system)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Nothing to change" in second.stdout, second.stdout
    assert snapshot(root) == before
    assert (system / "log").read_text() == calls  # no package, user or owner was touched again

    # an edited configuration is kept; this version's example is put beside it, once
    (root / "etc/companion/companion.toml").write_text('[game]\nvariant = "riichi"\n')
    third = install(root, system)
    assert "kept your /etc/companion/companion.toml" in third.stdout
    assert (root / "etc/companion/companion.toml").read_text() == '[game]\nvariant = "riichi"\n'
    assert (root / "etc/companion/companion.toml.dist").exists()
    assert "Nothing to change" in install(root, system).stdout


def test_dry_run_changes_nothing(tmp_path, system):
    root = tmp_path / "root"
    r = install(root, system, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "would: make the virtual environment /opt/companion/venv" in r.stdout
    assert "would: create the system user companion" in r.stdout
    assert "dry run: nothing was changed" in r.stdout
    assert not root.exists() and (system / "log").read_text() == ""


def test_unknown_option_is_refused(tmp_path, system):
    r = install(tmp_path / "root", system, "--frobnicate")
    assert r.returncode == 2 and "unknown option --frobnicate" in r.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed (CI installs it)")
def test_the_unit_passes_systemd_analyze_verify(tmp_path):
    """Verified in a root holding the system's own units and an executable where ExecStart points."""
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    unit = root / "etc/systemd/system/companion.service"
    unit.parent.mkdir(parents=True)
    shutil.copy(REPO / "deploy/companion.service", unit)
    exe = root / "opt/companion/venv/bin/companion"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    r = subprocess.run(["systemd-analyze", f"--root={root}", "verify", "/etc/systemd/system/companion.service"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr
    text = unit.read_text()
    for line in ("Restart=on-failure", "Wants=network-online.target", "After=network-online.target",
                 "StandardOutput=journal", "StateDirectory=companion",
                 "Environment=COMPANION_DATA_DIR=/var/lib/companion"):
        assert line in text.splitlines(), line


def test_a_broken_unit_fails_verify(tmp_path):
    """The check above can fail: a misspelt setting is reported."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed")
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    unit = root / "etc/systemd/system/companion.service"
    unit.parent.mkdir(parents=True)
    unit.write_text((REPO / "deploy/companion.service").read_text().replace("Restart=on-failure", "Restart=sometimes"))
    r = subprocess.run(["systemd-analyze", f"--root={root}", "verify", "/etc/systemd/system/companion.service"],
                       capture_output=True, text=True, timeout=60)
    assert "sometimes" in r.stderr


def test_the_shipped_config_passes_config_check():
    r = subprocess.run([sys.executable, "-m", "companion", "config", "check", str(REPO / "deploy/companion.toml")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "OK" in r.stdout
