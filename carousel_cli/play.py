"""``carousel play`` and ``carousel demo``: one game at the terminal, any game of the registry.

``play`` seats you against trained agents or scripted players: each decision shows the table
as you see it and your legal choices, in the game's own keys (``q`` quits; anything else is
asked again; end of input quits cleanly). Between your decisions the others' moves, the
decisions the env took alone and each round's or hand's result are narrated. ``demo`` plays
a whole game between scripted players and narrates every move.

What a game shows and how its choices are typed is its own (``Terminal`` in its family
contract: ``carousel_env/games/<game>/terminal.py``); the loop is the same for every game.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

from carousel_cli.prompt import ask_choice
from carousel_env.core.errors import CarouselError
from carousel_env.core.registry import DEFAULT_GAME, game_spec
from carousel_env.core.text import plural
from carousel_env.envkit.family import EnvKeyError, FamilyGame, family_game

Ask = Callable[[Any, int, Any], "int | None"]  # (env, seat, mask) -> an action, None: quit


def game_env(
    game: str,
    num_players: int,
    options: Mapping[str, Any] | None = None,
    variant: str | None = None,
    round_bonus: str | None = None,
):
    """The AEC env of a whole game of ``game`` (:func:`game_options`)."""
    import carousel_env

    return carousel_env.env(game=game, **game_options(game, num_players, options, variant, round_bonus))


def game_options(
    game: str,
    num_players: int,
    options: Mapping[str, Any] | None = None,
    variant: str | None = None,
    round_bonus: str | None = None,
) -> dict[str, Any]:
    """The env options of a whole game of ``game`` at ``num_players``: ``options`` (the
    game's env options, a checkpoint's say), the variant (``--variant``: the game's
    ``variant_key``) and Carousel's round bonus (``--round-bonus``). An option the game has
    not, or a value it refuses, is an error naming the flag."""
    family = family_game(game)
    spec = game_spec(game)
    if not spec.min_players <= num_players <= spec.max_players:
        table = f"{spec.min_players} to {spec.max_players}" if spec.min_players < spec.max_players else spec.min_players
        raise CarouselError(f"--players: {spec.title} is played by {table} players, got {num_players}")
    chosen = dict(options or {})
    flags = {}
    if variant is not None:
        if family.variant_key is None:
            raise CarouselError(f"--variant: {spec.title} has no variants")
        chosen[family.variant_key] = variant
        flags[family.variant_key] = "--variant"
    if round_bonus is not None:
        if "round_bonus" not in family.option_names():
            raise CarouselError(f"--round-bonus: {spec.title} has no such option")
        chosen["round_bonus"] = round_bonus
        flags["round_bonus"] = "--round-bonus"
    chosen = {**chosen, **family.play_options, "num_players": num_players}
    try:
        family.check(dict(chosen))
    except EnvKeyError as exc:
        raise CarouselError(f"{flags.get(exc.key, exc.key)}: {exc}") from None
    return chosen


def run_table(
    env: Any, family: FamilyGame, players: Mapping[int, Any], you: int | None, ask: Ask, say: Callable[[str], None]
) -> bool:
    """Play ``env`` (reset) to its end: ``players`` (by seat) act through the game's ``act``,
    seat ``you`` through ``ask``; everything is narrated through ``say``. False: you quit."""
    terminal = family.terminal
    narrator = terminal.narrator(you, say)
    narrator.after(env)  # the decisions the deal itself took
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.unwrapped.possible_agents.index(agent)
        mask = obs["action_mask"]
        if seat == you:
            narrator.flush()
            action = ask(env, seat, mask)
            if action is None:
                return False
        else:
            action = family.act(players[seat], env, seat, obs["observation"], mask)
        narrator.before(env, seat, action)
        env.step(action)
        narrator.after(env)
    narrator.flush()
    say(terminal.game_over(env, you))
    return True


def play(
    opponents: list[str],
    game: str = DEFAULT_GAME,
    num_players: int = 2,
    seat: int = 0,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    variant: str | None = None,
    input_fn: Callable[[str], str] | None = None,
    out=None,
) -> int:
    """You at ``seat`` against ``opponents`` (checkpoints or scripted players' names, taken in
    turn at the other seats) in a whole game of ``game`` with its env ``options`` and
    ``variant`` (:func:`game_env`); ``input_fn`` reads your answers (``input``)."""
    from training.envs import layout_of
    from training.policies import load_policy

    out = out or sys.stdout
    input_fn = input_fn or input
    family = family_game(game)
    env = game_env(game, num_players, options, variant)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise CarouselError(
            f"--seat must be a seat from 0 to {num_players - 1} with {num_players} players, got {seat!r}"
        )
    if len(opponents) > num_players - 1:  # each name given plays, or the command says which would not
        unused = ", ".join(opponents[num_players - 1 :])
        raise CarouselError(
            f"--checkpoint and --opponents name {len(opponents)} agents, but a {num_players}-player game seats"
            f" {plural(num_players - 1, 'opponent')}: {unused} would not play (more seats: --players)"
        )
    layout = layout_of(env)
    others = [s for s in range(num_players) if s != seat]
    names = {s: opponents[i % len(opponents)] for i, s in enumerate(others)}
    players = {s: load_policy(names[s], layout, seed + s, game) for s in others}
    family.compile_ahead({}, False)  # a cold cache: compiled before the first prompt, not mid-game
    env.reset(seed=seed)
    table = ", ".join(f"player {s} = {names[s]}" for s in others)
    print(f"You are player {seat}. Opponents: {table}. {game_spec(game).title}.", file=out)
    terminal = family.terminal

    def ask(env: Any, seat: int, mask: Any) -> int | None:
        return ask_choice(
            terminal.view(env, seat),
            terminal.choices(env, mask),
            lambda text: terminal.typed.parse(text, mask),
            "type " + " or ".join(", ".join(terminal.typed.keys(mask)).rsplit(", ", 1)),
            input_fn,
            out,
        )

    run_table(env, family, players, seat, ask, lambda line: print(line, file=out))
    return 0


def demo(
    names: list[str],
    game: str,
    num_players: int,
    seed: int = 0,
    variant: str | None = None,
    round_bonus: str | None = None,
    out=None,
) -> int:
    """A whole game of ``game`` between scripted players (one name for every seat, or one per
    seat), every move narrated, the table shown whole at the start and the end."""
    from training.games import is_player_name, unknown_player
    from training.policies import scripted_player

    out = out or sys.stdout
    family = family_game(game)
    env = game_env(game, num_players, None, variant, round_bonus)
    names = names or [family.demo_players]
    names = names * num_players if len(names) == 1 else names
    if len(names) != num_players:
        raise CarouselError(f"--policy takes one name or one per player ({num_players}), got {len(names)}")
    for name in names:
        if not is_player_name(family, name):
            raise unknown_player(family, name)
    players = {s: scripted_player(game, name, seed + s) for s, name in enumerate(names)}
    family.compile_ahead({}, False)
    env.reset(seed=seed)
    say = lambda line: print(line, file=out)  # noqa: E731
    say(family.terminal.view(env, None))
    run_table(env, family, players, None, lambda *_: None, say)
    return 0
