"""Code the tests and benchmarks share: the MILP reference solver, the seeded position
generators and a tiny stand-in environment for the training tests. Imported as
``tests.support.<module>`` everywhere (tests run with the repository root on the path)."""
