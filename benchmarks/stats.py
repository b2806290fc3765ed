"""Medians, percentiles and ratios of latency samples, and the side-by-side loop that takes them."""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any


def percentile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` 0.99 is p99); NaN without samples."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def summary(samples_ms: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(samples_ms),
        "p50_ms": statistics.median(samples_ms) if samples_ms else math.nan,
        "p99_ms": percentile(samples_ms, 0.99),
    }


def ratio(value: float, baseline: float) -> float:
    return value / baseline if baseline and not math.isnan(baseline) else math.nan


def warm_up(scenarios: dict[str, Callable[[], int]]) -> None:
    """Imports, connections and caches made before anything is measured."""
    for action in scenarios.values():
        for _ in range(20):
            action()


def alternate(scenarios: dict[str, Callable[[], int]], requests: int) -> dict[str, Any]:
    """Each scenario (a call answering a status) ``requests`` times, in a new random order request
    by request, so a busy machine slows every scenario alike: the wall and this process's CPU
    milliseconds of each call (no waiting counted in the CPU), and the statuses."""
    samples: dict[str, list[float]] = {name: [] for name in scenarios}
    cpu: dict[str, list[float]] = {name: [] for name in scenarios}
    statuses: dict[str, Counter[int]] = {name: Counter() for name in scenarios}
    turn = list(scenarios)
    shuffler = random.Random(7)
    for _request in range(requests):
        shuffler.shuffle(turn)
        for name in turn:
            started, cpu_started = time.perf_counter(), time.process_time()
            status = scenarios[name]()
            samples[name].append((time.perf_counter() - started) * 1000)
            cpu[name].append((time.process_time() - cpu_started) * 1000)
            statuses[name][status] += 1
    return {"samples_ms": samples, "cpu_ms": cpu, "statuses": {name: dict(count) for name, count in statuses.items()}}


def median_of_runs(runs: Sequence[Any]) -> Any:
    """The runs of a repeated benchmark (``--repeat``) folded into one of the same shape: each number
    the median of its runs (of integers, the lower median, one of them: counts stay counts), any
    other value, and a list, as in the first run."""
    first = runs[0]
    if isinstance(first, dict):
        keys = list(dict.fromkeys(key for run in runs if isinstance(run, dict) for key in run))
        return {key: median_of_runs([run[key] for run in runs if isinstance(run, dict) and key in run]) for key in keys}
    if isinstance(first, bool) or not isinstance(first, int | float):
        return first
    numbers = [run for run in runs if isinstance(run, int | float) and not math.isnan(run)]
    if not numbers:
        return math.nan
    if all(isinstance(number, int) for number in numbers):
        return statistics.median_low(numbers)
    return statistics.median(numbers)
