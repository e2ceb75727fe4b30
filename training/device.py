"""Where the learner's network lives and learns: config key ``device`` (both trainers).

``auto`` takes the first CUDA GPU when torch sees one and the CPU otherwise; ``cpu``,
``cuda`` and ``cuda:N`` are taken as said, and a GPU torch cannot see is an error naming the
key. Only the learner moves: the game copies and the network that acts in them stay on the
CPU, where a batch of a few dozen decisions is answered faster than a GPU round trip takes
(``benchmarks/bench_device.py`` measures both learners in one run). A checkpoint's network
is saved from the CPU copy and every checkpoint is read onto the CPU first, so a run saved
on either device loads, evaluates and resumes on the other.
"""

from __future__ import annotations

import os
import re

from carousel_env.core.errors import CarouselError

DEVICE_DEFAULT = "auto"
DEVICE_DOC = (
    "where the learner's network trains: auto (a CUDA GPU when torch sees one, else the CPU), cpu, cuda or "
    "cuda:N; rollouts always run on the CPU"
)
_DEVICE_NAME = re.compile(r"auto|cpu|cuda(:\d+)?")


class DeviceError(CarouselError):
    """A ``device`` that is malformed, or names a GPU this torch cannot see."""


def check_device_name(value: str) -> None:
    """A ``DeviceError`` naming the key unless ``value`` is one of the accepted forms (no torch needed)."""
    if not _DEVICE_NAME.fullmatch(value):
        raise DeviceError(f"config key 'device': must be auto, cpu, cuda or cuda:N, got {value!r}")


def resolve_device(value: str, deterministic: bool = False):
    """The ``torch.device`` that ``value`` names here (``auto`` resolved)."""
    import torch

    check_device_name(value)
    if value == "auto":
        value = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(value)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
            raise DeviceError(f"config key 'device': {value} asked, but torch ({build}) sees no GPU; use auto or cpu")
        index = 0 if device.index is None else device.index
        if index >= torch.cuda.device_count():
            raise DeviceError(
                f"config key 'device': {value} asked, but torch sees {torch.cuda.device_count()} GPU(s) (0-based)"
            )
        device = torch.device("cuda", index)
        if deterministic:  # cuBLAS repeats its results only with a fixed workspace (set before its first use)
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    return device


def describe(device) -> str:
    """``cpu``, or ``cuda:0 (the GPU's name)``: what a run's log says it used."""
    import torch

    if device.type != "cuda":
        return str(device)
    return f"{device} ({torch.cuda.get_device_name(device)})"
