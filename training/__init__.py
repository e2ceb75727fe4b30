"""Self-play PPO training for Carousel.

``config`` (a run's knobs), ``envs`` (the environment as training sees it), ``network``,
``policies`` (who plays a seat), ``runners`` (game copies, in worker processes too),
``episodes`` (whole episodes with network seats batched), ``pool`` (the PFSP opponent
pool), ``rollout`` (the learner's trajectories), ``ppo`` (the loop), ``evaluate`` and
``tournament``, ``checkpoint``, ``logger``.
"""
