"""Benchmarks with targets, each printed beside a reference measured in the same run (issue 7).

Not part of the pass/fail tests. ``python -m benchmarks`` (or ``make bench``)
prints a table and writes JSON under ``benchmarks/results/``.
"""
