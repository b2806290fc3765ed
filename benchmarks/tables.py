"""The plain-text tables the benchmark reports print, and the numbers in their cells."""

from __future__ import annotations

import math


def format_ms(value: float) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.2f}"


def format_ratio(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.2f}x"


def text_table(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    line = lambda cells: "  ".join(str(cell).ljust(width) for cell, width in zip(cells, widths, strict=True))  # noqa: E731
    return "\n".join([f"\n{title}", line(header), line(["-" * width for width in widths]), *map(line, rows)])
