"""The shape every game's observation vector has: a global block, then ``K`` slot blocks of
equal width (one per suggested action: Carousel's plays, Gin Rummy's knocks), so that one
network design scores any game's slots with shared weights."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from carousel_env.core.cards import JOKER


@dataclass(frozen=True)
class ObservationLayout:
    """Where the parts of an observation vector are: a global block of ``global_size``
    values, then ``num_slots`` slot blocks of ``slot_features`` values each.

    The sizes alone describe a layout: that is all a network needs (it splits the vector,
    scores every slot with shared weights) and all a checkpoint stores (``as_dict``), and
    an environment may give only these (the training tests' stand-in; Gin Rummy's layout is
    read through :meth:`of`). Carousel's layout also names its channels: ``global_fields[name]``
    and ``slot_fields[name]`` are slices, slot fields relative to the start of a slot.
    Layouts compare by their sizes, so a network built from a checkpoint's sizes fits the
    environment whose layout has them.
    """

    global_size: int
    num_slots: int
    slot_features: int
    global_fields: Mapping[str, slice] = field(default_factory=dict, compare=False, repr=False)
    slot_fields: Mapping[str, slice] = field(default_factory=dict, compare=False, repr=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        # A plain attribute, not a property: the encoder reads it on every call.
        object.__setattr__(self, "size", self.global_size + self.num_slots * self.slot_features)

    @property
    def slots_start(self) -> int:
        return self.global_size

    def slot(self, k: int) -> slice:
        start = self.slots_start + k * self.slot_features
        return slice(start, start + self.slot_features)

    def slots(self, vector: np.ndarray) -> np.ndarray:
        """The slot blocks of ``vector`` (shape ``(..., size)``) as ``(..., num_slots, slot_features)``."""
        return vector[..., self.slots_start :].reshape(*vector.shape[:-1], self.num_slots, self.slot_features)

    def as_dict(self) -> dict[str, int]:
        """The sizes as plain data: what a checkpoint stores with its network."""
        return {
            "global_size": self.global_size,
            "slots_start": self.slots_start,
            "num_slots": self.num_slots,
            "slot_features": self.slot_features,
        }

    @classmethod
    def of(cls, layout: object) -> ObservationLayout:
        """The sizes of any game's layout (one with ``as_dict()`` giving this class's keys)."""
        return layout if isinstance(layout, cls) else cls.from_dict(layout.as_dict())

    @classmethod
    def from_dict(cls, sizes: Mapping[str, int]) -> ObservationLayout:
        """The layout ``as_dict`` describes (``slots_start`` is checked, not stored: the
        slots always follow the global block)."""
        lay = cls(int(sizes["global_size"]), int(sizes["num_slots"]), int(sizes["slot_features"]))
        if int(sizes["slots_start"]) != lay.slots_start:
            raise ValueError(
                f"slots_start {sizes['slots_start']} is not where the global block ends ({lay.global_size})"
            )
        return lay


class ChannelLayout(NamedTuple):
    """A game's observation as named channels (Gin Rummy's and Carioca's): where each lies,
    ``offsets[name] = (start, stop)`` in the global block, and slot ``k`` starting at
    ``global_size + k * slot_size`` with its channels at ``slot_offsets``."""

    offsets: dict
    slot_offsets: dict
    global_size: int
    slot_size: int
    k: int

    @property
    def size(self) -> int:
        return self.global_size + self.k * self.slot_size

    def as_dict(self) -> dict[str, int]:
        """The sizes, as :class:`ObservationLayout` names them: what a network needs and a
        checkpoint stores."""
        return {
            "global_size": self.global_size,
            "slots_start": self.global_size,
            "num_slots": self.k,
            "slot_features": self.slot_size,
        }


def _offsets(channels: Sequence[tuple[str, int]]) -> tuple[dict, int]:
    offsets, at = {}, 0
    for name, width in channels:
        offsets[name] = (at, at + width)
        at += width
    return offsets, at


def channel_layout(
    global_channels: Sequence[tuple[str, int]], slot_channels: Sequence[tuple[str, int]], k: int
) -> ChannelLayout:
    """The layout of ``(name, width)`` channels, in order, then ``k`` slots of ``slot_channels``."""
    offsets, size = _offsets(global_channels)
    slot_offsets, slot_size = _offsets(slot_channels)
    return ChannelLayout(offsets, slot_offsets, size, slot_size, k)


class CardActions(NamedTuple):
    """A game's fixed actions that each name a card (its discards), and the observation's
    card channels laid out in the same card order: a network's card head scores action
    ``first_action + c`` from every channel's value at ``c`` (``training/network.py``)."""

    first_action: int  # the action naming card 0
    num_cards: int
    channel_starts: tuple[int, ...]  # where each num_cards-wide channel of the global block starts

    def as_dict(self) -> dict:
        """Plain data: what a checkpoint stores with a network that has a card head."""
        return {
            "first_action": self.first_action,
            "num_cards": self.num_cards,
            "channel_starts": list(self.channel_starts),
        }

    @classmethod
    def from_dict(cls, values: Mapping) -> CardActions:
        return cls(
            int(values["first_action"]), int(values["num_cards"]), tuple(int(x) for x in values["channel_starts"])
        )


def card_actions(global_channels: Sequence[tuple[str, int]], first_action: int, num_cards: int) -> CardActions:
    """The card actions from ``first_action``, read with every ``num_cards``-wide channel of
    ``global_channels`` (``(name, width)`` in order, as :func:`channel_layout` takes them)."""
    offsets, _ = _offsets(global_channels)
    starts = tuple(start for start, stop in offsets.values() if stop - start == num_cards)
    if not starts:
        raise ValueError(f"no channel of the global block is {num_cards} cards wide")
    return CardActions(int(first_action), num_cards, starts)


DECKS_SCALE = 2.0  # a real card's count in a two-deck game is at most 2


def add_card_counts(out: np.ndarray, start: int, cards: Sequence[int], jokers: int) -> None:
    """Add ``cards`` to the 53-wide card channel at ``start``: each real card's count over 2
    (two decks), the joker's over ``jokers`` (the pack's jokers)."""
    for card in cards:
        out[start + card] += 1.0 / DECKS_SCALE if card != JOKER else 1.0 / jokers
