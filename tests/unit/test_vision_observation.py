"""The camera's reading as a typed observation: its JSON is what `companion observe --json`,
the camera samples and the live view's overlay have always read.

The fixtures in tests/fixtures/observations were written by `analyse()` when it still returned a
plain dict (`python tests/unit/test_vision_observation.py` writes them again); the typed
observation must give them byte for byte (the time taken, "ms", set to 0)."""

import json
from pathlib import Path

import cv2
import pytest

from companion.vision.render.draw import render
from companion.vision.render.scenes import random_scene, resting_hand, scene_variant
from companion.vision.scene import SceneSettings, analyse

FIXTURES = Path(__file__).parents[1] / "fixtures" / "observations"


def _scene(name: str):
    """(scene, variant read as, picture cut) for each fixture."""
    return {
        "broken_classical_easy": lambda: random_scene(2, "easy", stage="broken", variant_name="classical"),
        "built_riichi_easy": lambda: random_scene(1, "easy", stage="built", variant_name="riichi"),
        "hand_on_wall_riichi": lambda: resting_hand(random_scene(1, "easy", stage="built", variant_name="riichi"), 1),
        "dealt_medium": lambda: random_scene(4, "easy", "dealt"),
        # a wall longer than the variant builds: the note and "stacks_seen"
        "classical19_read_as_classical": lambda: random_scene(3, "easy", "broken", variant_name="classical-19"),
        # a grey picture (calibrated, no walls) and a cut without markers (uncalibrated)
        "grey": lambda: random_scene(2, "easy", stage="broken", variant_name="classical"),
        "plain": lambda: random_scene(2, "easy", stage="broken", variant_name="classical"),
    }[name]()


NAMES = ["broken_classical_easy", "built_riichi_easy", "hand_on_wall_riichi", "dealt_medium",
         "classical19_read_as_classical", "grey", "plain"]


def observe(name: str):
    sc = _scene(name)
    image, _ = render(sc)
    t = sc.truth
    variant = "classical" if name == "classical19_read_as_classical" else t["variant"]
    if name == "grey":
        image = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if name == "plain":
        image = image[300:500, 500:800]  # no markers in it
    return analyse(image, SceneSettings(scene_variant(variant), t["first_east_side"], t["dealer"]), name=name)


def as_text(obs) -> str:
    data = obs if isinstance(obs, dict) else obs.to_json()
    return json.dumps({**data, "ms": 0.0}, indent=1) + "\n"


@pytest.mark.parametrize("name", NAMES)
def test_the_observation_json_is_what_it_was(name):
    assert as_text(observe(name)) == (FIXTURES / f"{name}.json").read_text()


if __name__ == "__main__":
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for n in NAMES:
        (FIXTURES / f"{n}.json").write_text(as_text(observe(n)))
        print(n)


@pytest.mark.parametrize("name", NAMES)
def test_an_observation_read_back_from_its_json_gives_the_same_json(name):
    from companion.vision.observation import Observation

    text = (FIXTURES / f"{name}.json").read_text()
    back = Observation.from_json(json.loads(text))
    assert back.to_json() == json.loads(text)  # lists, not tuples: the same values as JSON reads back
    assert json.dumps(back.to_json(), indent=1) + "\n" == text
    assert Observation.from_json(back.to_json()) == back


def test_a_malformed_observation_names_the_field():
    import msgspec

    from companion.vision.observation import Observation

    data = json.loads((FIXTURES / "broken_classical_easy.json").read_text())
    data["walls"]["seats"]["E"]["standing"] = "all"
    with pytest.raises(msgspec.ValidationError, match=r"walls.seats\[...\].standing"):
        Observation.from_json(data)
