"""``carousel eval --game gin_rummy``: a Gin agent inside OpenSpiel's ``gin_rummy`` against
OpenSpiel's own bots (:mod:`carousel_env.integrations.openspiel_gin`).

.. code-block:: bash

    carousel eval --game gin_rummy --checkpoint simple --opponents openspiel:simple,openspiel:ismcts@200 --games 200

``--checkpoint`` names the agent: a Gin player (``random``, ``greedy``, ``simple``,
``search``, ``search@N``), a checkpoint trained on Gin Rummy under preset ``openspiel``
(its network samples its actions, seeded with ``--seed``, or with ``--argmax`` plays its
most likely one) or the search guided by one
(``search@N+CHECKPOINT``, :mod:`carousel_env.games.gin_rummy.guided`). Each opponent plays ``--games``
hands with the agent (rounded up to whole deals: each deal twice, seats swapped), the
agent's seat alternating. The figures are the runner's: mean return and win rate among decided hands, each with its 95%
intervals over hands and over deals.
"""

from __future__ import annotations

import argparse
import json

from carousel_env.core.errors import CarouselError
from carousel_env.core.stats import MIN_DEALS_FOR_INTERVAL
from carousel_env.core.text import plural

CAROUSEL_ONLY = {"players": 2, "workers": 0}  # eval's Carousel options, with the only values Gin accepts


def _check_options(args: argparse.Namespace) -> None:
    for option, value in CAROUSEL_ONLY.items():
        if getattr(args, option, value) != value:
            raise CarouselError(
                f"eval --game gin_rummy: --{option} is a Carousel option (Gin Rummy is heads-up and runs in this "
                f"process); leave it out"
            )
    if not isinstance(args.games, int) or args.games < 1:
        raise CarouselError(f"eval --game gin_rummy: --games must be at least 1, got {args.games!r}")


def _openspiel():
    try:
        from carousel_env.integrations import openspiel_gin
    except ImportError as exc:
        raise CarouselError(
            f"eval --game gin_rummy plays inside OpenSpiel, which is not installed ({exc}): "
            "pip install 'carousel-rl[openspiel]'"
        ) from None
    return openspiel_gin


def _print_match(res) -> None:
    lo, hi = res.mean_return_ci
    deal_lo, deal_hi = res.mean_return_ci_deals
    print(
        f"{res.agent} vs {res.opponent}: {plural(len(res.hands), 'hand')} on {plural(res.deals, 'deal')}, "
        f"mean return {res.mean_return:+.2f} (95% CI {lo:+.2f} to {hi:+.2f} over hands, "
        f"{deal_lo:+.2f} to {deal_hi:+.2f} over deals)"
    )
    w_lo, w_hi = res.win_rate_ci
    wd_lo, wd_hi = res.win_rate_ci_deals
    s_lo, s_hi = res.win_share_ci
    print(
        f"  win rate {res.win_share:.3f} of all hands, a dead hand half, as against our players (95% CI "
        f"{s_lo:.3f}-{s_hi:.3f}); {res.win_rate:.3f} among {plural(res.decided, 'decided hand')} "
        f"(95% CI {w_lo:.3f}-{w_hi:.3f} over hands, {wd_lo:.3f}-{wd_hi:.3f} over deals); "
        f"{res.seconds_per_hand * 1000:.0f} ms a hand"
    )
    p_lo, p_hi = res.points_per_hand_ci
    o_lo, o_hi = res.opponent_points_per_hand_ci
    k_lo, k_hi = res.knock_rate_ci
    g_lo, g_hi = res.gin_rate_ci
    u_lo, u_hi = res.undercut_rate_ci
    print(
        f"  points a hand: {res.points_per_hand:.2f} (95% CI {p_lo:.2f} to {p_hi:.2f}) against "
        f"{res.opponent_points_per_hand:.2f} ({o_lo:.2f} to {o_hi:.2f}); knock rate {res.knock_rate:.3f} "
        f"({k_lo:.3f}-{k_hi:.3f}), gin rate {res.gin_rate:.3f} ({g_lo:.3f}-{g_hi:.3f}), undercut rate (of knocks) "
        f"{res.undercut_rate:.3f} ({u_lo:.3f}-{u_hi:.3f})"
    )
    if res.refused_knocks:
        print(f"  {plural(res.refused_knocks, 'knock')} refused by OpenSpiel's deadwood count, played as discards")


def _agent(name: str, runner, seed: int, argmax: bool = False):
    """A player's name as it is, a guided search (``search@N+CHECKPOINT``), or a checkpoint's
    network (which must fit the runner's env; with ``argmax`` it plays its most likely action)."""
    from training.checkpoint_names import is_checkpoint_name, split_guided

    if split_guided(name) is not None:
        from training.policies import guided_search_player  # torch, only for a network

        return guided_search_player(name, seed, "gin_rummy")
    if not is_checkpoint_name(name):
        return name
    from carousel_env.envkit.layout import ObservationLayout
    from carousel_env.games.gin_rummy.observation import layout
    from training.policies import network_callable  # torch, only for a network

    return network_callable(name, ObservationLayout.of(layout(runner.K_KNOCKS)), seed, argmax)


def parse_bots(args: argparse.Namespace, bots: list[str]) -> list:
    """OpenSpiel's ``bots`` by name, each checked (a bad one is an error naming it)."""
    _check_options(args)
    return [_openspiel().parse_opponent(spec) for spec in bots]


def openspiel_matches(args: argparse.Namespace, bots: list[str]) -> list:
    """The agent of ``--checkpoint`` against each of OpenSpiel's ``bots``, inside OpenSpiel's game."""
    runner = _openspiel()
    opponents = parse_bots(args, bots)
    if not opponents:
        raise CarouselError("eval --game gin_rummy: --opponents names none (openspiel:simple, openspiel:ismcts@N)")
    agent = _agent(args.checkpoint, runner, args.seed, args.argmax)
    runner.check_agent(agent)
    return [runner.play_openspiel(agent, opponent, (args.games + 1) // 2, seed=args.seed) for opponent in opponents]


def print_matches(results: list, args: argparse.Namespace) -> None:
    """What :func:`openspiel_matches` found, as lines (a note on stderr if the deals are few)."""
    import sys

    for res in results:
        _print_match(res)
    deals = (args.games + 1) // 2
    if results and deals < MIN_DEALS_FOR_INTERVAL:  # on stderr: --json's output stays one JSON object
        print(
            f"note: {plural(deals, 'deal')} is too few to trust the intervals over deals (they need about "
            f"{MIN_DEALS_FOR_INTERVAL}); raise --games to {MIN_DEALS_FOR_INTERVAL * 2} or more",
            file=sys.stderr,
        )


def cmd_eval_gin(args: argparse.Namespace) -> int:
    bots = [spec.strip() for spec in args.opponents.split(",") if spec.strip()]
    results = openspiel_matches(args, bots)
    if args.json:
        print(json.dumps({"game": "gin_rummy", "matches": [res.as_json() for res in results]}))
    else:
        print_matches(results, args)
    return 0
