"""The MILP reference (:func:`~tests.games.kaluki.kaluki_reference.milp_optimum`) asked of a
game position: the hand, the table and the rules of the player to act turned into its
arguments. The engine's rule on who may lay off is read from the engine; nothing from the solver."""

from __future__ import annotations

from carousel_env.games.kaluki.engine import may_lay_off
from carousel_env.games.kaluki.melds import MeldKind
from carousel_env.games.kaluki.rules import SetJokerRelease
from carousel_env.games.kaluki.state import KalukiState
from tests.games.kaluki.kaluki_reference import milp_optimum


def ref_meld(meld) -> tuple:
    """A table meld as the reference reads it: (kind, first cell, units)."""
    return ("run" if meld.kind is MeldKind.RUN else "set", meld.low, meld.units)


def keep_for(rules) -> int:
    """Cards a lay-down must leave in hand: one where going out needs a discard."""
    return 1 if rules.go_out_by_discard else 0


def reference_play(state: KalukiState, keep: int = 0) -> int | None:
    """The least hand value the player to act (in the play phase) can keep by one play."""
    s, rules = state.current, state.rules
    opened = state.opened[s]
    free = all(may_lay_off(state, seat) for seat in range(state.num_players) if state.melds[seat])
    return milp_optimum(
        state.hands[s],
        rules,
        threshold=0 if opened else rules.opening,
        keep=max(keep, keep_for(rules)),
        taken=None if state.taken < 0 else state.taken,
        table=[ref_meld(m) for seat in state.melds for m in seat],
        must_open=not opened and not free,
        threshold_with_melds=not opened,
        exchanges=(opened or not free) and rules.set_joker_release is not SetJokerRelease.EITHER_MISSING,
    )


def reference_best_plays(state: KalukiState) -> set[int | None]:
    """The values the solver's best play may keep, by :func:`reference_play`: its optimum, and
    where that empties the hand holding the taken card, also the best that keeps a card (the
    engine refuses an order of moves that leaves the taken card alone in hand; the reference
    knows no order, so it cannot tell whether one order is left)."""
    want = reference_play(state)
    if want == 0 and state.taken >= 0:
        return {want, reference_play(state, keep=1)}
    return {want}


def reference_take(state: KalukiState) -> int | None:
    """The least hand value the player to act (drawing) keeps by taking the pile's top and
    laying it at once: an opening that holds it, or melds that hold it once opened."""
    s, rules, top = state.current, state.rules, state.top
    return milp_optimum(
        (*state.hands[s], top),
        rules,
        threshold=0 if state.opened[s] else rules.opening,
        must_use=top,
        keep=keep_for(rules),
        taken=top,
    )
