"""Self-play PPO training for every game of the family, and the yardsticks that measure it.

``config`` (a run's knobs, the env's keys embedded), ``games`` (what training knows of each
game), ``envs`` (the environment as training sees it: its spec and shape), ``network``,
``device`` (where the learner trains), ``policies`` (who plays a seat), ``runners`` (game
copies, in worker processes too), ``episodes`` (whole episodes with network seats
batched), ``pool`` (the PFSP opponent pool), ``rollout`` (the learner's trajectories),
``ppo`` (the loop), ``imitation`` (a network taught a scripted player's moves),
``evaluate``, ``tournament`` and ``leaderboard``, ``exploit`` (a best response's win rate
against a frozen agent), ``checkpoint`` and ``checkpoint_names``, ``files``, ``logger``;
``rllib`` the same self-play on RLlib.
"""
