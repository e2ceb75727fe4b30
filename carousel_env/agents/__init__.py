"""Players that act from an environment observation: the scripted baselines, the policy
registry that names them, and the match runner that plays them against each other."""
