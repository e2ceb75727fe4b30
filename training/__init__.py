"""Self-play PPO training for Carousel: config, network, PPO loop, self-play, evaluation, tools."""
