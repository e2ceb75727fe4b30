"""Carousel: a manipulation-rummy card game as a rules engine, an exact play solver and
a PettingZoo environment."""

__version__ = "0.1.0"
