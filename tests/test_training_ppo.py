"""PPO details, each on its own: masking, GAE, losses, clipping, annealing, seeding."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from carousel_env.games.carousel.envs.aec import NUM_FIXED_ACTIONS
from carousel_env.games.carousel.envs.observation import ObservationLayout
from training.config import TrainConfig
from training.network import Agent, MaskedCategorical
from training.ppo import Batch, gae, lr_at, normalize, ppo_losses, update_policy

LAYOUT = ObservationLayout(global_size=6, num_slots=4, slot_features=3)
NUM_ACTIONS = NUM_FIXED_ACTIONS + LAYOUT.num_slots


def _agent(seed: int = 0) -> Agent:
    torch.manual_seed(seed)
    return Agent(LAYOUT, hidden_size=16, slot_hidden_size=8)


def _masks(n: int, rng: np.random.Generator) -> np.ndarray:
    masks = rng.integers(0, 2, (n, NUM_ACTIONS)).astype(np.int8)
    masks[np.arange(n), rng.integers(0, NUM_ACTIONS, n)] = 1  # at least one legal action
    return masks


def test_illegal_actions_get_zero_probability_and_are_never_sampled():
    rng = np.random.default_rng(0)
    logits = torch.tensor(rng.normal(size=(64, 7)) * 5, dtype=torch.float32)
    mask = torch.as_tensor(_masks(64, rng))
    dist = MaskedCategorical(logits, mask)
    assert torch.all(dist.probs[~mask.bool()] == 0)
    assert torch.allclose(dist.probs.sum(-1), torch.ones(64))
    gen = torch.Generator().manual_seed(1)
    for _ in range(50):
        a = dist.sample(gen)
        assert torch.all(mask.gather(1, a[:, None]) == 1)


def test_samples_follow_the_probabilities():
    rng = np.random.default_rng(2)
    logits = torch.tensor(rng.normal(size=(4, 7)), dtype=torch.float32)
    mask = torch.as_tensor(_masks(4, rng))
    dist = MaskedCategorical(logits, mask)
    gen = torch.Generator().manual_seed(3)
    draws = 20_000
    counts = torch.zeros(4, 7)
    for _ in range(draws):
        counts[torch.arange(4), dist.sample(gen)] += 1
    # Within 5 standard errors of each action's probability (the illegal ones exactly 0).
    error = (dist.probs * (1 - dist.probs) / draws).sqrt()
    assert torch.all((counts / draws - dist.probs).abs() <= 5 * error + 1e-9)


def test_a_point_at_the_very_top_of_the_cdf_still_lands_on_a_legal_action(monkeypatch):
    mask = torch.tensor([[0, 1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0, 0]])
    dist = MaskedCategorical(torch.zeros(3, 7), mask)
    # torch.rand's largest value, times a total that rounds the product up to the total.
    monkeypatch.setattr(torch, "rand", lambda *a, **k: torch.ones(3, 1, dtype=torch.float64))
    assert dist.sample().tolist() == [4, 0, 3]


def test_entropy_is_over_legal_actions_only():
    logits = torch.zeros(1, 7)
    mask = torch.tensor([[1, 0, 1, 0, 1, 0, 0]])
    dist = MaskedCategorical(logits, mask)
    assert dist.entropy().item() == pytest.approx(np.log(3), abs=1e-6)
    single = MaskedCategorical(logits, torch.tensor([[0, 0, 1, 0, 0, 0, 0]]))
    assert single.entropy().item() == pytest.approx(0.0, abs=1e-7)
    assert torch.isfinite(single.log_prob(torch.tensor([2]))).all()


def test_network_shares_slot_weights_across_slots():
    agent = _agent()
    obs = torch.rand(1, LAYOUT.size)
    swapped = obs.clone()
    s0, s1 = slice(6, 9), slice(9, 12)
    swapped[0, s0], swapped[0, s1] = obs[0, s1], obs[0, s0]
    logits, value = agent.policy_and_value(obs)
    logits2, value2 = agent.policy_and_value(swapped)
    assert torch.allclose(logits[0, 3], logits2[0, 4]) and torch.allclose(logits[0, 4], logits2[0, 3])
    assert torch.allclose(value, value2, atol=1e-6)  # max-pool over slots: order does not matter


def test_gae_matches_hand_computation():
    r = np.array([1.0, 0.0, 2.0])
    v = np.array([0.5, 0.4, 0.3])
    gamma, lam = 0.9, 0.8
    # episode ends after step 2: no bootstrap
    d2 = 2.0 - 0.3
    d1 = 0.0 + 0.9 * 0.3 - 0.4
    d0 = 1.0 + 0.9 * 0.4 - 0.5
    a2 = d2
    a1 = d1 + 0.9 * 0.8 * a2
    a0 = d0 + 0.9 * 0.8 * a1
    adv, ret = gae(r, v, np.array([0, 0, 1]), gamma, lam)
    assert adv == pytest.approx([a0, a1, a2], abs=1e-6)
    assert ret == pytest.approx([a0 + 0.5, a1 + 0.4, a2 + 0.3], abs=1e-6)
    # cut short: bootstrap from last_value
    adv, _ = gae(r, v, np.array([0, 0, 0]), gamma, lam, last_value=1.0)
    assert adv[2] == pytest.approx(2.0 + 0.9 * 1.0 - 0.3, abs=1e-6)
    # a done in the middle stops credit flowing back across episodes
    adv, _ = gae(r, v, np.array([1, 0, 1]), gamma, lam)
    assert adv[0] == pytest.approx(1.0 - 0.5, abs=1e-6)


def _loss(**kw):
    base = dict(
        new_logprob=torch.log(torch.tensor([1.5, 0.5])),
        old_logprob=torch.zeros(2),
        advantages=torch.tensor([1.0, -1.0]),
        new_value=torch.tensor([2.0, 0.0]),
        old_value=torch.tensor([1.0, 0.0]),
        returns=torch.tensor([1.0, 1.0]),
        entropy=torch.ones(2),
        clip_coef=0.2,
        clip_vloss=False,
        norm_adv=False,
    )
    base.update(kw)
    return ppo_losses(**base)


def test_clipped_surrogate_value():
    out = _loss()
    # ratio 1.5 with A=+1: clipped to 1.2 -> -1.2; ratio 0.5 with A=-1: clipped to 0.8 -> 0.8
    assert out["pg_loss"].item() == pytest.approx((-1.2 + 0.8) / 2, abs=1e-6)
    assert out["clipfrac"].item() == 1.0


def test_value_clipping():
    plain = _loss(clip_vloss=False)["v_loss"].item()
    clipped = _loss(clip_vloss=True)["v_loss"].item()
    assert plain == pytest.approx(0.5 * ((2 - 1) ** 2 + (0 - 1) ** 2) / 2)
    # seat 0: value moved 1.0 > clip 0.2 -> clipped value 1.2, loss max(1, 0.04) = 1; seat 1 unchanged
    assert clipped == pytest.approx(0.5 * (max(1.0, 0.2**2) + 1.0) / 2)
    # clipping uses max(): a clipped prediction that is worse is what counts
    out = _loss(clip_vloss=True, new_value=torch.tensor([1.1, 0.0]), returns=torch.tensor([3.0, 0.0]))
    assert out["v_loss"].item() == pytest.approx(0.5 * ((3 - 1.1) ** 2 + 0) / 2)


def test_advantage_normalisation():
    adv = torch.tensor([1.0, 2.0, 3.0, 10.0])
    n = normalize(adv)
    assert n.mean().item() == pytest.approx(0.0, abs=1e-6)
    assert n.std(unbiased=False).item() == pytest.approx(1.0, abs=1e-5)
    scaled = _loss(advantages=torch.tensor([100.0, -100.0]), norm_adv=True)["pg_loss"]
    unit = _loss(advantages=torch.tensor([1.0, -1.0]), norm_adv=False)["pg_loss"]
    assert scaled.item() == pytest.approx(unit.item(), abs=1e-5)


def test_lr_annealing():
    assert lr_at(0, 10, 1e-3, True) == pytest.approx(1e-3)
    assert lr_at(5, 10, 1e-3, True) == pytest.approx(5e-4)
    assert lr_at(9, 10, 1e-3, True) == pytest.approx(1e-4)
    assert lr_at(9, 10, 1e-3, False) == pytest.approx(1e-3)


def _batch(n: int = 64, seed: int = 0) -> Batch:
    rng = np.random.default_rng(seed)
    agent = _agent(seed)
    obs = torch.tensor(rng.random((n, LAYOUT.size)), dtype=torch.float32)
    masks = torch.as_tensor(_masks(n, rng))
    with torch.no_grad():
        a, lp, _, v = agent.get_action_and_value(obs, masks, generator=torch.Generator().manual_seed(seed))
    adv = torch.tensor(rng.normal(size=n) * 50, dtype=torch.float32)
    return Batch(obs, masks, a, lp, v, adv, adv + v)


def test_update_reapplies_stored_masks(monkeypatch):
    batch = _batch()
    seen = []
    original = Agent.train_outputs

    def spy(self, obs, mask, action, hidden=None):
        seen.append((obs.clone(), mask.clone()))
        return original(self, obs, mask, action, hidden)

    monkeypatch.setattr(Agent, "train_outputs", spy)
    config = TrainConfig(update_epochs=1, num_minibatches=2)
    update_policy(_agent(0), torch.optim.Adam(_agent(0).parameters()), batch, config, np.random.default_rng(0))
    assert len(seen) == 2
    rows = {tuple(o.numpy().round(6).tolist()): m for obs, mask in seen for o, m in zip(obs, mask)}
    for o, m in zip(batch.obs, batch.masks):
        assert torch.equal(rows[tuple(o.numpy().round(6).tolist())], m)
    # and the resulting log-probs of the stored actions are finite (they were legal)
    dist = _agent(0).distribution(batch.obs, batch.masks)
    assert torch.isfinite(dist.log_prob(batch.actions)).all()


def test_gradient_clipping(monkeypatch):
    captured = []
    real = torch.nn.utils.clip_grad_norm_

    def spy(params, max_norm, *a, **kw):
        params = list(params)
        total = real(params, max_norm, *a, **kw)
        captured.append((total.item(), torch.norm(torch.stack([p.grad.norm() for p in params])).item()))
        return total

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", spy)
    agent = _agent(0)
    config = TrainConfig(update_epochs=1, num_minibatches=1, max_grad_norm=0.01, norm_adv=False)
    update_policy(agent, torch.optim.SGD(agent.parameters(), lr=0.0), _batch(), config, np.random.default_rng(0))
    pre, post = captured[0]
    assert pre > 0.01
    assert post == pytest.approx(0.01, rel=1e-3)


def test_update_is_seeded_and_reproducible():
    def run():
        torch.manual_seed(3)
        agent = _agent(3)
        opt = torch.optim.Adam(agent.parameters(), lr=1e-3)
        update_policy(
            agent, opt, _batch(seed=3), TrainConfig(update_epochs=2, num_minibatches=4), np.random.default_rng(5)
        )
        return torch.cat([p.detach().flatten() for p in agent.parameters()])

    assert torch.equal(run(), run())
