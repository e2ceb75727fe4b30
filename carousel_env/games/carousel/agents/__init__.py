"""Players that act from an environment observation, or from their seat's view.

* ``baselines``: the scripted players (``random``, ``greedy``, ``smart``).
* ``search``: the determinized Monte Carlo search player, a view policy.
* ``registry``: their names: ``get_policy(name, seed=...)``, ``policy_names()``,
  ``is_policy_name`` (``search@N`` too).
* ``match``: playing policies against each other: the episode and result types training
  shares, the match runner (``play_match``, ``round_robin``, ``engine_player``) and
  ``policy_action``, which hands a view policy its seat's view.
"""
