"""Self-play PPO on RLlib and Ray: ``carousel train --backend rllib``.

``config`` (``RllibConfig``: every key, documented), ``module`` (our network as a masked
RLlib module, and its export into our checkpoint format), ``selfplay`` (the learner
against a pool of its frozen snapshots), ``train`` (the RLlib algorithm and the loop:
Ray cluster or local instance, checkpoints, resume). Importing these modules imports ray;
the rest of ``training`` never does.
"""
