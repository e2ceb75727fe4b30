"""A view policy for tests of the drivers that hand seats their views."""

from __future__ import annotations

import numpy as np


class SeatRecorder:
    """A view policy that plays its first legal action and records the seat of each view."""

    decides_from_view = True

    def __init__(self) -> None:
        self.seats: list[int] = []

    def decide(self, view, mask):
        assert view.is_decision and len(view.hand) == view.hand_sizes[view.seat]
        self.seats.append(view.seat)
        return int(np.flatnonzero(mask)[0])
