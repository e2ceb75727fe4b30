"""Baseline players for the Carousel environment.

Interface: a policy is a callable ``policy(observation, action_mask) -> action`` where
``observation`` is the env's float32 observation vector (``obs["observation"]``) and
``action_mask`` its int8 mask (``obs["action_mask"]``); it returns a legal action (an int).
Policies read suggestion slots through :func:`carousel_env.games.carousel.envs.aec.layout_for_mask`,
so they work with any ``k_suggestions``. They see only what the observation shows.

Get one by name from :mod:`carousel_env.games.carousel.agents.registry` (``get_policy("random", seed=3)``);
:mod:`carousel_env.games.carousel.agents.match` plays them against each other.

* ``random``: uniform over the legal actions.
* ``greedy``: knocks as soon as allowed, else makes the play that sheds the most points,
  else draws again, else ends the turn.
* ``smart``: a heuristic that sheds like greedy but keeps a *reserve*, and knocks only after
  shedding. Its rules, in order:

  1. A play that empties the hand: go out.
  2. Other plays: it rebuilds its position from the observation (own hand, table cards and
     table jokers by declaration: the solver reads only these counts, so this gives the
     env's exact suggestions, with the table each one leaves). ``best`` is the max-points
     play. It makes ``best`` when that leaves a hand worth <= the knock limit, when the
     hand left by ``best`` still has a play on the table it makes (more plays follow), or
     once the stock is empty. Otherwise ``best`` would use up its plays, and it keeps a
     reserve: the option that leaves a hand which can still play, at the lowest cost in
     points kept over ``best``: a smaller suggestion, or (after a play this turn) ending
     the turn. It
     takes it if that costs at most ``reserve_limit`` points (20) heads-up, or
     ``multi_reserve_limit`` (0: no reserve) with more players, else it makes ``best``.
     Why: after the compulsory draw a player with no play must draw again, up to three
     cards a turn, while a player holding a reserve plays it and stops after one card
     (the table only gains cards, so what fits it now almost always fits next turn).
     With more players reserves did not pay in 3-player games against greedy (more
     opponents may end the round while the reserve's points are held).
  3. Knock, when allowed and no play is left to make: heads-up at once (a knock at <= 5 is
     rarely undercut and waiting gives the opponent turns to shed or end the round); with
     more players only when its hand is likely the lowest: its value below
     ``knock_margin`` (0.6) times the smallest opponent hand size times the mean value of
     the unseen cards, or zero.
  4. Else draw again, else end the turn.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from carousel_env.core.cards import NUM_CARDS, POINTS, Hand, Table, joker_as
from carousel_env.games.carousel.engine.rules import Rules, carousel, manipulation_rummy
from carousel_env.games.carousel.envs.aec import DRAW_AGAIN, END_TURN, FIRST_SUGGESTION, KNOCK, layout_for_mask
from carousel_env.games.carousel.envs.observation import POINTS_SCALE, SIZE_SCALE
from carousel_env.games.carousel.solver import can_play, solve

Policy = Callable[[np.ndarray, np.ndarray], int]

_CARD_POINTS = np.array(POINTS, np.float32)  # index 52 = joker (25)


def _slot_values(observation: np.ndarray, action_mask: np.ndarray, field: str) -> np.ndarray:
    lay = layout_for_mask(action_mask)
    sl = lay.slot_fields[field]
    return lay.slots(observation)[:, sl.start]


class RandomPolicy:
    """Uniform over the legal actions."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(action_mask)))


def greedy(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """Knock when allowed, else the max-points play, else draw again, else end the turn."""
    if action_mask[KNOCK]:
        return KNOCK
    plays = np.flatnonzero(action_mask[FIRST_SUGGESTION:])
    if len(plays):
        points = _slot_values(observation, action_mask, "points")[plays]
        return FIRST_SUGGESTION + int(plays[int(np.argmax(points))])
    if action_mask[DRAW_AGAIN]:
        return DRAW_AGAIN
    return END_TURN if action_mask[END_TURN] else int(np.flatnonzero(action_mask)[0])


class SmartPolicy:
    """The heuristic described in the module docstring. Thresholds are in card points."""

    def __init__(
        self, reserve_limit: float = 20.0, multi_reserve_limit: float = 0.0, knock_margin: float = 0.6
    ) -> None:
        # Most points a reserve may keep over the best play: heads-up, and with 3+ players.
        self.reserve_limit = reserve_limit
        self.multi_reserve_limit = multi_reserve_limit
        self.knock_margin = knock_margin  # knock if own value < margin * estimated lowest opponent

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        lay = layout_for_mask(action_mask)
        plays = np.flatnonzero(action_mask[FIRST_SUGGESTION:])
        if len(plays):
            return self._play(observation, action_mask, lay, plays)
        hand_value = observation[lay.global_fields["self"].start + 1] * POINTS_SCALE
        if action_mask[KNOCK] and self._likely_lowest(observation, lay, hand_value):
            return KNOCK
        if action_mask[DRAW_AGAIN]:
            return DRAW_AGAIN
        if action_mask[END_TURN]:
            return END_TURN
        return int(np.flatnonzero(action_mask)[0])

    def _play(self, observation: np.ndarray, action_mask: np.ndarray, lay, plays: np.ndarray) -> int:
        """Rule 2 of the module docstring (rule 1 first): a play, or ending the turn to keep
        a reserve."""
        slots = lay.slots(observation)
        sf = lay.slot_fields
        points = slots[plays, sf["points"].start]
        goes_out = slots[plays, sf["goes_out"].start] > 0
        if goes_out.any():
            return FIRST_SUGGESTION + int(plays[goes_out][int(np.argmax(points[goes_out]))])
        greedy_play = FIRST_SUGGESTION + int(plays[int(np.argmax(points))])
        table, hand, rules = _position(observation, lay)
        # No position check: _position's pseudo-meld is no valid meld (the solver reads only
        # the table's cards), and the tables below are ones the solver just built.
        suggestions = solve(table, hand, rules, k=lay.num_slots, check_position=False).suggestions
        if not _same_plays(suggestions, slots, sf["cards"]):
            return greedy_play  # not the position the env solved (cannot happen with these rules)
        b = max(range(len(suggestions)), key=lambda i: (suggestions[i].points, suggestions[i].cards))
        best = suggestions[b]
        g = lay.global_fields
        # No draws are left to save once the stock is empty (the final turns draw nothing).
        last_turns = observation[g["stock"].start] == 0 or observation[g["final_turns"].start] > 0
        knock_limit = rules.knock_limit if rules.knock_limit is not None else -1
        if last_turns or best.hand_after_points <= knock_limit or can_play(best.play.table, best.hand_after, rules):
            return FIRST_SUGGESTION + b
        # ``best`` would use up the plays: the cheapest way to keep one for the next turn.
        options = []
        if action_mask[END_TURN]:  # after a play this turn: keep the whole hand
            options.append((best.points, END_TURN))
        for i, s in enumerate(suggestions):
            if can_play(s.play.table, s.hand_after, rules):
                options.append((s.hand_after_points - best.hand_after_points, FIRST_SUGGESTION + i))
        limit = self.reserve_limit if rules.num_players == 2 else self.multi_reserve_limit
        if options:
            cost, action = min(options)
            if cost <= limit:
                return action
        return FIRST_SUGGESTION + b

    def _likely_lowest(self, observation: np.ndarray, lay, hand_value: float) -> bool:
        g = lay.global_fields
        unseen = observation[g["unseen"]]
        count = unseen.sum()
        mean_unseen = float(unseen @ _CARD_POINTS / count) if count else 6.0
        opp = observation[g["opponents"]].reshape(-1, 5)
        sizes = opp[opp[:, 0] > 0, 1] * SIZE_SCALE
        if len(sizes) <= 1:
            # Heads-up, a knock at <= 5 is rarely undercut and waiting gives the opponent
            # turns to shed or knock first: knock at once.
            return True
        estimate = float(sizes.min()) * mean_unseen * self.knock_margin
        return hand_value == 0 or hand_value < estimate


def _position(observation: np.ndarray, lay) -> tuple[Table, Hand, Rules]:
    """``(table, hand, rules)`` as the observer sees them. The table comes back as one
    pseudo-meld holding every table unit: legality depends only on the table's cards and
    joker declarations (a play may rearrange every meld), and so does the solver. The
    rules follow from the deck size (the cards of the hand, the table and the unseen)."""
    g = lay.global_fields
    hand_counts = observation[g["hand"]].astype(np.int64)
    real = observation[g["table_cards"]].astype(np.int64)
    jokers = observation[g["table_jokers"]].astype(np.int64)
    hand = tuple(int(c) for c in np.repeat(np.arange(NUM_CARDS + 1), hand_counts))
    units = [int(c) for c in np.repeat(np.arange(NUM_CARDS), real)]
    units += [joker_as(int(c)) for c in np.repeat(np.arange(NUM_CARDS), jokers)]
    table = (tuple(units),) if units else ()
    players = 1 + int(observation[g["opponents"]].reshape(-1, 5)[:, 0].sum())
    deck = hand_counts.sum() + real.sum() + jokers.sum() + observation[g["unseen"]].sum()
    no_jokers = round(float(deck)) == 52 * (1 if players == 2 else 2)
    rules = manipulation_rummy(players) if no_jokers and players >= 3 else carousel(players)
    return table, hand, rules


def _same_plays(suggestions: tuple, slots: np.ndarray, cards: slice) -> bool:
    """Whether ``suggestions`` add the same cards as the observation's slots."""
    if len(suggestions) > len(slots) or slots[len(suggestions) :, 0].any():
        return False
    return all(
        np.array_equal(np.bincount(s.play.added, minlength=NUM_CARDS + 1), slots[i, cards])
        for i, s in enumerate(suggestions)
    )
