"""What every game's env shares: the classic-game wrappers (``wrappers``), the seats, the
report of automatic decisions, the reset seeds and the registration (``seats``), the AEC
env's plumbing (``aec``), the vector env's driver (``vector``), and the single-agent
Gymnasium forms over them (``gym_env``: one learning seat; ``gym_vector``: its ``VectorEnv``
over the compiled vector env). It imports no game.
"""
