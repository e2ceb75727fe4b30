"""Gin Rummy in lock-step with the real OpenSpiel (``pyspiel``'s ``gin_rummy``).

Both engines play the same game under preset ``openspiel``: every chance outcome of
OpenSpiel is the card our engine dealt or drew. At each decision the player to act and the
legal moves are compared, a move legal in both is chosen at random, and at the end the
returns are compared. Differences are counted by name in :data:`DIFFERENCES`.
"""

from __future__ import annotations

import random
from collections import Counter

import pyspiel

from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy import melds as gm
from carousel_env.games.gin_rummy.rules import PRESETS
from carousel_env.integrations.openspiel_gin import (
    GIN,
    answer_in_openspiel,
    from_os,
    knock_in_openspiel,
    to_os,
)

# The mapping between the engines is the runner's (carousel_env.integrations.openspiel_gin).
RULES = PRESETS["openspiel"]
# Uniform random play seldom gets near a knock: knock half the times it may, and mostly
# discard the card that leaves the least deadwood, so that knocks, gin and the wall all come.
KNOCK_BIAS = 0.5
GREEDY_DISCARDS = 0.8

# Every difference the lock-step allows, by name.
DIFFERENCES = {
    "shortcut_hides_knock": "OpenSpiel's 11-card deadwood takes one best arrangement and drops its highest"
    " card: when arrangements tie it can miss a legal knock, which our engine then offers",
    "meld_declaration_order": "OpenSpiel's knocker and opponent lay melds one action at a time (runs of 6+"
    " as two melds, lay-offs before own melds); our engine takes the whole arrangement at once",
}


def _os_labels(state) -> set:
    labels = set()
    for action in state.legal_actions():
        if action < 52:
            labels.add(("discard", from_os(action)))
        else:
            labels.add(
                {
                    GIN.DRAW_UPCARD_ACTION: ("take",),
                    GIN.DRAW_STOCK_ACTION: ("stock",),
                    GIN.PASS_ACTION: ("pass",),
                    GIN.KNOCK_ACTION: ("knock",),
                }[action]
            )
    return labels


def _our_labels(state: ge.GinState) -> set:
    kinds = ge.legal_kinds(state)
    labels = {
        (name,)
        for kind, name in (
            (ge.MoveKind.TAKE_UPCARD, "take"),
            (ge.MoveKind.DRAW_STOCK, "stock"),
            (ge.MoveKind.PASS, "pass"),
            (ge.MoveKind.KNOCK, "knock"),
        )
        if kind in kinds
    }
    return labels | {("discard", c) for c in ge.legal_discards(state)}


class LockstepError(AssertionError):
    """The engines disagree where no named difference allows it."""


def _apply_os(os_state, action: int, what: str) -> None:
    if action not in os_state.legal_actions():
        raise LockstepError(f"OpenSpiel refuses {what} ({os_state.action_to_string(action)})\n{os_state}")
    os_state.apply_action(action)


def play(seed: int, counts: Counter) -> tuple[ge.GinState, list[float]]:
    """One game in both engines with random moves legal in both; returns our final state
    and OpenSpiel's returns. ``counts`` gets the differences met and the moves compared."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    ours = ge.new_game(RULES, seed, deck=tuple(deck))
    os_state = pyspiel.load_game("gin_rummy").new_initial_state()
    for card in deck[:21]:
        os_state.apply_action(to_os(card))
    while not ours.over:
        if os_state.is_terminal() or os_state.current_player() != ours.current:
            raise LockstepError(f"player to act: ours {ours.current}, OpenSpiel {os_state.current_player()}")
        mine, theirs = _our_labels(ours), _os_labels(os_state)
        if mine != theirs:
            if mine - theirs == {("knock",)} and theirs <= mine:
                counts["shortcut_hides_knock"] += 1
            else:
                raise LockstepError(f"legal moves differ: ours only {mine - theirs}, OpenSpiel only {theirs - mine}")
        counts["decisions"] += 1
        both = sorted(mine & theirs)
        # Random play rarely knocks: take a knock half the times one is legal, to test them.
        label = ("knock",) if ("knock",) in both and rng.random() < KNOCK_BIAS else rng.choice(both)
        discards = [lab for lab in both if lab[0] == "discard"]
        if discards and label[0] == "discard" and rng.random() < GREEDY_DISCARDS:
            hand = ours.hands[ours.current]
            label = min(discards, key=lambda lab: gm.deadwood(hand ^ 1 << lab[1]))
        if ("take",) in both and ("stock",) in both and rng.random() < GREEDY_DISCARDS:
            hand = ours.hands[ours.current]
            better = gm.deadwood_after_discard(hand | 1 << ours.upcard) < gm.deadwood(hand)
            label = ("take",) if better else ("stock",)
        if label == ("knock",):
            arrangement = rng.choice(ge.knock_options(ours))
            after = ge.apply(ours, ge.Move(ge.MoveKind.KNOCK, arrangement=arrangement))
            _knock_in_openspiel(os_state, ours, after, arrangement)
            counts["meld_declaration_order"] += 1
            ours = after
            continue
        if label[0] == "discard":
            move = ge.Move(ge.MoveKind.DISCARD, label[1])
            _apply_os(os_state, to_os(label[1]), "the discard")
        else:
            move = {"take": ge.TAKE_UPCARD, "stock": ge.DRAW_STOCK, "pass": ge.PASS}[label[0]]
            _apply_os(
                os_state,
                {"take": GIN.DRAW_UPCARD_ACTION, "stock": GIN.DRAW_STOCK_ACTION, "pass": GIN.PASS_ACTION}[label[0]],
                label[0],
            )
        drawn = ours.stock[ours.stock_top] if move is ge.DRAW_STOCK else None
        ours = ge.apply(ours, move)
        if drawn is not None and not os_state.is_terminal():
            os_state.apply_action(to_os(drawn))  # the chance outcome: the card our stock gave
    if not os_state.is_terminal():
        raise LockstepError(f"our hand ended ({ours.last_hand.end.value}) but OpenSpiel's goes on\n{os_state}")
    counts["games"] += 1
    return ours, os_state.returns()


def _knock_in_openspiel(os_state, before: ge.GinState, after: ge.GinState, arrangement: gm.Arrangement) -> None:
    knock_in_openspiel(os_state, arrangement)
    answer_in_openspiel(os_state, arrangement, after.last_hand.layoffs)
