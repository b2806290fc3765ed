"""Benchmarks of django-api-conventions: ``python -m benchmarks`` (``--quick`` for a fast check).

Each scenario runs side by side with its baseline, in alternating rounds of the same run, so the
ratios stay fair on a busy machine. See docs/performance.md.
"""
