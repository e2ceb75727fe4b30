"""What belongs to no game: cards and their notation (``cards``), the shared errors
(``errors``) and the registry of games (``registry``). It imports no game and no RL library.
"""
