"""The ``carousel`` command line: the top layer, over ``carousel_env`` and ``training``.

``main`` builds the parser from one module per feature: ``demo``, ``solve`` and
``training`` (train, eval, tournament, play, export; needs the ``train`` extra).
"""
