"""``carousel serve`` without a browser: its tables (``serve.tables``) and its app over a real
WebSocket (Starlette's TestClient), every game of the family, bad input of every kind."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient

from carousel_cli.serve.app import MAX_MESSAGE, create_app
from carousel_cli.serve.sprites import sprite_sheet
from carousel_cli.serve.tables import MoveRefused, Table, TableRequest, catalog, request_from
from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import GAMES
from carousel_env.envkit.episodes import next_decision
from carousel_env.envkit.family import family_game
from carousel_env.envkit.replay import Replay, replay_frames

TABLES = [
    ("carousel", None, "greedy"),
    ("carousel", "manipulation_rummy", "greedy"),
    ("gin_rummy", "eaai", "simple"),
    ("carioca", None, "simple"),
    ("kaluki", "book", "simple"),
    ("kaluki", "rummy", "simple"),
    ("conquian", "book", "simple"),
]


def _human_to_act(table: Table) -> None:
    while table.agent_to_act():
        table.agent_step()


def _snapshot(table: Table) -> tuple:
    view = table.view()
    return table.turn, tuple(table.actions), view.board, view.moves


@pytest.mark.parametrize(("game", "variant", "agent"), TABLES)
def test_a_whole_game_played_through_a_table_replays_to_the_same_end(game, variant, agent):
    players = 3 if variant == "manipulation_rummy" else 2
    table = Table(TableRequest(game, variant, ("you", *[agent] * (players - 1)), 4))
    rng = np.random.default_rng(0)
    while table.to_act() is not None:
        _human_to_act(table)
        view = table.view()
        if view.over:
            break
        assert view.moves, "the human is to act: its moves are offered"
        table.move(int(rng.choice([m.action for m in view.moves])), table.turn)
        if table.turn > 3000:  # a long random game: cut, it was played far enough
            return
    view = table.view()
    assert view.over and not view.moves
    assert view.said[-1].startswith("Game over")
    replay = Replay.from_json(json.loads(json.dumps(table.replay().to_json())))
    frames = replay_frames(replay, family_game(game))
    assert len(frames) == table.turn + 1
    assert frames[-1].board.seats == table.family.board.view(table.env, None).seats


def _played_as(table: Table, player: str) -> list[str]:
    """Your moves made as ``player`` would make them, to the game's end; what was said."""
    policy = table.family.player(player, 0)
    while (seat := table.to_act()) is not None:
        if seat != table.you:
            table.agent_step()
            continue
        decision = next_decision(table.env)
        action = table.family.act(policy, table.env, seat, decision.observation, decision.action_mask)
        table.move(int(action), table.turn)
    return list(table.view().said)


def test_your_knock_is_said_once_and_the_others_moves_in_the_third_person():
    said = _played_as(Table(TableRequest("gin_rummy", "openspiel", ("you", "simple"), 2)), "simple")
    knocks = [line for line in said if line.startswith("player 0 (you)") and "knock" in line]
    assert knocks == ["player 0 (you) knocks: discard 4D; 3C 3D 3H | 5C 5D 5S | 6C 6D 6S; deadwood 2"]
    assert "player 0 (you): take the upcard 5D" in said  # the page says the moves the narration leaves out
    said = _played_as(Table(TableRequest("conquian", "book", ("you", "simple"), 3)), "simple")
    assert "player 1 takes QD: melds 2C 2D 2S | QC QD QH" in said
    assert "player 0 (you): take 3H: melds AH 2H 3H | 4C 4H 4S" in said
    assert "player 1: discard JS (only choice)" in said  # a card keeps its case in the env's own moves


def test_a_refused_move_leaves_the_table_as_it_was():
    table = Table(TableRequest("gin_rummy", "eaai", ("you", "simple"), 1))
    _human_to_act(table)
    before = _snapshot(table)
    legal = {m.action for m in table.view().moves}
    illegal = next(a for a in range(60) if a not in legal)
    for action, turn, why in [
        (illegal, table.turn, "not legal"),
        (min(legal), table.turn + 1, "answers decision"),
        (min(legal), table.turn - 1, "answers decision"),
        ("7H", table.turn, "whole number"),
        (True, table.turn, "whole number"),
        (10**9, table.turn, "not legal"),
        (-1, table.turn, "not legal"),
        (min(legal), "0", "answers decision"),
    ]:
        with pytest.raises(MoveRefused, match=why):
            table.move(action, turn)
        assert _snapshot(table) == before


def test_a_move_out_of_turn_is_refused():
    table = Table(TableRequest("gin_rummy", "eaai", ("simple", "you"), 2))
    while table.to_act() == 1:  # an agent to decide
        table.move(table.view().moves[0].action, table.turn)
    before = _snapshot(table)
    with pytest.raises(MoveRefused, match="player 0's decision, not yours"):
        table.move(0, table.turn)
    assert _snapshot(table) == before


def test_a_watched_table_refuses_every_move_and_plays_on():
    table = Table(TableRequest("conquian", "book", ("simple", "random"), 3))
    with pytest.raises(MoveRefused, match="not yours"):
        table.move(0, 0)
    while table.agent_step():
        pass
    assert table.view().over and table.to_act() is None
    with pytest.raises(MoveRefused, match="game is over"):
        table.move(0, table.turn)


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"game": "chess", "seats": ["you", "simple"]}, "game: 'chess'"),
        ({"game": "gin_rummy", "variant": "atlantic", "seats": ["you", "simple"]}, "variant: 'atlantic'"),
        ({"game": "gin_rummy", "seats": ["you", "simple", "simple"]}, "seats 2 to 2, got 3"),
        ({"game": "gin_rummy", "seats": "you,simple"}, "seats: a list"),
        ({"game": "gin_rummy", "seats": ["you", ""]}, "seats: a list"),
        ({"game": "carioca", "seats": ["you", "you"]}, "one seat"),
        ({"game": "carioca", "seats": ["you", "simple"], "seed": -1}, "seed: a whole number"),
        ({"game": "carioca", "seats": ["you", "simple"], "seed": 1.5}, "seed: a whole number"),
    ],
)
def test_a_bad_table_request_names_the_field(message, error):
    with pytest.raises(CarouselError, match=error):
        request_from(message)


def test_an_unknown_agent_or_a_missing_checkpoint_is_named():
    with pytest.raises(CarouselError, match="nobody"):
        Table(TableRequest("gin_rummy", None, ("you", "nobody"), 0))
    with pytest.raises(CarouselError, match="no_such_folder"):
        Table(TableRequest("gin_rummy", None, ("you", "runs/no_such_folder"), 0))


def test_the_catalog_offers_every_game_its_variants_players_and_networks():
    games = {g["game"]: g for g in catalog([("checkpoints/gin_2p", "gin_rummy")])}
    assert set(games) == set(GAMES)
    assert games["gin_rummy"]["variants"][0] == "book"  # the game's default first
    assert games["gin_rummy"]["checkpoints"] == ["checkpoints/gin_2p"]
    assert games["carioca"]["checkpoints"] == [] and "simple" in games["carioca"]["players"]


def test_the_sprite_sheet_has_every_card_the_joker_and_a_back():
    sheet = sprite_sheet()
    assert sheet.count("<symbol") == 54
    for token in ("AC", "10H", "KS", "JK", "back"):
        assert f'id="card-{token}"' in sheet


# --- the app, over a real WebSocket ---------------------------------------------------------


@pytest.fixture
def client():
    with TestClient(create_app()) as test_client:
        yield test_client


def _until(ws, test, limit=500):
    """The first message ``test`` accepts (every error before it fails the test)."""
    for _ in range(limit):
        message = ws.receive_json()
        assert message["type"] != "error" or test(message), message
        if test(message):
            return message
    raise AssertionError("no such message")


def _mine(message):
    return message["type"] == "state" and bool(message["moves"])


def _new_gin(ws, seed=5):
    ws.send_json(
        {"type": "new", "game": "gin_rummy", "variant": "eaai", "seats": ["you", "simple"], "seed": seed, "delay": 0}
    )
    return _until(ws, _mine)


def test_an_exposed_server_seats_only_the_networks_it_offers():
    app = create_app([("checkpoints/gin_2p", "gin_rummy")], any_checkpoint=False)
    with TestClient(app) as exposed, exposed.websocket_connect("/ws") as ws:
        ws.send_json({"type": "new", "game": "gin_rummy", "seats": ["you", "runs/elsewhere/latest.pt"]})
        assert "seats only the networks it offers" in _until(ws, lambda m: m["type"] == "error")["message"]
        ws.send_json({"type": "new", "game": "gin_rummy", "seats": ["you", "checkpoints/gin_2p"], "delay": 0})
        assert _until(ws, lambda m: m["type"] == "state")["seats"] == ["you", "checkpoints/gin_2p"]


def test_the_page_and_its_files_are_served(client):
    assert "Carousel RL" in client.get("/").text
    assert client.get("/page.js").status_code == 200
    assert client.get("/cards.svg").headers["content-type"].startswith("image/svg+xml")
    assert client.get("/secrets.txt").status_code == 404
    assert client.get("/api/replay").json() == {"replay": None}
    assert {g["game"] for g in client.get("/api/games").json()} == set(GAMES)


def test_a_hand_played_over_the_socket_and_a_refused_move(client):
    with client.websocket_connect("/ws") as ws:
        state = _new_gin(ws)
        table = client.app.state.server.tables[state["id"]]
        before = _snapshot(table)
        ws.send_json({"type": "move", "action": 999, "turn": state["turn"]})
        assert _until(ws, lambda m: m["type"] == "error")["message"].startswith("move refused: action 999")
        assert _snapshot(table) == before
        for _ in range(4):
            state = _until(ws, _mine) if not state["moves"] else state
            ws.send_json({"type": "move", "action": state["moves"][0]["action"], "turn": state["turn"]})
            turn = state["turn"]
            state = _until(ws, lambda m, turn=turn: m["type"] == "state" and m["turn"] > turn)
        assert table.turn >= 4
        state = state if state["moves"] else _until(ws, _mine)  # yours to move: the agent has stopped
        replay = client.get(f"/api/tables/{state['id']}/replay").json()
        assert replay["actions"] == list(table.actions)


def test_a_closed_page_loses_nothing_and_join_takes_the_table_up_again(client):
    with client.websocket_connect("/ws") as ws:
        state = _new_gin(ws, seed=8)
    table = client.app.state.server.tables[state["id"]]
    before = _snapshot(table)
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "id": state["id"]})
        again = _until(ws, lambda m: m["type"] == "state")
        assert again["turn"] == state["turn"] and again["moves"] == state["moves"]
        ws.send_json({"type": "join", "id": "feedface"})
        assert "no table 'feedface'" in _until(ws, lambda m: m["type"] == "error")["message"]
    assert _snapshot(table) == before


def test_watching_pauses_steps_and_resumes(client):
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "new", "game": "conquian", "seats": ["simple", "random"], "seed": 1, "delay": 0.5})
        state = _until(ws, lambda m: m["type"] == "state")
        ws.send_json({"type": "pause"})
        paused = _until(ws, lambda m: m["type"] == "state" and m["paused"])
        table = client.app.state.server.tables[state["id"]]
        ws.send_json({"type": "step"})
        stepped = _until(ws, lambda m: m["type"] == "state" and m["turn"] > paused["turn"])
        assert stepped["turn"] == paused["turn"] + 1 and table.turn == stepped["turn"]
        ws.send_json({"type": "delay", "seconds": 0})
        ws.send_json({"type": "resume"})
        assert _until(ws, lambda m: m["type"] == "state" and m["over"])["said"][-1].startswith("Game over")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "one JSON object"),
        ('{"type": "fly"}', "no table yet"),
        ('{"type": "move", "action": 0, "turn": 0}', "no table yet"),
        ('{"type": "new", "game": "gin_rummy", "seats": ["you"]}', "seats 2 to 2"),
        ('{"type": "new", "game": "gin_rummy", "seats": ["you", "simple"], "delay": 99}', "delay: seconds"),
    ],
)
def test_a_bad_message_is_answered_with_what_was_wrong(client, text, error):
    with client.websocket_connect("/ws") as ws:
        ws.send_text(text)
        assert error in _until(ws, lambda m: m["type"] == "error")["message"]
        ws.send_text('{"type": "pause"}')  # the connection stays open
        assert _until(ws, lambda m: m["type"] == "error")["message"].startswith("'pause': no table yet")


def test_an_oversized_or_binary_message_closes_the_connection(client):
    from starlette.websockets import WebSocketDisconnect

    for send in (lambda ws: ws.send_text("x" * (MAX_MESSAGE + 1)), lambda ws: ws.send_bytes(b"\x00\x01")):
        with client.websocket_connect("/ws") as ws:
            send(ws)
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()


def _decoded(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
FUZZED = st.one_of(
    st.text(max_size=40),
    JSON_VALUES.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["move", "join", "fly", "delay", "step"])},
        optional={"action": JSON_VALUES, "turn": JSON_VALUES, "id": JSON_VALUES, "seconds": JSON_VALUES},
    ).map(json.dumps),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(FUZZED, min_size=1, max_size=6))
def test_fuzzed_messages_never_change_the_game_unless_they_are_a_legal_move(client, texts):
    with client.websocket_connect("/ws") as ws:
        state = _new_gin(ws, seed=13)
        table = client.app.state.server.tables[state["id"]]
        for text in texts:
            before = _snapshot(table)
            message = _decoded(text)
            ws.send_text(text)
            reply = ws.receive_json()
            legal_move = (
                isinstance(message, dict)
                and message.get("type") == "move"
                and message.get("turn") == before[0]
                and message.get("action") in {m.action for m in before[3]}
                and type(message.get("action")) is int
            )
            if not legal_move:
                assert _snapshot(table) == before, text
            assert reply["type"] in ("state", "error")
            refused = reply["type"] == "state" and table.turn == before[0]
            if isinstance(message, dict) and message.get("type") == "move" and refused:
                reply = ws.receive_json()  # a refused move: the game as it is, then why
            if table.agent_to_act() or not table.view().moves:
                return  # the agents move now: the next example starts a new table
