"""`companion observe` as a user runs it: several images, JSON, a corrupt file, a plain photo."""

import json
import subprocess
import sys

import cv2

from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene


def run(*args):
    return subprocess.run([sys.executable, "-m", "companion", "observe", *args], capture_output=True, text=True,
                          timeout=120)


def test_observe_reads_a_table_and_survives_a_corrupt_file(tmp_path):
    sc = random_scene(2, "easy", stage="broken", variant_name="classical")
    image, _ = render(sc)
    good = tmp_path / "table.png"
    cv2.imwrite(str(good), image)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), image[300:500, 500:800])  # no markers in it
    t = sc.truth
    r = run(str(good), str(bad), str(plain), "--json", "--variant", "classical",
            "--first-east-side", t["first_east_side"], "--dealer", str(t["dealer"]))
    assert r.returncode == 1 and "broken.jpg" in r.stderr and "Traceback" not in r.stderr
    table, corrupt, photo = json.loads(r.stdout)
    assert table["calibrated"] is True and table["ms"] > 0
    assert {s: w["standing"] for s, w in table["walls"]["seats"].items()} == t["walls"]
    assert table["walls"]["break"] == t["break"]
    assert table["east_marker"] == t["east_marker"] and table["wind_shown"] == t["wind_shown"]
    assert isinstance(table["tiles"], list)
    assert "error" in corrupt
    assert photo["calibrated"] is False and photo["walls"] is None


def test_observe_prints_a_summary(tmp_path):
    image, _ = render(random_scene(1, "easy", stage="built", variant_name="riichi"))
    path = tmp_path / "t.png"
    cv2.imwrite(str(path), image)
    r = run(str(path), "--variant", "riichi")
    assert r.returncode == 0, r.stderr
    assert "calibrated" in r.stdout and "break: not broken" in r.stdout and "17 stacks standing" in r.stdout


def test_observe_names_the_face_up_tiles_in_its_summary(tmp_path):
    sc = random_scene(6, "easy", stage="dealt")
    image, _ = render(sc)
    path = tmp_path / "t.png"
    cv2.imwrite(str(path), image)
    t = sc.truth
    r = run(str(path), "--variant", t["variant"], "--first-east-side", t["first_east_side"], "--dealer", str(t["dealer"]))
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith("tiles:"))
    count, names = line.split(":", 1)[1].split(":", 1)
    assert int(count) >= 10 and len(names.split()) == int(count)
