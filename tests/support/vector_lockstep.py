"""A game's vector env against its AEC env, step for step over seeded games: what Kaluki's and
Conquian's vector tests share (their steps and infos have the same shape: hands ended, hand
points, finished games with their hands and totals)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from carousel_env.envkit.vector import WAIT


def check_row(step, i: int, env) -> None:
    """Row ``i`` of the vector step shows what the AEC ``env`` shows."""
    obs = env.observe(env.agent_selection)
    assert env.possible_agents[step.to_play[i]] == env.agent_selection
    np.testing.assert_array_equal(step.action_mask[i], obs["action_mask"])
    np.testing.assert_array_equal(step.observation[i], obs["observation"])


def check_step(step, i: int, env) -> None:
    """Row ``i``'s rewards, infos and end are the AEC env's after the same action."""
    assert step.rewards[i].tolist() == pytest.approx([env.rewards[a] for a in env.possible_agents])
    infos = env.infos[env.possible_agents[0]]
    assert step.info.num_auto_actions[i] == infos["num_auto_actions"] == len(env.auto_actions)
    assert step.info.hands_ended[i] == infos["hands_ended"]
    assert step.info.hand_points[i].tolist() == infos["hand_points"].tolist()
    assert step.info.game_over[i] == infos["game_over"]
    assert step.terminated[i] == all(env.terminations.values())
    if step.terminated[i]:
        (finished,) = [f for f in step.info.finished if f.env == i]
        state = env.game_state
        assert (finished.seed, finished.hands, finished.scores) == (env.game_seed, state.results, state.totals)
        assert finished.result == state.game_result
        for seat, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(finished.observations[seat], env.observe(agent)["observation"])


def lockstep(
    make_vector: Callable, make_aec: Callable, n: int, seed: int, steps: int, choose, autoreset: bool = True
) -> int:
    """Seeded games through the vector env (``make_vector(n, autoreset)``) and one AEC env per
    row (``make_aec()``), the same actions: the same observations, masks, seats, rewards, infos
    and ends at every step. Without autoreset a finished row waits a step (``WAIT``) and is
    dealt again with ``reset_rows``. Returns the episodes ended."""
    venv = make_vector(n, autoreset)
    aecs = [make_aec() for _ in range(n)]
    step = venv.reset(seed=seed)
    for i, env in enumerate(aecs):
        env.reset(seed=seed + i)
        check_row(step, i, env)
    ended, waiting = 0, []
    for _ in range(steps):
        actions = np.array(
            [WAIT if i in waiting else choose(i, step.action_mask[i], env) for i, env in enumerate(aecs)]
        )
        step = venv.step(actions)
        for i, env in enumerate(aecs):
            if i in waiting:
                assert not step.rewards[i].any() and not step.terminated[i]
                continue
            env.step(int(actions[i]))
            check_step(step, i, env)
        done = np.flatnonzero(step.terminated).tolist()
        ended += len(done)
        if waiting:  # dealt again with fresh seeds, as the AEC env's reset(seed=...)
            fresh = [10_000 + ended + i for i in waiting]
            step = venv.reset_rows(waiting, fresh)
            for i, s in zip(waiting, fresh):
                aecs[i].reset(seed=s)
        if autoreset:
            for i in done:
                aecs[i].reset()  # its next seed, as the vector env's autoreset draws it
        else:
            waiting = done  # they show seat 0's final view, with an empty mask
        for i, env in enumerate(aecs):
            check_row(step, i, env)
    return ended


def random_choice(seed: int):
    rng = np.random.default_rng(seed)
    return lambda i, mask, env: int(rng.choice(np.flatnonzero(mask)))


def envs_lockstep(vector_class: Callable, aec_class: Callable, **fixed) -> Callable[..., int]:
    """:func:`lockstep` over one game's envs, ``vector_class(n, autoreset=..., **options)`` and
    ``aec_class(**options)``, every call's ``**config`` over the ``fixed`` options:
    ``lockstep(n, seed, steps, choose, autoreset=True, **config)``."""

    def run(n: int, seed: int, steps: int, choose, autoreset: bool = True, **config) -> int:
        options = {**fixed, **config}
        return lockstep(
            lambda n, autoreset: vector_class(n, autoreset=autoreset, **options),
            lambda: aec_class(**options),
            n,
            seed,
            steps,
            choose,
            autoreset,
        )

    return run
