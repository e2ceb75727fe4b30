"""Benchmarks that print their figures (never timed assertions). Run each as a module from
the repository root, e.g. ``.venv/bin/python -m benchmarks.bench_env``; ``python3 tasks.py
bench`` runs the quick ones. Figures measured with them are kept, dated, in RESULTS.md."""
