"""Carousel: a manipulation-rummy card game as a rules engine, an exact play solver and
a PettingZoo environment."""

__version__ = "0.1.0"

__all__ = ["env", "raw_env"]


def __getattr__(name: str):
    # The environments pull in PettingZoo and Gymnasium; load them only when asked so that
    # the engine and the command line stay light.
    if name in ("env", "raw_env"):
        from carousel_env import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'carousel_env' has no attribute {name!r}")
