"""Medians, percentiles and ratios of latency samples."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


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
