"""Carioca (source 003; RULES.md, "Carioca"): the family's contract game, 2 to 5 players,
two decks and four jokers, six rounds of harder contracts.

``rules`` (contracts, card values, escalera positions), ``melds`` (trios and escaleras on
the table, lay-offs and the joker rules), ``solver`` (the contract's arrangements, the
distance to it, the legal lay-offs), ``engine`` (the immutable state and ``apply``),
``observation``, ``config``, ``players`` (scripted players), ``render`` and ``env`` (the
PettingZoo AEC env).
"""
