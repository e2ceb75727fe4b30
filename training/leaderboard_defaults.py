"""The leaderboard's defaults, apart from ``training.leaderboard`` so that ``carousel
leaderboard --help`` can show them without importing torch."""

from carousel_env.integrations import OPENSPIEL_PREFIX

SEARCH_BUDGETS = (4, 16)  # the search player's determinizations per action, one roster entry each
BASELINES = ("random", "greedy", "smart", *(f"search@{n}" for n in SEARCH_BUDGETS))
GUIDED_BUDGET = 8  # the guided search's determinizations per action, one entry per heads-up shipped agent
HEADS_UP_GAMES = 60  # games per pair
FOUR_PLAYER_GAMES = 24  # games per table of 4
STATE_NAME = "leaderboard_games.json"  # the state file's default name, beside the page
# Gin Rummy's (--game gin_rummy): heads-up hands under OpenSpiel's rules, with OpenSpiel's own
# simple bot among the agents (where open_spiel is installed).
GIN_BASELINES = ("random", "greedy", "simple", "search")
GIN_OPENSPIEL_BOTS = (f"{OPENSPIEL_PREFIX}simple",)
# Carioca's (--game carioca): whole games of six rounds, heads-up and at 4 players. Its search
# player is left out by default: no stronger than `simple` there, at 50 times a game's time.
CARIOCA_BASELINES = ("random", "simple", "outs")
