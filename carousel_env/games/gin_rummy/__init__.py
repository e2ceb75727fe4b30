"""Gin Rummy (source 004; RULES.md, "Gin Rummy"), with the presets ``book`` (the default),
``openspiel`` and ``eaai``.

``rules`` (options and presets), ``melds`` (exact deadwood, knock arrangements, lay-offs),
``engine`` (the immutable state and ``apply``), ``observation``, ``config``, ``players``
(scripted players), ``render``, ``env`` (the PettingZoo AEC env), ``kernel`` and ``vector``
(the compiled vector env), ``policies`` (players and callables at the env's decisions) and
``gym`` (the single-agent Gymnasium env and ``VectorEnv``, ``GinRummy-v0``).
"""
