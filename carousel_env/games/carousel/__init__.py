"""Carousel (sources 000-002) and its Manipulation Rummy variant (source 004), in layers:

* ``engine``: cards in play, melds, the manipulation check, scoring, rules, the game;
* ``solver``: the exact rearrangement solver (``solve``, ``has_play``);
* ``envs``: the PettingZoo AEC env, its observation and renderers;
* ``agents``: scripted and search players, the policy registry, the match runner;
* ``vector``: the compiled vector env and its Gymnasium form.
"""
