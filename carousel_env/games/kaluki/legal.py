"""What the player to act may do: the enumerations an env or a random player needs.

:func:`legal_draws` and :func:`legal_discards` are complete. The plays (openings, melds,
lay-offs, joker exchanges) come from bounded searches over the melds a hand can form
(:func:`candidate_melds`): every move they return is legal (each is checked with
:func:`~carousel_env.games.kaluki.engine.apply`), but a search stops at ``limit`` results or
``SEARCH_NODES`` steps, and melds hold at most ``MAX_SEARCH_JOKERS`` jokers, so a legal play
may be missing. The engine, not these helpers, is the authority on what is legal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations

from carousel_env.core.cards import JOKER, Card, face, is_table_joker, joker_as, make_card, rank_of, suit_of
from carousel_env.core.errors import IllegalAction
from carousel_env.games.kaluki.engine import apply, may_lay_off, may_open, opening_value
from carousel_env.games.kaluki.melds import End, Meld, MeldKind, card_at, lays_card, make_run, make_set
from carousel_env.games.kaluki.rules import (
    HIGH_ACE,
    LOW_ACE,
    MELD_MIN,
    RUN_MAX,
    SET_MAX,
    DiscardTake,
    KalukiRules,
    RetrievedJoker,
    SetJokerRelease,
)
from carousel_env.games.kaluki.state import (
    DRAW_STOCK,
    KalukiState,
    Move,
    Phase,
    discard,
    exchange,
    lay_melds,
    lay_off,
    open_with,
    take_discard,
)

DEFAULT_LIMIT = 8
SEARCH_NODES = 5_000
MAX_SEARCH_JOKERS = 2
SUITS = range(4)


def candidate_melds(hand, rules: KalukiRules, max_jokers: int = MAX_SEARCH_JOKERS) -> list[Meld]:
    """The distinct melds ``hand`` can form with at most ``max_jokers`` of its jokers each
    (a set's jokers declare the lowest missing suits)."""
    counts = Counter(hand)
    jokers = min(counts[JOKER], max_jokers)
    found: list[Meld] = []
    for rank in range(1, 14):
        suits = [s for s in SUITS if counts[make_card(rank, s)]]
        for size in range(MELD_MIN, SET_MAX + 1):
            for naturals in range(max(1, size - jokers), min(size, len(suits)) + 1):
                for chosen in combinations(suits, naturals):
                    free = [s for s in SUITS if s not in chosen][: size - naturals]
                    units = [make_card(rank, s) for s in chosen] + [joker_as(make_card(rank, s)) for s in free]
                    found.append(make_set(units))
    cells = [c for c in range(LOW_ACE, HIGH_ACE + 1) if (c != LOW_ACE or rules.ace_low_runs)]
    cells = [c for c in cells if c != HIGH_ACE or rules.ace_high_runs]
    for suit in SUITS:
        for low in cells:
            gaps = 0
            for high in range(low, min(low + RUN_MAX, cells[-1] + 1)):
                gaps += not counts[card_at(suit, high)]
                if gaps > jokers:
                    break
                length = high - low + 1
                if length >= MELD_MIN and gaps < length:
                    units = [
                        card_at(suit, c) if counts[card_at(suit, c)] else joker_as(card_at(suit, c))
                        for c in range(low, high + 1)
                    ]
                    found.append(make_run(units, low, rules))
    return found


def _search(hand, candidates: list[Meld], done: Callable[[list[Meld]], bool], limit: int) -> list[tuple[Meld, ...]]:
    """Up to ``limit`` sets of disjoint ``candidates`` drawn from ``hand`` for which ``done``
    holds (none extended past the point where it holds)."""
    results: list[tuple[Meld, ...]] = []
    nodes = 0

    def walk(start: int, left: Counter, chosen: list[Meld]) -> None:
        nonlocal nodes
        for i in range(start, len(candidates)):
            if len(results) >= limit or nodes >= SEARCH_NODES:
                return
            nodes += 1
            need = Counter(candidates[i].cards())
            if need - left:
                continue
            chosen.append(candidates[i])
            if done(chosen):
                results.append(tuple(chosen))
            else:
                walk(i + 1, left - need, chosen)
            chosen.pop()

    walk(0, Counter(hand), [])
    return results


def _checked(state: KalukiState, moves) -> list[Move]:
    legal = []
    for move in moves:
        try:
            apply(state, move)
        except IllegalAction:
            continue
        legal.append(move)
    return legal


def _openings(state: KalukiState, hand, must: Card, limit: int) -> list[tuple[Meld, ...]]:
    rules = state.rules
    candidates = candidate_melds(hand, rules)
    if must >= 0:
        candidates.sort(key=lambda m: not lays_card((m,), must))  # melds with the card first
    return _search(
        hand,
        candidates,
        lambda ms: opening_value(ms, rules) >= rules.opening and (must < 0 or lays_card(ms, must)),
        limit,
    )


def legal_draws(state: KalukiState, limit: int = DEFAULT_LIMIT) -> list[Move]:
    """The draws of the player to act: the stock, and the discard (with the melds it must be
    laid in where the rules require it, up to ``limit`` of those)."""
    if state.phase is not Phase.DRAW:
        return []
    moves = [DRAW_STOCK]
    if not state.discards:
        return moves
    s, rules, top = state.current, state.rules, state.top
    hand = (*state.hands[s], top)
    opened = state.opened[s]
    if rules.discard_take is DiscardTake.ANY or (rules.discard_take is DiscardTake.OPENING and opened):
        moves.append(take_discard())
    elif opened:
        with_top = [m for m in candidate_melds(hand, rules) if lays_card((m,), top)]
        moves += [take_discard((m,)) for m in with_top[:limit]]
    else:
        moves += [take_discard(ms) for ms in _openings(state, hand, top, limit)]
    return _checked(state, moves)


def legal_discards(state: KalukiState) -> list[Card]:
    """The cards the player to act may discard (not the one taken from the pile this turn)."""
    if state.phase is not Phase.PLAY:
        return []
    return sorted(c for c in set(state.hands[state.current]) if c != state.taken)


def opening_options(state: KalukiState, limit: int = DEFAULT_LIMIT) -> list[Move]:
    """Up to ``limit`` openings the player to act can lay now."""
    if not may_open(state):
        return []
    return _checked(state, [open_with(ms) for ms in _openings(state, state.hands[state.current], -1, limit)])


def meld_options(state: KalukiState, limit: int = DEFAULT_LIMIT) -> list[Move]:
    """Up to ``limit`` single melds an opened player to act can lay now."""
    if state.phase is not Phase.PLAY or not state.opened[state.current]:
        return []
    candidates = candidate_melds(state.hands[state.current], state.rules)
    return _checked(state, [lay_melds((m,)) for m in candidates])[:limit]


def _layoff_units(meld: Meld, card: Card) -> list[tuple[Card, End | None]]:
    """The declarations (for a joker) or ends (for an ace) to try for ``card`` on ``meld``."""
    if card != JOKER:
        return [(-1, None), (-1, End.HIGH)] if rank_of(card) == 1 else [(-1, None)]
    if meld.kind is MeldKind.SET:
        taken = {suit_of(face(u)) for u in meld.units}
        return [(make_card(meld.rank, s), None) for s in SUITS if s not in taken]
    ends = [c for c in (meld.low - 1, meld.high + 1) if LOW_ACE <= c <= HIGH_ACE]
    return [(card_at(meld.suit, c), None) for c in ends]


def layoff_options(state: KalukiState) -> list[Move]:
    """Every lay-off the player to act can make now."""
    if state.phase is not Phase.PLAY:
        return []
    moves = []
    for seat in range(state.num_players):
        if not may_lay_off(state, seat):
            continue
        for index, meld in enumerate(state.melds[seat]):
            for card in sorted(set(state.hands[state.current])):
                for declare, end in _layoff_units(meld, card):
                    moves.append(lay_off(card, seat, index, declare, end))
    return list(dict.fromkeys(_checked(state, moves)))


def _release_cards(meld: Meld, joker: Card, rules: KalukiRules) -> list[tuple[Card, ...]]:
    if meld.kind is MeldKind.RUN or rules.set_joker_release is SetJokerRelease.DECLARED:
        return [(joker,)]
    naturals = {suit_of(u) for u in meld.units if not is_table_joker(u)}
    wanted = tuple(make_card(meld.rank, s) for s in SUITS if s not in naturals)
    if rules.set_joker_release is SetJokerRelease.ALL_MISSING:
        return [wanted]
    return [(c,) for c in wanted]


def exchange_options(state: KalukiState, limit: int = DEFAULT_LIMIT) -> list[Move]:
    """Joker exchanges the player to act can make now (under ``reuse_now`` with up to
    ``limit`` ways to lay the released jokers)."""
    if state.phase is not Phase.PLAY:
        return []
    s, rules = state.current, state.rules
    hand = Counter(state.hands[s])
    moves = []
    for seat in range(state.num_players):
        if not may_lay_off(state, seat):
            continue
        for index, meld in enumerate(state.melds[seat]):
            for joker in [face(u) for u in meld.units if is_table_joker(u)]:
                for cards in _release_cards(meld, joker, rules):
                    if Counter(cards) - hand:
                        continue
                    if rules.retrieved_joker is RetrievedJoker.HAND:
                        moves.append(exchange(seat, index, joker, cards))
                        continue
                    released = meld.jokers if rules.set_joker_release is SetJokerRelease.ALL_MISSING else 1
                    after = list((hand - Counter(cards)).elements()) + [JOKER] * released
                    melds = [m for m in candidate_melds(after, rules) if m.jokers]

                    def enough(ms, released=released):
                        return sum(m.jokers for m in ms) >= released

                    for ms in _search(after, melds, enough, limit):
                        moves.append(exchange(seat, index, joker, cards, ms))
    return _checked(state, moves)


def legal_moves(state: KalukiState, limit: int = DEFAULT_LIMIT) -> list[Move]:
    """The moves the helpers find for the player to act: draws, or plays and discards."""
    if state.phase is Phase.DRAW:
        return legal_draws(state, limit)
    if state.phase is not Phase.PLAY:
        return []
    plays = [*opening_options(state, limit), *meld_options(state, limit)]
    plays += [*layoff_options(state), *exchange_options(state, limit)]
    return plays + [discard(c) for c in legal_discards(state)]
