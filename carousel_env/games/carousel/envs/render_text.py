"""Text rendering of a game state for people: the table's melds, one player's hand, every
player's hand size and score, the stock, and the round's outcome when it is over."""

from __future__ import annotations

from carousel_env.core.cards import hand_points, hand_str, meld_str
from carousel_env.core.text import plural
from carousel_env.games.carousel.engine.game import GameState, Phase
from carousel_env.games.carousel.engine.melds import is_valid_meld, sort_meld


def render_text(state: GameState, observer: int | None = None, reveal_all: bool = False) -> str:
    """A multi-line picture of ``state`` as ``observer`` sees it (``None``: the current
    player). ``reveal_all`` shows every hand, for demos and debugging."""
    me = state.current if observer is None else observer
    n = state.num_players
    lines = [
        f"Round {state.round_index + 1}  dealer: player {state.dealer}  to play: player {state.current}"
        f"  phase: {state.phase.value}  stock: {len(state.stock)}"
        + (f"  final turns left: {state.final_turns_left}" if state.final_turns_left is not None else ""),
        "Table:" + ("" if state.table else " (empty)"),
    ]
    for i, meld in enumerate(state.table):
        shown = sort_meld(meld, state.rules) if is_valid_meld(meld, state.rules) else meld
        lines.append(f"  {i + 1:>2}. {meld_str(shown)}")
    for p in range(n):
        hand = state.hands[p]
        marker = ">" if p == state.current else " "
        if p == me or reveal_all:
            detail = f"{hand_str(hand) or '(empty)'}  [{hand_points(hand)} pts]"
        else:
            detail = plural(len(hand), "card")
        lines.append(
            f"{marker} player {p}: score {state.scores[p]:>4}  rounds won {state.rounds_won[p]}  hand {detail}"
        )
    if state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER) and state.last_round is not None:
        r = state.last_round
        how = r.end.value.replace("_", " ")
        who = ", ".join(f"player {w}" for w in r.winners)
        lines.append(
            f"Round over ({how}{', undercut' if r.undercut else ''}): won by {who}; "
            f"hands {list(r.hand_values)}; points {list(r.points)}"
        )
    if state.game_result is not None:
        g = state.game_result
        lines.append(f"Game over: player {g.winner} reached the target; bonuses {list(g.bonuses)}")
        lines.append("Final standings: " + ", ".join(f"player {p} ({g.totals[p]})" for p in g.standings))
    return "\n".join(lines)
