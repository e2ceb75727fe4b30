"""Kaluki's (and plain Rummy's) scripted players against each other, and the envs' speed.

    python -m benchmarks.bench_kaluki --agent simple --opponent random --players 2 --deals 50
    python -m benchmarks.bench_kaluki --preset rummy --players 4 --deals 50
    python -m benchmarks.bench_kaluki --agent search@4 --opponent simple --deal hands --deals 50
    python -m benchmarks.bench_kaluki --speed 8 --rounds 3 --players 4   # AEC against vector

Each deal is one hand (a single hand of the preset's rules), played once with the agent at
every seat (the opponent at every other seat): seats rotated, the same cards. The agent wins
a hand by going out. Prints the agent's share of hands won with 95% intervals over hands
(Wilson) and over deals (the deals' means), how many hands nobody won, and its mean points a
hand against the others' mean (the family's points: higher better).

``--deal`` says how an agent ``search@N`` deals the cards it cannot see: ``sifted`` (as it
plays: the others' hands and the stock dealt again uniformly), ``hands`` (the others' real
hands, only the stock's order dealt again) or ``all`` (the real state, the stock's order too:
one deal is all there is). No player may deal ``hands`` or ``all``: they measure what seeing
the hidden cards is worth, the ceiling of a search over hidden hands.

``--speed S`` times uniform random legal play instead, in agent-steps a second (a decision
of the player to act), in one process: the wrapped AEC env and ``KalukiVectorEnv(--num-envs)``,
``S`` seconds each, alternated for ``--rounds`` rounds so that the machine's drift hits both
alike. Pin it to one core with ``taskset -c 0``. ``--play careful`` times instead the hands a
trained agent plays: 64 single hands of ``careful`` at every seat are recorded first (seeds 0
to 63, their decisions with a choice), then replayed in both envs, the player's own time left
out (``taskset -c 0 python -m benchmarks.bench_kaluki --speed 4 --players 4 --play careful``).
With random play it prints too the share of the AEC env's time
that the compiled lay-down search's own work takes (``aec_search_share``: the searches the AEC
env asked, made again afterwards in one compiled loop, without Python's call to each), which
every env needs for the same offers, and so the most a vector env could lead by were all else
free (``ceiling``: one over the share).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import replace

import numpy as np

from benchmarks.random_play import random_steps
from carousel_env.core.stats import mean_interval, wilson_interval
from carousel_env.games.kaluki.engine import new_game
from carousel_env.games.kaluki.players import determinize, get_player, play_hand_or_game
from carousel_env.games.kaluki.rules import PRESETS
from carousel_env.games.kaluki.state import KalukiState


def true_deal(state: KalukiState, rng: random.Random) -> KalukiState:
    """``state`` with only the stock's order dealt again: the others' hands as they are."""
    stock = list(state.stock)
    rng.shuffle(stock)
    return replace(state, stock=tuple(stock))


DEALS = {"sifted": determinize, "hands": true_deal, "all": lambda state, rng: state}


def play_deal(agent: str, opponent: str, players: int, deal: int, preset: str, how: str = "sifted") -> list[dict]:
    """The deal (one hand) played once with the agent at each seat (a search agent dealing as ``how``)."""
    rules = PRESETS[preset]
    hands = []
    for seat in range(players):
        seated = [
            get_player(agent if s == seat else opponent, deal * 97 + s, DEALS[how if s == seat else "sifted"])
            for s in range(players)
        ]
        result = play_hand_or_game(seated, new_game(rules, players, deal), hand_only=True).last_hand
        others = [p for s, p in enumerate(result.points) if s != seat]
        hands.append(
            {
                "deal": deal,
                "won": float(result.out == seat),
                "nobody": result.out < 0,
                "difference": result.points[seat] - sum(others) / len(others),
            }
        )
    return hands


@contextmanager
def recorded_searches(problems: list):
    """Append to ``problems`` the arguments of every compiled lay-down search asked while inside."""
    from carousel_env.core import compiled
    from carousel_env.games.kaluki.kernel_solver import lay_down

    first_call = compiled.first_call

    def recording(entry, *args):
        if entry is lay_down:  # the problem's array is asked again with another limit: a copy
            problems.append((*args[:3], args[3].copy(), *args[4:]))
        return first_call(entry, *args)

    compiled.first_call = recording
    try:
        yield
    finally:
        compiled.first_call = first_call


def search_seconds(problems: list) -> float:
    """Seconds the compiled search takes over ``problems`` in one compiled loop
    (``kernel_solver.search_each``): its own work, as a compiled kernel asks it, without a call
    from Python to each."""
    from numba.typed import List

    from carousel_env.core import compiled
    from carousel_env.games.kaluki.kernel_solver import search_each

    questions = List()
    for args in problems:
        questions.append(tuple(args))
    compiled.first_call(search_each, questions[:1])  # compiled (or loaded) outside the time
    start = time.perf_counter()
    search_each(questions)
    return time.perf_counter() - start


def env_speed(preset: str, players: int, seconds: float, problems: list | None = None) -> float:
    """Agent-steps a second of random legal play in the wrapped AEC env (single hands); the
    compiled searches it asks are appended to ``problems`` where given."""
    from carousel_env.games.kaluki.env import env

    e = env(preset=preset, num_players=players, episode="hand")
    seeds = iter(range(10**9))

    def one_hand(rng: np.random.Generator) -> int:
        e.reset(seed=next(seeds))
        steps = 0
        for agent in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]))))
            steps += 1
        return steps

    if problems is None:
        return random_steps(one_hand, seconds)
    with recorded_searches(problems):
        return random_steps(one_hand, seconds)


def vector_speed(preset: str, players: int, seconds: float, num_envs: int) -> float:
    """Agent-steps a second of random legal play in the vector env (single hands, autoreset)."""
    from carousel_env.games.kaluki.vector import KalukiVectorEnv

    venv = KalukiVectorEnv(num_envs, preset=preset, num_players=players, episode="hand")
    step = venv.reset(seed=0)

    def one_step(rng: np.random.Generator) -> int:
        nonlocal step
        step = venv.step(np.argmax(rng.random(step.action_mask.shape) * step.action_mask, axis=1))
        return num_envs

    return random_steps(one_step, seconds)


RECORDED_HANDS = 64  # --play: hands recorded, then replayed by both envs in turn


def recorded_hands(preset: str, players: int, player: str) -> list[tuple[int, list[int]]]:
    """Single hands of ``player`` at every seat, seeds 0.. (as both envs deal them): each its
    seed and its actions at the decisions with more than one legal action (the envs take the
    others themselves)."""
    from carousel_env.games.kaluki.config import KalukiEnvConfig

    config = KalukiEnvConfig.from_kwargs(preset=preset, num_players=players, episode="hand")
    play, hands = get_player(player), []
    for seed in range(RECORDED_HANDS):
        actions: list[int] = []

        def recording(state: KalukiState, offers: tuple, actions: list[int] = actions) -> int:
            actions.append(play(state, offers))  # asked only where there is a choice
            return actions[-1]

        play_hand_or_game([recording] * players, new_game(config.rules, players, seed), config.k_plays, hand_only=True)
        if actions:  # a hand of forced moves alone would end as it is dealt
            hands.append((seed, actions))
    return hands


def replay_aec(preset: str, players: int, seconds: float, hands: list) -> float:
    """Agent-steps a second of the wrapped AEC env replaying ``hands``, in turn, until ``seconds`` pass."""
    from carousel_env.games.kaluki.env import env

    e = env(preset=preset, num_players=players, episode="hand")
    turn = iter(range(10**9))

    def one_hand(rng: np.random.Generator) -> int:
        seed, actions = hands[next(turn) % len(hands)]
        e.reset(seed=seed)
        moves = iter(actions)
        for _agent in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else next(moves))
        return len(actions)

    return random_steps(one_hand, seconds)


def replay_vector(preset: str, players: int, seconds: float, num_envs: int, hands: list) -> float:
    """Agent-steps a second of the vector env replaying ``hands``, in turn, ``num_envs`` rows at
    once: a row whose hand ended is dealt the next (``reset_rows``), as autoreset would."""
    from carousel_env.games.kaluki.vector import KalukiVectorEnv

    venv = KalukiVectorEnv(num_envs, autoreset=False, preset=preset, num_players=players, episode="hand")
    playing = list(range(num_envs))  # each row's hand, as an index into ``hands``
    at = [0] * num_envs  # the next of its actions
    dealt = num_envs
    step = venv.reset(seed=[hands[i % len(hands)][0] for i in playing])

    def one_step(rng: np.random.Generator) -> int:
        nonlocal step, dealt
        ended = [g for g in range(num_envs) if not step.action_mask[g].any()]
        if ended:
            for g in ended:
                playing[g], at[g], dealt = dealt % len(hands), 0, dealt + 1
            step = venv.reset_rows(ended, [hands[playing[g]][0] for g in ended])
        moves = np.array([hands[playing[g]][1][at[g]] for g in range(num_envs)])
        for g in range(num_envs):
            at[g] += 1
        step = venv.step(moves)
        return num_envs

    return random_steps(one_step, seconds)


def speed(args: argparse.Namespace) -> dict:
    aec, vector, shares = [], [], []
    hands = recorded_hands(args.preset, args.players, args.play) if args.play != "random" else None
    for _ in range(args.rounds):
        if hands is not None:
            aec.append(replay_aec(args.preset, args.players, args.speed, hands))
            vector.append(replay_vector(args.preset, args.players, args.speed, args.num_envs, hands))
            continue
        problems: list = []
        start = time.perf_counter()
        aec.append(env_speed(args.preset, args.players, args.speed, problems))
        shares.append(search_seconds(problems) / (time.perf_counter() - start))
        vector.append(vector_speed(args.preset, args.players, args.speed, args.num_envs))
    share = statistics.median(shares) if shares else None
    report = {
        "preset": args.preset,
        "players": args.players,
        "play": args.play,
        "aec_steps_per_s": aec,
        "vector_steps_per_s": vector,
        "ratio_median": statistics.median(v / a for a, v in zip(aec, vector)),
    }
    if share is not None:
        report |= {"aec_search_share": share, "ceiling": 1 / share if share else float("inf")}
    print(json.dumps(report) if args.json else "\n".join(f"{k}: {v}" for k, v in report.items()))
    return report


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="simple")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--preset", choices=tuple(PRESETS), default="book")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--speed", type=float, default=0.0, help="seconds a side: time the envs instead")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument(
        "--play", choices=("random", "careful", "simple", "wary"), default="random", help="--speed: whose play"
    )
    parser.add_argument("--deal", choices=DEALS, default="sifted", help="how a search agent deals (see above)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.deal != "sifted" and not args.agent.startswith("search"):
        parser.error(f"--deal {args.deal} is for a search agent (search@N), not {args.agent!r}")
    if args.speed:
        return speed(args)
    start = time.perf_counter()
    deals = list(range(args.first_deal, args.first_deal + args.deals))
    n = len(deals)
    with ProcessPoolExecutor(args.workers) as pool:
        per_deal = list(
            pool.map(
                play_deal,
                [args.agent] * n,
                [args.opponent] * n,
                [args.players] * n,
                deals,
                [args.preset] * n,
                [args.deal] * n,
            )
        )
    hands = [h for deal in per_deal for h in deal]
    won = sum(h["won"] for h in hands)
    report = {
        "agent": args.agent if args.deal == "sifted" else f"{args.agent} (deal: {args.deal})",
        "opponent": args.opponent,
        "preset": args.preset,
        "players": args.players,
        "hands": len(hands),
        "won": won / len(hands),
        "over_hands": wilson_interval(won, len(hands)),
        "over_deals": mean_interval([sum(h["won"] for h in d) / len(d) for d in per_deal], clip=(0.0, 1.0)),
        "fair_share": 1 / args.players,
        "nobody_won": sum(h["nobody"] for h in hands) / len(hands),
        "points_difference": statistics.mean(h["difference"] for h in hands),
        "points_difference_over_deals": mean_interval([statistics.mean(h["difference"] for h in d) for d in per_deal]),
        "seconds": time.perf_counter() - start,
    }
    print(json.dumps(report) if args.json else "\n".join(f"{k}: {v}" for k, v in report.items()))
    return report


if __name__ == "__main__":
    main()
