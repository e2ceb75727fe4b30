"""Gin Rummy (source 004; RULES.md, "Gin Rummy"), with the presets ``book`` (the default),
``openspiel`` and ``eaai``.

``rules`` (options and presets), ``melds`` (exact deadwood, knock arrangements, lay-offs),
``engine`` (the immutable state and ``apply``), ``observation``, ``config``, ``env`` (the
PettingZoo AEC env) and ``render``.
"""
