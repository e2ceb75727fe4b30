"""Carousel's vector environment: many games stepped by one compiled call (``env``), the
rules of a round over arrays (``kernel``), the observations over arrays (``encode``)."""

from carousel_env.vector.env import WAIT, CarouselVectorEnv, FinishedGame, VectorInfo, VectorStep

__all__ = ["WAIT", "CarouselVectorEnv", "FinishedGame", "VectorInfo", "VectorStep"]
