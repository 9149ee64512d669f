"""`recognize` and `observe` refuse the same bad images with the same words, naming each file once."""

import json
import struct
import warnings
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from companion.cli import main

GOOD = Path(__file__).resolve().parents[1] / "fixtures" / "tiles" / "real" / "images" / "real_1.jpg"
COMMANDS = ["recognize", "observe"]


def png(path: Path, width: int, height: int) -> Path:
    cv2.imwrite(str(path), np.full((height, width, 3), 128, np.uint8))
    return path


def png_claiming(path: Path, width: int, height: int) -> Path:
    """A small valid PNG whose header says width x height: a few bytes that claim a huge picture."""
    data = bytearray(cv2.imencode(".png", np.full((8, 8, 3), 128, np.uint8))[1].tobytes())
    data[16:24] = struct.pack(">II", width, height)  # IHDR's width and height
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))  # and its CRC over type + fields
    path.write_bytes(bytes(data))
    return path


def errors(command: str, tmp_path: Path, *images) -> dict[str, str]:
    """Run `command --json` on the images and a good photo after them: {image: error}; the good
    photo is still read and the exit status is 1."""
    res = CliRunner().invoke(main, [command, "--json", "--data-dir", str(tmp_path / "data"),
                                    *map(str, images), str(GOOD)])
    assert res.exit_code == 1, res.stderr
    out = json.loads(res.stdout)
    assert [r["image"] for r in out] == [str(p) for p in (*images, GOOD)]
    assert "error" not in out[-1]
    return {r["image"]: r["error"] for r in out[:-1]}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_picture_under_32_pixels_a_side_is_too_small_for_both(command, tmp_path):
    tiny, thin = png(tmp_path / "tiny.png", 10, 10), png(tmp_path / "thin.png", 20, 40)
    got = errors(command, tmp_path, tiny, thin)
    assert got == {str(tiny): f"{tiny}: too small to read (10×10 pixels; at least 32×32)",
                   str(thin): f"{thin}: too small to read (20×40 pixels; at least 32×32)"}


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_file_is_said_to_be_empty(command, tmp_path):
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    assert errors(command, tmp_path, empty) == {str(empty): f"{empty}: the file is empty"}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_huge_picture_is_too_large_and_not_decoded(command, tmp_path, monkeypatch):
    huge = png_claiming(tmp_path / "huge.png", 100_000, 100_000)  # beyond Pillow's own bound
    big = png_claiming(tmp_path / "big.png", 10_000, 10_000)  # within it, but it warns
    decoded = []
    imdecode = cv2.imdecode
    monkeypatch.setattr(cv2, "imdecode", lambda buf, *a: decoded.append(len(buf)) or imdecode(buf, *a))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = errors(command, tmp_path, huge, big)
    assert got == {str(huge): f"{huge}: too large to read (10,000 megapixels; at most 64 megapixels)",
                   str(big): f"{big}: too large to read (100 megapixels; at most 64 megapixels)"}
    assert len(decoded) == 1  # the good photo only
    assert not [w for w in caught if issubclass(w.category, Image.DecompressionBombWarning)]


@pytest.mark.parametrize("command", COMMANDS)
def test_each_error_names_its_file_once_as_typed(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "junk.png").write_bytes(b"not an image at all")
    said = "./junk.png: not a readable image (corrupt or unsupported format)"
    res = CliRunner().invoke(main, [command, "--data-dir", "data", "./junk.png", str(GOOD)])
    assert res.exit_code == 1
    assert f"Error: {said}" in res.stderr.splitlines() and res.output.count("junk") == 1
    res = CliRunner().invoke(main, [command, "--json", "--data-dir", "data", "./junk.png", str(GOOD)])
    assert res.exit_code == 1
    assert json.loads(res.stdout)[0] == {"image": "./junk.png", "error": said}


def test_both_commands_say_the_same_words_for_the_same_problems(tmp_path):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    images = [png(tmp_path / "tiny.png", 10, 10), empty, png_claiming(tmp_path / "huge.png", 100_000, 100_000),
              tmp_path / "missing.png"]
    assert errors("recognize", tmp_path, *images) == errors("observe", tmp_path, *images)
