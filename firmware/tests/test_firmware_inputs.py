"""Debounced ROLL button and tilt switch: one press is one roll; a nudge is not a shake."""

from dicebox.debounce import Debouncer, ShakeDetector


def diff(a, b):
    return a - b


def feed(d, levels, start=0):
    """Feed one raw level per millisecond; the times at which the debounced level changed."""
    changes = []
    for i, level in enumerate(levels):
        if d.update(level, start + i, diff):
            changes.append(start + i)
    return changes


def bouncy_press(bounces=6, held=80):
    """A press whose contacts chatter for a few ms on closing and on opening, as real switches do."""
    chatter = [i % 2 == 0 for i in range(bounces)]
    return chatter + [True] * held + [not c for c in chatter] + [False] * 60


def test_a_bouncing_press_gives_exactly_one_press_and_one_release():
    d = Debouncer(stable_ms=20)
    changes = feed(d, bouncy_press())
    assert len(changes) == 2
    assert d.level is False


def test_a_glitch_shorter_than_the_debounce_time_is_ignored():
    d = Debouncer(stable_ms=20)
    assert feed(d, [False] * 10 + [True] * 19 + [False] * 50) == []


def test_the_press_is_reported_once_the_level_held_for_the_debounce_time():
    d = Debouncer(stable_ms=20)
    changes = feed(d, [False] * 10 + [True] * 40)
    assert changes == [30]  # pressed at 10 ms, stable for 20 ms


def toggles(n, every_ms):
    levels, level = [], False
    for _ in range(n):
        level = not level
        levels += [level] * every_ms
    return levels


def test_picking_the_box_up_or_nudging_it_is_not_a_shake():
    s = ShakeDetector()
    # lifted (ball rolls once), set down (once more), bumped twice later
    levels = [True] * 300 + [False] * 700 + [True] * 20 + [False] * 2000
    assert not any(s.update(level, t, diff) for t, level in enumerate(levels))


def test_a_real_shake_is_recognised():
    s = ShakeDetector()
    shaking = [s.update(level, t, diff) for t, level in enumerate(toggles(10, 60))]
    assert shaking[-1] is True
    assert s.last_motion is not None


def test_slow_tilting_spread_over_minutes_never_adds_up_to_a_shake():
    s = ShakeDetector()
    assert not any(s.update(level, t, diff) for t, level in enumerate(toggles(20, 2000)))
