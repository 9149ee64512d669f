"""Printed calibration markers: what the detector finds on the printed page is what markers_spec says."""

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main
from companion.hardware.camera import markers as m
from companion.vision import markers_spec as spec

DPI = 100


def detect(gray):
    detector = cv2.aruco.ArucoDetector(m.dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)} if ids is not None else {}


def rasterize_svg(svg: str, dpi=DPI):
    """Draw the SVG's filled rectangles (all a marker sheet's black parts are rectangles) at `dpi`."""
    root = ET.fromstring(svg)
    w, h = (float(v) for v in root.get("viewBox").split()[2:])
    px = dpi / 25.4
    img = np.full((round(h * px), round(w * px)), 255, np.uint8)
    for r in root.iter("{http://www.w3.org/2000/svg}rect"):
        if r.get("fill") != "#000":
            continue
        x, y, rw, rh = (float(r.get(k)) * px for k in ("x", "y", "width", "height"))
        img[round(y):round(y + rh), round(x):round(x + rw)] = 0
    return img


def check_sheet(gray, dpi=DPI):
    found = detect(gray)
    assert sorted(found) == sorted(spec.CORNER_IDS.values())
    h, w = gray.shape
    for corner, mid in spec.CORNER_IDS.items():
        quad = found[mid]
        cx, cy = quad.mean(axis=0)
        # the marker lies in the sheet's quarter of its table corner
        assert (cy < h * 0.45) == corner.startswith("top") and (cx < w / 2) == corner.endswith("left"), corner
        # printed the right way up: the detector's first corner (the marker's own top-left) is top-left on paper
        assert quad[0][0] < cx and quad[0][1] < cy
        side_cm = np.linalg.norm(quad[1] - quad[0]) / dpi * 2.54
        assert side_cm == pytest.approx(spec.MARKER_SIZE_CM, rel=0.03)


def test_svg_sheet_detects_as_the_spec_says():
    check_sheet(rasterize_svg(m.to_svg(m.sheet())))


def test_single_marker_svgs_are_exactly_the_spec_size():
    for mid in spec.CORNER_IDS.values():
        svg = m.marker_svg(mid)
        found = detect(rasterize_svg(svg, dpi=200))
        assert list(found) == [mid]
        side = float(re.search(r'width="([\d.]+)mm"', svg)[1])
        assert side == pytest.approx(spec.MARKER_SIZE_CM * 10 * 8 / 6)  # black border + 1 quiet module each side


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) not installed; CI installs it")
def test_pdf_sheet_prints_the_same_markers(tmp_path):
    result = CliRunner().invoke(main, ["markers", "--out", str(tmp_path), "--format", "pdf"])
    assert result.exit_code == 0, result.output
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", str(tmp_path / "markers-a4.pdf"),
                    str(tmp_path / "page")], check=True, timeout=60)
    page = cv2.imread(str(next(tmp_path.glob("page*.png"))), cv2.IMREAD_GRAYSCALE)
    assert page.shape[0] == pytest.approx(297 / 25.4 * DPI, abs=1.5) and page.shape[1] == pytest.approx(210 / 25.4 * DPI, abs=1.5)  # A4
    check_sheet(page)


def test_markers_command_writes_every_file(tmp_path):
    result = CliRunner().invoke(main, ["markers", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted(["markers-a4.svg", "markers-a4.pdf"] +
                           [f"marker-{i}-{c}.svg" for c, i in spec.CORNER_IDS.items()])
    assert (tmp_path / "out" / "markers-a4.pdf").read_bytes().startswith(b"%PDF")


def test_markers_command_reports_an_unwritable_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(main, ["markers", "--out", str(tmp_path / "file" / "sub")])
    assert result.exit_code != 0 and "Error: cannot write the markers" in result.output


def test_committed_marker_files_match_the_spec():
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "hardware_docs" / "markers"
    assert (docs / "markers-a4.svg").read_text() == m.to_svg(m.sheet())
    assert (docs / "markers-a4.pdf").read_bytes().startswith(b"%PDF")  # bytes vary with the fpdf2 version
    for corner, mid in spec.CORNER_IDS.items():
        assert (docs / f"marker-{mid}-{corner}.svg").read_text() == m.marker_svg(mid)
