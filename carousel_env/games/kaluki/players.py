"""Scripted Kaluki players: ``random``, ``simple``, ``wary``, ``careful`` and ``search``.

A player decides at the env's decisions: a callable ``(state, offers) -> action`` for the
player to act, given the decision's offers as :func:`carousel_env.games.kaluki.env.decision`
makes them (the arrangements to take the pile's top with, or the plays), and answering with an
env action (:class:`~carousel_env.games.kaluki.env.KalukiAction`). It reads only what that
seat may know: its own hand, the pile, the table.

``simple`` plays as a casual player would: it opens as soon as it can (taking the pile's top
when an opening lays it, the solver's best), then lays whatever it can (the solver's best
play: melds, lay-offs and joker exchanges, least value left), takes the pile's top to keep
only when it melds with its hand or fits the table, and discards its highest card that melds
with nothing (no card of its rank, no card of its suit within two ranks; never a joker).

``wary`` is ``simple`` that does not feed the next player: of the cards that meld with nothing
(or, when every card melds with another, of them all), it discards the highest the next player
would not take as far as the table shows (one that melds with a card it took from the pile,
which every player saw, or, once it has opened, fits the table: ``observation.feeds``), and
only when it would take each of them, ``simple``'s own choice. Its draws and plays are
``simple``'s.

``careful`` is ``wary`` that takes the pile's top to keep only where it can use it: a joker, a
card that makes a meld with two natural cards of its hand (a set of its rank, a run of its suit:
:func:`~carousel_env.games.kaluki.melds.makes_meld`), or, once it has opened, one that fits a
meld on the table. A card that only might meld (a partner of one card) it leaves: taken, it is
seen by every player and cannot be discarded in the same turn. Its plays and discards are
``wary``'s.

``search@N`` (``search``: N = 4) weighs ``simple``'s action against its alternatives: the
draws (the stock, the pile's top to keep, the first takes that lay it), the first plays
offered and not playing, and ``simple``'s first discards. Each is tried on the same N deals
of the cards the seat has not seen (the others' hands and the stock, dealt again uniformly:
what the table showed of the others' hands, ``KalukiState.known``, is not used), every seat
then played by ``simple`` to the hand's end, and scored by the hand's zero-sum points (the
env's ``reward="score"``). It leaves ``simple``'s action only for one whose gain over it, deal
by deal, is clear of the noise. The playouts of a decision are played together in the compiled
vector env (:func:`playout_values`), ``simple`` compiled there
(:mod:`~carousel_env.games.kaluki.kernel_players`); :func:`playout_value` plays one with the
engine, the same hand move for move.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import fields, replace

import numpy as np

from carousel_env.core.cards import JOKER, Card
from carousel_env.core.errors import CarouselError
from carousel_env.core.stats import clear_gain
from carousel_env.envkit.policies import scripted_name
from carousel_env.games.kaluki.config import KalukiEnvConfig
from carousel_env.games.kaluki.engine import next_hand
from carousel_env.games.kaluki.env import (
    KalukiAction,
    apply_moves,
    decision,
    engine_moves,
    fixed_actions,
    hand_rewards,
)
from carousel_env.games.kaluki.melds import fits, makes_meld, meld_partners
from carousel_env.games.kaluki.observation import feeds
from carousel_env.games.kaluki.rules import KalukiRules
from carousel_env.games.kaluki.state import KalukiState, Phase
from carousel_env.games.kaluki.vector import KalukiVectorEnv

KalukiPlayer = Callable[[KalukiState, tuple], int]


class UnknownKalukiPlayer(CarouselError):
    """A player name that is not one of :data:`PLAYERS`."""


def random_player(seed: int | None = None) -> KalukiPlayer:
    """Uniform over the legal actions: the draws or discards, and the offers."""
    rng = random.Random(seed)

    def play(state: KalukiState, offers: tuple) -> int:
        legal = [int(a) for a in fixed_actions(state)]
        return rng.choice(legal + [KalukiAction.FIRST_OFFER + i for i in range(len(offers))])

    return play


def melds_with(others, card: Card) -> bool:
    """Whether ``card`` could meld with the cards ``others`` (:func:`meld_partners`; a joker
    melds with anything, and helps any card)."""
    return card == JOKER or JOKER in others or card in meld_partners(others)


def discard_order(state: KalukiState, spare: frozenset[Card] = frozenset()) -> list[Card]:
    """The cards ``simple`` would discard, its choice first: those that meld with nothing
    else in hand, then the rest, each group highest first; never the card taken from the
    pile this turn, and a joker last (only when nothing else may go). ``spare``: cards put
    after the others of their group (``wary``'s cards that feed the next player)."""
    hand, rules = state.hands[state.current], state.rules
    allowed = {c for c in hand if c != state.taken}
    # A card is never its own partner, so the hand's partners are those of the others.
    partners = meld_partners([c for c in hand if c != JOKER])
    # Naturals before jokers, loose before the rest, then the unspared, then highest value first.
    return sorted(
        allowed, key=lambda c: (c != JOKER, c not in partners, c not in spare, rules.card_value(c), c), reverse=True
    )


def simple_discard(state: KalukiState) -> Card:
    """``simple``'s discard: the first of :func:`discard_order`."""
    return discard_order(state)[0]


def _naturals(state: KalukiState) -> list[Card]:
    """The natural cards of the hand of the player to act."""
    return [c for c in state.hands[state.current] if c != JOKER]


def _top_fits_once_opened(state: KalukiState) -> bool:
    """Whether the player to act has opened and the pile's top fits a meld on the table."""
    return state.opened[state.current] and any(fits(meld, state.top, state.rules) for meld in state.table())


def _top_helps(state: KalukiState) -> bool:
    """Whether the pile's top melds with the hand or, once opened, fits a meld on the table."""
    return melds_with(_naturals(state), state.top) or _top_fits_once_opened(state)


def simple_action(state: KalukiState, offers: tuple) -> int:
    """``simple``'s action (see the module docstring)."""
    if state.phase is Phase.DRAW:
        if offers:  # an opening (or melds) that lays the top: the solver's best
            return KalukiAction.FIRST_OFFER
        if KalukiAction.TAKE_DISCARD in fixed_actions(state) and _top_helps(state):
            return KalukiAction.TAKE_DISCARD
        return KalukiAction.DRAW_STOCK
    if offers:
        return KalukiAction.FIRST_OFFER  # the best play
    return KalukiAction.FIRST_DISCARD + simple_discard(state)


def simple_player(seed: int | None = None) -> KalukiPlayer:
    del seed  # simple is deterministic
    return simple_action


def wary_action(state: KalukiState, offers: tuple) -> int:
    """``wary``'s action: ``simple``'s, but for a discard that feeds the next player (module docstring)."""
    if state.phase is Phase.DRAW or offers:
        return simple_action(state, offers)
    return KalukiAction.FIRST_DISCARD + discard_order(state, feeds(state, state.current))[0]


def wary_player(seed: int | None = None) -> KalukiPlayer:
    del seed  # wary is deterministic
    return wary_action


def _top_usable(state: KalukiState) -> bool:
    """Whether the pile's top is a joker, makes a meld with two naturals of the hand, or (once
    opened) fits a meld on the table: ``careful``'s reasons to take it."""
    top = state.top
    return top == JOKER or makes_meld(top, _naturals(state), state.rules) or _top_fits_once_opened(state)


def careful_action(state: KalukiState, offers: tuple) -> int:
    """``careful``'s action: ``wary``'s, but for a take of the pile's top it cannot use (module docstring)."""
    action = wary_action(state, offers)
    if action == KalukiAction.TAKE_DISCARD and not _top_usable(state):
        return KalukiAction.DRAW_STOCK
    return action


def careful_player(seed: int | None = None) -> KalukiPlayer:
    del seed  # careful is deterministic
    return careful_action


# ---------------------------------------------------------------- search

SEARCH_SAMPLES = 4  # deals a decision for ``search``
SEARCH_OFFERS = 3  # of the offers, the first ones weighed
SEARCH_DISCARDS = 3  # of simple's discards, the first ones weighed
SEARCH_MARGIN = 1.0  # standard errors a gain over simple's action must clear
ROLLOUT_OFFERS = 1  # simple takes the first offer: its rollouts ask the solver for no more
SCORE = KalukiEnvConfig(episode="hand", reward="score")  # how a playout's hand is valued


def candidate_actions(state: KalukiState, offers: tuple) -> list[int]:
    """The actions ``search`` weighs, ``simple``'s first (module docstring)."""
    own = simple_action(state, offers)
    takes_or_plays = [KalukiAction.FIRST_OFFER + i for i in range(min(len(offers), SEARCH_OFFERS))]
    if state.phase is Phase.DRAW:
        actions = [*fixed_actions(state), *takes_or_plays]
    else:
        discards = [KalukiAction.FIRST_DISCARD + c for c in discard_order(state)[:SEARCH_DISCARDS]]
        actions = takes_or_plays + discards
    return [own, *(a for a in actions if a != own)]


def determinize(state: KalukiState, rng: random.Random) -> KalukiState:
    """``state`` with what its player to act cannot see (the others' hands, the stock) dealt
    again from ``rng``: every hand keeps its size, the stock its size. What the table showed of
    the others' hands (``known``) is not used, and is cleared in the dealt state."""
    seat = state.current
    others = [s for s in range(state.num_players) if s != seat]
    pool = sorted([c for s in others for c in state.hands[s]] + list(state.stock))  # the draw depends on rng alone
    rng.shuffle(pool)
    hands = list(state.hands)
    for s in others:
        size = len(state.hands[s])
        hands[s], pool = tuple(sorted(pool[:size])), pool[size:]
    known = tuple(k if s == seat else () for s, k in enumerate(state.known))
    return replace(state, hands=tuple(hands), stock=tuple(pool), known=known)


def playout_value(state: KalukiState, seat: int) -> float:
    """What the hand brings ``seat`` when ``simple`` plays every seat from ``state`` to its end,
    played by the engine."""
    end = play_hand_or_game([simple_action] * state.num_players, state, k=ROLLOUT_OFFERS, hand_only=True)
    return hand_rewards(SCORE, end.last_hand, end)[seat]


class PlayoutEnvs:
    """The compiled vector envs a search plays its playouts in, one per rules, table size and
    number of rows (a step encodes every row, so no row is spare)."""

    def __init__(self) -> None:
        self._envs: dict[tuple[KalukiRules, int, int], KalukiVectorEnv] = {}

    def env(self, rules: KalukiRules, players: int, rows: int) -> KalukiVectorEnv:
        key = (rules, players, rows)
        if key not in self._envs:
            options = {f.name: getattr(rules, f.name) for f in fields(KalukiRules)}
            venv = KalukiVectorEnv(
                rows,
                autoreset=False,
                num_players=players,
                k_plays=ROLLOUT_OFFERS,
                episode=SCORE.episode,
                reward=SCORE.reward,
                reward_scale=SCORE.reward_scale,
                **options,
            )
            if venv.rules != rules:  # the options rebuild the rules: a new rule must be listed there
                raise CarouselError(f"Kaluki search: cannot build a vector env with the rules {rules}")
            self._envs[key] = venv
        return self._envs[key]


def playout_values(states: list[KalukiState], seat: int, envs: PlayoutEnvs) -> list[float]:
    """:func:`playout_value` of each of ``states`` (one game's positions: its rules and table
    size), those whose hand goes on played together in one of ``envs``' vector envs
    (``KalukiVectorEnv.play_scripted``)."""
    values = [0.0] * len(states)
    playing = []
    for i, state in enumerate(states):
        if state.over:
            values[i] = hand_rewards(SCORE, state.last_hand, state)[seat]
        else:
            playing.append(i)
    if playing:
        first = states[playing[0]]
        venv = envs.env(first.rules, first.num_players, len(playing))
        step = venv.load(range(len(playing)), [states[i] for i in playing])
        earned = step.rewards[:, seat] + venv.play_scripted("simple")[:, seat]
        for i, value in zip(playing, earned.tolist()):
            values[i] = value
    return values


Deal = Callable[[KalukiState, random.Random], KalukiState]  # a state with the unseen cards dealt again


def search_player(seed: int | None = None, samples: int = SEARCH_SAMPLES, deal: Deal = determinize) -> KalukiPlayer:
    """``search@N`` (module docstring), its deals drawn from ``seed``; ``deal``: how the unseen
    cards are dealt (a yardstick may pass another, as ``benchmarks.bench_kaluki --deal`` does)."""
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        raise CarouselError(f"Kaluki player search@N: N (deals a decision) must be at least 1, got {samples!r}")
    rng = random.Random(seed)
    envs = PlayoutEnvs()

    def play(state: KalukiState, offers: tuple) -> int:
        actions = candidate_actions(state, offers)
        if len(actions) == 1:
            return actions[0]
        seat = state.current
        worlds = [deal(state, rng) for _ in range(samples)]
        starts = []
        for action in actions:
            moves = engine_moves(state, action, offers)  # the seat's own cards: the same in every world
            starts.extend(apply_moves(world, moves) for world in worlds)
        values = playout_values(starts, seat, envs)
        scores = [values[i : i + samples] for i in range(0, len(values), samples)]
        best = max(range(len(actions)), key=lambda i: (sum(scores[i]), -i))
        # Leave simple's action only for a gain over it, deal by deal, clear of the noise.
        gains = [a - b for a, b in zip(scores[best], scores[0])]
        return actions[best] if clear_gain(gains, SEARCH_MARGIN) else actions[0]

    return play


PLAYERS: dict[str, Callable[..., KalukiPlayer]] = {
    "random": random_player,
    "simple": simple_player,
    "wary": wary_player,
    "careful": careful_player,
    "search": search_player,
}


def get_player(name: str, seed: int | None = None, deal: Deal = determinize) -> KalukiPlayer:
    """The scripted player ``name`` (``random``, ``simple``, ``wary``, ``careful``, ``search`` or ``search@N``), built
    with ``seed``; a search deals the unseen cards with ``deal`` (see :func:`search_player`)."""
    base, samples = scripted_name(name, "Kaluki", PLAYERS, UnknownKalukiPlayer)
    if base == "search":
        return search_player(seed, samples=samples or SEARCH_SAMPLES, deal=deal)
    return PLAYERS[base](seed)


def play_hand_or_game(players: list[KalukiPlayer], state: KalukiState, k: int = 8, hand_only: bool = False):
    """Play ``state`` on with ``players`` (one per seat) to the hand's end (``hand_only``) or
    the game's; returns the last state."""
    while True:
        if state.over:
            if hand_only or state.phase is Phase.GAME_OVER:
                return state
            state = next_hand(state)
            continue
        mask, offers = decision(state, k)
        legal = np.flatnonzero(mask)
        action = int(legal[0]) if len(legal) == 1 else players[state.current](state, offers)
        if not mask[action]:
            raise CarouselError(f"a player chose {action}, not legal at {state}")
        state = apply_moves(state, engine_moves(state, action, offers))


__all__ = [
    "PLAYERS",
    "KalukiPlayer",
    "PlayoutEnvs",
    "careful_player",
    "get_player",
    "play_hand_or_game",
    "playout_value",
    "playout_values",
    "random_player",
    "search_player",
    "simple_player",
    "wary_player",
]
