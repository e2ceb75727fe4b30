"""Self-play PPO for every game of the registry, in one readable loop (after CleanRL's ppo.py).

Per update: (1) anneal the learning rate; (2) collect a rollout of complete episodes
against opponents drawn from the pool (PFSP) and scripted baselines; (3) GAE per learner
trajectory; (4) a few epochs of clipped-surrogate minibatch updates with the stored action
masks reapplied; (5) log, evaluate, grow the pool, checkpoint.

``total_timesteps`` sets the number of updates, ``total_timesteps // (num_envs * num_steps)``,
and with it the learning-rate schedule. A rollout finishes its running episodes, so a run
trains more decisions than that; where episodes are long it trains many more (about
``num_envs`` whole episodes an update). :func:`train` prints the overshoot after its first
update (:func:`rollout_note`) and the decisions trained at the end.

The maths is in small functions (``gae``, ``ppo_losses``, ``lr_at``) so each detail has a
unit test of its own.
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from carousel_env.core.text import plural
from carousel_env.envkit.family import HIDDEN_WIDTH
from training import checkpoint
from training.checkpoint_names import BEST, LATEST, is_checkpoint_name
from training.config import TrainConfig, card_actions_of, from_dict, save_config, to_dict
from training.device import describe, resolve_device
from training.diagnostics import action_rates, episode_figures
from training.envs import EnvSpec, shape_for
from training.logger import MetricLogger, plot_learning_curves
from training.network import Agent
from training.policies import Controller, NetworkPolicy, load_network_policy, load_start_network
from training.pool import OpponentPool
from training.rewards import RunningMoments, shaped
from training.rollout import collect_rollout, draw_episode
from training.runners import Driver

# ---------------------------------------------------------------- maths


def gae(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, gamma: float, lam: float, last_value: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates and returns for one trajectory in time order.

    ``dones[t]`` says the episode ended after step ``t`` (no bootstrap through it);
    ``last_value`` is the value after the final step if the trajectory was cut short."""
    T = len(rewards)
    adv = np.zeros(T, dtype=np.float32)
    next_adv = 0.0
    for t in reversed(range(T)):
        next_value = values[t + 1] if t + 1 < T else last_value
        nonterminal = 1.0 - float(dones[t])
        delta = rewards[t] + gamma * next_value * nonterminal - values[t]
        next_adv = delta + gamma * lam * nonterminal * next_adv
        adv[t] = next_adv
    return adv, adv + np.asarray(values, dtype=np.float32)


def normalize(adv: torch.Tensor) -> torch.Tensor:
    # A minibatch of one has no spread; the small constant keeps it finite.
    return (adv - adv.mean()) / (adv.std(unbiased=False) + 1e-8)


def ppo_losses(
    new_logprob,
    old_logprob,
    advantages,
    new_value,
    old_value,
    returns,
    entropy,
    clip_coef: float,
    clip_vloss: bool,
    norm_adv: bool,
) -> dict[str, torch.Tensor]:
    """The clipped surrogate, the (optionally clipped) value loss and diagnostics."""
    logratio = new_logprob - old_logprob
    ratio = logratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - logratio).mean()  # the low-variance estimator (Schulman's k3)
        clipfrac = ((ratio - 1.0).abs() > clip_coef).float().mean()
    if norm_adv:
        advantages = normalize(advantages)
    pg_loss = torch.max(-advantages * ratio, -advantages * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)).mean()
    if clip_vloss:
        unclipped = (new_value - returns) ** 2
        clipped_value = old_value + torch.clamp(new_value - old_value, -clip_coef, clip_coef)
        v_loss = 0.5 * torch.max(unclipped, (clipped_value - returns) ** 2).mean()
    else:
        v_loss = 0.5 * ((new_value - returns) ** 2).mean()
    return {
        "pg_loss": pg_loss,
        "v_loss": v_loss,
        "entropy": entropy.mean(),
        "approx_kl": approx_kl,
        "clipfrac": clipfrac,
    }


def hidden_loss(logits: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
    """The auxiliary head's loss: binary cross-entropy of its logits against the hidden
    cards, each entry a count scaled into [0, 1] (``envkit.family.others_cards``), summed
    over the cards and averaged over the decisions."""
    return nn.functional.binary_cross_entropy_with_logits(logits, hidden, reduction="none").sum(-1).mean()


def lr_at(update: int, num_updates: int, base_lr: float, anneal: bool) -> float:
    """Learning rate for 0-based ``update``: linear from ``base_lr`` down to base_lr/num_updates."""
    return base_lr * (1.0 - update / num_updates) if anneal else base_lr


@dataclass
class Batch:
    obs: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    hidden: torch.Tensor | None = None  # the cards the acting seat could not see (critic "state", hidden_coef)

    def __len__(self) -> int:
        return len(self.actions)

    def to(self, device: torch.device) -> Batch:
        """The batch on ``device`` (itself where it already is: the CPU learner copies nothing)."""
        if device.type == "cpu":
            return self
        return Batch(
            **{
                name: None if getattr(self, name) is None else getattr(self, name).to(device)
                for name in self.__dataclass_fields__
            }
        )


def make_batch(trajectories, gamma: float, lam: float, rewards=None) -> Batch:
    """The batch of complete ``trajectories``, their advantages and returns from ``rewards``
    (one array per trajectory: shaped or scaled, training/rewards.py) or their own rewards."""
    advs, rets = [], []
    if rewards is None:
        rewards = [traj.rewards for traj in trajectories]
    for traj, traj_rewards in zip(trajectories, rewards, strict=True):
        dones = np.zeros(len(traj.rewards))
        dones[-1] = 1.0  # rollouts hold complete episodes
        a, r = gae(np.asarray(traj_rewards, np.float64), np.asarray(traj.values), dones, gamma, lam)
        advs.append(a)
        rets.append(r)

    def cat(name, dtype):
        return torch.as_tensor(np.concatenate([np.asarray(getattr(t, name)) for t in trajectories]), dtype=dtype)

    return Batch(
        obs=torch.as_tensor(np.concatenate([np.stack(t.obs) for t in trajectories])),
        masks=torch.as_tensor(np.concatenate([np.stack(t.masks) for t in trajectories])),
        actions=cat("actions", torch.long),
        logprobs=cat("logprobs", torch.float32),
        values=cat("values", torch.float32),
        advantages=torch.as_tensor(np.concatenate(advs)),
        returns=torch.as_tensor(np.concatenate(rets)),
        hidden=torch.as_tensor(np.concatenate([np.stack(t.hidden) for t in trajectories]))
        if trajectories and trajectories[0].hidden
        else None,
    )


def update_policy(
    agent: Agent, optimizer: torch.optim.Optimizer, batch: Batch, config: TrainConfig, rng: np.random.Generator
) -> dict[str, float]:
    """Epochs of minibatch PPO on ``agent``'s device; the rollout's masks are reapplied so the
    new log-probs and entropy are over the same legal actions the behaviour policy sampled from."""
    n = len(batch)
    device = next(agent.parameters()).device
    on_device = batch.to(device)
    mb_size = max(1, -(-n // config.num_minibatches))
    stats: dict[str, list[float]] = {}
    for _epoch in range(config.update_epochs):
        order = rng.permutation(n)
        for start in range(0, n, mb_size):
            mb = torch.as_tensor(order[start : start + mb_size], device=device)
            hidden = None if on_device.hidden is None else on_device.hidden[mb]
            new = agent.train_outputs(on_device.obs[mb], on_device.masks[mb], on_device.actions[mb], hidden)
            out = ppo_losses(
                new.logprob,
                on_device.logprobs[mb],
                on_device.advantages[mb],
                new.value,
                on_device.values[mb],
                on_device.returns[mb],
                new.entropy,
                config.clip_coef,
                config.clip_vloss,
                config.norm_adv,
            )
            loss = out["pg_loss"] - config.ent_coef * out["entropy"] + config.vf_coef * out["v_loss"]
            if new.hidden_logits is not None:
                out["hidden_loss"] = hidden_loss(new.hidden_logits, hidden)
                loss = loss + config.hidden_coef * out["hidden_loss"]
            optimizer.zero_grad()
            loss.backward()
            grad_norm = nn.utils.clip_grad_norm_(agent.parameters(), config.max_grad_norm)
            optimizer.step()
            for k, v in {**out, "grad_norm": grad_norm}.items():
                stats.setdefault(k, []).append(float(v.detach()))
        if config.target_kl is not None and np.mean(stats["approx_kl"][-config.num_minibatches :]) > config.target_kl:
            break
    y_pred, y_true = batch.values.numpy(), batch.returns.numpy()
    var_y = np.var(y_true)
    explained = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    return {
        "losses/policy_loss": np.mean(stats["pg_loss"]),
        "losses/value_loss": np.mean(stats["v_loss"]),
        "losses/entropy": np.mean(stats["entropy"]),
        "losses/approx_kl": np.mean(stats["approx_kl"]),
        "losses/clipfrac": np.mean(stats["clipfrac"]),
        "losses/grad_norm": np.mean(stats["grad_norm"]),
        "losses/explained_variance": float(explained),
        **({"losses/hidden_loss": np.mean(stats["hidden_loss"])} if "hidden_loss" in stats else {}),
    }


# ---------------------------------------------------------------- the loop


@dataclass
class Progress:
    """How far a run is: updates, learner decisions (every curve's x axis), environment
    steps, episodes, the best evaluation so far (``best.pt``'s win rate; -1: none yet) and
    the seconds trained (a run's time to a strength: ``benchmarks/run_levels.py``).
    Checkpoints store it as a dict (``counters``)."""

    update: int = 0
    global_step: int = 0
    env_steps: int = 0
    episodes: int = 0
    best_win_rate: float = -1.0
    wall_s: float = 0.0  # seconds spent in updates (rollouts, learning, evaluations), over every resume


def learner_rewards(trajectories, config: TrainConfig, progress_of, moments: RunningMoments) -> list[np.ndarray]:
    """Each trajectory's rewards as the learner trains on them: shaped by the game's measure
    of progress (``progress_of``) and scaled by the returns' running spread, as the config
    says (training/rewards.py); ``moments`` take in this rollout's returns first."""
    rewards = [np.asarray(t.rewards, np.float64) for t in trajectories]
    if config.shaping_coef:
        rewards = [
            shaped(r, progress_of(np.stack(t.obs)), config.gamma, config.shaping_coef)
            for r, t in zip(rewards, trajectories, strict=True)
        ]
    if config.normalize_returns:
        moments.update([r.sum() for r in rewards])
        scale = moments.scale()
        rewards = [r / scale for r in rewards]
    return rewards


# A first rollout this far past its target is worth a line: the run will overshoot its budget.
OVERSHOOT_NOTED = 1.25


def rollout_note(config: TrainConfig, decisions: int, episodes: int, trained: int, updates_left: int) -> str | None:
    """What a rollout of ``decisions`` (its ``episodes`` finished) says of the run's length:
    ``trained`` decisions so far, ``updates_left`` to come; None when it stayed near its target."""
    target = config.batch_target
    if decisions <= OVERSHOOT_NOTED * target:
        return None
    per_episode = f", about {decisions // episodes:,} an episode" if episodes else ""
    return (
        f"carousel train: the rollout trained {decisions:,} learner decisions for a target of {target:,} "
        f"(num_envs {config.num_envs} x num_steps {config.num_steps}){per_episode}: a rollout finishes its running "
        f"episodes, so total_timesteps {config.total_timesteps:,} ({plural(config.num_updates, 'update')}) will "
        f"train about {trained + decisions * updates_left:,} (num_steps near an episode's length keeps a rollout "
        "near its target)"
    )


def env_spec_of(config: TrainConfig) -> EnvSpec:
    options = {key: value for key, value in config.env_options().items() if key != "num_players"}
    return EnvSpec.of(config.num_players, config.env_factory, config.vector_env, config.game, **options)


def seed_everything(config: TrainConfig) -> np.random.Generator:
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    torch.use_deterministic_algorithms(config.torch_deterministic)
    return np.random.default_rng(config.seed)


FIXED = Controller.network("fixed_opponent")  # the one agent at every opponent seat (config key)


def fixed_opponent(config: TrainConfig, layout) -> tuple[Controller | None, dict[Controller, NetworkPolicy]]:
    """Config key ``fixed_opponent`` as the controller of every opponent seat, and the frozen
    network it needs (none for a scripted policy). The network samples from torch's global
    generator, as the pool's do, so that a resumed run draws what an unbroken one would."""
    name = config.fixed_opponent
    if name is None:
        return None, {}
    if not is_checkpoint_name(name):
        return Controller.scripted(name, game=config.game), {}
    return FIXED, {FIXED: load_network_policy(name, layout)}


def _save(
    path: Path, agent, optimizer, config, progress: Progress, np_rng, pool: OpponentPool, moments: RunningMoments
) -> None:
    data = checkpoint.make(
        agent,
        agent.spec(),
        optimizer=optimizer.state_dict(),
        counters=asdict(progress),
        rng=checkpoint.rng_state(np_rng),
        config=to_dict(config),
        pool=pool.manifest(),
        return_moments=moments.as_dict(),
    )
    checkpoint.atomic_torch_save(data, path)


def train(config: TrainConfig, run_dir: str | Path, resume: bool = False, max_updates: int | None = None) -> Path:
    """Train (or continue, with ``resume``) the run in ``run_dir``; returns ``run_dir``.

    ``max_updates`` stops after that many updates in this call (the schedule still spans
    ``total_timesteps``), so a long run can be done in pieces with ``resume``."""
    from training.evaluate import evaluate

    run_dir = Path(run_dir)
    device = resolve_device(config.device, config.torch_deterministic)  # a GPU that is not there: before any work
    np_rng = seed_everything(config)
    env_spec = env_spec_of(config)
    layout, num_fixed_actions = shape_for(env_spec)
    # ``agent`` acts in the rollouts and evaluations, on the CPU; ``learner`` trains on ``device``
    # (the same network on the CPU) and is copied into ``agent`` after each update.
    agent = Agent(
        layout,
        config.hidden_size,
        config.slot_hidden_size,
        num_fixed_actions,
        hidden_width=HIDDEN_WIDTH,
        state_critic=config.critic == "state",
        predicts_hidden=config.hidden_coef > 0,
        card_actions=card_actions_of(config),
    )
    if not resume and config.init_checkpoint is not None:
        # Before anything is written: a bad source leaves no run. Optimiser and pool start fresh.
        source = load_start_network(
            config.init_checkpoint, layout, config.hidden_size, config.slot_hidden_size, config.card_head
        )
        agent.load_shared(source)  # a head the source lacks (a state critic, the auxiliary head) starts fresh
    learner = agent if device.type == "cpu" else copy.deepcopy(agent).to(device)
    run_dir.mkdir(parents=True, exist_ok=True)
    optimizer = torch.optim.Adam(learner.parameters(), lr=config.learning_rate, eps=1e-5)
    pool = OpponentPool(run_dir, config.pool_size)
    progress = Progress()
    moments = RunningMoments()  # of the learner's episode returns (normalize_returns)

    if resume:
        data = checkpoint.load(run_dir / "latest.pt")
        saved = from_dict(data["config"])
        if saved.hidden_size != config.hidden_size or saved.slot_hidden_size != config.slot_hidden_size:
            raise checkpoint.CheckpointError(f"checkpoint {run_dir / 'latest.pt'} has a different network size")
        if saved.card_head != config.card_head:
            raise checkpoint.CheckpointError(
                f"checkpoint {run_dir / 'latest.pt'} was trained with card_head {saved.card_head}: a resumed run "
                "keeps its network's card head"
            )
        if (saved.critic, saved.hidden_coef > 0) != (config.critic, config.hidden_coef > 0):
            raise checkpoint.CheckpointError(
                f"checkpoint {run_dir / 'latest.pt'} was trained with critic {saved.critic!r} and hidden_coef "
                f"{saved.hidden_coef:g}: a resumed run keeps its network's heads (critic, hidden_coef on or off)"
            )
        checkpoint.build_agent(data, run_dir / "latest.pt", expect_layout=layout)  # layout check
        checkpoint.load_model_state(agent, data, run_dir / "latest.pt")
        if learner is not agent:
            learner.load_state_dict(agent.state_dict())
        try:
            optimizer.load_state_dict(data["optimizer"])
            progress = Progress(**data["counters"])
            checkpoint.restore_rng(data["rng"], np_rng)
            pool.load_manifest(data["pool"])
            if "return_moments" in data:  # checkpoints before 0.6 have none
                moments = RunningMoments.from_dict(data["return_moments"])
        except (KeyError, ValueError, TypeError) as exc:
            raise checkpoint.CheckpointError(
                f"checkpoint {run_dir / 'latest.pt'} cannot resume training: {exc}"
            ) from None
    else:
        pool.add(agent, 0)
    save_config(config, run_dir / "config.yaml")
    logger = MetricLogger(run_dir, resume_step=progress.global_step if resume else None)

    fixed, fixed_policies = fixed_opponent(config, layout)
    action_kinds, progress_of = config.family().action_kinds, config.family().progress
    num_updates = config.num_updates
    last_update = num_updates if max_updates is None else min(num_updates, progress.update + max_updates)
    driver = Driver(env_spec, config.num_envs, config.num_workers, hidden=config.reads_hidden_cards)
    print(f"carousel train: learner on {describe(device)}, game copies and rollouts on the CPU", flush=True)
    bar = None
    if config.progress_bar:
        from tqdm import tqdm

        bar = tqdm(total=num_updates, initial=progress.update, unit="upd", dynamic_ncols=True)
    latest_eval = ""
    first_update = progress.update
    try:
        while progress.update < last_update:
            update = progress.update
            t0 = time.perf_counter()
            lr = lr_at(update, num_updates, config.learning_rate, config.anneal_lr)
            for group in optimizer.param_groups:
                group["lr"] = lr

            baseline_share = config.baseline_share_at(progress.global_step)

            def new_episode(baseline_share=baseline_share):
                return draw_episode(
                    np_rng,
                    config.num_players,
                    config.learner_seats,
                    pool,
                    config.baseline_names(),
                    baseline_share,
                    config.pfsp_power,
                    fixed,
                )

            opponents = {**pool.policies(config.opponent_greedy), **fixed_policies}
            rollout = collect_rollout(driver, agent, opponents, new_episode, config.batch_target)
            for result in rollout.results:
                pool.record_episode(result)
            t_rollout = time.perf_counter() - t0
            rewards = learner_rewards(rollout.trajectories, config, progress_of, moments)
            batch = make_batch(rollout.trajectories, config.gamma, config.gae_lambda, rewards)
            metrics = update_policy(learner, optimizer, batch, config, np_rng)
            if learner is not agent:
                agent.load_state_dict(learner.state_dict())  # the next rollout acts with the new weights
            elapsed = time.perf_counter() - t0

            progress.update += 1
            progress.global_step += rollout.decisions
            progress.env_steps += rollout.env_steps
            progress.episodes += len(rollout.results)
            if progress.update == first_update + 1:
                left = num_updates - progress.update
                note = rollout_note(config, rollout.decisions, len(rollout.results), progress.global_step, left)
                if note is not None:
                    print(note, flush=True)
            returns = [sum(t.rewards) for t in rollout.trajectories]
            metrics.update(action_rates(batch.masks.numpy(), batch.actions.numpy(), action_kinds))
            lengths = [len(t.actions) for t in rollout.trajectories]
            metrics.update(episode_figures(returns, lengths, rollout.env_steps, len(rollout.results)))
            metrics.update(
                {
                    "charts/learning_rate": lr,
                    "charts/episodic_return": float(np.mean(returns)) if returns else 0.0,
                    "charts/episodes": len(rollout.results),
                    "charts/batch_size": len(batch),
                    "charts/env_steps": progress.env_steps,
                    "charts/SPS": rollout.env_steps / elapsed,
                    "charts/rollout_fraction": t_rollout / elapsed,
                    "charts/pool_size": len(pool.entries),
                    "charts/baseline_share": baseline_share,
                    "charts/solver_inexact": driver.solver_inexact,
                    "charts/trained_return": float(np.mean([r.sum() for r in rewards])) if rewards else 0.0,
                    "charts/reward_scale": moments.scale() if config.normalize_returns else 1.0,
                }
            )
            step = progress.global_step
            final = progress.update == last_update
            reached = False  # the evaluation met stop_win_rate: the run ends here
            if config.eval_games > 0 and (
                (config.eval_interval and progress.update % config.eval_interval == 0)
                or (final and progress.update == num_updates)
            ):
                res = evaluate(
                    agent,
                    config.evaluation_opponent(),
                    games=config.eval_games,
                    num_players=config.num_players,
                    seed=config.seed * 1_000_003 + progress.update,
                    env_spec=env_spec,
                )
                metrics.update(
                    {
                        "eval/win_rate": res.win_rate,
                        "eval/win_rate_ci_low": res.win_rate_ci[0],
                        "eval/win_rate_ci_high": res.win_rate_ci[1],
                        "eval/win_rate_deals_ci_low": res.win_rate_ci_deals[0],
                        "eval/win_rate_deals_ci_high": res.win_rate_ci_deals[1],
                        "eval/score_diff": res.mean_round_score_diff,
                        "eval/points_per_unit": res.points_per_unit,
                        "eval/decided_won_rate": res.decided_won_rate,
                        "eval/games": res.games,
                    }
                )
                latest_eval = f"{res.win_rate:.2f} vs {config.evaluation_opponent()}"
                if bar is None:  # without the bar an evaluation is a line: a run is never silent for long
                    done = f"update {progress.update} of {num_updates}: {step:,} learner decisions"
                    print(f"{done}, win rate {latest_eval}", flush=True)
                reached = config.stop_win_rate is not None and res.win_rate >= config.stop_win_rate
                final = final or reached
                if config.keep_best and res.win_rate > progress.best_win_rate:
                    progress.best_win_rate = res.win_rate
                    _save(run_dir / BEST, agent, optimizer, config, progress, np_rng, pool, moments)
                metrics["eval/best_win_rate"] = progress.best_win_rate
            progress.wall_s += time.perf_counter() - t0
            metrics["charts/wall_s"] = progress.wall_s
            logger.log(step, metrics)
            if progress.update % config.pool_snapshot_interval == 0:
                pool.add(agent, progress.update)
            if progress.update % config.checkpoint_interval == 0 or final:
                _save(run_dir / LATEST, agent, optimizer, config, progress, np_rng, pool, moments)
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(
                    f"steps/s {metrics['charts/SPS']:.0f}  ret {metrics['charts/episodic_return']:+.3f}"
                    + (f"  eval {latest_eval}" if latest_eval else "")
                )
            if reached:
                print(
                    f"carousel train: win rate {latest_eval} reached stop_win_rate {config.stop_win_rate:g} after "
                    f"{plural(progress.global_step, 'learner decision')} ({plural(progress.env_steps, 'env step')}); "
                    "stopping",
                    flush=True,
                )
                break
        print(
            f"carousel train: {progress.global_step:,} learner decisions trained in "
            f"{plural(progress.update, 'update')} (total_timesteps {config.total_timesteps:,}: "
            f"{plural(num_updates, 'update')} of rollouts that finish their running episodes)",
            flush=True,
        )
    finally:
        driver.close()
        logger.close()
        if bar is not None:
            bar.close()
    plot_learning_curves(run_dir / "metrics.csv", run_dir / "learning_curves.png")
    return run_dir
