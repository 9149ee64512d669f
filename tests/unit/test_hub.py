"""The hub delivers every message to every subscriber in id order, without deadlocks."""

import threading

from companion.hub import Hub


def test_a_publish_from_inside_a_subscriber_comes_after_the_message_being_delivered():
    hub = Hub()
    # like the lamps: on a state change they publish their own status
    hub.subscribe(lambda m: hub.set_status("gpio", {"lamps": 1}) if m.topic == "state" else None)
    seen = []
    hub.subscribe(lambda m: seen.append((m.topic, m.id)))
    hub.publish("state", {})
    assert seen == [("state", 1), ("status", 2)]


def test_concurrent_publishers_every_subscriber_sees_ids_in_order():
    hub = Hub(backlog=10_000)
    seen: list[int] = []
    hub.subscribe(lambda m: seen.append(m.id))

    def publisher():
        for _ in range(300):
            hub.publish("status", {})

    threads = [threading.Thread(target=publisher) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == sorted(seen) and len(seen) == 1200


def test_a_subscriber_taking_a_lock_held_by_another_publisher_does_not_deadlock():
    hub = Hub()
    panel_lock = threading.RLock()
    rendered = threading.Event()

    def render(msg):  # like the lamps: takes the panel's lock to draw the state
        with panel_lock:
            rendered.set()

    hub.subscribe(render, {"state"})
    with panel_lock:  # a button handler holds the panel's lock and publishes ...
        worker = threading.Thread(target=hub.publish, args=("state", {}))
        worker.start()  # ... while another thread publishes a state the panel must draw
        worker.join(timeout=0.5)
        hub.publish("status", {})  # must not wait for the worker's delivery
    worker.join(timeout=5)
    assert not worker.is_alive() and rendered.is_set()


def test_a_failing_subscriber_does_not_stop_the_others():
    hub = Hub()
    got = []
    hub.subscribe(lambda m: 1 / 0)
    hub.subscribe(lambda m: got.append(m.id))
    hub.publish("x", None)
    assert got == [1]


def test_since_resumes_or_says_too_old():
    hub = Hub(backlog=3)
    for _ in range(5):
        hub.publish("x", None)
    assert [m.id for m in hub.since(3)] == [4, 5]
    assert hub.since(0) is None


def test_the_backlog_is_bounded_in_bytes_and_resumes_within_them():
    hub = Hub(backlog=512, max_bytes=10_000)
    for i in range(100):
        hub.publish("state", {"n": i, "pad": "x" * 990})  # about 1 KB each
    assert hub.backlog_bytes <= 10_000
    kept = hub.since(hub.last_id - 5)
    assert [m.data["n"] for m in kept] == [95, 96, 97, 98, 99]
    assert hub.since(80) is None  # dropped: a phone that far behind gets the whole state


def test_a_message_larger_than_the_bound_is_still_kept_as_the_newest():
    hub = Hub(max_bytes=100)
    hub.publish("state", {"pad": "x" * 500})
    assert [m.id for m in hub.since(0)] == [1]
