"""The games of the rummy family, one folder each: its rules engine, its exact solver of
what the env asks, its env and its players. Each game registers itself with
:mod:`carousel_env.core.registry`; what they share (cards, notation, errors) is in
:mod:`carousel_env.core`.
"""
