"""How often scripted play reaches the bounds that end every hand, round and match (issue 57;
docs/RULES.md): Gin's upcard draw limit and match hand limit, Carioca's pile draw limit.

    .venv/bin/python -m benchmarks.bounds_reach [--gin-matches N] [--carioca-games N]

Plays whole games on the engines, every pairing of the scripted players (Gin: ``book``
matches; Carioca: every seat the same player, 2 and 5 players), and prints per pairing the
hands (rounds) played, how many a bound ended, and the most upcard (pile) draws a hand
(round) and hands a match took.
"""

from __future__ import annotations

import argparse
import itertools
import time

from carousel_env.games.carioca import engine as ce
from carousel_env.games.carioca.players import get_player as carioca_player
from carousel_env.games.carioca.rules import PILE_DRAW_LIMIT
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy.players import get_player as gin_player
from carousel_env.games.gin_rummy.rules import GinRules

GIN_PLAYERS = ("random", "greedy", "simple")
CARIOCA_PLAYERS = ("random", "simple", "outs")
CARIOCA_TABLES = (2, 5)
# The cheap players play more games: random's games are the long ones, near the bounds.
SCRIPTED_SHARE = 5  # the other players play 1 game in this many


def gin_pairing(first: str, second: str, matches: int) -> str:
    rules = GinRules()
    hands = limited_hands = limited_matches = most_draws = most_hands = 0
    for m in range(matches):
        players = (gin_player(first, 2 * m), gin_player(second, 2 * m + 1))
        state = ge.new_game(rules, m)
        while True:
            if state.over:
                hands += 1
                limited_hands += state.last_hand.end is ge.HandEnd.UPCARD_LIMIT
                most_draws = max(most_draws, state.upcard_draws)
                if state.phase is ge.Phase.GAME_OVER:
                    break
                state = ge.next_hand(state)
                continue
            state = ge.apply(state, players[state.current](state))
        played = state.hand_index + 1
        most_hands = max(most_hands, played)
        limited_matches += played >= rules.match_hand_limit and max(state.scores) < rules.target
    return (
        f"gin book {first} v {second}: {matches} matches, {hands} hands; upcard limit ({rules.upcard_draw_limit}) "
        f"ended {limited_hands} hands (most draws {most_draws}); hand limit ({rules.match_hand_limit}) ended "
        f"{limited_matches} matches (most hands {most_hands})"
    )


def carioca_table(name: str, players: int, games: int) -> str:
    rounds = limited = most = 0
    for g in range(games):
        seats = [carioca_player(name, players * g + s) for s in range(players)]
        state = ce.new_game(players, g)
        while True:
            if state.over:
                rounds += 1
                limited += state.last_round.end is ce.RoundEnd.PILE_LIMIT
                most = max(most, state.pile_draws)
                if state.phase is ce.Phase.GAME_OVER:
                    break
                state = ce.next_round(state)
                continue
            state = ce.apply(state, seats[state.current](state))
    return (
        f"carioca {name} x{players}: {games} games, {rounds} rounds; pile draw limit ({PILE_DRAW_LIMIT}) "
        f"ended {limited} rounds (most pile draws {most})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gin-matches", type=int, default=1000, help="book matches per pairing with random")
    parser.add_argument("--carioca-games", type=int, default=400, help="games per table of random players")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    for first, second in itertools.combinations_with_replacement(GIN_PLAYERS, 2):
        share = 1 if "random" in (first, second) else SCRIPTED_SHARE
        print(gin_pairing(first, second, max(1, args.gin_matches // share)), flush=True)
    for name, players in itertools.product(CARIOCA_PLAYERS, CARIOCA_TABLES):
        share = 1 if name == "random" else SCRIPTED_SHARE
        print(carioca_table(name, players, max(1, args.carioca_games // share)), flush=True)
    print(f"time {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
