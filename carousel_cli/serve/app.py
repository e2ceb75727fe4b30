"""``carousel serve``'s web app (Starlette): the page, its cards, and one WebSocket that carries
the games (``serve.tables``) to and from it.

The page sends JSON messages, one object each, with a ``type``:

* ``new``: a table (``game``, ``variant``, ``seats``, ``seed``; ``delay``: seconds between
  the agents' moves); ``join``: the table ``id`` again (a reload, a second tab);
* ``move``: ``action`` at decision ``turn``, the human's;
* ``pause``, ``resume``, ``step`` (one agent's move while paused), ``delay`` (``seconds``).

The server answers ``state`` (the table's id and its view, to every page on that table) or
``error`` (what was wrong; nothing changed). A message that is not one JSON object is an
error; one larger than :data:`MAX_MESSAGE` characters, or a binary one, closes the
connection. A closed page loses nothing: the table stays, and ``join`` takes it up again.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from carousel_cli.serve.sprites import sprite_sheet
from carousel_cli.serve.tables import MoveRefused, Table, View, catalog, request_from, shown
from carousel_env.core.errors import CarouselError
from carousel_env.envkit.family import family_game
from carousel_env.envkit.replay import Replay, replay_frames
from training.checkpoint_names import is_checkpoint_name

PAGE = Path(__file__).parent / "page"
MAX_MESSAGE = 16_384  # characters: a page's message is a few hundred
MAX_TABLES = 64  # tables held at once; the oldest finished ones make room
DEFAULT_DELAY = 0.6  # seconds between agents' moves
MAX_DELAY = 10.0
CLOSE_TOO_BIG, CLOSE_UNSUPPORTED = 1009, 1003  # WebSocket close codes


def as_json(value: Any) -> Any:
    """NamedTuples (a view, a board, its piles) as JSON objects, tuples as lists."""
    if hasattr(value, "_asdict"):
        return {key: as_json(item) for key, item in value._asdict().items()}
    if isinstance(value, (tuple, list)):
        return [as_json(item) for item in value]
    return value


class Pace:
    """How a table's agents move: ``delay`` seconds apart, or held (``paused``) until told."""

    def __init__(self, delay: float) -> None:
        self.delay, self.paused, self.steps = delay, False, 0
        self.wake = asyncio.Event()


class Server:
    """The tables, the pages watching each, and each table's agents' pace."""

    def __init__(self, checkpoints: Sequence[tuple[str, str]], replay: Replay | None, any_checkpoint: bool) -> None:
        self.checkpoints = list(checkpoints)
        self.any_checkpoint = any_checkpoint
        self.replay = replay
        self.tables: dict[str, Table] = {}
        self.pages: dict[str, set[WebSocket]] = {}
        self.paces: dict[str, Pace] = {}
        self.drivers: dict[str, asyncio.Task] = {}

    async def send_state(self, table_id: str) -> None:
        table, pace = self.tables.get(table_id), self.paces.get(table_id)
        if table is None or pace is None:  # closed meanwhile (made room for another)
            return
        view: View = await asyncio.to_thread(table.view)
        message = {"type": "state", "id": table_id, "paused": pace.paused, **as_json(view)}
        pages = self.pages.get(table_id, set())
        for page in list(pages):
            try:
                await page.send_json(message)
            except Exception:  # a page gone mid-send: it is dropped, the table stays
                pages.discard(page)

    def add(self, table: Table, delay: float) -> str:
        if len(self.tables) >= MAX_TABLES:
            finished = [tid for tid, t in self.tables.items() if t.to_act() is None and not self.pages.get(tid)]
            idle = finished or [tid for tid in self.tables if not self.pages.get(tid)]
            if not idle:
                raise CarouselError(f"the server holds {MAX_TABLES} tables in play; finish or close one")
            self.drop(idle[0])
        table_id = secrets.token_hex(8)
        self.tables[table_id], self.pages[table_id], self.paces[table_id] = table, set(), Pace(delay)
        return table_id

    def drop(self, table_id: str) -> None:
        task = self.drivers.pop(table_id, None)
        if task is not None:
            task.cancel()
        for store in (self.tables, self.pages, self.paces):
            store.pop(table_id, None)

    def drive(self, table_id: str) -> None:
        """Let the table's agents move (one task a table), at its pace."""
        task = self.drivers.get(table_id)
        if task is None or task.done():
            self.drivers[table_id] = asyncio.create_task(self._drive(table_id))
        self.paces[table_id].wake.set()

    async def _drive(self, table_id: str) -> None:
        table, pace = self.tables[table_id], self.paces[table_id]
        while table.agent_to_act():
            if pace.paused and pace.steps == 0:
                pace.wake.clear()
                await pace.wake.wait()
                continue
            await asyncio.sleep(0 if pace.steps else pace.delay)
            pace.steps = max(0, pace.steps - 1)
            try:
                await asyncio.to_thread(table.agent_step)
            except Exception as exc:  # an agent that fails stops its table, and every page hears why
                for page in list(self.pages.get(table_id, ())):
                    await page.send_json({"type": "error", "message": f"an agent failed: {exc}"})
                return
            await self.send_state(table_id)


def _delay(message: dict, key: str, default: float) -> float:
    value = message.get(key, default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= MAX_DELAY:
        raise CarouselError(f"{key}: seconds from 0 to {MAX_DELAY}, got {shown(value)}")
    return float(value)


async def _handle(server: Server, page: WebSocket, message: dict, current: str | None) -> str | None:
    """Carry out one message from ``page`` (on table ``current``); the table it is on after."""
    kind = message.get("type")
    if kind == "new":
        request = request_from(message)
        if not server.any_checkpoint:
            offered = {path for path, _ in server.checkpoints}
            strays = [name for name in request.seats if is_checkpoint_name(name) and name not in offered]
            if strays:
                raise CarouselError(f"seats: {shown(strays[0])}: this server seats only the networks it offers")
        delay = _delay(message, "delay", DEFAULT_DELAY)
        table = await asyncio.to_thread(Table, request)
        table_id = server.add(table, delay)
        _attach(server, page, current, table_id)
        await server.send_state(table_id)
        server.drive(table_id)
        return table_id
    if kind == "join":
        table_id = message.get("id")
        if not isinstance(table_id, str) or table_id not in server.tables:
            raise CarouselError(f"id: no table {shown(table_id)} here (the server may have restarted)")
        _attach(server, page, current, table_id)
        await server.send_state(table_id)
        server.drive(table_id)
        return table_id
    if current is None:
        raise CarouselError(f"{shown(kind)}: no table yet (send 'new' or 'join' first)")
    if current not in server.tables:
        raise CarouselError("this table was closed to make room for others: deal a new one")
    table, pace = server.tables[current], server.paces[current]
    if kind == "move":
        try:
            await asyncio.to_thread(table.move, message.get("action"), message.get("turn"))
        except MoveRefused as exc:
            await server.send_state(current)  # the page shows the game as it is
            raise CarouselError(f"move refused: {exc}") from None
    elif kind == "pause":
        pace.paused = True
    elif kind == "resume":
        pace.paused, pace.steps = False, 0
    elif kind == "step":
        pace.steps += 1
    elif kind == "delay":
        pace.delay = _delay(message, "seconds", pace.delay)
    else:
        raise CarouselError(f"type: {shown(kind)} is not one of new, join, move, pause, resume, step, delay")
    await server.send_state(current)
    server.drive(current)
    return current


def _attach(server: Server, page: WebSocket, old: str | None, new: str) -> None:
    if old is not None and old in server.pages:
        server.pages[old].discard(page)
    server.pages[new].add(page)


def create_app(
    checkpoints: Sequence[tuple[str, str]] = (), replay: Replay | None = None, any_checkpoint: bool = True
) -> Starlette:
    """The app: ``checkpoints`` (``(path, game)``) offered as agents, ``replay`` the game
    ``/api/replay`` serves (None: none); ``any_checkpoint``: a page may seat a network by any
    path on this machine (else only those offered: a server others can reach loads no file
    they name)."""
    server = Server(checkpoints, replay, any_checkpoint)

    async def socket(page: WebSocket) -> None:
        await page.accept()
        current: str | None = None
        try:
            while True:
                received = await page.receive()
                if received["type"] == "websocket.disconnect":
                    break
                text = received.get("text")
                if text is None:
                    await page.close(CLOSE_UNSUPPORTED, "text messages only")
                    break
                if len(text) > MAX_MESSAGE:
                    await page.close(CLOSE_TOO_BIG, f"a message is at most {MAX_MESSAGE} characters")
                    break
                try:
                    message = json.loads(text)
                    if not isinstance(message, dict):
                        raise CarouselError("a message is one JSON object with a 'type'")
                    current = await _handle(server, page, message, current)
                except json.JSONDecodeError as exc:
                    await page.send_json({"type": "error", "message": f"not JSON: {exc}"})
                except CarouselError as exc:
                    await page.send_json({"type": "error", "message": str(exc)})
        except WebSocketDisconnect:
            pass
        finally:
            if current is not None and current in server.pages:
                server.pages[current].discard(page)

    async def page_file(request: Any) -> Response:
        name = request.path_params.get("name", "index.html")
        if name not in ("index.html", "page.js", "page.css"):
            return Response("not found", 404)
        return FileResponse(PAGE / name)

    async def cards(_: Any) -> Response:
        return Response(sprite_sheet(), media_type="image/svg+xml")

    async def games(_: Any) -> Response:
        return JSONResponse(catalog(server.checkpoints))

    async def replay_json(_: Any) -> Response:
        if server.replay is None:
            return JSONResponse({"replay": None})
        frames = await asyncio.to_thread(replay_frames, server.replay, family_game(server.replay.game))
        return JSONResponse({"replay": server.replay.to_json(), "frames": as_json(frames)})

    async def table_replay(request: Any) -> Response:
        table = server.tables.get(request.path_params["table_id"])
        if table is None:
            return JSONResponse({"error": "no such table"}, 404)
        replay = await asyncio.to_thread(table.replay)
        headers = {"Content-Disposition": f'attachment; filename="{replay.game}_{replay.seed}.json"'}
        return JSONResponse(replay.to_json(), headers=headers)

    routes = [
        Route("/", page_file),
        Route("/cards.svg", cards),
        Route("/api/games", games),
        Route("/api/replay", replay_json),
        Route("/api/tables/{table_id:str}/replay", table_replay),
        WebSocketRoute("/ws", socket),
        Route("/{name:str}", page_file),
    ]
    app = Starlette(routes=routes)
    app.state.server = server  # the tables, for the tests to look at
    return app
