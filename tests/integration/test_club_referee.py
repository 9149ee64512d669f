"""The hub's tournament mode on a real Mosquitto: the referee seats sessions, the tables play
them, the ranking and the EMA-style CSV come from the tables' own games."""

from __future__ import annotations

import pytest
from test_club import FakeTable, broker, hubs, settle  # noqa: F401 (fixtures)

from companion.club.broker import mosquitto_binary
from companion.club.referee import REFEREE_HEADER, Referee
from companion.club.web import create_hub_app

pytestmark = pytest.mark.skipif(mosquitto_binary() is None,
                                reason="needs Mosquitto (Debian: apt install mosquitto); .ci/run installs it")

PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
CODE = {REFEREE_HEADER: "REF12345"}


def test_a_session_seated_played_and_ranked(tmp_path, broker, hubs):  # noqa: F811
    hub = hubs()
    referee = Referee(hub, tmp_path / "hub", "REF12345")
    client = create_hub_app(hub, referee).test_client()
    assert client.post("/api/tournament", json={"name": "Spring", "players": PLAYERS, "tables": ["1", "2"]}
                       ).status_code == 403  # not the referee
    assert client.post("/api/tournament", json={"name": "Spring", "players": PLAYERS[:7], "tables": ["1", "2"]},
                       headers=CODE).get_json()["message"].startswith("7 players")
    assert client.post("/api/tournament", json={"name": "Spring", "players": PLAYERS, "tables": ["1", "2"]},
                       headers=CODE).status_code == 201
    s = client.post("/api/tournament/sessions", json={"seating": "random", "minutes": 90, "seed": 3},
                    headers=CODE).get_json()
    assert sorted(p for g in s["seating"].values() for p in g) == sorted(PLAYERS)
    assert client.post("/api/tournament/sessions/1/start", headers=CODE).status_code == 200

    tables = []
    try:
        for t, seated in s["seating"].items():  # each table's host starts the game with the seated names
            table = FakeTable(tmp_path / f"t{t}", t, broker.url, players=seated).connect()
            table.play(5)
            tables.append(table)
        settle(hub, *tables)
        view = client.get("/api/tournament").get_json()
        session = view["sessions"][0]
        assert session["clock"]["state"] == "running" and not session["no_game_yet"]
        for table in tables:  # the session's scores are the table's own, less the starting score
            start = table.table.state.variant.settlement.start_score
            assert session["results"][table.table_id] == {p: v - start for p, v in
                                                          table.table.state.to_json()["scores"].items()}
        ranking = view["ranking"]
        assert [r["rank"] for r in ranking] == list(range(1, 9))
        assert sum(r["table_points"] for r in ranking) == 2 * (4 + 2 + 1 + 0)

        last = ranking[-1]["player"]
        assert client.post("/api/tournament/penalties", json={"player": last, "points": 10, "reason": "late"},
                           headers=CODE).status_code == 201
        after = {r["player"]: r for r in client.get("/api/tournament").get_json()["ranking"]}
        assert after[last]["penalties"] == 10
        csv = client.get("/api/tournament/results.csv").get_data(as_text=True).splitlines()
        assert csv[0].startswith("rank,name,ema_id") and len(csv) == 9
        assert any(line.split(",")[1] == last and line.split(",")[6] == "10" for line in csv[1:])

        swiss = client.post("/api/tournament/sessions", json={"seating": "swiss", "minutes": 60},
                            headers=CODE).get_json()
        assert swiss["number"] == 2 and swiss["repeats"] > 0  # 8 players: someone meets again, and it is said
        assert client.get("/api/tournament").get_json()["sessions"][1]["clock"]["state"] == "waiting"
        assert client.post("/api/tournament", json={"name": "Other", "players": PLAYERS, "tables": ["1", "2"]},
                           headers=CODE).status_code == 400  # not replaced under way
    finally:
        for t in tables:
            t.close()


def test_the_referee_logs_in_on_the_page(tmp_path, hubs):  # noqa: F811
    hub = hubs()
    referee = Referee(hub, tmp_path / "hub")  # a code made up and kept
    assert (tmp_path / "hub" / "referee-code").read_text().strip() == referee.code
    client = create_hub_app(hub, referee).test_client()
    assert client.post("/referee/login", data={"code": "nope"}).status_code == 403
    assert client.post("/api/tournament", data={"name": "Club night", "players": "\n".join(PLAYERS),
                                                "tables": "1 2"}).status_code == 403
    assert client.post("/referee/login", data={"code": referee.code}).status_code == 302
    assert client.post("/api/tournament", data={"name": "Club night", "players": "\n".join(PLAYERS),
                                                "tables": "1 2"}).status_code == 302
    page = client.get("/referee").get_data(as_text=True)
    assert "Club night" in page and "Next session" in page
    again = Referee(hub, tmp_path / "hub")  # kept across a restart of the hub
    assert again.code == referee.code and again.book.name == "Club night"
