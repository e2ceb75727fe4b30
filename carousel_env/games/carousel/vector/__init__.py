"""Carousel's vector environment: many games stepped by one compiled call (``env``), the
rules of a round over arrays (``kernel``), the observations over arrays (``encode``), and
its single-agent Gymnasium ``VectorEnv`` form (``carousel_env.games.carousel.vector.gym``, imported on
its own: it brings in the scripted players)."""

from carousel_env.games.carousel.vector.env import WAIT, CarouselVectorEnv, FinishedGame, VectorInfo, VectorStep

__all__ = ["WAIT", "CarouselVectorEnv", "FinishedGame", "VectorInfo", "VectorStep"]
