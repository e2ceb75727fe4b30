"""A game's two single-agent Gymnasium forms stepped side by side: the vector form's rows
against as many single-agent envs, with the same seeds and learner actions, everything
compared at every step (any game: the forms and the AEC info keys are arguments)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Choose = Callable[[np.random.Generator, np.ndarray], int]


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def record_aec_infos(env, seen: dict) -> list[dict]:
    """Log the AEC infos of every AEC step (and reset) the single-agent ``env`` makes; a reset
    clears the log (the caller clears it before each learner step). Counts AEC resets."""
    aec, log = env.aec, []
    step, reset = aec.step, aec.reset

    def logged_step(action):
        step(action)
        log.append(aec.infos[aec.possible_agents[0]])  # every agent holds the same infos

    def logged_reset(**kwargs):
        seen["aec_resets"] += 1
        log.clear()
        reset(**kwargs)
        log.append(aec.infos[aec.possible_agents[0]])

    aec.step, aec.reset = logged_step, logged_reset
    return log


def check_row(infos: dict, i: int, env, info: dict, log: list[dict], info_keys) -> None:
    """Row ``i``'s infos: the mask and seat of ``env``, the AEC infos summed over ``log``
    (bool keys or-ed, the others added)."""
    np.testing.assert_array_equal(infos["action_mask"][i], info["action_mask"])
    assert infos["learner_seat"][i] == env.aec.possible_agents.index(info["learner"])
    for key in info_keys:
        values = [x[key.name] for x in log]
        expected = any(values) if key.flag else sum(values)
        np.testing.assert_array_equal(infos[key.name][i], expected, err_msg=key.name)
        assert infos[f"_{key.name}"][i]
    assert infos["_action_mask"][i] and infos["_learner_seat"][i]


def play_both(vector_form, single_form, seeds: list[int], steps: int, choose: Choose = random_legal, **options):
    """Step ``vector_form(len(seeds), **options)`` and one ``single_form(**options)`` per row
    with the same learner actions (``choose(rng, mask)``), asserting that every observation,
    mask, reward, termination and info agrees at every step; returns what was seen.

    Row ``i`` <-> ``singles[i]``, reset with ``seeds[i]``. Autoreset is NEXT_STEP: in the
    step after row ``i`` reported ``terminated``, the vector row ignores its action and deals
    its next episode, which ``singles[i].reset()`` deals too (its ``np_random`` draws the next
    seat and game seed); that step reports reward 0, not terminated."""
    n = len(seeds)
    venv = vector_form(n, **options)
    singles = [single_form(**options) for _ in range(n)]
    seen = {"episodes": 0, "resets": 0, "rewards": 0, "seats": set(), "aec_resets": 0, "steps": 0}
    seen["infos"] = {key.name: 0 for key in venv.info_keys}
    logs = [record_aec_infos(env, seen) for env in singles]
    obs, infos = venv.reset(seed=seeds)
    assert venv.observation_space.contains(obs)
    for i, env in enumerate(singles):
        single_obs, info = env.reset(seed=seeds[i])
        np.testing.assert_array_equal(obs[i], single_obs)
        check_row(infos, i, env, info, logs[i], venv.info_keys)
    rng = np.random.default_rng(seeds[0])
    autoreset = np.zeros(n, np.bool_)
    for _ in range(steps):
        masks = venv.action_masks()
        for i, env in enumerate(singles):
            np.testing.assert_array_equal(masks[i], env.action_masks())
        actions = np.array([choose(rng, m) if m.any() else 0 for m in masks])  # a row that just ended: ignored
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert rewards.dtype == np.float64 and terminated.dtype == np.bool_ and not truncated.any()
        for i, env in enumerate(singles):
            if autoreset[i]:
                single_obs, info = env.reset()
                reward, done = 0.0, False
                seen["resets"] += 1
            else:
                logs[i].clear()
                single_obs, reward, done, _, info = env.step(int(actions[i]))
                seen["steps"] += 1
            np.testing.assert_array_equal(obs[i], single_obs)
            assert rewards[i] == reward and terminated[i] == done
            check_row(infos, i, env, info, logs[i], venv.info_keys)
            seen["episodes"] += done
            seen["rewards"] += reward != 0
            seen["seats"].add(int(infos["learner_seat"][i]))
            for key in venv.info_keys:
                seen["infos"][key.name] += int(np.abs(infos[key.name][i]).sum())
        autoreset = terminated
    return seen
