"""The policy/value network and the masked categorical distribution, for every game.

Action layout (the environment's): ``num_fixed_actions`` fixed actions (Carousel's draw
again, knock and end turn; Gin Rummy's stock, upcard, pass and 52 discards), then one per
suggestion slot. The observation vector is ``[global block][K slot blocks of F features]``,
as the environment's ``ObservationLayout`` describes it. Suggestion slots are
interchangeable (slot k is just the solver's k-th proposal), so one MLP scores every slot
from ``[slot features, global embedding]``: the network cannot learn a preference for a
slot index and its size does not grow with K.

A **card head** (``card_actions``, config key ``card_head``) scores a game's card actions
(its discards) card by card: one MLP reads each card's values in the observation's card
channels, a learned vector of the card and the shared features, so that a rule learnt of one
card (discard what helps the opponent least) holds for every card. Without it the discards
are 40 to 53 separate outputs of the trunk, each learnt apart.

Two optional parts train from what a seat cannot see (``FamilyGame.hidden_cards``: the other
hands' cards), for self-play that must learn the cards from scratch; neither is used to act:

* a **state critic** (``state_critic``): the value reads the hidden cards beside the shared
  features, as in centralised-critic methods (the policy still sees only its observation);
* an **auxiliary head** (``predicts_hidden``): logits of which cards the others hold, fitted
  by cross-entropy to the true hands, so the shared features learn what the table reveals.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from carousel_env.envkit.layout import CardActions, ObservationLayout
from carousel_env.games.carousel.envs.aec import NUM_FIXED_ACTIONS  # Carousel's: the default


class MaskedCategorical:
    """A categorical distribution restricted to the legal actions.

    Illegal logits are replaced by the dtype's most negative value (not -inf, which turns
    an all-masked row or a 0 * -inf product into NaN), so they get probability exactly 0
    after the softmax underflows; entropy sums over legal actions only, so the entropy
    bonus does not reward spreading mass onto actions that can never be taken.
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        self.mask = mask.bool()
        very_negative = torch.finfo(logits.dtype).min
        self.logits = torch.where(self.mask, logits, torch.full_like(logits, very_negative))
        self.log_probs = torch.log_softmax(self.logits, dim=-1)
        self.probs = self.log_probs.exp()

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """One action per row, by inverse-CDF sampling: the distribution of
        ``torch.multinomial``, at a fifth of its cost on a rollout's batch of 64 rows. A point
        strictly below the row's total lands on an action of nonzero probability: illegal
        actions add exactly 0 to the CDF."""
        cdf = self.probs.double().cumsum(-1)
        total = cdf[:, -1:]
        u = torch.rand(total.shape, dtype=torch.float64, device=cdf.device, generator=generator) * total
        u = torch.minimum(u, torch.nextafter(total, torch.zeros_like(total)))  # never the total itself
        return torch.searchsorted(cdf, u, right=True).squeeze(-1)

    def mode(self) -> torch.Tensor:
        return self.logits.argmax(dim=-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        terms = torch.where(self.mask, self.probs * self.log_probs, torch.zeros_like(self.probs))
        return -terms.sum(-1)


def _layer(n_in: int, n_out: int, std: float = 2**0.5) -> nn.Linear:
    # Orthogonal init with CleanRL's gains: small policy outputs start near uniform.
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, 0.0)
    return layer


CARD_EMBEDDING = 8  # a learned vector per card: the card's identity beside its channels


class TrainOutputs(NamedTuple):
    """What one forward pass gives PPO's update: the actions' log-probabilities, the
    entropies, the values and the auxiliary head's logits (None without the head)."""

    logprob: torch.Tensor
    entropy: torch.Tensor
    value: torch.Tensor
    hidden_logits: torch.Tensor | None


def _check_card_actions(cards: CardActions, layout: ObservationLayout, num_fixed_actions: int) -> None:
    if cards.first_action < 0 or cards.first_action + cards.num_cards > num_fixed_actions:
        raise ValueError(
            f"card actions {cards.first_action}..{cards.first_action + cards.num_cards - 1} are not all among the "
            f"{num_fixed_actions} fixed actions"
        )
    if not cards.channel_starts or any(s < 0 or s + cards.num_cards > layout.global_size for s in cards.channel_starts):
        raise ValueError(
            f"card channels at {cards.channel_starts} do not lie in the global block ({layout.global_size})"
        )


class Agent(nn.Module):
    def __init__(
        self,
        layout: ObservationLayout,
        hidden_size: int = 128,
        slot_hidden_size: int = 64,
        num_fixed_actions: int = NUM_FIXED_ACTIONS,
        hidden_width: int = 0,
        state_critic: bool = False,
        predicts_hidden: bool = False,
        card_actions: CardActions | None = None,
    ) -> None:
        super().__init__()
        if (state_critic or predicts_hidden) and hidden_width < 1:
            raise ValueError("a state critic or an auxiliary head needs the hidden cards' width (hidden_width >= 1)")
        self.layout = layout
        self.hidden_size = hidden_size
        self.slot_hidden_size = slot_hidden_size
        self.num_fixed_actions = num_fixed_actions
        self.hidden_width = hidden_width if (state_critic or predicts_hidden) else 0
        self.state_critic = state_critic
        self.predicts_hidden = predicts_hidden
        self.global_encoder = nn.Sequential(
            _layer(layout.global_size, hidden_size), nn.Tanh(), _layer(hidden_size, hidden_size), nn.Tanh()
        )
        self.slot_encoder = nn.Sequential(
            _layer(layout.slot_features + hidden_size, slot_hidden_size),
            nn.Tanh(),
            _layer(slot_hidden_size, slot_hidden_size),
            nn.Tanh(),
        )
        self.slot_logit = _layer(slot_hidden_size, 1, std=0.01)
        # The fixed actions and the value also see the best suggestion on offer (max-pool
        # over slots): whether to draw again depends on what can be played now.
        self.trunk = nn.Sequential(_layer(hidden_size + slot_hidden_size, hidden_size), nn.Tanh())
        self.fixed_logits = _layer(hidden_size, num_fixed_actions, std=0.01)
        if state_critic:
            self.critic_encoder = nn.Sequential(_layer(hidden_width, hidden_size), nn.Tanh())
        self.value_head = _layer(hidden_size * (2 if state_critic else 1), 1, std=1.0)
        if predicts_hidden:
            self.hidden_head = _layer(hidden_size, hidden_width, std=0.01)
        self.card_actions = card_actions
        if card_actions is not None:
            _check_card_actions(card_actions, layout, num_fixed_actions)
            self.card_embedding = nn.Parameter(torch.randn(card_actions.num_cards, CARD_EMBEDDING) * 0.1)
            width = len(card_actions.channel_starts) + CARD_EMBEDDING + hidden_size
            self.card_encoder = nn.Sequential(
                _layer(width, slot_hidden_size), nn.Tanh(), _layer(slot_hidden_size, slot_hidden_size), nn.Tanh()
            )
            self.card_logit = _layer(slot_hidden_size, 1, std=0.01)

    def _features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy's logits and the shared features ``h`` the heads read."""
        lay = self.layout
        g = self.global_encoder(obs[:, : lay.global_size])
        slots = obs[:, lay.slots_start : lay.size].reshape(-1, lay.num_slots, lay.slot_features)
        g_rep = g.unsqueeze(1).expand(-1, lay.num_slots, -1)
        slot_h = self.slot_encoder(torch.cat([slots, g_rep], dim=-1))
        slot_logits = self.slot_logit(slot_h).squeeze(-1)
        h = self.trunk(torch.cat([g, slot_h.max(dim=1).values], dim=-1))
        fixed = self.fixed_logits(h)
        if self.card_actions is not None:
            fixed = self._with_card_logits(obs, h, fixed)
        logits = torch.cat([fixed, slot_logits], dim=-1)
        return logits, h

    def _with_card_logits(self, obs: torch.Tensor, h: torch.Tensor, fixed: torch.Tensor) -> torch.Tensor:
        """``fixed`` with the card actions scored card by card: one MLP reads each card's
        channels, its embedding and ``h``, so what it learns of one card holds for every card."""
        cards = self.card_actions
        n = cards.num_cards
        channels = torch.stack([obs[:, s : s + n] for s in cards.channel_starts], dim=-1)  # (B, n, channels)
        rows = obs.shape[0]
        parts = [channels, self.card_embedding.expand(rows, -1, -1), h.unsqueeze(1).expand(-1, n, -1)]
        card_logits = self.card_logit(self.card_encoder(torch.cat(parts, dim=-1))).squeeze(-1)
        first = cards.first_action
        return torch.cat([fixed[:, :first], card_logits, fixed[:, first + n :]], dim=-1)

    def _value(self, h: torch.Tensor, hidden: torch.Tensor | None) -> torch.Tensor:
        if not self.state_critic:
            return self.value_head(h).squeeze(-1)
        if hidden is None:
            raise ValueError("this network's critic reads the hidden cards (hidden=, from the runners' reports)")
        return self.value_head(torch.cat([h, self.critic_encoder(hidden)], dim=-1)).squeeze(-1)

    def policy_and_value(
        self, obs: torch.Tensor, hidden: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy's logits (before the mask) and the value."""
        logits, h = self._features(obs)
        return logits, self._value(h, hidden)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The policy head's logits, before the mask."""
        return self._features(obs)[0]

    def get_value(self, obs: torch.Tensor, hidden: torch.Tensor | None = None) -> torch.Tensor:
        return self._value(self._features(obs)[1], hidden)

    def get_action_and_value(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        action: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
        hidden: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(action, log-prob, entropy, value); samples when ``action`` is None."""
        logits, h = self._features(obs)
        dist = MaskedCategorical(logits, mask)
        if action is None:
            action = dist.sample(generator)
        return action, dist.log_prob(action), dist.entropy(), self._value(h, hidden)

    def train_outputs(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor, hidden: torch.Tensor | None = None
    ) -> TrainOutputs:
        """One forward pass for PPO's update: ``action``'s log-prob, the entropy, the value
        and, with the auxiliary head, its logits of the hidden cards."""
        logits, h = self._features(obs)
        dist = MaskedCategorical(logits, mask)
        hidden_logits = self.hidden_head(h) if self.predicts_hidden else None
        return TrainOutputs(dist.log_prob(action), dist.entropy(), self._value(h, hidden), hidden_logits)

    def distribution(self, obs: torch.Tensor, mask: torch.Tensor) -> MaskedCategorical:
        return MaskedCategorical(self._features(obs)[0], mask)

    def load_shared(self, source: Agent) -> list[str]:
        """Copy ``source``'s parameters wherever the name and shape match (a network started
        from one without a state critic or auxiliary head); the names left as initialised."""
        theirs = source.state_dict()
        mine = self.state_dict()
        kept = {k: v for k, v in theirs.items() if k in mine and mine[k].shape == v.shape}
        mine.update(kept)
        self.load_state_dict(mine)
        return sorted(set(mine) - set(kept))

    def spec(self) -> dict:
        """What a checkpoint needs to rebuild this network."""
        return {
            "layout": self.layout.as_dict(),
            "hidden_size": self.hidden_size,
            "slot_hidden_size": self.slot_hidden_size,
            "num_fixed_actions": self.num_fixed_actions,
            "hidden_width": self.hidden_width,
            "state_critic": self.state_critic,
            "predicts_hidden": self.predicts_hidden,
            "card_actions": None if self.card_actions is None else self.card_actions.as_dict(),
        }

    @classmethod
    def from_spec(cls, spec: dict) -> Agent:
        return cls(
            ObservationLayout.from_dict(spec["layout"]),
            spec["hidden_size"],
            spec["slot_hidden_size"],
            # Checkpoints from before Gin Rummy hold Carousel's networks and no count.
            spec.get("num_fixed_actions", NUM_FIXED_ACTIONS),
            # Checkpoints from before issue 53's state critic and auxiliary head have neither.
            spec.get("hidden_width", 0),
            bool(spec.get("state_critic", False)),
            bool(spec.get("predicts_hidden", False)),
            # Checkpoints from before the card head have none.
            None if spec.get("card_actions") is None else CardActions.from_dict(spec["card_actions"]),
        )
