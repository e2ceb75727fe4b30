"""Our Gin ``simple`` against OpenSpiel's simple bot, and why one agent's two Gin figures
disagree (issue 54, item 2).

    .venv/bin/python -m benchmarks.bench_gin_reconcile [--deals 1000] [--seed 0]
    .venv/bin/python -m benchmarks.bench_gin_reconcile --agent checkpoints/gin_2p --deals 1000 --matches 200

**Part 1: the two simple players** (always). Our ``simple`` plays OpenSpiel's simple bot inside
OpenSpiel's ``gin_rummy`` (the runner, :mod:`carousel_env.integrations.openspiel_gin`), each deal
twice with the seats swapped:

* as ``carousel eval --game gin_rummy`` plays it: when the bot knocks, our seat lays off;
* melding only, as the bot answers a knock (``lays_off=False``). The hands are the same to
  the knock (both players are deterministic), so the difference, hand by hand, is what our
  lay-offs are worth;
* in that second run, every decision of the bot is set beside our ``simple``'s in the same
  state (the runner's ``watch``), by kind. Where every decision of both hands of a deal
  agrees, both hands are the same game from each side and cancel out, but for one thing
  outside the decisions: after its opponent's gin the bot lays no melds in OpenSpiel (its
  first pass, meant to end the lay-offs that OpenSpiel skips after a gin, ends its melding),
  so its whole hand counts against it. The benchmark reads that from OpenSpiel's return
  beside our engine's score of the same hand, where the defender melds.

**Part 2: one agent's ladder** (``--agent``: a checkpoint, played at its most likely move, or a
player's name), each step one change from the step before, each with its interval:

1. against OpenSpiel's simple bot in OpenSpiel's game, single hands, our lay-offs (the
   ``+1.35`` of the issue);
2. the same, melding only as the bot does;
3. against our ``simple`` in our env under preset ``openspiel`` (OpenSpiel's rules), single hands;
4. the same under preset ``eaai``'s rules, single hands (``game_length=hand``);
5. preset ``eaai``, matches to 100 (``--matches``): points a hand and matches won (the ``-0.60``
   and ``0.417`` of the issue).

Figures and their reading: ``docs/gin_rummy.md``, "Our simple and OpenSpiel's";
``benchmarks/RESULTS.md``, 2026-11-29.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass, field

from carousel_env.core.stats import mean_interval
from carousel_env.games.gin_rummy import engine as ge
from carousel_env.games.gin_rummy.players import simple_move
from carousel_env.integrations import openspiel_gin as og

BOT = "openspiel:simple"


@dataclass
class Agreement:
    """The bot's decisions beside our ``simple``'s, by kind, and the deals where any differed."""

    decisions: Counter = field(default_factory=Counter)
    differing: Counter = field(default_factory=Counter)  # (kind, what the bot did, what simple does)
    deals: set = field(default_factory=set)
    deal: int = 0

    def watch(self, state: ge.GinState, move: ge.Move) -> None:
        ours = simple_move(state)
        kind = state.phase.value
        self.decisions[kind] += 1
        if _same(move, ours):
            return
        same_kind = move.kind is ours.kind  # the same kind of move, another card or arrangement
        self.differing[(kind, _what(move, same_kind), _what(ours))] += 1
        self.deals.add(self.deal)


def _same(a: ge.Move, b: ge.Move) -> bool:
    if a.kind is not b.kind:
        return False
    if a.kind is ge.MoveKind.KNOCK:
        return (a.arrangement.discard, a.arrangement.melds) == (b.arrangement.discard, b.arrangement.melds)
    return a.card == b.card


def _what(move: ge.Move, another: bool = False) -> str:
    if another:
        return "knocks with another arrangement" if move.kind is ge.MoveKind.KNOCK else "discards another card"
    return {
        ge.MoveKind.DRAW_STOCK: "draws from the stock",
        ge.MoveKind.TAKE_UPCARD: "takes the upcard",
        ge.MoveKind.PASS: "passes",
        ge.MoveKind.DISCARD: "discards",
        ge.MoveKind.KNOCK: "knocks",
    }[move.kind]


def _interval(values: list[float]) -> str:
    low, high = mean_interval(values)
    return f"{sum(values) / len(values):+.2f} (95% CI {low:+.2f} to {high:+.2f})"


def simple_players(deals: int, seed: int) -> None:
    """Part 1 (module docstring)."""
    as_eval = og.play_openspiel("simple", BOT, deals, seed=seed)
    agreement = Agreement()

    def next_hand(record: og.HandRecord) -> None:
        agreement.deal = record.deal + (record.seat == 1)  # the watch runs before the hand it sees ends

    melding = og.play_openspiel(
        "simple", BOT, deals, seed=seed, lays_off=False, watch=agreement.watch, progress=next_hand
    )
    hands = len(as_eval.hands)
    print(f"Part 1: our simple against {BOT} in OpenSpiel's game, {hands} hands on {deals} deals (seed {seed})")
    print(
        f"  our lay-offs as the defender (as carousel eval plays it): {_interval([h.returns for h in as_eval.hands])}"
    )
    print(f"  melding only, as the bot answers a knock:              {_interval([h.returns for h in melding.hands])}")
    gains = [a.returns - b.returns for a, b in zip(as_eval.hands, melding.hands)]
    laid = sum(g > 0 for g in gains)
    print(f"  what our lay-offs are worth a hand: {_interval(gains)} ({laid} hands of {hands} changed)")
    total = sum(agreement.decisions.values())
    differing = sum(agreement.differing.values())
    print(f"  the bot's decisions beside our simple's: {total}, {differing} differ ({differing / total:.4f})")
    for kind, count in sorted(agreement.decisions.items()):
        print(f"    {kind}: {count} decisions")
    for (kind, bot, ours), count in agreement.differing.most_common():
        print(f"    {kind}: the bot {bot} where our simple {ours}: {count}")
    # After our gin the bot lays no melds in OpenSpiel (module docstring): OpenSpiel's return
    # against our engine's score of the same hand, where the defender melds.
    unlaid = {h: h.returns - h.engine_return if h.end == "gin" and h.agent_knocked else 0.0 for h in melding.hands}
    gins = sum(v != 0 for v in unlaid.values())
    print(f"  the bot's melds left unlaid after our gin: {_interval(list(unlaid.values()))} ({gins} hands of {hands})")
    for label, chosen in (
        ("every decision agrees", lambda d: d not in agreement.deals),
        ("a decision differs", lambda d: d in agreement.deals),
    ):
        kept = [h for h in melding.hands if chosen(h.deal)]
        total, left = sum(h.returns for h in kept), sum(unlaid[h] for h in kept)
        print(
            f"  deals where {label}: {len(kept) // 2}, returns summing to {total:+.0f} ({total / hands:+.3f} a hand "
            f"over all hands), {total - left:+.0f} without the unlaid melds"
        )


def _openspiel_agent(name: str, seed: int):
    from training.checkpoint_names import is_checkpoint_name

    if not is_checkpoint_name(name):
        return name
    from carousel_env.envkit.layout import ObservationLayout
    from carousel_env.games.gin_rummy.observation import layout
    from training.policies import network_callable

    return network_callable(name, ObservationLayout.of(layout(og.K_KNOCKS)), seed, True)


def ladder(agent: str, deals: int, matches: int, seed: int) -> None:
    """Part 2 (module docstring)."""
    from training.envs import EnvSpec
    from training.evaluate import evaluate

    player = _openspiel_agent(agent, seed)
    print(f"Part 2: {agent} at its most likely move, each step one change from the one before")
    for label, lays_off in (("our lay-offs", True), ("melding only", False)):
        res = og.play_openspiel(player, BOT, deals, seed=seed, lays_off=lays_off)
        won_low, won_high = res.win_rate_ci
        print(
            f"  vs {BOT}, OpenSpiel's game, single hands, {label}: points a hand "
            f"{_interval([h.returns for h in res.hands])}, decided hands won {res.win_rate:.3f} "
            f"({won_low:.3f}-{won_high:.3f}), {len(res.hands)} hands"
        )
    steps = (
        ("vs our simple, our env, preset openspiel, single hands", {"preset": "openspiel"}, 2 * deals),
        ("vs our simple, preset eaai's rules, single hands", {"preset": "eaai", "game_length": "hand"}, 2 * deals),
        ("vs our simple, preset eaai, matches to 100", {"preset": "eaai"}, matches),
    )
    for label, options, games in steps:
        spec = EnvSpec.of(2, game="gin_rummy", **options)
        res = evaluate(agent, ["simple"], games=games, seed=seed, env_spec=spec, argmax=True)
        low, high = res.mean_round_score_diff_ci
        won_low, won_high = res.decided_won_ci
        line = (
            f"  {label}: points a hand {res.mean_round_score_diff:+.2f} (95% CI {low:+.2f} to {high:+.2f}), "
            f"decided hands won {res.decided_won_rate:.3f} ({won_low:.3f}-{won_high:.3f}), {res.rounds} hands"
        )
        if options.get("game_length") is None and options["preset"] == "eaai":
            m_low, m_high = res.win_rate_ci
            line += f"; matches won {res.win_rate:.3f} ({m_low:.3f}-{m_high:.3f}) of {res.games}"
        print(line)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals, each played twice, seats swapped")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agent", default=None, help="also part 2 for this checkpoint or player")
    parser.add_argument("--matches", type=int, default=200, help="part 2's matches to 100 under eaai")
    args = parser.parse_args(argv)
    simple_players(args.deals, args.seed)
    if args.agent is not None:
        ladder(args.agent, args.deals, args.matches, args.seed)


if __name__ == "__main__":
    main()
