"""companion teach: which photo failed, where the set may be saved, the options' help."""

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.cli import main


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """A layout photo the shipped models read, and a blank one that shows no tiles."""
    from companion.vision.tiles.synth import layout_photo

    folder = tmp_path_factory.mktemp("photos")
    img, _, _ = layout_photo(np.random.default_rng(2), art="abstract")
    cv2.imwrite(str(folder / "layout1.png"), img)
    cv2.imwrite(str(folder / "layout2.png"), np.full_like(img, 200))
    return folder / "layout1.png", folder / "layout2.png"


def teach(*args, data):
    return CliRunner().invoke(main, ["teach", "--data-dir", str(data), *map(str, args)])


def test_a_photo_that_does_not_show_the_layout_is_named(layout, tmp_path):
    good, blank = layout
    r = teach(good, blank, good, data=tmp_path)  # the second of three
    assert r.exit_code == 1
    assert f"Error: {blank}: no tiles found in the layout photo" in r.output


def test_a_photo_that_cannot_be_read_is_named(layout, tmp_path):
    (tmp_path / "notes.jpg").write_text("not a picture")
    r = teach(layout[0], tmp_path / "notes.jpg", data=tmp_path)
    assert r.exit_code == 1 and f"{tmp_path / 'notes.jpg'}: not a readable image" in r.output
    r = teach(layout[0], tmp_path / "gone.jpg", data=tmp_path)
    assert r.exit_code == 1 and f"{tmp_path / 'gone.jpg'}: no such image file" in r.output


def test_out_into_a_missing_folder_is_refused_before_the_photos_are_read(layout, tmp_path):
    out = tmp_path / "sets" / "club.npz"
    r = teach(layout[1], "--out", out, data=tmp_path)
    assert r.exit_code == 1
    assert f"Error: cannot save the taught set: folder {out.parent} does not exist" in r.output
    assert not out.parent.exists()


def test_the_default_place_in_a_new_data_folder_is_still_made(layout, tmp_path):
    data = tmp_path / "new-data"
    r = teach(layout[0], data=data)
    assert r.exit_code == 0, r.output
    assert (data / "tiles" / "taught_set.npz").is_file()


def test_every_option_has_help():
    r = CliRunner().invoke(main, ["teach", "--help"])
    assert r.exit_code == 0
    models = r.output.split("--models", 1)[1].split("\n  -", 1)[0]
    assert "Folder with tile_detector.onnx and tile_classifier.onnx" in models
