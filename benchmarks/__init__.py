"""Benchmarks that compare with XLA side by side in one run (:mod:`~benchmarks.dispatch`: start-up and
per-call dispatch); their results, with device and date, are under ``benchmarks/results/``."""
