"""The leaderboard's defaults, apart from ``training.leaderboard`` so that ``carousel
leaderboard --help`` can show them without importing torch. Each game's roster of scripted
players is its own (``LeaderboardFacts`` in its family contract)."""

GUIDED_BUDGET = 8  # the guided search's determinizations per action, one entry per heads-up shipped agent
HEADS_UP_GAMES = 60  # games per pair
FOUR_PLAYER_GAMES = 24  # games per table of 4
