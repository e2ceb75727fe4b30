"""Conquian (source 004): the oldest rummy, 40 cards, two players, a faced card that is never
drawn into the hand, and forcing. The rules engine, its solver, the environments, players
and the family contract."""
