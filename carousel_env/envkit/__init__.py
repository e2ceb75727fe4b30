"""What every game's PettingZoo env shares: the classic-game wrappers (``wrappers``), the
seats, the report of automatic decisions, the reset seeds and the registration
(``seats``). It imports no game.
"""
