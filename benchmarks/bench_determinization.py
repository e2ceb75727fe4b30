"""How far the search's determinizations are from the hands players really keep (Carousel
and Manipulation Rummy).

    .venv/bin/python -m benchmarks.bench_determinization [--players 4] [--variant manipulation_rummy]
        [--rounds 40] [--samples 4] [--seed 1000]

Plays ``--rounds`` single rounds with ``smart`` at every seat (round ``r`` dealt with seed
``seed + r``). At each decision of seat 0 it asks, for every other seat, whether that
seat's real hand has a play on the table (the solver's ``can_play``), and the same of the
hands ``--samples`` uniform determinizations of seat 0's view deal it
(``engine.information.determinize``, what the search players sample). Printed: the share of
(decision, other seat) pairs with a play, real and determinized, and at how many of seat
0's decisions with a choice ``search@4`` would play other than ``smart``, with the gain in
round points its own estimate gives that move.

Why it matters: players play what they can and keep what they cannot, so the hands they
hold fit the table far less often than a uniform deal of the unseen cards does; rollouts
from uniform determinizations let the other seats shed and go out too soon, and a search
that trusts them misjudges its moves.
"""

from __future__ import annotations

import argparse
import random

import numpy as np

import carousel_env
from carousel_env.games.carousel.agents.match import policy_action
from carousel_env.games.carousel.agents.registry import get_policy
from carousel_env.games.carousel.engine.information import determinize, seat_view
from carousel_env.games.carousel.solver import can_play


def measure(players: int, variant: str, rounds: int, samples: int, seed: int) -> dict:
    rng = random.Random(seed)
    real, dealt, gains = [], [], []
    choices = differ = 0
    for r in range(rounds):
        env = carousel_env.env(num_players=players, variant=variant, episode="round")
        env.reset(seed=seed + r)
        smart = [get_policy("smart", seed=(seed + r) * 10 + s) for s in range(players)]
        search = get_policy("search@4", seed=seed + r)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.agents.index(agent)
            mask = obs["action_mask"]
            action = policy_action(smart[seat], env, seat, obs["observation"], mask)
            if seat == 0:
                state = env.unwrapped.game_state
                worlds = [determinize(seat_view(state, 0), rng) for _ in range(samples)]
                for other in range(1, players):
                    real.append(can_play(state.table, state.hands[other], state.rules))
                    dealt.append(np.mean([can_play(w.table, w.hands[other], w.rules) for w in worlds]))
                if np.count_nonzero(mask) > 1:
                    choices += 1
                    searched = policy_action(search, env, seat, obs["observation"], mask)
                    if searched != action:
                        differ += 1
                        values = search.last_values
                        gains.append(values[searched] - values.get(action, np.nan))
            env.step(action)
    return {
        "players": players,
        "variant": variant,
        "rounds": rounds,
        "pairs": len(real),
        "real_with_play": float(np.mean(real)),
        "determinized_with_play": float(np.mean(dealt)),
        "decisions_with_choice": choices,
        "search_differs": differ,
        "search_estimated_gain": float(np.nanmean(gains)) if gains else 0.0,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="manipulation_rummy", help="carousel or manipulation_rummy")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--samples", type=int, default=4, help="determinizations per decision")
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    row = measure(args.players, args.variant, args.rounds, args.samples, args.seed)
    print(
        f"{row['variant']}, {row['players']} players, {row['rounds']} rounds of smart: other seats holding a play "
        f"on the table at seat 0's decisions: {row['real_with_play']:.3f} of {row['pairs']} (real hands), "
        f"{row['determinized_with_play']:.3f} (uniform determinizations); search@4 would play otherwise than "
        f"smart at {row['search_differs']} of {row['decisions_with_choice']} decisions with a choice, "
        f"by its own estimate {row['search_estimated_gain']:+.2f} round points better",
        flush=True,
    )


if __name__ == "__main__":
    main()
