"""Figures of the fault and load runs: printed, and written as JSON under var/reliability/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .servers import REPOSITORY

FIGURES = REPOSITORY / "var" / "reliability"


def report(name: str, figures: dict[str, Any]) -> Path:
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / f"{name}.json"
    text = json.dumps(figures, indent=2, sort_keys=True, default=str)
    path.write_text(text + "\n")
    print(f"\n{name}: {text}")
    return path
