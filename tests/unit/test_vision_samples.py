"""The still scenes the camera acted on, kept for whoever improves the reading (`vision.samples`)."""

import datetime
import io
import json
import zipfile

import cv2
import numpy as np

from companion.vision.samples import SampleKeeper

T0 = datetime.datetime(2026, 11, 27, 20, 0, tzinfo=datetime.UTC)


def frame(value=90):
    img = np.full((72, 128, 3), value, np.uint8)
    cv2.circle(img, (64, 36), 20, (20, 200, 240), -1)
    return img


def keep(keeper, i, **record):
    return keeper.keep(frame(10 * i), {"why": ["dice"], "game": 1, "after_event": i, **record},
                       now=T0 + datetime.timedelta(seconds=i))


def test_a_sample_is_the_frame_and_a_record_of_why(tmp_path):
    keeper = SampleKeeper(tmp_path / "s", 5)
    name = keep(keeper, 1, read={"dice": [{"face": np.int64(3), "box": np.array([1.5, 2, 3, 4])}]})
    assert name == "20261127-200001-000000" and keeper.names() == [name]
    back = cv2.imread(str(tmp_path / "s" / f"{name}.jpg"))
    assert back.shape == (72, 128, 3) and np.abs(back.astype(int) - frame(10)).mean() < 3
    record = json.loads((tmp_path / "s" / f"{name}.json").read_text())
    assert record["why"] == ["dice"] and record["at"] == "2026-11-27T20:00:01+00:00"
    assert record["read"]["dice"] == [{"face": 3, "box": [1.5, 2.0, 3.0, 4.0]}]  # numpy values as JSON
    assert keeper.summary()["count"] == 1 and keeper.summary()["bytes"] > 500


def test_the_oldest_go_first_beyond_the_limit_and_none_are_kept_at_zero(tmp_path):
    keeper = SampleKeeper(tmp_path / "s", 3)
    names = [keep(keeper, i) for i in range(5)]
    assert keeper.names() == names[2:]
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == sorted(
        f"{n}{s}" for n in names[2:] for s in (".jpg", ".json"))
    off = SampleKeeper(tmp_path / "off", 0)
    assert keep(off, 1) is None and not (tmp_path / "off").exists()


def test_what_a_crash_left_half_written_does_not_count_and_goes_at_the_next_prune(tmp_path):
    keeper = SampleKeeper(tmp_path, 10)
    kept = keep(keeper, 1)
    (tmp_path / "20261127-200009-000000.jpg").write_bytes(b"\xff\xd8 cut short")  # no JSON: cut before it
    (tmp_path / "20261127-200010-000000.json.tmp").write_text("{")
    assert keeper.names() == [kept]
    keep(keeper, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{n}{s}" for n in keeper.names() for s in (".jpg", ".json"))


def test_a_folder_that_cannot_be_written_loses_the_sample_not_the_watcher(tmp_path):
    (tmp_path / "s").write_text("a file where the folder should be")
    keeper = SampleKeeper(tmp_path / "s", 5)
    assert keep(keeper, 1) is None
    assert keeper.names() == [] and keeper.summary()["count"] == 0


def test_the_zip_holds_every_sample_with_what_happened_afterwards(tmp_path):
    keeper = SampleKeeper(tmp_path, 5)
    a, b = keep(keeper, 1), keep(keeper, 2)
    (tmp_path / f"{b}.json").write_text("{ damaged")  # left out, the rest still goes
    seen = []

    def afterwards(record):
        seen.append(record["after_event"])
        return [{"id": record["after_event"] + 1, "type": "undo"}]

    buf = io.BytesIO()
    assert keeper.write_zip(buf, afterwards) == 1
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    assert sorted(z.namelist()) == sorted(["README.txt", f"{a}.jpg", f"{a}.json"])
    assert json.loads(z.read(f"{a}.json"))["afterwards"] == [{"id": 2, "type": "undo"}]
    assert z.read(f"{a}.jpg") == (tmp_path / f"{a}.jpg").read_bytes()
    assert seen == [1]


def test_clear_deletes_them_all(tmp_path):
    keeper = SampleKeeper(tmp_path, 5)
    for i in range(3):
        keep(keeper, i)
    assert keeper.clear() == 3
    assert keeper.names() == [] and list(tmp_path.iterdir()) == []


def test_a_negative_number_of_samples_is_refused_with_the_reason():
    import pytest

    from companion.config import load_settings
    from companion.errors import CompanionError

    assert load_settings(env={}).vision.keep_samples == 60
    with pytest.raises((CompanionError, ValueError), match="keep_samples must be 0 \\(keep none\\) or more"):
        load_settings(env={}, overrides={"vision": {"keep_samples": -1}})
