"""The Kaluki soak (plain Rummy too, preset ``rummy``): many games through the AEC env, the
invariants checked after every action. ``benchmarks.soak_kaluki`` is its command line;
``tests/games/kaluki/test_kaluki_soak.py`` its CI slice.

Game ``g`` is played with seed ``S + g``, which alone draws its preset (unless one is given), 2
to 6 players, the players (all ``simple``, all ``random``, or each seat either), options
(``rummy_bonus``, ``game: hand``, ``scoring: penalty`` for book and rummy, ``penalty_end:
first_to_limit`` for UK) and the reward (``score`` or ``result``). The env is watched from
inside (:class:`WatchedEnv`): every state its steps reach, every engine move of a play (replayed
one by one), each hand's final state. RULES.md is written out again
(:mod:`tests.support.kaluki_rulebook`), not read from ``KalukiRules``. Checked: the pack's cards
exactly once (a table joker as a joker); every table meld a set or a run, read from its units
(and by ``meld_from_units``), every joker declaring one card, a natural in every meld; each move
(:func:`move_problems`): lay-offs, joker exchanges (to the hand, or under ``reuse_now`` into new
melds at once), the opening requirement, the discard taken, the stock turned over, going out by
discard, the card taken not discarded; each deal's hand sizes, dealer and first player; a card
in every hand while it runs, one to discard for the player to act; observations, masks, infos
and terminations; each hand's end, scores, totals and the game's end recomputed from RULES.md,
and the rewards from env.py's "Rewards", zero-sum.
"""

from __future__ import annotations

import random
import traceback
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache, partial

from carousel_env.core.cards import (
    JOKER,
    NUM_CARDS,
    TABLE_JOKER,
    card_str,
    face,
    hand_str,
    is_table_joker,
    rank_of,
    suit_of,
)
from carousel_env.games.kaluki import melds as km
from carousel_env.games.kaluki.engine import apply
from carousel_env.games.kaluki.env import INFO_KEYS, engine_moves, raw_env
from carousel_env.games.kaluki.players import get_player
from carousel_env.games.kaluki.rules import PILE_TAKE_LIMIT, KalukiRules
from carousel_env.games.kaluki.state import HandEnd, KalukiState, Move, MoveKind, Phase
from tests.support.kaluki_rulebook import BOOKS, Book, HandSeen, documented_rewards, rules_game_end, rules_scores
from tests.support.soak_runner import SoakReport, env_problems, run_games

PRESETS = ("book", "uk40", "uk51", "rummy")
TOLERANCE = 1e-9
RESTOCKS = 1  # RULES.md: the stock is turned over once a hand
NEW_MELDS = (MoveKind.TAKE_DISCARD, MoveKind.OPEN, MoveKind.MELD, MoveKind.EXCHANGE)


def game_of(seed: int, preset: str | None = None) -> tuple[dict, tuple[str, ...], Book]:
    """What a game's seed draws: the env's keyword arguments, the players, RULES.md's rules."""
    rng = random.Random(f"kaluki-soak:{seed}")
    preset = preset or rng.choice(PRESETS)
    n = rng.randint(2, 6)
    seating = rng.choice(("simple", "random", "mixed", "mixed"))
    players = tuple(rng.choice(("simple", "random")) if seating == "mixed" else seating for _ in range(n))
    config, book = {"preset": preset, "num_players": n}, BOOKS[preset]
    if rng.random() < 0.5:
        config["rummy_bonus"] = rng.choice(("plus10", "double"))
        book = replace(book, bonus=config["rummy_bonus"])
    if rng.random() < 0.15:
        config["game_length"], book = "hand", replace(book, single_hand=True)
    if preset in ("book", "rummy") and rng.random() < 0.25:
        config["scoring"], book = "penalty", replace(book, penalty=True)
    if book.uk and rng.random() < 0.25:
        config["penalty_end"], book = "first_to_limit", replace(book, first_to_limit=True)
    config["reward"] = "result" if rng.random() < 0.25 else "score"
    return config, players, book


# ---------------------------------------------------------------- one state


def next_in(seat: int, in_play) -> int:
    """The next seat to the left still in the game."""
    return next((seat + k) % len(in_play) for k in range(1, len(in_play) + 1) if in_play[(seat + k) % len(in_play)])


def card_problems(state: KalukiState, book: Book) -> list[str]:
    present = Counter(state.stock) + Counter(state.discards)
    for seat in range(state.num_players):
        present.update(state.hands[seat])
        present.update(JOKER if is_table_joker(u) else u for m in state.melds[seat] for u in m.units)
    pack = book.pack()
    unheld = [s for s in range(state.num_players) if Counter(state.known[s]) - Counter(state.hands[s])]
    found = [f"player {s} is known to hold {hand_str(state.known[s])}, not all in its hand" for s in unheld]
    if present == pack:
        return found
    missing, extra = (" ".join(card_str(c) for c in sorted(d.elements())) for d in (pack - present, present - pack))
    return [*found, f"cards not conserved: missing [{missing}], extra [{extra}]"]


@lru_cache(maxsize=1 << 16)
def meld_problem(meld: km.Meld, ace_low: bool, ace_high: bool) -> str:
    """What is wrong with a table meld ('' if nothing), judged from its units alone."""
    units, faces = meld.units, [face(u) for u in meld.units]
    if not all(0 <= u < NUM_CARDS or TABLE_JOKER <= u < TABLE_JOKER + NUM_CARDS for u in units):
        return f"{units} holds a unit that is neither a card nor a joker declaring one card"
    if all(is_table_joker(u) for u in units):
        return f"{meld} holds no natural card"
    if meld.kind is km.MeldKind.SET:
        suits = {suit_of(c) for c in faces}
        if not 3 <= len(units) <= 4 or len({rank_of(c) for c in faces}) != 1 or len(suits) != len(units):
            return f"set {meld} is not 3 or 4 cards of one rank in different suits"
    else:
        high, ranks = meld.low + len(units) - 1, [rank_of(c) for c in faces]
        shape = 3 <= len(units) <= 13 and meld.low >= 1 and high <= 14 and len({suit_of(c) for c in faces}) == 1
        aces = (meld.low > 1 or ace_low) and (high < 14 or ace_high)
        if not (shape and aces and ranks == [1 if c == 14 else c for c in range(meld.low, high + 1)]):
            return f"run {meld} from cell {meld.low} is not one suit in consecutive ranks with the ace's places allowed"
    rules = KalukiRules(ace_low_runs=ace_low, ace_high_runs=ace_high)
    try:
        again = km.meld_from_units(units, rules)
    except km.MeldError as exc:
        return f"meld_from_units refuses {meld}: {exc}"
    return "" if again == meld else f"{meld} reads again as {again.kind.value} from cell {again.low}"


def meld_problems(state: KalukiState, book: Book, seats=None) -> list[str]:
    seats = range(state.num_players) if seats is None else seats
    found = [(s, meld_problem(m, book.ace_low, book.ace_high)) for s in seats for m in state.melds[s]]
    return [f"player {s}'s meld: {problem}" for s, problem in found if problem]


def fits(meld: km.Meld, card: int, book: Book) -> bool:
    """Whether ``card`` (a hand card; a joker fits wherever there is room) may be laid off on ``meld``."""
    if meld.kind is km.MeldKind.SET:
        suits = {suit_of(face(u)) for u in meld.units}
        return len(suits) < 4 and (card == JOKER or (rank_of(card) == meld.rank and suit_of(card) not in suits))
    aces = {1: book.ace_low, 14: book.ace_high}
    ends = [c for c in (meld.low - 1, meld.high + 1) if 2 <= c <= 13 or aces.get(c, False)]
    if len(meld.units) >= 13 or not ends:
        return False
    return card == JOKER or (suit_of(card) == meld.suit and rank_of(card) in [1 if c == 14 else c for c in ends])


def hand_size_problems(state: KalukiState, dealt_in, book: Book) -> list[str]:
    """While a hand runs: each player in it holds a card; the one to act holds one it may
    discard, or only copies of the card taken, one of which it may still lay off (RULES.md:
    the card taken is not discarded that turn; a copy laid, the other may go)."""
    if state.over:
        return []
    found = [f"player {s} holds {len(h)} cards" for s, h in enumerate(state.hands) if (not h) == (s in dealt_in)]
    s = state.current
    hand = state.hands[s] if 0 <= s < state.num_players else ()
    may_lay_off = s in dealt_in and (state.opened[s] or not book.opening)
    layable = may_lay_off and any(fits(m, state.taken, book) for m in state.table())
    if s not in dealt_in:
        found.append(f"player {s} is to act but is not in the hand")
    elif state.phase is Phase.PLAY and all(c == state.taken for c in hand) and not layable:
        found.append(f"player {s} is to play holding nothing it may discard or lay off: {hand}")
    return found


def deal_problems(state: KalukiState, book: Book, in_play, dealer: int | None, totals) -> list[str]:
    """A fresh deal: RULES.md's hand sizes, one upcard, the dealer (None: hand 1's, any seat
    in play), the player on the dealer's left first; the totals carried."""
    seats = [s for s in range(state.num_players) if in_play[s]]
    size = book.hand_sizes[len(seats) - 2]
    found = []
    if state.in_play != tuple(in_play) or state.totals != tuple(totals):
        found.append(f"dealt with players in {state.in_play} and totals {state.totals}, not {in_play} and {totals}")
    sizes = [len(h) for h in state.hands]
    if sizes != [size if s in seats else 0 for s in range(state.num_players)] or len(state.discards) != 1:
        found.append(f"dealt hands of {sizes} and a pile of {len(state.discards)}: RULES.md deals {size} and 1")
    if any(state.melds) or any(state.opened) or len(state.stock) != sum(book.pack().values()) - size * len(seats) - 1:
        found.append(f"a deal with melds {state.melds} or opened {state.opened} or {len(state.stock)} in stock")
    first = next_in(state.dealer, in_play)
    if (dealer is not None and state.dealer != dealer) or state.dealer not in seats or state.current != first:
        found.append(f"dealer {state.dealer}, first player {state.current}; RULES.md: dealer {dealer}, {first} first")
    return found


# ---------------------------------------------------------------- one move


def move_problems(before: KalukiState, move: Move, after: KalukiState, book: Book) -> list[str]:
    """What breaks the rules between ``before`` and ``after``, one engine move apart."""
    s, kind, n = before.current, move.kind, before.num_players
    changed = [(p, i) for p in range(n) for i, m in enumerate(before.melds[p]) if after.melds[p][i : i + 1] != (m,)]
    added = {p: after.melds[p][len(before.melds[p]) :] for p in range(n) if after.melds[p][len(before.melds[p]) :]}
    target = [(move.seat, move.meld)] if kind in (MoveKind.LAY_OFF, MoveKind.EXCHANGE) else []
    if changed != target or set(added) - ({s} if kind in NEW_MELDS else set()):
        return [f"{move} changed melds {changed} and added melds {added}"]
    laid = added.get(s, ())
    units = [u for m in laid for u in m.units]
    found = []
    if laid and not before.opened[s] and sum(book.meld_value(m) for m in laid) < book.opening:
        found.append(f"player {s} opened with {' | '.join(map(str, laid))}, under {book.opening}")
    if kind is MoveKind.MELD and not before.opened[s]:
        found.append(f"player {s} laid further melds without having opened")
    if kind is MoveKind.TAKE_DISCARD:
        top, opened = before.top, before.opened[s]
        lays_top = any(is_table_joker(u) if top == JOKER else u == top for u in units)
        if (book.uk or (book.opening and not opened)) and not lays_top:
            found.append(f"player {s} took {card_str(top)} without laying it this turn")
    if kind in (MoveKind.LAY_OFF, MoveKind.EXCHANGE) and book.opening and not before.opened[s]:
        found.append(f"player {s} played on player {move.seat}'s melds before opening")
    if kind is MoveKind.LAY_OFF:
        old, new = before.melds[move.seat][move.meld], after.melds[move.seat][move.meld]
        unit = TABLE_JOKER + move.declare if move.card == JOKER else move.card
        grown = ((*old.units, unit), (unit, *old.units))
        if sorted(new.units) != sorted(grown[0]) or (old.kind is km.MeldKind.RUN and new.units not in grown):
            found.append(f"laying off {card_str(move.card)} turned {old} into {new}")
    if kind is MoveKind.EXCHANGE:
        found += _exchange_problems(before, move, after, book, units)
    if kind is MoveKind.DRAW_STOCK:
        found += _draw_problems(before, after)
    ended = after.over and after.last_hand.end is HandEnd.OUT
    if ended and book.uk and kind is not MoveKind.DISCARD:
        found.append(f"player {s} went out by {kind.name} under go_out_by_discard")
    return found


def _exchange_problems(before, move, after, book: Book, laid_units) -> list[str]:
    s = before.current
    old, new = before.melds[move.seat][move.meld], after.melds[move.seat][move.meld]
    joker = TABLE_JOKER + move.card
    if old.kind is km.MeldKind.SET and book.uk:  # all_missing
        naturals = [u for u in old.units if not is_table_joker(u)]
        missing = [c for c in range(4 * (old.rank - 1), 4 * old.rank) if c not in naturals]
        expected, released = sorted(naturals + missing), old.jokers
    else:
        at = old.units.index(joker) if joker in old.units else 0
        expected, released = sorted((*old.units[:at], move.card, *old.units[at + 1 :])), 1
    found = [] if joker in old.units and sorted(new.units) == expected else [f"{move} turned {old} into {new}"]
    kept = after.hands[s].count(JOKER) - before.hands[s].count(JOKER)
    relaid = sum(is_table_joker(u) for u in laid_units)
    if kept != released - relaid or (book.uk and relaid < released) or (not book.uk and relaid):
        rule = "reuse_now: laid this turn" if book.uk else "hand: to the hand"
        found.append(f"{move} released {released} joker(s), {kept} more in hand, {relaid} relaid ({rule})")
    return found


def _draw_problems(before: KalukiState, after: KalukiState) -> list[str]:
    if after.over:
        exhausted = before.restocks_used >= RESTOCKS or not before.discards
        ok = not before.stock and exhausted and after.last_hand.end is HandEnd.STOCK
        return [] if ok else [f"the hand ended on a draw with {len(before.stock)} in stock"]
    if before.stock:
        drawn, stock, pile = before.stock[-1], before.stock[:-1], before.discards
    else:  # turned over without shuffling: the pile's first card on top
        drawn, stock, pile = before.discards[0], tuple(reversed(before.discards))[:-1], ()
        if before.restocks_used >= RESTOCKS:
            return [f"the stock was turned over again: {before.restocks_used} of {RESTOCKS} restock(s) used"]
    s = before.current
    if (after.stock, after.discards) != (stock, pile) or sorted(after.hands[s]) != sorted((*before.hands[s], drawn)):
        return [f"player {s} drew from the stock and the stock, the pile or the hand is not RULES.md's"]
    return []


# ---------------------------------------------------------------- a hand's end


def hand_problems(state: KalukiState, book: Book, dealt_in, laid_before, totals, in_play) -> tuple[list, HandSeen]:
    """The hand that ended in ``state``, scored again from its final hands; ``laid_before``:
    the seats that laid cards on an earlier turn (no rummy for them)."""
    result, out = state.last_hand, state.last_hand.out
    values = tuple(sum(map(book.value, h)) if s in dealt_in else 0 for s, h in enumerate(state.hands))
    rummy = out >= 0 and out not in laid_before
    scores = rules_scores(book, values, out, rummy, dealt_in)
    new_totals = tuple(a + b for a, b in zip(totals, scores))
    left, winners = rules_game_end(book, new_totals, in_play, out, len(state.results))
    seen = HandSeen(out, values, scores, tuple(dealt_in), new_totals, left, winners)
    found = []
    holding = [s for s in dealt_in if state.hands[s]]
    ends = {
        HandEnd.OUT: out in dealt_in and holding == [s for s in dealt_in if s != out],
        HandEnd.STOCK: out < 0 and not state.stock and holding == list(dealt_in),
        HandEnd.PILE_LIMIT: out < 0 and state.pile_takes >= PILE_TAKE_LIMIT,
    }
    if not ends[result.end] or result.hands != state.hands:
        found.append(f"hand ended by {result.end.value} (out {out}) with {len(state.stock)} in stock, hands {holding}")
    got = (result.values, result.rummy, result.scores)
    if got != (values, rummy, scores):
        found.append(f"hand values, rummy, scores {got}; RULES.md gives {(values, rummy, scores)}")
    if state.totals != new_totals or state.in_play != left:
        found.append(f"totals {state.totals}, players in {state.in_play}; RULES.md gives {new_totals}, {left}")
    game = state.game_result
    if (state.phase is Phase.GAME_OVER) != (winners is not None) or (game and game.winners != winners):
        found.append(f"game over {state.phase is Phase.GAME_OVER}, won by {game and game.winners}; RULES.md {winners}")
    return found, seen


# ---------------------------------------------------------------- the game, watched


class Watch:
    """One game seen from inside its env; ``found`` collects the problems, ``ended`` the
    hands the current step finished."""

    def __init__(self, book: Book, n: int) -> None:
        self.book, self.n, self.found, self.ended, self.counts = book, n, [], [], Counter()
        self.hand, self.dealer, self.totals, self.in_play = -1, None, (0,) * n, (True,) * n
        self.dealt_in, self.laid_before, self.turn_laid, self.taken, self.melds = (), set(), False, -1, None
        self.known = [Counter() for _ in range(n)]

    def arrived(self, state: KalukiState) -> None:
        book = self.book
        if state.hand_number != self.hand:
            self.found += deal_problems(state, book, self.in_play, self.dealer, self.totals)
            self.hand, self.melds, self.laid_before = state.hand_number, None, set()
            self.known = [Counter() for _ in range(self.n)]
            self.found += [f"known cards {state.known} at a deal"] * any(state.known)
            self.dealt_in = tuple(s for s in range(self.n) if self.in_play[s])
        seats = [s for s in range(self.n) if self.melds is None or state.melds[s] is not self.melds[s]]
        self.found += card_problems(state, book) + meld_problems(state, book, seats)
        self.found += hand_size_problems(state, self.dealt_in, book)
        self.melds = state.melds

    def moved(self, before: KalukiState, moves: tuple[Move, ...], after: KalukiState) -> None:
        """The env made ``moves``: each replayed and checked, the last state the env's."""
        state = before
        for i, move in enumerate(moves):
            try:
                nxt = apply(state, move)
            except Exception as exc:  # the env made it, so the engine must take it
                self.found.append(f"replaying {move} raised {exc!r}")
                return
            self.found += move_problems(state, move, nxt, self.book) + self._turn(state, move, nxt)
            self.found += self._known(state, move, nxt)
            if i < len(moves) - 1:  # the last state is checked on arrival
                self.found += card_problems(nxt, self.book) + meld_problems(nxt, self.book)
            played_on = move.kind in (MoveKind.LAY_OFF, MoveKind.EXCHANGE)
            self.counts["lay-offs" if move.kind is MoveKind.LAY_OFF else "exchanges"] += played_on
            self.counts["restocks"] += move.kind is MoveKind.DRAW_STOCK and not state.stock and not nxt.over
            state = nxt
        if state != after:
            self.found.append(f"the env's state after {' ; '.join(map(str, moves))} is not the moves'")

    def _turn(self, before: KalukiState, move: Move, after: KalukiState) -> list[str]:
        """The turn's own record: what was taken from the pile, whether anything was laid."""
        s, kind = before.current, move.kind
        if kind in (MoveKind.DRAW_STOCK, MoveKind.TAKE_DISCARD):
            self.turn_laid, self.taken = False, before.top if kind is MoveKind.TAKE_DISCARD else -1
        if after.melds != before.melds:
            self.turn_laid = True
            if after.hands[s].count(self.taken) < before.hands[s].count(self.taken) + (kind is MoveKind.TAKE_DISCARD):
                self.taken = -1  # a copy is on the table: the one taken, copies being alike
        if kind is not MoveKind.DISCARD:
            return []
        self.laid_before |= (
            {s} if self.turn_laid and not after.over else set()
        )  # the turn that goes out is no earlier turn
        return [f"player {s} discarded {card_str(move.card)}, taken from the pile this turn"] * (
            move.card == self.taken
        )

    def _known(self, before: KalukiState, move: Move, after: KalukiState) -> list[str]:
        """Each seat's known cards kept from what the table shows: what left the table or the
        pile went into the mover's hand, seen; what arrived there left it (a stock card comes
        unseen, and a pile turned over goes to the stock). The engine's must agree."""
        if move.kind is not MoveKind.DRAW_STOCK:
            self._saw(before, after)
        expected = tuple(tuple(sorted(k.elements())) for k in self.known)
        return [] if after.known == expected else [f"known cards {after.known}; the table showed {expected}"]

    def _saw(self, before: KalukiState, after: KalukiState) -> None:
        table = Counter(JOKER if is_table_joker(u) else u for seat in after.melds for m in seat for u in m.units)
        table.subtract(JOKER if is_table_joker(u) else u for seat in before.melds for m in seat for u in m.units)
        if after.discards[:-1] == before.discards and len(after.discards) == len(before.discards) + 1:
            table[after.discards[-1]] += 1  # a discard
        elif before.discards and after.discards == before.discards[:-1]:
            table[before.top] -= 1  # the pile's top taken
        known = Counter(self.known[before.current])
        known.subtract(table)  # what left the table and the pile went in; what arrived there went out
        self.known[before.current] = +known

    def hand_over(self, state: KalukiState) -> None:
        found, seen = hand_problems(state, self.book, self.dealt_in, self.laid_before, self.totals, self.in_play)
        self.found += found
        self.ended.append(seen)
        result = state.last_hand
        self.counts[result.end.value] += 1
        self.counts["rummies"] += result.rummy
        self.counts["games over"] += seen.winners is not None
        self.totals, self.in_play = seen.totals, seen.in_play
        if seen.winners is None:  # the next deal's dealer
            heads_up = sum(seen.in_play) == 2
            winner_deals = heads_up and self.book.winner_deals and seen.out >= 0
            self.dealer = seen.out if winner_deals else next_in(state.dealer, seen.in_play)


class WatchedEnv(raw_env):
    """The raw env with a :class:`Watch` inside: every state reached, every move, each hand's end."""

    def __init__(self, book: Book, **config: object) -> None:
        self.book = book
        super().__init__(**config)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.watch = Watch(self.book, self.config.num_players)
        super().reset(seed=seed, options=options)

    def _arrived(self, state: KalukiState) -> None:
        self.watch.arrived(state)

    def _apply(self, state: KalukiState, action: int) -> KalukiState:
        after = super()._apply(state, action)
        self.watch.moved(state, engine_moves(state, action, self._suggestions), after)
        return after

    def _pay_unit(self, state: KalukiState) -> None:
        self.watch.hand_over(state)
        super()._pay_unit(state)


def step_problems(env: WatchedEnv) -> list[str]:
    """After a reset or a step: what the watch found, then the rewards, infos and terminations
    against the hands the step ended."""
    watch, agents = env.watch, env.possible_agents
    found, ended = watch.found, watch.ended
    watch.found, watch.ended = [], []
    expected = [0.0] * len(agents)
    for hand in ended:
        paid = documented_rewards(hand, watch.book, env.config.reward, env.config.reward_scale)
        expected = [a + b for a, b in zip(expected, paid)]
    got = [env.rewards[a] for a in agents]
    if any(abs(g - e) > TOLERANCE for g, e in zip(got, expected)) or abs(sum(got)) > TOLERANCE:
        found.append(f"rewards {got}; the documented rewards are {expected}")
    over = bool(ended) and ended[-1].winners is not None
    if set(env.terminations.values()) != {over} or len(env.hand_results) != len(ended):
        found.append(f"{len(env.hand_results)} hands reported, {len(ended)} ended; terminations {env.terminations}")
    points = [sum(h.scores[s] for h in ended) for s in range(len(agents))]
    info = dict(zip(INFO_KEYS, (len(env.auto_actions), len(ended), points, over)))
    for agent in agents:
        if {**env.infos[agent], "hand_points": list(env.infos[agent]["hand_points"])} != info:
            found.append(f"{agent}'s infos {env.infos[agent]}; expected {info}")
    if not over and env.agent_selection != agents[env.game_state.current]:
        found.append(f"{env.agent_selection} is selected, player {env.game_state.current} is to act")
    return found


@dataclass
class KalukiSoakReport(SoakReport):
    hands: int = 0


def play_game(seed: int, preset: str | None = None) -> KalukiSoakReport:
    report = KalukiSoakReport(games=1)
    config, names, book = game_of(seed, preset)
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
    report.hands = sum(env.watch.counts[e.value] for e in HandEnd)
    report.ends.update(env.watch.counts)
    return report


def run(games: int, seed: int = 0, workers: int = 2, preset: str | None = None) -> KalukiSoakReport:
    """Plays games ``seed .. seed + games - 1`` (of ``preset``, or each its own), on
    ``workers`` processes (0: this one)."""
    return run_games(partial(play_game, preset=preset), KalukiSoakReport, games, seed, workers, chunk=20)
