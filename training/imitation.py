"""Imitation: a network taught to play as a scripted player does, as a start for PPO.

Self-play PPO from scratch can stall where a game's first competent moves are hard to find
by chance (Gin Rummy's discards: 52 actions, most of them poor). ``carousel imitate`` plays
games between copies of a teacher (``simple``, ``smart``, ...) in the game's compiled vector
env, records every decision the teacher made (the acting seat's observation, its mask, its
action and the return that seat's episode brought it) and fits the network to them: its
policy by cross-entropy over the legal actions, its value by squared error to the returns,
so that PPO starting from it has a critic that already knows what a position is worth.
The result is a checkpoint like any other: ``carousel eval`` measures it, and a training
config's ``init_checkpoint`` starts PPO from it.

* Decisions the env takes alone (a single legal action) are not recorded: nothing to learn;
  nor are those of the episodes still running when enough were recorded (no return yet).
* A tenth of the decisions (whole games' worth, the last rows) are held out: the reported
  accuracy is the share of held-out decisions where the network's most likely action is
  the teacher's.
* Seeded: the deals, the teachers' randomness, the network's initial weights and the
  minibatch order all follow ``seed``.
* ``tables`` (``--players 2,3,4,5``) records at several table sizes, the decisions split
  evenly, for one network that plays them all (the held-out rows are held out at each).
* ``--init CHECKPOINT`` starts from that network instead of a new one: expert iteration,
  a network taught the choices of the search it guides (``--teacher search@8+CHECKPOINT``).
* ``workers`` (``--workers W``) records in W processes at once, each a share of the decisions
  from games of its own seed (``seed`` itself when W is 1): a slow teacher (a search) records
  W times as fast on W free cores. The games, and so the network, follow ``seed`` and W.
* ``student`` (``--student CHECKPOINT``): that network plays a share ``student_share`` of
  the decisions (each decision drawn apart, seeded), the teacher the rest, and the teacher's
  move is recorded at every one (DAgger): the network learns the teacher's answers in the
  positions its own play reaches, which games between teachers seldom show it. The returns
  recorded are those of the games as played.
* The fit runs on the config's ``torch_threads`` (``--torch-threads``; one by default, as
  training's: the network is small, and more threads fight any other job for the cores).
* ``report`` (the CLI's: a printed line) hears how far it is: the decisions recorded, about
  every tenth of them, then each epoch's mean loss. A slow teacher takes minutes to record.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from carousel_env.core.registry import vector_env_class
from training import checkpoint
from training.config import ConfigError, TrainConfig, card_actions_of, check_names, from_dict, to_dict
from training.envs import EnvSpec, shape_for
from training.games import is_player_name, training_game
from training.network import Agent, MaskedCategorical
from training.policies import load_network_policy, load_start_network, scripted_player
from training.ppo import env_spec_of

HELD_OUT = 0.1  # share of the rows (games) whose decisions test the fit
VALUE_WEIGHT = 0.5  # the value's squared error beside the policy's cross-entropy (PPO's vf_coef)
NUM_ROWS = 64  # games played at once
REPORTS = 10  # progress lines while recording
ACCURACY_BATCH = 4096  # rows per forward pass when the fit is scored

Report = Callable[[str], None]  # hears a progress line


def _silent(line: str) -> None:
    pass


@dataclass(frozen=True)
class Demonstrations:
    """The teacher's decisions: observations, masks, actions and the deciding seat's return
    over its episode (undiscounted), row by row (``rows[i]`` says which game each came from)."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)


@dataclass(frozen=True)
class ImitationResult:
    decisions: int
    train_accuracy: float
    held_out_accuracy: float
    seconds: float


@dataclass(frozen=True)
class Student:
    """A network that plays a share of the recorded decisions (module docstring: DAgger)."""

    checkpoint: str
    share: float

    def __post_init__(self) -> None:
        if isinstance(self.share, bool) or not isinstance(self.share, (int, float)) or not 0 < self.share <= 1:
            raise ConfigError(f"imitation's student_share must be a number in (0, 1], got {self.share!r}")


def collect(
    spec: EnvSpec, teacher: str, decisions: int, seed: int, report: Report = _silent, student: Student | None = None
) -> Demonstrations:
    """At least ``decisions`` of ``teacher``'s decisions in games between copies of it, or,
    with a ``student``, in games where the student makes its share of the moves."""
    started = time.perf_counter()
    next_report = decisions / REPORTS
    venv = vector_env_class(spec.game)(NUM_ROWS, autoreset=True, **spec.kwargs())
    played = None if student is None else load_network_policy(student.checkpoint, shape_for(spec)[0], seed=seed)
    draws = np.random.default_rng([seed, 7])  # which decisions the student plays
    # One teacher per seat of every row, each seeded apart (a random teacher's draws stay its own).
    teachers = [
        [scripted_player(spec.game, teacher, seed * 1009 + 31 * r + s) for s in range(spec.num_players)]
        for r in range(NUM_ROWS)
    ]
    obs, masks, actions, rows = [], [], [], []
    returns: list[float] = []
    running = [[] for _ in range(NUM_ROWS)]  # each row's decisions (index, seat) in its episode so far
    earned = np.zeros((NUM_ROWS, spec.num_players))  # each row's rewards in its episode so far
    done = 0  # decisions whose episode has ended
    step = venv.reset(seed=seed * 1_000_003)
    try:
        while done < decisions:
            moves = venv.policy_moves(step, range(NUM_ROWS), lambda r, s: teachers[r][s])
            acting = np.flatnonzero(moves >= 0)
            for r in acting.tolist():
                running[r].append((len(actions), int(step.to_play[r])))
                actions.append(int(moves[r]))
                rows.append(r)
                returns.append(0.0)
            obs.append(step.observation[acting].copy())
            masks.append(step.action_mask[acting].copy())
            if played is not None and len(acting):
                own = acting[draws.random(len(acting)) < student.share]
                if len(own):  # ``moves`` is this step's own array
                    moves[own] = played.act(step.observation[own], step.action_mask[own])
            step = venv.step(moves)
            earned += step.rewards
            for r in np.flatnonzero(step.terminated).tolist():
                for index, seat in running[r]:
                    returns[index] = float(earned[r, seat])
                done += len(running[r])
                running[r], earned[r] = [], 0.0
            if done >= next_report and done < decisions:
                report(f"recorded {done:,} of {decisions:,} decisions ({time.perf_counter() - started:.0f} s)")
                next_report += decisions / REPORTS
    finally:
        venv.close()
    finished = np.ones(len(actions), np.bool_)
    for r in range(NUM_ROWS):
        finished[[index for index, _ in running[r]]] = False
    return Demonstrations(
        np.concatenate(obs)[finished],
        np.concatenate(masks)[finished],
        np.asarray(actions)[finished],
        np.asarray(returns, np.float32)[finished],
        np.asarray(rows)[finished],
    )


def worker_seed(seed: int, worker: int, workers: int) -> int:
    """The seed worker ``worker`` of ``workers`` records with: ``seed`` alone in one process."""
    return seed if workers == 1 else int(np.random.SeedSequence([seed, worker, workers]).generate_state(1)[0] >> 1)


class _Prefixed:
    """A worker's report: its lines printed with the worker's number (a picklable callable)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __call__(self, line: str) -> None:
        print(f"  {self.prefix}{line}", flush=True)


def collect_parallel(
    spec: EnvSpec,
    teacher: str,
    decisions: int,
    seed: int,
    workers: int,
    report: Report = _silent,
    student: Student | None = None,
) -> Demonstrations:
    """:func:`collect` split over ``workers`` processes (one: in this one), each a share of
    the decisions with its :func:`worker_seed`; the parts in worker order."""
    if workers == 1:
        return collect(spec, teacher, decisions, seed, report, student)
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    shares = [decisions // workers + (w < decisions % workers) for w in range(workers)]
    # spawn, not fork: forking a process that has started torch's threads can deadlock.
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
        futures = [
            pool.submit(
                collect, spec, teacher, share, worker_seed(seed, w, workers), _Prefixed(f"[worker {w}] "), student
            )
            for w, share in enumerate(shares)
        ]
        parts = [future.result() for future in futures]
    report(f"recorded {sum(len(p) for p in parts):,} decisions in {workers} processes")
    return concatenate(parts)


def concatenate(parts: Sequence[Demonstrations]) -> Demonstrations:
    """Demonstrations recorded apart (one table size each), as one set; a decision keeps its
    row number, so each part's held-out rows stay held out. One part is returned as it is
    (a copy would double the memory the fit needs)."""
    if len(parts) == 1:
        return parts[0]
    fields = zip(*((d.observations, d.masks, d.actions, d.returns, d.rows) for d in parts))
    return Demonstrations(*(np.concatenate(f) for f in fields))


def most_likely(agent: Agent, data: Demonstrations, index: np.ndarray, batch: int = ACCURACY_BATCH) -> np.ndarray:
    """The network's most likely action at each decision of ``index``, ``batch`` rows at a
    time (all at once would hold every row's logits)."""
    found = np.empty(len(index), np.int64)
    with torch.no_grad():
        for start in range(0, len(index), batch):
            rows = index[start : start + batch]
            dist = agent.distribution(torch.as_tensor(data.observations[rows]), torch.as_tensor(data.masks[rows]))
            found[start : start + len(rows)] = dist.mode().numpy()
    return found


def accuracy(agent: Agent, data: Demonstrations, index: np.ndarray, batch: int = ACCURACY_BATCH) -> float:
    """The share of the decisions at ``index`` where the network's most likely action is the
    teacher's (:func:`most_likely`)."""
    if len(index) == 0:
        return float("nan")
    return float(np.mean(most_likely(agent, data, index, batch) == data.actions[index]))


def fit(
    agent: Agent,
    data: Demonstrations,
    epochs: int,
    learning_rate: float,
    batch: int,
    rng: np.random.Generator,
    report: Report = _silent,
) -> tuple[np.ndarray, np.ndarray]:
    """Epochs over the training rows' decisions (the policy's cross-entropy plus half the
    value's squared error, PPO's weighting); returns (train, held-out) indices."""
    held_rows = set(range(NUM_ROWS - max(1, round(NUM_ROWS * HELD_OUT)), NUM_ROWS))
    held = np.flatnonzero(np.isin(data.rows, list(held_rows)))
    train = np.flatnonzero(~np.isin(data.rows, list(held_rows)))
    optimizer = torch.optim.Adam(agent.parameters(), lr=learning_rate, eps=1e-5)
    obs, masks, actions, returns = (
        torch.as_tensor(a) for a in (data.observations, data.masks, data.actions, data.returns)
    )
    started = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(train)
        losses = []
        for start in range(0, len(order), batch):
            mb = torch.as_tensor(order[start : start + batch])
            logits, values = agent.policy_and_value(obs[mb])
            policy_loss = -MaskedCategorical(logits, masks[mb]).log_prob(actions[mb]).mean()
            loss = policy_loss + VALUE_WEIGHT * ((values - returns[mb]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            optimizer.step()
            losses.append(policy_loss.item())
        report(
            f"epoch {epoch + 1} of {epochs}: the policy's cross-entropy {np.mean(losses):.3f} "
            f"({time.perf_counter() - started:.0f} s)"
        )
    return train, held


def imitate(
    teacher: str,
    out: str | Path,
    env_keys: dict[str, Any] | None = None,
    decisions: int = 100_000,
    epochs: int = 4,
    learning_rate: float = 1e-3,
    batch: int = 512,
    seed: int = 1,
    init: str | None = None,
    report: Report = _silent,
    tables: Sequence[int] = (),
    workers: int = 1,
    student: str | None = None,
    student_share: float = 1.0,
    card_head: bool = False,
) -> ImitationResult:
    """Teach a network ``teacher``'s play in the game of ``env_keys`` (a training config's
    keys: ``game``, ``variant``, ...) and save it as ``out/latest.pt``: a new network, or
    checkpoint ``init``'s (which must fit the game's layout and the default sizes).
    ``tables``: record at each of these table sizes in turn, the decisions split evenly (one
    network for all of them; their observations must have one layout); empty, at the keys'
    ``num_players``. ``workers``: processes recording at once. ``student``: a checkpoint
    that plays ``student_share`` of the decisions while the teacher's are recorded (DAgger).
    ``report`` hears progress lines (module docstring)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"imitation's workers must be an int >= 1, got {workers!r}")
    playing = None if student is None else Student(student, student_share)
    started = time.perf_counter()
    keys = {**(env_keys or {}), "seed": seed, "eval_opponent": teacher, "init_checkpoint": init, "card_head": card_head}
    configs: list[TrainConfig] = [from_dict({**keys, "num_players": n}) for n in tables] or [from_dict(keys)]
    config = configs[0]
    check_names(config)  # the teacher is one of the game's scripted players, ``init`` a checkpoint
    if not is_player_name(training_game(config.game), teacher):
        raise ConfigError(f"the teacher must be a scripted player of {config.game}, got {teacher!r}")
    specs = [env_spec_of(c) for c in configs]
    shapes = [shape_for(spec) for spec in specs]
    for spec, shape in zip(specs, shapes):
        if shape != shapes[0]:  # the observation, or the fixed actions before the slots
            raise ConfigError(
                f"{config.game}'s observation at {spec.num_players} players differs from its observation at "
                f"{specs[0].num_players}: one network cannot learn both tables"
            )
    torch.manual_seed(seed)
    torch.set_num_threads(config.torch_threads)  # one by default: more fight any other job for the cores
    layout, fixed = shapes[0]
    agent = Agent(layout, config.hidden_size, config.slot_hidden_size, fixed, card_actions=card_actions_of(config))
    if init is not None:  # checked before the games: a bad checkpoint costs nothing
        start = load_start_network(init, layout, config.hidden_size, config.slot_hidden_size, config.card_head)
        agent.load_shared(start)  # a state critic or auxiliary head stays behind: imitation has no hidden cards
    if playing is not None:  # checked before the games too: its game and its layout
        trained_on = checkpoint.saved_env_keys(student).game
        if trained_on != config.game:
            raise ConfigError(f"the student {student!r} plays {trained_on}, not {config.game}")
        try:
            load_network_policy(student, layout)  # every table's observation has this layout (above)
        except checkpoint.CheckpointError as exc:
            raise checkpoint.CheckpointError(f"the student: {exc}") from None
    parts = []
    for k, spec in enumerate(specs):
        share = decisions // len(specs) + (k < decisions % len(specs))
        if len(specs) > 1:
            report(f"at {spec.num_players} players: {share:,} decisions")
        parts.append(collect_parallel(spec, teacher, share, seed + k, workers, report, playing))
    data = concatenate(parts)
    del parts  # ``data`` holds the rows now: free the parts it copied before the fit
    report(f"recorded {len(data):,} decisions; fitting the network, {epochs} epochs")
    train, held = fit(agent, data, epochs, learning_rate, batch, np.random.default_rng(seed), report)
    result = ImitationResult(
        len(data), accuracy(agent, data, train), accuracy(agent, data, held), time.perf_counter() - started
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    counters = {"update": 0, "global_step": 0, "imitated_decisions": len(data)}
    tables = [c.num_players for c in configs]
    extra = {} if playing is None else {"student": student, "student_share": student_share}
    data_out = checkpoint.make(
        agent, agent.spec(), config=to_dict(config), counters=counters, teacher=teacher, tables=tables, **extra
    )
    checkpoint.atomic_torch_save(data_out, out / "latest.pt")
    return result
