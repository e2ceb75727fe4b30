"""Players that act from an environment observation.

* ``baselines``: the scripted players (``random``, ``greedy``, ``smart``).
* ``registry``: their names: ``get_policy(name, seed=...)``, ``policy_names()``.
* ``match``: playing policies against each other: the episode and result types training
  shares, and the match runner (``play_match``, ``round_robin``, ``engine_player``).
"""
