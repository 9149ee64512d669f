#!/usr/bin/env bash
# Install or upgrade the Mahjong table companion as a systemd service on Raspberry Pi OS (bookworm).
#
#   sudo deploy/install.sh              install, or upgrade after `git pull`
#   sudo deploy/install.sh --dry-run    say what would change, change nothing
#
# Idempotent: a second run with nothing new changes nothing and says so. It never touches the
# game log in /var/lib/companion, and never overwrites an edited /etc/companion/companion.toml.
#
# It builds the package from a copy of the sources under /opt/companion, never in this checkout:
# running it with sudo leaves no root-owned file (build/, *.egg-info, __pycache__) in your clone.
# The service user is declared in deploy/companion.sysusers (-> /etc/sysusers.d/companion.conf) and
# made with systemd-sysusers.
#
# Options: --dry-run, --no-apt (skip system packages), --no-start (install, do not (re)start).
# Environment: DESTDIR=DIR installs under DIR instead of / (for packaging and the project's tests:
# no service is started, `systemctl --root` enables it, no system package is installed here (the
# target needs them; they are listed), and the users and groups of this machine are neither read nor
# changed: the target applies /etc/sysusers.d/companion.conf with systemd-sysusers);
# PYTHON (default python3); PIP_ARGS (extra arguments for pip, e.g. --no-deps in the tests).
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="${DESTDIR:-}"
ROOT="${ROOT%/}"
APP=/opt/companion
DATA=/var/lib/companion
CONF=/etc/companion
SYSUSERS=/etc/sysusers.d/companion.conf
UNIT=/etc/systemd/system/companion.service
LINK=/usr/local/bin/companion
SERVICE_USER=companion
PYTHON="${PYTHON:-python3}"
PIP_ARGS="${PIP_ARGS:-}"
# python3-venv: the service's own Python; sqlite3: to look at or back up the game log by hand;
# g++ and python3-dev: PyMahjongGB (MCR scoring) builds from source
PACKAGES=(python3 python3-venv python3-pip sqlite3 g++ python3-dev)
# Raspberry Pi OS only: the camera (picamera2 lives in apt, not pip) and GPIO on a Pi 5 (lgpio)
PI_PACKAGES=(python3-picamera2 python3-lgpio)

DRY_RUN=0 APT=1 START=1
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    --no-apt) APT=0 ;;
    --no-start) START=0 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done

changes=0
note() { printf '  %s\n' "$*"; }
change() { changes=$((changes + 1)); printf '  %s %s\n' "$([ "$DRY_RUN" = 1 ] && echo 'would:' || echo 'done: ')" "$*"; }
run() { if [ "$DRY_RUN" = 1 ]; then :; else "$@"; fi; }

if [ -z "$ROOT" ] && [ "$(id -u)" != 0 ] && [ "$DRY_RUN" = 0 ]; then
  echo "install.sh: run it as root: sudo $0 $*" >&2
  exit 1
fi

echo "Mahjong table companion: installing from $SRC${ROOT:+ into $ROOT}"

# --- 1. system packages -------------------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
if [ "$APT" = 1 ] && [ -n "$ROOT" ]; then
  # a DESTDIR install builds for another machine: apt here would change this one, not the target
  note "system packages: left to the target (${PACKAGES[*]}; on Raspberry Pi OS also ${PI_PACKAGES[*]})"
elif [ "$APT" = 1 ]; then
  missing=()
  for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
  for p in "${PI_PACKAGES[@]}"; do
    installed "$p" || { apt-cache show "$p" >/dev/null 2>&1 && missing+=("$p"); } || true
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    change "apt-get install ${missing[*]}"
    run apt-get update -qq
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    note "system packages: all there"
  fi
fi

ensure_dir() {  # ensure_dir PATH MODE [OWNER]
  local path="$ROOT$1"
  if [ ! -d "$path" ]; then
    change "make $1"
    run install -d -m "$2" "$path"
    # with DESTDIR the owner exists only on the target, not here: the unit's StateDirectory= gives
    # the folder to the service user at its first start
    if [ -n "${3:-}" ] && [ -z "$ROOT" ]; then run chown "$3:$3" "$path"; fi
  fi
  return 0
}

# --- 2. the service user --------------------------------------------------------------------------
# Declared once, in deploy/companion.sysusers: the user, its group and its device groups (the camera,
# GPIO, I2C/SPI, the serial dice box). A live install applies it with systemd-sysusers, which
# creates what is missing and changes nothing else; a DESTDIR install only writes it.
ensure_dir /etc/sysusers.d 0755
if ! cmp -s "$SRC/deploy/companion.sysusers" "$ROOT$SYSUSERS"; then
  change "install $SYSUSERS (the service user $SERVICE_USER and its groups)"
  run install -m 0644 "$SRC/deploy/companion.sysusers" "$ROOT$SYSUSERS"
fi
if [ -n "$ROOT" ]; then
  note "service user: left to the target (systemd-sysusers $SYSUSERS); this machine's users are untouched"
else
  apply_sysusers=0
  getent passwd "$SERVICE_USER" >/dev/null || { change "create the system user $SERVICE_USER"; apply_sysusers=1; }
  for g in $(awk -v u="$SERVICE_USER" '$1 == "m" && $2 == u { print $3 }' "$SRC/deploy/companion.sysusers"); do
    case ",$(getent group "$g" | cut -d: -f4)," in
      *",$SERVICE_USER,"*) ;;
      *) change "add $SERVICE_USER to the group $g"; apply_sysusers=1 ;;
    esac
  done
  if [ "$apply_sysusers" = 1 ]; then run systemd-sysusers "$SYSUSERS"; fi
fi

# --- 3. folders and the configuration ------------------------------------------------------------
ensure_dir "$APP" 0755
ensure_dir "$CONF" 0755
ensure_dir "$DATA" 0750 "$SERVICE_USER"   # the game log: survives every upgrade
ensure_dir /usr/local/bin 0755
ensure_dir /etc/systemd/system 0755

if [ ! -e "$ROOT$CONF/companion.toml" ]; then
  change "install $CONF/companion.toml"
  run install -m 0644 "$SRC/deploy/companion.toml" "$ROOT$CONF/companion.toml"
elif ! cmp -s "$SRC/deploy/companion.toml" "$ROOT$CONF/companion.toml"; then
  note "kept your $CONF/companion.toml"
  if ! cmp -s "$SRC/deploy/companion.toml" "$ROOT$CONF/companion.toml.dist"; then
    change "install $CONF/companion.toml.dist (this version's example, to compare with yours)"
    run install -m 0644 "$SRC/deploy/companion.toml" "$ROOT$CONF/companion.toml.dist"
  fi
fi

# --- 4. the program in its own virtual environment -------------------------------------------------
VENV="$ROOT$APP/venv"
if [ ! -x "$VENV/bin/python" ]; then
  change "make the virtual environment $APP/venv"
  # system packages visible: picamera2 and lgpio come from apt on Raspberry Pi OS
  run "$PYTHON" -m venv --system-site-packages "$VENV"
fi
# the installed version is recorded as a digest of the sources (the firmware's box logic is part of
# the package): reinstall only when they changed
digest="$(cd "$SRC" && find pyproject.toml companion firmware deploy -type f ! -path '*/__pycache__/*' ! -name '*.pyc' \
  -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)"
if [ "$(cat "$ROOT$APP/installed-source" 2>/dev/null)" != "$digest" ]; then
  change "install the companion into $APP/venv"
  pip_args=()
  # bookworm's picamera2 stack (simplejpeg) is built for numpy 1.x: keep the venv on numpy 1.x with it
  if installed python3-picamera2; then pip_args+=(-c "$SRC/deploy/constraints-pi.txt"); fi
  if [ "$DRY_RUN" = 0 ]; then
    # Build from a copy in the install prefix, never in $SRC: pip and setuptools write build/,
    # *.egg-info and __pycache__ into the tree they build, which as root would leave root-owned
    # files in the user's clone. The copy holds only what the build reads, and goes when done.
    rm -rf "$ROOT$APP"/.build.*   # left by an interrupted run
    stage="$(mktemp -d "$ROOT$APP/.build.XXXXXX")"
    trap 'rm -rf "$stage"' EXIT
    tar -C "$SRC" --exclude=__pycache__ --exclude='*.py[co]' --exclude='*.egg-info' -cf - \
      pyproject.toml README.md companion firmware | tar -C "$stage" --no-same-owner -xf -
    # shellcheck disable=SC2086  # PIP_ARGS is a list of words on purpose
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade ${PIP_ARGS} \
      "${pip_args[@]}" "$stage[pi]"
    rm -rf "$stage"
    trap - EXIT
    printf '%s\n' "$digest" > "$ROOT$APP/installed-source"
  fi
fi
if [ "$(readlink "$ROOT$LINK" 2>/dev/null)" != "$APP/venv/bin/companion" ]; then
  change "link $LINK (for \`companion doctor\`)"
  run ln -sfn "$APP/venv/bin/companion" "$ROOT$LINK"
fi

# --- 5. the systemd service ------------------------------------------------------------------------
unit_changed=0
if ! cmp -s "$SRC/deploy/companion.service" "$ROOT$UNIT"; then
  change "install $UNIT"
  run install -m 0644 "$SRC/deploy/companion.service" "$ROOT$UNIT"
  unit_changed=1
fi
if [ -n "$ROOT" ]; then
  systemctl_=(systemctl --root="$ROOT")   # offline: enable by symlink, start nothing
else
  systemctl_=(systemctl)
fi
if ! "${systemctl_[@]}" is-enabled --quiet companion.service 2>/dev/null; then
  change "enable companion.service (start at boot)"
  run "${systemctl_[@]}" enable --quiet companion.service
fi
if [ -z "$ROOT" ] && [ "$START" = 1 ]; then
  if [ "$unit_changed" = 1 ]; then run systemctl daemon-reload; fi
  if [ "$changes" -gt 0 ]; then
    change "restart companion.service"
    run systemctl restart companion.service
  elif ! systemctl is-active --quiet companion.service; then
    change "start companion.service"
    run systemctl start companion.service
  fi
fi

if [ "$changes" = 0 ]; then
  echo "Nothing to change: the companion is installed and up to date."
elif [ "$DRY_RUN" = 1 ]; then
  echo "$changes change(s) would be made (dry run: nothing was changed)."
else
  echo "$changes change(s) made."
fi
if [ -z "$ROOT" ] && [ "$DRY_RUN" = 0 ]; then
  echo "Dashboard: http://$(hostname).local:$(sed -n 's/^port *= *\([0-9]*\).*/\1/p' "$CONF/companion.toml" | head -1 || true)/"
  echo "Health:    companion doctor     Logs: journalctl -u companion -f"
fi
