"""Adapters between the Carousel env and outside RL libraries.

Each module imports its library on import, so import only the one you use:

* :mod:`carousel_env.integrations.rllib`: RLlib's multi-agent env (new API stack).
* :mod:`carousel_env.integrations.tianshou`: Tianshou's PettingZoo env, with every seat's
  rewards credited on its own transitions.

TorchRL and SB3 need no adapter: ``torchrl.envs.PettingZooWrapper(carousel_env.env(), ...)``
and ``carousel_env.games.carousel.gym.CarouselSingleAgentEnv`` work as they are (``examples/``).
"""

# The bots of OpenSpiel's Gin Rummy (:mod:`carousel_env.integrations.openspiel_gin`) are named
# with this prefix wherever agents are named (``openspiel:simple``); here, so that a name can
# be told apart without importing pyspiel.
OPENSPIEL_PREFIX = "openspiel:"
