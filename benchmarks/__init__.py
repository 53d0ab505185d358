"""Benchmarks: `make bench` prints figures (never asserted by tests).

Each figure is printed next to a straightforward implementation of the same work, run in the
same process, as a ratio: this machine is shared and noisy, so only same-run ratios are stable.
"""
