"""The Conquian soak: many games through the AEC env, the invariants checked after every
action. ``benchmarks.soak_conquian`` is its command line; ``tests/games/conquian/test_conquian_soak.py``
its CI slice.

Game ``g`` is played with seed ``S + g``, which alone draws its preset, options (``rearrange``,
``max_run``, ``scoring: points``, a match to a small target), the reward and the players (all
``simple``, all ``random``, or one of each). RULES.md is written out again here (:class:`Book`),
not read from ``ConquianRules``. Checked after every action: the 40 cards exactly once (hands,
melds, stock, dead pile, faced card); every meld a set or a run; each player's hand and melds
holding 10 between turns (11 for a player who took, until the discard); melded cards staying
melded, and old melds kept as ``rearrange`` says; what each move did (a passed card face down,
a stock card turned up, the discard faced, the turn passing); forcing asked exactly when the
player's melds alone take the card (by the brute force of ``solver_reference``); each hand's
end (11 melded and an empty hand, or a tableau at an empty stock), its scores, the totals, the
game's end and the rewards recomputed from RULES.md; observations, masks, infos and terminations.
"""

from __future__ import annotations

import random
import traceback
from dataclasses import dataclass

from carousel_env.core.cards import card_str, rank_of, suit_of
from carousel_env.games.conquian.decision import engine_move
from carousel_env.games.conquian.engine import apply
from carousel_env.games.conquian.env import INFO_KEYS, raw_env
from carousel_env.games.conquian.players import get_player
from carousel_env.games.conquian.rules import ConquianRules
from carousel_env.games.conquian.state import ConquianState, HandEnd, Move, MoveKind, Phase
from tests.games.conquian.solver_reference import reference_arrangements
from tests.support.soak_runner import SoakReport, env_problems, run_games

TOLERANCE = 1e-9
RANK_ORDER = (1, 2, 3, 4, 5, 6, 7, 11, 12, 13)  # RULES.md: A 2 3 4 5 6 7 J Q K
PACK = frozenset((r - 1) * 4 + s for r in RANK_ORDER for s in range(4))
PRESET_BOOKS = {"book": ("free", False), "bicycle": ("free", False), "foster": ("borrow", True)}


@dataclass(frozen=True)
class Book:
    """RULES.md's facts for one game, written out again: the rearrangement, the run limit,
    the scoring, pooled tableaus, a match's target (None: a single hand)."""

    rearrange: str
    max_run: int | None
    points: bool
    pool: bool
    target: int | None

    def card_points(self, card: int) -> int:
        rank = rank_of(card)
        return 15 if rank == 1 else 10 if rank > 10 else rank


def game_of(seed: int) -> tuple[dict, tuple[str, ...], Book]:
    """What a game's seed draws: the env's keyword arguments, the players, RULES.md's rules."""
    rng = random.Random(f"conquian-soak:{seed}")
    preset = rng.choice(tuple(PRESET_BOOKS))
    rearrange, pool = PRESET_BOOKS[preset]
    config: dict = {"preset": preset, "reward": rng.choice(("score", "result"))}
    if rng.random() < 0.3:
        rearrange = config["rearrange"] = rng.choice(("free", "borrow", "none"))
    max_run = 8
    if rng.random() < 0.2:
        max_run = config["max_run"] = rng.choice((None, 4))
    points = not pool and rng.random() < 0.25
    if points:
        config["scoring"] = "points"
    target = None
    if rng.random() < 0.3:
        target = config["target"] = rng.choice((2, 3)) if not points else 40
        config["game_length"] = "match"
    seating = rng.choice(("simple", "random", "mixed"))
    players = ("simple", "random") if seating == "mixed" else (seating, seating)
    return config, players, Book(rearrange, max_run, points, pool, target)


def is_meld(meld, book: Book) -> bool:
    cards = sorted(meld)
    if len(cards) < 3 or len(set(cards)) != len(cards) or not set(cards) <= PACK:
        return False
    if len({rank_of(c) for c in cards}) == 1:
        return len(cards) <= 4
    if len({suit_of(c) for c in cards}) != 1 or (book.max_run is not None and len(cards) > book.max_run):
        return False
    places = sorted(RANK_ORDER.index(rank_of(c)) for c in cards)
    return places == list(range(places[0], places[0] + len(places)))


def card_problems(state: ConquianState) -> list[str]:
    held = [*state.hands[0], *state.hands[1], *state.stock, *state.dead]
    held += [c for table in state.melds for m in table for c in m]
    if state.faced >= 0:
        held.append(state.faced)
    if sorted(held) != sorted(PACK):
        return [f"the cards are not the 40 once each ({len(held)} held, {len(set(held))} distinct)"]
    return []


def count_problems(state: ConquianState) -> list[str]:
    """Hand and melds hold 10 between turns; 11 for the taker until the discard; a winner 11 melded."""
    found = []
    for seat in range(2):
        melded = sum(len(m) for m in state.melds[seat])
        held = len(state.hands[seat]) + melded
        took = state.phase is Phase.DISCARD and seat == state.current
        won = state.over and state.last_hand.end is HandEnd.OUT and state.last_hand.winner == seat
        expected = 11 if took or won else 10
        if held != expected:
            found.append(f"player {seat} holds {held} cards in hand and melds, not {expected} ({state.phase.value})")
        if melded > 11 or (melded == 11 and not won):
            found.append(f"player {seat} has {melded} melded and the hand goes on")
    return found


def kept_problems(before, after, book: Book, seat: int) -> list[str]:
    """Melded cards stay melded; under ``none`` every old meld lies whole in a new one, under
    ``borrow`` all but one card of it."""
    old, new = before.melds[seat], after.melds[seat]
    if not {c for m in old for c in m} <= {c for m in new for c in m}:
        return [f"player {seat}'s melded cards left the table"]
    if book.rearrange == "free":
        return []
    slack = 1 if book.rearrange == "borrow" else 0
    for meld in old:
        if not any(len(set(meld) - set(m)) <= slack for m in new):
            return [f"player {seat}'s meld {' '.join(map(card_str, meld))} was rearranged under {book.rearrange}"]
    return []


def forcible(state: ConquianState, seat: int, card: int, rules: ConquianRules) -> bool:
    return bool(state.melds[seat]) and bool(reference_arrangements(rules, state.melds[seat], (), card, forced=True))


def move_problems(before: ConquianState, move: Move, after: ConquianState, book: Book) -> list[str]:
    s, kind, phase = before.current, move.kind, before.phase
    found = kept_problems(before, after, book, s) + kept_problems(before, after, book, 1 - s)
    if after.melds[1 - s] != before.melds[1 - s]:
        found.append(f"player {1 - s}'s melds changed on player {s}'s move")
    if kind is MoveKind.DISCARD:
        if after.faced != move.card or after.current != 1 - s or after.phase is not Phase.FACED:
            found.append(f"the discard {card_str(move.card)} is not faced for player {1 - s}")
    elif kind is MoveKind.TAKE:
        if before.faced not in {c for m in after.melds[s] for c in m}:
            found.append(f"the taken {card_str(before.faced)} is not melded")
    elif kind is MoveKind.PASS and phase in (Phase.FACED, Phase.TURNED):
        may_force = forcible(after if move.melds else before, s, before.faced, before.rules)
        if (after.phase is Phase.FORCE) != may_force:
            found.append(f"forcing {'not ' if may_force else ''}asked after {card_str(before.faced)} was passed")
        if after.phase is Phase.TURNED and (before.faced not in after.dead or after.faced != before.stock[-1]):
            found.append("a passed card was not turned down for the stock's top")
        if phase is Phase.TURNED and after.phase is Phase.FACED and after.faced != before.faced:
            found.append("a card left is not faced for the opponent")
    elif kind is MoveKind.PASS and phase is Phase.FORCE and after.phase is Phase.FORCED:
        found.append("not forcing forced")
    return found


class Watch:
    """One game seen from inside its env; ``found`` collects the problems, ``ended`` the
    hands the current step finished (with the totals before each)."""

    def __init__(self, book: Book) -> None:
        self.book, self.found, self.ended, self.totals, self.pool = book, [], [], (0, 0), 0
        self.counts: dict[str, int] = {"forced": 0, "out": 0, "tableau": 0, "games over": 0}

    def arrived(self, state: ConquianState) -> None:
        self.found += card_problems(state) + count_problems(state)
        for table in state.melds:
            self.found += [f"{' '.join(map(card_str, m))} is not a meld" for m in table if not is_meld(m, self.book)]

    def moved(self, before: ConquianState, move: Move, after: ConquianState) -> None:
        try:
            replayed = apply(before, move)
        except Exception as exc:  # the env made it, so the engine must take it
            self.found.append(f"replaying {move} raised {exc!r}")
            return
        if replayed != after:
            self.found.append(f"the env's state after {move} is not the engine's")
        self.found += move_problems(before, move, after, self.book)
        self.counts["forced"] += move.kind is MoveKind.FORCE

    def hand_over(self, state: ConquianState) -> None:
        result, book = state.last_hand, self.book
        if result.end is HandEnd.TABLEAU:
            worth, scores = 0, (0, 0)
            if state.stock:
                self.found.append("a tableau with cards in the stock")
        else:
            w = result.winner
            if state.hands[w] or sum(len(m) for m in state.melds[w]) != 11:
                self.found.append(f"player {w} won without 11 melded and an empty hand")
            worth = sum(book.card_points(c) for c in state.hands[1 - w]) if book.points else 1 + self.pool
            scores = (worth, -worth if not book.points else 0) if w == 0 else (-worth if not book.points else 0, worth)
        if result.scores != scores or result.worth != worth:
            self.found.append(f"hand scores {result.scores} (worth {result.worth}); RULES.md gives {scores} ({worth})")
        self.pool = self.pool + 1 if book.pool and result.end is HandEnd.TABLEAU else 0
        totals = (self.totals[0] + scores[0], self.totals[1] + scores[1])
        if state.totals != totals:
            self.found.append(f"totals {state.totals}; RULES.md gives {totals}")
        over = book.target is None or max(totals) >= book.target
        if (state.phase is Phase.GAME_OVER) != over:
            self.found.append(f"the game {'goes on' if over else 'ended'} at totals {totals}")
        self.ended.append((scores, totals, over))
        self.totals = totals
        self.counts[result.end.value] += 1
        self.counts["games over"] += over


class WatchedEnv(raw_env):
    """The raw env with a :class:`Watch` inside: every state reached, every move, each hand's end."""

    def __init__(self, book: Book, **config: object) -> None:
        self.book = book
        super().__init__(**config)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.watch = Watch(self.book)
        super().reset(seed=seed, options=options)

    def _arrived(self, state: ConquianState) -> None:
        self.watch.arrived(state)

    def _apply(self, state: ConquianState, action: int) -> ConquianState:
        after = super()._apply(state, action)
        self.watch.moved(state, engine_move(action, self._suggestions), after)
        return after

    def _pay_unit(self, state: ConquianState) -> None:
        self.watch.hand_over(state)
        super()._pay_unit(state)


def documented_rewards(scores, totals, over: bool, reward: str, scale: float, single: bool) -> list[float]:
    """env.py's "Rewards": the score less the mean, or the episode's sign."""
    if reward == "score":
        mean = sum(scores) / 2
        return [scale * (s - mean) for s in scores]
    if not (over or single):
        return [0.0, 0.0]
    points = scores if single else totals
    sign = (points[0] > points[1]) - (points[0] < points[1])
    return [scale * sign, -scale * sign]


def step_problems(env: WatchedEnv) -> list[str]:
    watch, agents = env.watch, env.possible_agents
    found, ended = watch.found, watch.ended
    watch.found, watch.ended = [], []
    single = env.config.episode == "hand"
    expected = [0.0, 0.0]
    for scores, totals, over in ended:
        paid = documented_rewards(scores, totals, over, env.config.reward, env.config.reward_scale, single)
        expected = [a + b for a, b in zip(expected, paid)]
    got = [env.rewards[a] for a in agents]
    if any(abs(g - e) > TOLERANCE for g, e in zip(got, expected)):
        found.append(f"rewards {got}; the documented rewards are {expected}")
    over = bool(ended) and (single or ended[-1][2])
    if set(env.terminations.values()) != {over}:
        found.append(f"terminations {env.terminations} after {len(ended)} hands ended")
    points = [sum(e[0][s] for e in ended) for s in range(2)]
    info = dict(zip(INFO_KEYS, (len(env.auto_actions), len(ended), points, bool(ended) and ended[-1][2])))
    for agent in agents:
        if {**env.infos[agent], "hand_points": list(env.infos[agent]["hand_points"])} != info:
            found.append(f"{agent}'s infos {env.infos[agent]}; expected {info}")
    return found


@dataclass
class ConquianSoakReport(SoakReport):
    hands: int = 0


def play_game(seed: int) -> ConquianSoakReport:
    report = ConquianSoakReport(games=1)
    config, names, book = game_of(seed)
    env = WatchedEnv(book, **config)
    players = [get_player(name, seed * 8 + seat) for seat, name in enumerate(names)]
    step, problems = 0, []
    try:
        env.reset(seed=seed)
        while not problems:
            problems = step_problems(env) + env_problems(env)
            if problems or all(env.terminations.values()):
                break
            state = env.game_state
            env.step(players[state.current](state, env.suggestions))
            step += 1
            report.actions += 1
    except Exception:  # a crash is a violation too, named like the others
        problems.append("raised " + traceback.format_exc(limit=-4).replace("\n", " / "))
    about = f"game seed {seed} ({config}, players {'/'.join(names)}), step {step}"
    report.violations += [f"{about}: {p}" for p in problems]
    report.hands = env.watch.counts["out"] + env.watch.counts["tableau"]
    report.ends.update(env.watch.counts)
    return report


def run(games: int, seed: int = 0, workers: int = 2) -> ConquianSoakReport:
    """Plays games ``seed .. seed + games - 1`` on ``workers`` processes (0: this one)."""
    return run_games(play_game, ConquianSoakReport, games, seed, workers, chunk=50)
