"""Carousel's single-agent Gymnasium env, where it was before 0.5: it now lives with its game
(:mod:`carousel_env.games.carousel.gym`), and this import path is kept for one version.
``gymnasium.make("carousel_env.single_agent:Carousel-v0")`` still registers every game's id."""

from carousel_env.games.carousel.gym import CarouselSingleAgentEnv

__all__ = ["CarouselSingleAgentEnv"]
