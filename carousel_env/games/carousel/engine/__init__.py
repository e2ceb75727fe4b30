"""The rules engine: pure, typed, immutable, with no RL imports.

``cards`` (notation, the deck), ``melds`` (valid sets and runs), ``positions`` (could a
game reach this table and hand), ``manipulation`` (is a rearranged table a legal play),
``scoring`` (round and game scores), ``rules`` (the variant options of RULES.md), ``game``
(deal, turns, round ends) and ``errors`` (every error the package raises). The game asks
whether a player can play only in Manipulation Rummy, through a function it is given
(``new_game(..., can_play=...)``), so the engine never imports the solver.
"""
