"""Phone photos in the formats phones save: HEIC (iPhones, some Android phones) is read as its
JPEG is, turned upright by its orientation, and a damaged one is refused clearly."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image
from pillow_heif import register_heif_opener  # a core dependency: missing, this fails

from companion.cli import main
from companion.errors import ImageError
from companion.vision.tiles.recognizer import decode_image, read_image

ROOT = Path(__file__).resolve().parents[2]
DICE_PHOTO = ROOT / "models" / "dice" / "fixtures" / "IMG_20191208_112340.jpg"
TILE_PHOTO = ROOT / "tests" / "fixtures" / "tiles" / "real" / "images" / "real_1.jpg"
ORIENTATION = 0x0112  # the EXIF tag


def heic(jpeg: Path, out: Path, orientation: int | None = None, crop: tuple | None = None) -> Path:
    """The photo saved as a phone saves it: HEIC at high quality, optionally with an EXIF
    orientation (6: the phone was held upright, the sensor's picture lies on its side)."""
    register_heif_opener()
    with Image.open(jpeg) as im:
        im = im.crop(crop) if crop else im.copy()
    exif = im.getexif()
    if orientation:
        exif[ORIENTATION] = orientation
    im.save(out, "HEIF", quality=95, exif=exif.tobytes())
    return out


def test_a_heic_photo_is_read_as_its_jpeg(tmp_path):
    photo = heic(DICE_PHOTO, tmp_path / "dice.heic")
    assert photo.read_bytes()[4:12] == b"ftypheic"  # really HEIC, which OpenCV alone cannot read
    got, want = read_image(photo), read_image(DICE_PHOTO)
    assert got.shape == want.shape and got.dtype == np.uint8
    # the same picture, BGR in both (a channel swap would differ by far more), up to compression
    assert np.abs(got.astype(int) - want.astype(int)).mean() < 4


def test_a_heic_photo_taken_upright_comes_out_upright(tmp_path):
    crop = (0, 0, 640, 400)  # wider than high, so a turn shows in the shape
    photo = heic(DICE_PHOTO, tmp_path / "turned.heic", orientation=6, crop=crop)
    got = read_image(photo)
    want = np.rot90(read_image(DICE_PHOTO)[:400, :640], k=-1)  # orientation 6: turned a quarter clockwise
    assert got.shape == want.shape == (640, 400, 3)
    assert np.abs(got.astype(int) - want.astype(int)).mean() < 4


def test_a_cut_off_heic_is_refused_clearly(tmp_path):
    data = heic(DICE_PHOTO, tmp_path / "whole.heic").read_bytes()
    with pytest.raises(ImageError, match=r"^cut\.heic: not a readable image \(corrupt or unsupported format\)$"):
        decode_image(data[: len(data) // 2], "cut.heic")


def both(command: str, jpeg: Path, phone: Path, data: Path) -> tuple[dict, dict]:
    """`command --json` on the JPEG and its HEIC in one call: the two results."""
    res = CliRunner().invoke(main, [command, "--json", "--data-dir", str(data), str(jpeg), str(phone)])
    assert res.exit_code == 0, res.output
    return tuple(json.loads(res.stdout))


def test_observe_reads_the_dice_of_a_heic_photo_as_of_its_jpeg(tmp_path):
    photo = heic(DICE_PHOTO, tmp_path / "dice.heic")
    jpeg, phone = both("observe", DICE_PHOTO, photo, tmp_path / "data")
    assert phone["image"] == str(photo) and not phone["calibrated"]
    assert len(jpeg["dice"]) >= 10  # a crowded light box
    assert sorted(d["face"] for d in phone["dice"]) == sorted(d["face"] for d in jpeg["dice"])


def test_recognize_names_the_tiles_of_a_heic_photo_as_of_its_jpeg(tmp_path):
    photo = heic(TILE_PHOTO, tmp_path / "tiles.heic")
    jpeg, phone = both("recognize", TILE_PHOTO, photo, tmp_path / "data")
    assert jpeg["tiles"]
    assert sorted(t["tile"] for t in phone["tiles"]) == sorted(t["tile"] for t in jpeg["tiles"])

