"""The PettingZoo environment over the engine and the solver.

``aec`` (the AEC env: ``raw_env`` and the wrapped ``env``), ``wrappers`` (the classic-game
wrappers), ``observation`` (the observation vector and its layout), ``config`` (the env's
validated options) and the renderers ``render_text`` and ``render_image``. The single-agent
Gymnasium form, which seats scripted opponents, sits above the agents in
``carousel_env.games.carousel.gym``.
"""
