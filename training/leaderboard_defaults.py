"""The leaderboard's defaults, apart from ``training.leaderboard`` so that ``carousel
leaderboard --help`` can show them without importing torch."""

SEARCH_BUDGETS = (4, 16)  # the search player's determinizations per action, one roster entry each
BASELINES = ("random", "greedy", "smart", *(f"search@{n}" for n in SEARCH_BUDGETS))
GUIDED_BUDGET = 8  # the guided search's determinizations per action, one entry per heads-up shipped agent
HEADS_UP_GAMES = 60  # games per pair
FOUR_PLAYER_GAMES = 24  # games per table of 4
STATE_NAME = "leaderboard_games.json"  # the state file's default name, beside the page
