"""A solve's time budget for tests that compare answers, not times."""

# No solve in a test comes near it alone (the heaviest take about 0.33 s): a loaded machine
# must not turn an exact answer into a timed-out one.
UNHURRIED_S = 120.0
