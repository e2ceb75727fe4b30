"""Code the tests and benchmarks share: the MILP reference solver (``milp_reference``), the
seeded position generators (``positions``), the stored positions with their optima
(``stored``), the soak run and its checks (``soak``, ``soak_checks``) and a tiny stand-in
environment for the training tests (``fake_env``). Imported as
``tests.support.<module>`` everywhere (tests run with the repository root on the path)."""
