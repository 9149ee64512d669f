"""deploy/install.sh into a scratch root: a complete install, then a second run that changes nothing.

System tools that would change this machine (apt-get, useradd, usermod, systemd-sysusers, chown, …)
are stand-ins on PATH that record what they were asked in a scratch 'system'; everything else is
real: the venv, pip, `systemctl --root` enabling the unit, and `systemd-analyze verify` of the
installed unit. The installer runs from a copy of the sources, which must come out of it unchanged.
"""

import hashlib
import os
import re
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
# never to be called by a DESTDIR install: they would change this machine's users and groups
for _tool in ("systemd-sysusers", "groupadd", "gpasswd", "adduser", "addgroup"):
    FAKES[_tool] = f'echo "{_tool} $*" >> "$FAKE/log"'
USER_TOOLS = ("useradd", "usermod", "systemd-sysusers", "groupadd", "gpasswd", "adduser", "addgroup")


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


@pytest.fixture
def source(tmp_path):
    """What the installer reads, copied from this checkout (it is run from the copy, as from a clone)."""
    src = tmp_path / "src"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    for name in ("companion", "firmware", "deploy"):
        shutil.copytree(REPO / name, src / name, ignore=skip, symlinks=True)
    return src


def install(root, system, *args, source=REPO):
    env = {**os.environ, "FAKE": str(system), "PATH": f"{system / 'bin'}:{os.environ['PATH']}",
           "PYTHON": sys.executable, "PIP_ARGS": "--no-deps"}
    env.pop("DESTDIR", None)
    if root is not None:
        env["DESTDIR"] = str(root)
    return subprocess.run(["bash", str(source / "deploy/install.sh"), *args], env=env, capture_output=True,
                          text=True, timeout=300)


def tree(root: Path) -> dict:
    """Every path under root, __pycache__ included, with its type, owner, mode and mtime."""
    return {str(p.relative_to(root)): (stat.S_IFMT(st.st_mode), st.st_uid, st.st_mode, st.st_mtime_ns)
            for p in sorted(root.rglob("*")) for st in [p.lstat()]}


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
def test_install_then_reinstall_changes_nothing(tmp_path, system, source):
    root = tmp_path / "root"
    first = install(root, system, source=source)
    assert first.returncode == 0, first.stdout + first.stderr
    log = (system / "log").read_text()
    # DESTDIR: system packages are the target's; apt here would change the build machine
    assert "apt-get" not in log, log
    assert "system packages: left to the target (python3 python3-venv python3-pip sqlite3 g++ python3-dev;" in first.stdout
    # DESTDIR: the service user is declared for the target, this machine's users and groups untouched
    assert (root / "etc/sysusers.d/companion.conf").read_bytes() == (REPO / "deploy/companion.sysusers").read_bytes()
    for tool in (*USER_TOOLS, "chown"):
        assert not re.search(rf"^{tool} ", log, re.M), log
    assert "service user: left to the target (systemd-sysusers /etc/sysusers.d/companion.conf)" in first.stdout
    assert (root / "etc/companion/companion.toml").read_bytes() == (REPO / "deploy/companion.toml").read_bytes()
    assert (root / "opt/companion/venv/bin/companion").exists()
    assert os.readlink(root / "usr/local/bin/companion") == "/opt/companion/venv/bin/companion"
    assert (root / "var/lib/companion").is_dir()
    wants = root / "etc/systemd/system/multi-user.target.wants/companion.service"
    assert os.readlink(wants) == "/etc/systemd/system/companion.service"

    assert not list((root / "opt/companion").glob(".build.*"))  # the build copy is gone

    before, calls = snapshot(root), (system / "log").read_text()
    second = install(root, system, source=source)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Nothing to change" in second.stdout, second.stdout
    assert snapshot(root) == before
    assert (system / "log").read_text() == calls  # no package, user or owner was touched again

    # an edited configuration is kept; this version's example is put beside it, once
    (root / "etc/companion/companion.toml").write_text('[game]\nvariant = "riichi"\n')
    third = install(root, system, source=source)
    assert "kept your /etc/companion/companion.toml" in third.stdout
    assert (root / "etc/companion/companion.toml").read_text() == '[game]\nvariant = "riichi"\n'
    assert (root / "etc/companion/companion.toml.dist").exists()
    assert "Nothing to change" in install(root, system, source=source).stdout


@pytest.mark.slow
def test_install_leaves_the_source_tree_untouched(tmp_path, system, source):
    """Run as root from a clone, it used to build there: root-owned build/, *.egg-info, __pycache__."""
    before = tree(source)
    r = install(tmp_path / "root", system, source=source)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "root/opt/companion/venv/bin/companion").exists()
    after = tree(source)
    assert sorted(set(after) - set(before)) == [] and after == before


@pytest.mark.skipif(shutil.which("systemd-sysusers") is None, reason="systemd-sysusers not installed")
def test_the_sysusers_snippet_makes_the_service_user(tmp_path):
    """Applied by the real systemd-sysusers to a scratch root: the user, and its device groups."""
    root = tmp_path / "root"
    (root / "etc/sysusers.d").mkdir(parents=True)
    shutil.copy(REPO / "deploy/companion.sysusers", root / "etc/sysusers.d/companion.conf")
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "etc/group").write_text("root:x:0:\nvideo:x:44:\ngpio:x:997:pi\ni2c:x:998:pi\nspi:x:999:pi\n"
                                    "dialout:x:20:pi\n")
    for _ in range(2):  # the second time changes nothing
        r = subprocess.run(["systemd-sysusers", f"--root={root}", "companion.conf"], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
    user = [line.split(":") for line in (root / "etc/passwd").read_text().splitlines() if line.startswith("companion:")]
    assert len(user) == 1
    _, _, uid, gid, _, home, shell = user[0]
    assert int(uid) < 1000 and home == "/var/lib/companion" and shell == "/usr/sbin/nologin"
    groups = {line.split(":")[0]: line.split(":") for line in (root / "etc/group").read_text().splitlines()}
    assert groups["companion"][2] == gid
    for g in ("video", "gpio", "i2c", "spi", "dialout"):
        assert "companion" in groups[g][3].split(","), g
    assert groups["video"][2] == "44" and "pi" in groups["gpio"][3].split(",")  # nothing else changed


def test_live_dry_run_would_make_the_user_with_systemd_sysusers(tmp_path, system):
    """Without DESTDIR the user comes from the same snippet, through systemd-sysusers (nothing runs: --dry-run)."""
    (system / "bin/systemctl").write_text('#!/usr/bin/env bash\necho "systemctl $*" >> "$FAKE/log"; exit 1\n')
    (system / "bin/systemctl").chmod(0o755)
    r = install(None, system, "--dry-run")
    assert r.returncode == 0, r.stderr
    # a live install is where apt runs (nothing is installed: the stand-in package database is empty)
    assert "would: apt-get install python3 python3-venv python3-pip sqlite3" in r.stdout
    assert "would: create the system user companion" in r.stdout
    assert "would: add companion to the group gpio" in r.stdout
    live = Path("/etc/sysusers.d/companion.conf")  # already there only where the companion is installed
    assert ("would: install /etc/sysusers.d/companion.conf" in r.stdout
            or live.read_bytes() == (REPO / "deploy/companion.sysusers").read_bytes())
    assert "dry run: nothing was changed" in r.stdout
    assert not re.search(rf"^({'|'.join(USER_TOOLS)}|chown) ", (system / "log").read_text(), re.M)


def test_dry_run_changes_nothing(tmp_path, system):
    root = tmp_path / "root"
    r = install(root, system, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "would: make the virtual environment /opt/companion/venv" in r.stdout
    assert "would: install /etc/sysusers.d/companion.conf" in r.stdout
    assert "create the system user" not in r.stdout  # DESTDIR: left to the target
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


HARDENING = ("NoNewPrivileges=yes", "CapabilityBoundingSet=", "ProtectSystem=strict", "ProtectHome=yes",
             "PrivateTmp=yes", "UMask=0027", "ReadWritePaths=-/var/lib/companion", "ProtectKernelTunables=yes",
             "ProtectKernelModules=yes", "ProtectKernelLogs=yes", "ProtectControlGroups=yes",
             "RestrictSUIDSGID=yes", "LockPersonality=yes", "RestrictRealtime=yes", "RestrictNamespaces=yes",
             "SystemCallArchitectures=native", "SystemCallFilter=@system-service",
             "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK")


def test_the_unit_is_hardened_but_keeps_its_devices():
    lines = (REPO / "deploy/companion.service").read_text().splitlines()
    for line in HARDENING:
        assert line in lines, line
    # what lgpio, the camera, the dice box and numpy/onnxruntime need stays
    for line in ("RuntimeDirectory=companion", "Environment=LG_WD=/run/companion",
                 "WorkingDirectory=/var/lib/companion", "StateDirectory=companion"):
        assert line in lines, line
    # these would shut the camera, GPIO or serial devices off (ProtectClock= implies DeviceAllow= before
    # systemd 253), hide /proc/cpuinfo and /proc/device-tree, or kill a process mapping W+X memory
    for setting in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock", "ProcSubset",
                    "MemoryDenyWriteExecute", "PrivateUsers", "PrivateNetwork", "IPAddressDeny"):
        assert not any(line.startswith(setting + "=") for line in lines), setting


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_the_unit_security_exposure_is_low(tmp_path):
    """`systemd-analyze security` (offline, on the file): 8.5 EXPOSED before the hardening, 2.0 OK after."""
    unit = tmp_path / "companion.service"
    shutil.copy(REPO / "deploy/companion.service", unit)
    r = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", str(unit)],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0 and "offline" in r.stderr:
        pytest.skip("systemd-analyze security has no --offline (systemd < 250)")
    level = re.search(r"Overall exposure level for companion.service: ([0-9.]+)", r.stdout)
    assert level, r.stdout + r.stderr
    assert float(level.group(1)) <= 3.0, r.stdout


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
