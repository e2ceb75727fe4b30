"""``carousel serve`` in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright) plays a whole Gin hand and a whole Carousel round by clicking, opens a replay, and
sees a refused move leave the game unchanged.

Without a ``chromium`` on the PATH these tests are skipped, except under
``CAROUSEL_REQUIRE_BROWSER=1`` (``.ci/run`` sets it, and installs chromium first), where they
fail. ``CAROUSEL_SCREENSHOTS=DIR`` also writes each game's page as a PNG into DIR (the
docs' pictures: ``docs/serve.md``).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
playwright = pytest.importorskip("playwright.sync_api")
import uvicorn  # noqa: E402

from carousel_cli.serve import shipped_checkpoints  # noqa: E402
from carousel_cli.serve.app import create_app  # noqa: E402
from carousel_cli.serve.tables import Table, TableRequest  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("CAROUSEL_REQUIRE_BROWSER") != "1":
    pytest.skip("needs Debian's chromium (apt-get install chromium)", allow_module_level=True)
SHOTS = os.environ.get("CAROUSEL_SCREENSHOTS")
WAIT_MS = 60_000


class LiveServer:
    """The app on a free port of 127.0.0.1, in a thread, for as long as a test needs it."""

    def __init__(self, app) -> None:
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    page.close()
    assert not errors, f"the page's script failed: {errors}"


def _deal(page, url: str, game: str, variant: str | None, seats: list[str], seed: int) -> None:
    page.goto(url)
    page.select_option("#game", game)
    if variant is not None:
        page.select_option("#variant", variant)
    page.select_option("#players", str(len(seats)))
    for seat, name in enumerate(seats):
        page.select_option(f"#seats select >> nth={seat}", name)
    page.fill("#seed", str(seed))
    page.fill("#delay", "0")
    page.dispatch_event("#delay", "input")
    page.click("#deal")
    page.wait_for_selector("body[data-turn]", timeout=WAIT_MS)


def _click_until(page, done: str, choose) -> int:
    """Click the human's moves (``choose`` picks the element) until the log has ``done``."""
    clicks = 0
    while done not in page.inner_text("#log"):
        page.wait_for_function(
            "([done]) => document.querySelector('#moves button, #hand .playable')"
            " || document.getElementById('log').innerText.includes(done)",
            arg=[done],
            timeout=WAIT_MS,
        )
        if done in page.inner_text("#log"):
            break
        turn = page.get_attribute("body", "data-turn")
        choose(page).click()
        page.wait_for_function(f"document.body.dataset.turn !== '{turn}'", timeout=WAIT_MS)
        clicks += 1
        assert clicks < 400, "the hand did not end"
    return clicks


def _shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name))


def _gin_choice(page):
    buttons = page.query_selector_all("#moves button")
    knock = next((b for b in buttons if b.inner_text().startswith("knock")), None)
    cards = page.query_selector_all("#hand .playable")
    return knock or (cards[-1] if cards else buttons[0])


def test_a_whole_gin_hand_by_clicking_against_the_shipped_network(page):
    with LiveServer(create_app(shipped_checkpoints())) as url:
        _deal(page, url, "gin_rummy", "eaai", ["you", "checkpoints/gin_2p"], 3)
        assert page.inner_text("#title") == "Gin Rummy"
        assert page.query_selector_all("#hand .card-box").__len__() in (10, 11)
        _shot(page, "serve_gin_rummy.png")
        clicks = _click_until(page, "hand over", _gin_choice)
        assert clicks > 3
        assert "points" in page.inner_text("#log")


def test_a_whole_carousel_round_by_clicking_against_ppo_2p(page):
    def play_first(page):  # a play when there is one (its table shown beside it), else draw or end
        buttons = page.query_selector_all("#moves button")
        plays = [b for b in buttons if b.inner_text().startswith("play")]
        return (plays or buttons)[0]

    with LiveServer(create_app(shipped_checkpoints())) as url:
        _deal(page, url, "carousel", "carousel", ["you", "checkpoints/ppo_2p"], 2)
        page.wait_for_selector("#moves button", timeout=WAIT_MS)
        _shot(page, "serve_carousel.png")
        assert _click_until(page, "round 1 over", play_first) > 1


@pytest.mark.parametrize(
    ("game", "variant", "seats"),
    [
        ("carousel", "manipulation_rummy", ["you", "smart", "greedy"]),
        ("carioca", None, ["you", "simple", "outs"]),
        ("kaluki", "book", ["you", "simple", "simple", "simple"]),
        ("kaluki", "rummy", ["you", "simple"]),
        ("conquian", "book", ["you", "simple"]),
    ],
)
def test_every_game_is_dealt_and_drawn_in_cards(page, game, variant, seats):
    with LiveServer(create_app()) as url:
        _deal(page, url, game, variant, seats, 7)
        page.wait_for_selector("#moves button, #hand .playable", timeout=WAIT_MS)
        hand = page.query_selector_all("#hand .card-box")
        assert hand and all(box.get_attribute("data-token") for box in hand)
        assert len(page.query_selector_all("#seats-view .zone[data-seat]")) == len(seats)
        _shot(page, f"serve_{variant if variant in ('rummy', 'manipulation_rummy') else game}.png")


def test_a_refused_move_leaves_the_game_unchanged(page):
    with LiveServer(create_app()) as url:
        _deal(page, url, "kaluki", "rummy", ["you", "simple"], 1)
        page.wait_for_selector("#moves button, #hand .playable", timeout=WAIT_MS)
        turn, hand = page.get_attribute("body", "data-turn"), page.inner_text("#board")
        page.evaluate("send({type: 'move', action: 9999, turn: Number(document.body.dataset.turn)})")
        page.wait_for_selector("#error:not([hidden])", timeout=WAIT_MS)
        assert "action 9999 is not legal" in page.inner_text("#error")
        page.evaluate("send({type: 'move', action: 0, turn: 12345})")
        page.wait_for_function("document.getElementById('error').textContent.includes('decision 12345')")
        assert page.get_attribute("body", "data-turn") == turn and page.inner_text("#board") == hand


def test_a_replay_opens_with_a_move_slider(page):
    table = Table(TableRequest("conquian", "book", ("simple", "random"), 6))
    while table.agent_step():
        pass
    replay = table.replay()
    with LiveServer(create_app(replay=replay)) as url:
        page.goto(url)
        page.wait_for_selector("body[data-frame='0']", timeout=WAIT_MS)
        assert not page.is_visible("#setup")
        last = len(replay.actions)
        assert page.get_attribute("#slider", "max") == str(last)
        page.click("#next")
        page.wait_for_selector("body[data-frame='1']")
        page.fill("#slider", str(last))
        page.dispatch_event("#slider", "input")
        page.wait_for_selector(f"body[data-frame='{last}']")
        assert "Game over" in page.inner_text("#log")
        _shot(page, "serve_replay.png")
