"""Kaluki (source 004; RULES.md, "Kaluki"), with plain Rummy as its preset ``rummy``: 2 to 6
players draw from the stock or the discard pile, open with melds worth the opening
requirement, then lay melds, lay off on any meld and exchange table jokers, and go out by
emptying the hand. ``rules`` (options and presets, card values), ``melds`` (sets, runs,
lay-offs and joker exchanges), ``state`` (the immutable state and the moves), ``deal``
(dealing, the end of a hand, scoring and the game's end), ``engine`` (the pure ``apply``) and
``legal`` (what the player to act may do, for an env or a random player).
"""
