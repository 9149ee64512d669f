"""companion doctor and the health report: plain words, JSON, exit status, each part's failure said plainly."""

import json
import os
import sqlite3
import subprocess
import sys

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.config import load_settings
from companion.health import (
    HealthReport,
    camera_from_status,
    check_database,
    check_models,
    dice_from_status,
    gpio_from_status,
    standalone_report,
)
from companion.storage import EventStore, StorageError


@pytest.fixture
def scenes(tmp_path):
    folder = tmp_path / "scenes"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((72, 128, 3), 128, np.uint8))
    return folder


def doctor(tmp_path, *args, camera="off", dice="sim"):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[camera]\nsource = "{camera}"\n[dice]\nurl = "{dice}"\n[server]\nport = 0\n')
    return CliRunner().invoke(main, ["doctor", "--config", str(cfg), "--data-dir", str(tmp_path / "data"), *args])


def test_a_healthy_machine_says_so_and_exits_0(tmp_path, scenes):
    r = doctor(tmp_path, camera=f"replay:{scenes}")
    assert r.exit_code == 0, r.output
    assert "OK    camera      replay: opens and gives pictures, 128x72" in r.output
    assert "OK    gpio        14 pins claimed on simulated pins" in r.output
    assert "All is well." in r.output


def test_json_report(tmp_path, scenes):
    r = doctor(tmp_path, "--json", camera=f"replay:{scenes}")
    data = json.loads(r.output)
    assert data["ok"] is True and data["source"] == "standalone"
    assert [c["name"] for c in data["checks"]] == ["camera", "dice", "gpio", "disk", "game log", "table codes",
                                                   "models", "taught set", "corners", "samples"]
    assert "tile_classifier.onnx" in data["checks"][6]["details"]["files"]
    assert data["checks"][0]["details"]["resolution"] == [128, 72]


def test_a_missing_camera_and_dice_box_fail_in_plain_words(tmp_path):
    r = doctor(tmp_path, camera=f"replay:{tmp_path}/nowhere", dice=str(tmp_path / "ttyACM9"))
    assert r.exit_code == 1
    assert "FAIL  camera      replay: no such folder or video" in r.output
    assert f"FAIL  dice        cannot open {tmp_path}/ttyACM9" in r.output
    assert "Something is broken" in r.output


def test_a_damaged_game_log_fails(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path)})
    settings.data_path.mkdir(exist_ok=True)
    settings.db_path.write_bytes(b"SQLite format 3\x00" + b"\x13" * 4000)
    check = check_database(settings)
    assert check.level == "fail"


def test_an_intact_database_of_something_else_fails(tmp_path):
    import sqlite3

    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path)})
    settings.data_path.mkdir(exist_ok=True)
    con = sqlite3.connect(settings.db_path)
    con.execute("CREATE TABLE notes (t TEXT)")
    con.commit()
    con.close()
    check = check_database(settings)
    assert check.level == "fail" and "no such table: events" in check.summary


def _log_with_games(settings):
    from companion.game.events import HandDrawn
    from companion.hub import Hub
    from companion.rules.variant import load_variant
    from companion.table import Table

    with EventStore(settings.db_path) as store:
        t = Table(store, Hub())
        t.start_game(load_variant("classical"), ["Ann", "Bob", "Cat", "Dan"])
        t.record(HandDrawn())


@pytest.mark.parametrize("damage, words", [
    ("PRAGMA user_version = 99", "from a newer version of the companion (schema 99"),
    ("""UPDATE events SET payload = '{"type": "tile_discarded"}' WHERE id = 2""", "event 2 in the game log cannot be read"),
    ("UPDATE events SET at = 'garbage' WHERE id = 2", "event 2 in the game log cannot be read"),
    ("CREATE TABLE t (a); DROP TABLE events; CREATE TABLE events (id INTEGER)", "not a game log"),
])
def test_doctor_fails_a_game_log_that_the_companion_would_refuse(tmp_path, damage, words):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path)})
    _log_with_games(settings)
    con = sqlite3.connect(settings.db_path)
    con.executescript(damage)
    con.close()
    check = check_database(settings)
    assert check.level == "fail" and words in check.summary
    with pytest.raises(StorageError, match=words.split(" (")[0]):  # as `companion run` finds, in the same words
        with EventStore(settings.db_path) as store:
            store.events()


def test_doctor_fails_a_data_folder_that_is_a_file(tmp_path):
    (tmp_path / "data").write_text("not a folder")
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path / "data")})
    check = check_database(settings)
    assert check.level == "fail" and "is a file, not a folder" in check.summary


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files; the check is for the service user")
def test_a_read_only_game_log_is_refused_at_opening_and_by_doctor(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path)})
    _log_with_games(settings)
    settings.db_path.chmod(0o444)
    assert check_database(settings).level == "fail"
    with pytest.raises(StorageError, match="cannot be written"):
        EventStore(settings.db_path)


def test_an_intact_game_log_reports_its_sizes(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path)})
    EventStore(settings.db_path).close()
    check = check_database(settings)
    assert check.level == "ok" and "intact" in check.summary
    assert check.details["integrity"] == "ok"


def test_live_statuses_are_explained():
    assert camera_from_status({"connected": False, "error": "no camera at 0"}, "opencv:0").level == "fail"
    ok = camera_from_status({"connected": True, "kind": "picamera2", "resolution": [1280, 720], "fps": 14.9,
                             "frames": 30}, "picamera2")
    assert ok.level == "ok" and ok.summary == "picamera2: 1280x720 at 14.9 fps, 30 frames"
    assert camera_from_status(None, "off").level == "off"
    assert dice_from_status({"connected": False, "url": "/dev/ttyACM0"}, "/dev/ttyACM0").level == "fail"
    assert dice_from_status(None, "sim").level == "warn"
    assert gpio_from_status({"connected": False, "error": "BadPinFactory: no pins"}).level == "fail"


def test_a_dice_box_that_opens_but_does_not_answer_is_a_warning():
    box = {"kind": "serial", "url": "/dev/ttyUSB0", "connected": True}
    silent = dice_from_status(box | {"responding": False, "just_connected": False}, "/dev/ttyUSB0")
    assert silent.level == "warn" and "the port opens but the box does not answer" in silent.summary
    assert "All is well." not in HealthReport([silent], "service").text()
    # just connected, not heard from yet: within the link's grace it is not called silent
    assert dice_from_status(box | {"responding": False, "just_connected": True}, "/dev/ttyUSB0").level == "ok"
    assert dice_from_status(box | {"responding": True, "last_heard": "t"}, "/dev/ttyUSB0").level == "ok"


def test_a_dice_box_that_cannot_be_opened_says_why():
    check = dice_from_status({"connected": False, "url": "/dev/ttyACM7",
                              "last_error": "cannot open /dev/ttyACM7: No such file or directory"}, "/dev/ttyACM7")
    assert check.level == "fail" and \
        "cannot open /dev/ttyACM7: No such file or directory (is the dice box plugged in?" in check.summary


def test_doctor_reads_a_running_companion(tmp_path, scenes, monkeypatch):
    """With a companion running, doctor shows its live report (it holds the camera and the pins)."""
    from companion.services import build_services
    from companion.web.server import add_dashboard

    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path / "data"),
                                                "camera": {"source": f"replay:{scenes}"}})
    services = build_services(settings)
    web = add_dashboard(services, "127.0.0.1", 0)
    services.start()
    try:
        r = CliRunner().invoke(main, ["doctor", "--url", f"http://127.0.0.1:{web.port}/healthz", "--json"])
        data = json.loads(r.output)
        assert data["source"] == "service"
        assert {c["name"]: c["level"] for c in data["checks"]}["gpio"] == "ok"
    finally:
        services.stop()
    r = CliRunner().invoke(main, ["doctor", "--url", f"http://127.0.0.1:{web.port}/healthz"])
    assert r.exit_code != 0 and "no companion answers" in r.output


@pytest.mark.parametrize("answer", [b'{"ok": "maybe"}', b'{"checks": []}',
                                    b'{"checks": [{"name": "x", "level": "great", "summary": "?"}]}'])
def test_doctor_asked_at_a_url_that_is_no_companion_says_so(answer):
    import http.server
    import threading

    class Other(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/healthz"
        r = CliRunner().invoke(main, ["doctor", "--url", url])
        assert r.exit_code == 1 and "not with a companion's health report" in r.output
        assert "All is well" not in r.output  # not this machine's report in its place
    finally:
        server.shutdown()
    r = CliRunner().invoke(main, ["doctor", "--url", "notaurl"])
    assert r.exit_code == 1 and "give the companion's address" in r.output


def test_pins_that_cannot_be_had_are_said_once_in_the_report(tmp_path, monkeypatch):
    """The panel's own log line (for the service) is not printed above the doctor's report."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")  # as on a machine with no GPIO
    cfg = tmp_path / "c.toml"
    # port 0: no companion is asked for its report (one running on this machine would answer in its place)
    cfg.write_text('[camera]\nsource = "off"\n[gpio]\nbackend = "real"\n[server]\nport = 0\n')
    # a process of its own: the service's logging writes to the real stderr, which CliRunner does not catch
    r = subprocess.run([sys.executable, "-m", "companion", "doctor", "--config", str(cfg),
                        "--data-dir", str(tmp_path / "data")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert r.stderr == "" and r.stdout.startswith("Health of this machine"), r.stderr + r.stdout
    assert r.stdout.count("pin factory") == 1 and "FAIL  gpio        lamps and buttons not working" in r.stdout


def test_damaged_table_codes_fail_as_they_would_stop_the_start(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "web_access.json").write_text("")  # cut short by a power cut, say
    r = doctor(tmp_path)
    assert r.exit_code == 1
    assert "FAIL  table codes" in r.output and "delete the file to make new ones" in r.output


def test_a_data_folder_that_cannot_be_written_fails(tmp_path, monkeypatch):
    """`companion run` would refuse to start, so doctor must not say all is well (as root: a read-only mount)."""
    import companion.health as health

    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path / "missing" / "data")})
    monkeypatch.setattr(health.os, "access", lambda path, mode: False)  # this user's folder, read-only
    check = health.check_disk(settings)
    assert check.level == "fail" and f"it cannot be made ({tmp_path} is not writable)" in check.summary
    monkeypatch.undo()

    real = os.statvfs

    class ReadOnly:  # the filesystem as it is, mounted read-only
        def __init__(self, path):
            self.__dict__.update({k: getattr(real(path), k) for k in dir(real(path)) if k.startswith("f_")})
            self.f_flag |= os.ST_RDONLY

    monkeypatch.setattr(health.os, "statvfs", ReadOnly)
    check = health.check_disk(settings)
    assert check.level == "fail" and "a read-only filesystem, the companion would refuse to start" in check.summary


def test_a_running_companion_that_does_not_answer_is_not_probed_behind_its_back(tmp_path):
    """Its lock says it runs: opening its dice box and pins would clash, so doctor says what it found."""
    from companion.storage.lock import DataDirLock

    lock = DataDirLock(tmp_path / "data")
    lock.acquire()
    try:
        r = doctor(tmp_path)  # port 0: no address to ask
        assert r.exit_code == 1
        assert f"a companion is running on {tmp_path / 'data'} (process {os.getpid()}) but does not answer" in r.output
        r = doctor(tmp_path, "--standalone")
        assert "beside the companion running as process" in r.output
    finally:
        lock.release()
    assert DataDirLock(tmp_path / "data").holder() is None


@pytest.mark.parametrize("host, url", [("0.0.0.0", "http://127.0.0.1:8080/healthz"),
                                       ("127.0.0.2", "http://127.0.0.2:8080/healthz"),
                                       ("::", "http://[::1]:8080/healthz"),
                                       ("fe80::1", "http://[fe80::1]:8080/healthz")])
def test_doctor_asks_the_companion_where_it_listens(host, url):
    from companion.cli.doctor_cmd import local_url

    assert local_url(host, 8080) == url and local_url(host, 0) is None


def test_standalone_gpio_probe_releases_the_pins(tmp_path):
    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path), "camera": {"source": "off"}})
    first, second = standalone_report(settings), standalone_report(settings)
    assert [c.level for c in first.checks][:3] == ["off", "ok", "ok"] == [c.level for c in second.checks][:3]


def test_a_damaged_model_file_fails_the_models_check_and_names_it(tmp_path):
    import shutil

    from companion.vision.tiles import models

    tiles = tmp_path / "tiles"
    shutil.copytree(models.model_dir(), tiles)
    assert check_models(tiles).level == "ok"
    (tiles / "tile_detector_windows.onnx").write_bytes(b"half a file")  # loaded only for table views
    check = check_models(tiles)
    assert check.level == "fail" and "tile_detector_windows.onnx" in check.summary
    shutil.rmtree(tiles)
    assert "tile models not found" in check_models(tiles).summary
    dice_dir = tmp_path / "dice"
    dice_dir.mkdir()
    check = check_models(None, dice_dir)
    assert check.level == "fail" and "dice model" in check.summary and "missing" in check.summary
    check = check_models(None, None, tmp_path / "loose.onnx")
    assert check.level == "fail" and "loose-tile model" in check.summary and "missing" in check.summary


def test_the_taught_tile_set_is_reported_and_a_damaged_one_is_a_warning(tmp_path):
    r = doctor(tmp_path)
    assert "OK    taught set  none taught: the shipped tile models name the tiles" in r.output
    (tmp_path / "data" / "tiles").mkdir(parents=True)
    (tmp_path / "data" / "tiles" / "taught_set.npz").write_bytes(b"garbage")
    r = doctor(tmp_path)
    assert r.exit_code == 0, r.output  # the companion still runs: the shipped models name the tiles
    assert "WARN  taught set  taught tile set" in r.output and "is damaged" in r.output
    assert "companion teach --forget" in r.output and "Works, with warnings." in r.output


def test_table_corners_set_by_hand_are_reported_and_a_damaged_file_is_a_warning(tmp_path):
    r = doctor(tmp_path)
    assert "OK    corners     none set by hand: the corner markers calibrate the camera" in r.output
    (tmp_path / "data").mkdir(exist_ok=True)
    corners = tmp_path / "data" / "table_corners.json"
    corners.write_text(json.dumps({"corners": [[100, 50], [700, 60], [690, 650], [110, 640]],
                                   "image_size": [1280, 720]}))
    r = doctor(tmp_path)
    assert "OK    corners     table corners set by hand, used while the camera sees no markers" in r.output
    corners.write_text(json.dumps({"corners": [[100, 50], [110, 640], [690, 650], [700, 60]],  # round the wrong way
                                   "image_size": [1280, 720]}))
    r = doctor(tmp_path)
    assert r.exit_code == 0, r.output
    assert "WARN  corners     the four corners go round the table the wrong way" in r.output
    corners.write_text("{")
    r = doctor(tmp_path)
    assert "WARN  corners" in r.output and "cannot be read" in r.output and "Works, with warnings." in r.output


def test_the_camera_samples_kept_are_reported(tmp_path):
    import numpy as np

    from companion.vision.samples import SampleKeeper, samples_path

    r = doctor(tmp_path)
    assert "OK    samples     0 camera samples kept (0.0 MiB, at most 60)" in r.output
    SampleKeeper(samples_path(tmp_path / "data"), 60).keep(np.zeros((72, 128, 3), np.uint8), {"why": ["dice"]})
    r = doctor(tmp_path, "--json")
    [check] = [c for c in json.loads(r.output)["checks"] if c["name"] == "samples"]
    assert check["details"]["count"] == 1 and check["details"]["bytes"] > 0


def test_doctor_asked_from_afar_says_the_full_report_is_for_the_pi(tmp_path):
    """/healthz gives anyone but the Pi itself and the host only ok/not ok (issue 42)."""
    from companion.services import build_services
    from companion.web.server import add_dashboard

    settings = load_settings(env={}, overrides={"data_dir": str(tmp_path / "data"), "camera": {"source": "off"},
                                                "server": {"trusted_proxies": 1}})
    services = build_services(settings)
    web = add_dashboard(services, "127.0.0.1", 0)
    services.start()
    try:
        # through a proxy that says the request came from another machine
        import urllib.request
        req = urllib.request.Request(f"http://127.0.0.1:{web.port}/healthz", headers={"X-Forwarded-For": "192.0.2.9"})
        with urllib.request.urlopen(req, timeout=5) as r:
            assert json.load(r) == {"ok": True}
        r = CliRunner().invoke(main, ["doctor", "--url", f"http://127.0.0.1:{web.port}/healthz", "--json"])
        assert json.loads(r.output)["source"] == "service"  # the Pi itself: the whole report
    finally:
        services.stop()
