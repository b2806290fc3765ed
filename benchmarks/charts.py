"""SVG charts of a run's results, drawn with the standard library alone.

``python -m benchmarks.charts RESULTS.json DIRECTORY`` draws them from a saved run;
``python -m benchmarks --charts DIRECTORY`` right after its own. Each chart is a plain SVG file:
a title, a subtitle saying what was measured, labelled axes with units, a legend, and a
``<desc>`` that lists every figure for screen readers. Series differ by lightness and pattern
(bars) or by dash and marker (lines) as well as by colour, so they survive greyscale printing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

WIDTH = 700
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
INK = "#1a1a1a"
MUTED = "#555555"
GRID = "#dddddd"
BACKGROUND = "#ffffff"


@dataclass(frozen=True)
class Style:
    """How one series looks: a fill of its own lightness, hatched or not, and for lines a dash
    pattern and a marker."""

    colour: str
    hatch: bool = False
    dash: str = ""
    marker: str = "circle"


#: Dark, hatched middle, light, then mid grey: four lightness steps apart in greyscale.
STYLES = (
    Style("#1f4e79", dash="", marker="circle"),
    Style("#d55e00", hatch=True, dash="7 4", marker="square"),
    Style("#9ccfb4", dash="2 3", marker="triangle"),
    Style("#7a7a7a", hatch=True, dash="9 3 2 3", marker="diamond"),
)


@dataclass(frozen=True)
class Bar:
    """One bar: its series, its median, and optionally its p99 and the floor drawn across it."""

    series: str
    value: float
    p99: float | None = None
    floor: float | None = None


@dataclass(frozen=True)
class Group:
    label: str
    bars: list[Bar]


@dataclass(frozen=True)
class Line:
    series: str
    points: list[tuple[float, float]]


def _number(value: float) -> str:
    """A figure as the charts print it: three significant digits, thousands separated."""
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _tick(value: float, ticks: Sequence[float]) -> str:
    """A tick's label, with as many decimals as the step needs and no more."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    decimals = next((n for n in range(4) if abs(round(step, n) - step) < 1e-9), 3)
    return f"{value:,.{decimals}f}"


def _present(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Ticks from 0 at a step of 1, 2 or 5 times a power of ten, the last at or above ``top``."""
    if top <= 0 or math.isnan(top):
        return [0.0, 1.0]
    rough = top / count
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * factor for factor in (1, 2, 2.5, 5, 10) if power * factor >= rough)
    ticks = [0.0]
    while ticks[-1] < top * (1 - 1e-9):
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _text(x: float, y: float, content: str, *, size: int = 13, anchor: str = "start", **extra: str) -> str:
    attributes = "".join(f' {name.replace("_", "-")}="{value}"' for name, value in extra.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{attributes}>{escape(content)}</text>'
    )


def _defs() -> str:
    patterns = "".join(
        f'<pattern id="hatch-{index}" patternUnits="userSpaceOnUse" width="6" height="6" '
        f'patternTransform="rotate(45)"><rect width="6" height="6" fill="{style.colour}"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{BACKGROUND}" stroke-width="2"/></pattern>'
        for index, style in enumerate(STYLES)
        if style.hatch
    )
    return f"<defs>{patterns}</defs>"


def _fill(index: int) -> str:
    style = STYLES[index % len(STYLES)]
    return f"url(#hatch-{index % len(STYLES)})" if style.hatch else style.colour


def _document(title: str, subtitle: str, height: float, body: list[str], description: str, footer: str) -> str:
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" role="img" aria-labelledby="chart-title chart-desc" '
        f'font-family="{escape(FONT)}" fill="{INK}">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<desc id="chart-desc">{escape(description)}</desc>',
        _defs(),
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="{BACKGROUND}"/>',
        _text(20, 28, title, size=17, font_weight="600"),
        _text(20, 48, subtitle, size=12, fill=MUTED),
        *body,
        _text(20, height - 10, footer, size=11, fill=MUTED),
        "</svg>",
    ]
    return "\n".join(lines) + "\n"


def _legend(y: float, entries: list[tuple[str, str]]) -> tuple[list[str], float]:
    """Swatches and markers in a row (wrapping at the chart's width); each entry is (svg of a
    16x12 swatch at the origin, label). Answers the elements and the y below them."""
    out, x = [], 20.0
    for swatch, label in entries:
        width = 26 + 6.6 * len(label)
        if x + width > WIDTH - 20:
            x, y = 20.0, y + 20
        out.append(f'<g transform="translate({x:.1f},{y - 10:.1f})">{swatch}</g>')
        out.append(_text(x + 22, y, label, size=12))
        x += width + 14
    return out, y + 14


def _bar_swatch(index: int) -> str:
    return f'<rect width="16" height="12" fill="{_fill(index)}" stroke="{INK}" stroke-width="0.6"/>'


P99_SWATCH = f'<line x1="0" y1="6" x2="10" y2="6" stroke="{INK}"/><path d="M10 2 L14 6 L10 10 L6 6 Z" fill="{INK}"/>'
FLOOR_SWATCH = f'<line x1="8" y1="0" x2="8" y2="12" stroke="{INK}" stroke-width="2.5"/>'


def _p99_marker(x: float, y: float, *, beyond: bool) -> str:
    """A diamond at the p99, or an arrowhead at the axis' end when the p99 lies beyond it."""
    if beyond:
        return f'<path d="M{x - 7:.1f} {y - 6:.1f} L{x + 3:.1f} {y:.1f} L{x - 7:.1f} {y + 6:.1f} Z" fill="{INK}"/>'
    corners = f"M{x:.1f} {y - 5:.1f} L{x + 5:.1f} {y:.1f} L{x:.1f} {y + 5:.1f} L{x - 5:.1f} {y:.1f} Z"
    return f'<path d="{corners}" fill="{INK}"/>'


def bar_chart(
    title: str,
    subtitle: str,
    axis_label: str,
    groups: Sequence[Group],
    footer: str,
    *,
    floor_label: str = "floor",
    unit: str = "ms",
) -> str:
    """Horizontal bars in groups: each bar's median, a diamond at its p99 (a p99 past the axis is
    drawn at its end with its figure), a thick rule at its floor, and the figures in a column on
    the right."""
    series = list(dict.fromkeys(bar.series for group in groups for bar in group.bars))
    index = {name: position for position, name in enumerate(series)}
    has_p99 = any(_present(bar.p99) for group in groups for bar in group.bars)
    has_floor = any(_present(bar.floor) for group in groups for bar in group.bars)
    entries = [(_bar_swatch(index[name]), name) for name in series]
    if has_p99:
        entries.append((P99_SWATCH, "p99"))
    if has_floor:
        entries.append((FLOOR_SWATCH, floor_label))
    body, top = _legend(72, entries)
    values = [bar.value for group in groups for bar in group.bars if _present(bar.value)]
    values += [bar.floor for group in groups for bar in group.bars if bar.floor is not None and _present(bar.floor)]
    p99s = [bar.p99 for group in groups for bar in group.bars if bar.p99 is not None and _present(bar.p99)]
    # A tail ten times the median would squash every bar: the axis stops at 3x the largest
    # median and a p99 beyond it is written out at the end.
    largest = max(values, default=1.0)
    ticks = nice_ticks(min(max([largest, *p99s]), 3 * largest))
    left, right = 200.0, WIDTH - 150.0
    scale = (right - left) / ticks[-1]

    def x_of(value: float) -> float:
        return left + min(value, ticks[-1]) * scale

    y = top + 8
    rows: list[str] = []
    for group in groups:
        rows.append(_text(20, y + 14, group.label, size=13, font_weight="600"))
        y += 22
        for bar in group.bars:
            if not _present(bar.value):
                continue
            rows.append(_text(left - 8, y + 13, bar.series, size=12, anchor="end"))
            rows.append(
                f'<rect x="{left:.1f}" y="{y:.1f}" width="{x_of(bar.value) - left:.1f}" height="18" '
                f'fill="{_fill(index[bar.series])}" stroke="{INK}" stroke-width="0.6"/>'
            )
            figures = f"{_number(bar.value)} {unit}"
            if bar.p99 is not None and _present(bar.p99):
                tip = x_of(bar.p99)
                end = x_of(bar.value)
                rows.append(f'<line x1="{end:.1f}" y1="{y + 9:.1f}" x2="{tip:.1f}" y2="{y + 9:.1f}" stroke="{INK}"/>')
                rows.append(_p99_marker(tip, y + 9, beyond=bar.p99 > ticks[-1]))
                figures += f" (p99 {_number(bar.p99)})"
            if bar.floor is not None and _present(bar.floor):
                at = x_of(bar.floor)
                rows.append(
                    f'<line x1="{at:.1f}" y1="{y - 3:.1f}" x2="{at:.1f}" y2="{y + 21:.1f}" stroke="{INK}" '
                    'stroke-width="2.5"/>'
                )
            rows.append(_text(right + 14, y + 13, figures, size=12))
            y += 24
        y += 8
    plot_top, plot_bottom = top + 4, y
    grid = []
    for tick in ticks:
        x = x_of(tick)
        grid.append(f'<line x1="{x:.1f}" y1="{plot_top:.1f}" x2="{x:.1f}" y2="{plot_bottom:.1f}" stroke="{GRID}"/>')
        grid.append(_text(x, plot_bottom + 16, _tick(tick, ticks), size=11, anchor="middle", fill=MUTED))
    grid.append(f'<line x1="{left}" y1="{plot_top:.1f}" x2="{left}" y2="{plot_bottom:.1f}" stroke="{INK}"/>')
    axis = _text((left + right) / 2, plot_bottom + 36, axis_label, size=12, anchor="middle")
    description = "; ".join(
        f"{group.label}: "
        + ", ".join(
            f"{bar.series} {_number(bar.value)} {unit}"
            + (f" (p99 {_number(bar.p99)})" if bar.p99 is not None and _present(bar.p99) else "")
            + (f" ({floor_label} {_number(bar.floor)})" if bar.floor is not None and _present(bar.floor) else "")
            for bar in group.bars
            if _present(bar.value)
        )
        for group in groups
    )
    height = plot_bottom + 64
    return _document(title, subtitle, height, [*body, *grid, *rows, axis], description, footer)


MARKERS: dict[str, Callable[[float, float, str], str]] = {
    "circle": lambda x, y, c: f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{c}"/>',
    "square": lambda x, y, c: f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{c}"/>',
    "triangle": lambda x, y, c: (
        f'<path d="M{x:.1f} {y - 5.5:.1f} L{x + 5:.1f} {y + 4:.1f} L{x - 5:.1f} {y + 4:.1f} Z" fill="{c}"/>'
    ),
    "diamond": lambda x, y, c: (
        f'<path d="M{x:.1f} {y - 5.5:.1f} L{x + 5.5:.1f} {y:.1f} L{x:.1f} {y + 5.5:.1f} '
        f'L{x - 5.5:.1f} {y:.1f} Z" fill="{c}"/>'
    ),
}

#: Lines need contrast against white: the light bar colour is replaced by a dark green.
LINE_COLOURS = ("#1f4e79", "#d55e00", "#2e7d4f", "#555555")


def line_chart(
    title: str,
    subtitle: str,
    x_label: str,
    y_label: str,
    lines: Sequence[Line],
    footer: str,
    *,
    unit: str = "ms",
) -> str:
    """Lines of medians against a linear x axis, each with its own colour, dash and marker, and
    its last figure written at its end."""
    entries = []
    for position, line in enumerate(lines):
        style, colour = STYLES[position % len(STYLES)], LINE_COLOURS[position % len(LINE_COLOURS)]
        swatch = (
            f'<line x1="0" y1="6" x2="16" y2="6" stroke="{colour}" stroke-width="2.5" '
            f'stroke-dasharray="{style.dash}"/>' + MARKERS[style.marker](8, 6, colour)
        )
        entries.append((swatch, line.series))
    body, top = _legend(72, entries)
    xs = [x for line in lines for x, _ in line.points]
    ys = [y for line in lines for _, y in line.points if _present(y)]
    x_ticks, y_ticks = nice_ticks(max(xs, default=1.0)), nice_ticks(max(ys, default=1.0) * 1.05)
    left, right, plot_top, plot_bottom = 70.0, WIDTH - 110.0, top + 10, top + 300

    def at(x: float, y: float) -> tuple[float, float]:
        return (
            left + x / x_ticks[-1] * (right - left),
            plot_bottom - y / y_ticks[-1] * (plot_bottom - plot_top),
        )

    grid = []
    for tick in y_ticks:
        _, y = at(0, tick)
        grid.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="{GRID}"/>')
        grid.append(_text(left - 8, y + 4, _tick(tick, y_ticks), size=11, anchor="end", fill=MUTED))
    for tick in x_ticks:
        x, _ = at(tick, 0)
        grid.append(f'<line x1="{x:.1f}" y1="{plot_bottom}" x2="{x:.1f}" y2="{plot_bottom + 5}" stroke="{INK}"/>')
        grid.append(_text(x, plot_bottom + 19, _tick(tick, x_ticks), size=11, anchor="middle", fill=MUTED))
    grid.append(
        f'<path d="M{left} {plot_top} L{left} {plot_bottom} L{right} {plot_bottom}" fill="none" stroke="{INK}"/>'
    )
    grid.append(_text((left + right) / 2, plot_bottom + 40, x_label, size=12, anchor="middle"))
    middle = (plot_top + plot_bottom) / 2
    grid.append(_text(18, middle, y_label, size=12, anchor="middle", transform=f"rotate(-90 18 {middle:.1f})"))
    drawn = []
    for position, line in enumerate(lines):
        style, colour = STYLES[position % len(STYLES)], LINE_COLOURS[position % len(LINE_COLOURS)]
        points = [at(x, y) for x, y in line.points if _present(y)]
        if not points:
            continue
        path = " ".join(f"{'M' if n == 0 else 'L'}{x:.1f} {y:.1f}" for n, (x, y) in enumerate(points))
        drawn.append(
            f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{style.dash}"/>'
        )
        drawn.extend(MARKERS[style.marker](x, y, colour) for x, y in points)
    labels = _end_labels(lines, at, unit)
    description = "; ".join(
        f"{line.series}: " + ", ".join(f"{x:,.0f}: {_number(y)} {unit}" for x, y in line.points if _present(y))
        for line in lines
    )
    return _document(title, subtitle, plot_bottom + 66, [*body, *grid, *drawn, *labels], description, footer)


def _end_labels(lines: Sequence[Line], at: Callable[[float, float], tuple[float, float]], unit: str) -> list[str]:
    """Each line's last figure right of its last point, nudged apart so close lines stay legible."""
    ends: list[tuple[float, float, str, str]] = []
    for position, line in enumerate(lines):
        points = [(x, y) for x, y in line.points if _present(y)]
        if points:
            x, y = at(*points[-1])
            ends.append((y, x, f"{_number(points[-1][1])} {unit}", LINE_COLOURS[position % len(LINE_COLOURS)]))
    ends.sort()
    placed: list[tuple[float, float, str, str]] = []
    for y, x, label, colour in ends:
        placed.append((max(y, placed[-1][0] + 15) if placed else y, x, label, colour))
    return [_text(x + 10, y + 4, label, size=12, fill=colour) for y, x, label, colour in placed]


# --- the charts of a run ---------------------------------------------------------------------------

STORES = {"postgresql": "Database store (PostgreSQL)", "redis": "Redis store", "sqlite": "Database store (SQLite)"}
SCENARIOS = {"plain": "plain POST", "fresh_key": "fresh key", "replay": "replay"}
FLOORS = {"fresh_key": "floor_fresh", "replay": "floor_replay"}
PAGINATORS = {
    "keyset": "KeysetPagination (this package)",
    "cursor": "DRF CursorPagination",
    "limitoffset": "DRF LimitOffsetPagination",
}
FLOOR_LABEL = "floor (hand-written minimum)"


def _footer(results: dict[str, Any]) -> str:
    machine = results.get("machine", {})
    plan = results.get("plan", {}).get("name", "?")
    flag = "" if plan == "full" else f" --{plan}"
    repeat = results.get("repeat", 1)
    if repeat > 1:
        flag += f" --repeat {repeat} (medians of the runs)"
    return (
        f"python -m benchmarks{flag}, {str(results.get('started_at', ''))[:10]}, "
        f"{machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}"
    )


def overhead(results: dict[str, Any]) -> str | None:
    """Keyed against plain POST per store: over HTTP when the run had servers, else in-process."""
    idempotency = results.get("idempotency", {})
    http = idempotency.get("http", {})
    if http:
        per_store = {store: data["one_client"] for store, data in http.items()}
        workers = next(iter(http.values())).get("workers", "?")
        subtitle = f"POST /v2/orders over HTTP, gunicorn with {workers} sync workers, one client; median per request"
    else:
        per_store = {store: data["scenarios"] for store, data in idempotency.get("inprocess", {}).items()}
        subtitle = "POST /v2/orders through Django's test client (no network); median per request"
    if not per_store:
        return None
    groups = [
        Group(
            STORES.get(store, store),
            [
                Bar(
                    label,
                    scenarios[mode]["p50_ms"],
                    scenarios[mode]["p99_ms"],
                    scenarios.get(FLOORS.get(mode, ""), {}).get("p50_ms"),
                )
                for mode, label in SCENARIOS.items()
                if mode in scenarios
            ],
        )
        for store, scenarios in per_store.items()
    ]
    return bar_chart(
        "What an Idempotency-Key costs a POST, per store",
        subtitle,
        "milliseconds per request (bar: median; diamond: p99)",
        groups,
        _footer(results),
        floor_label=FLOOR_LABEL,
    )


def throughput(results: dict[str, Any]) -> str | None:
    http = results.get("idempotency", {}).get("http", {})
    if not http:
        return None
    clients = next(iter(http.values())).get("clients", "?")
    groups = [
        Group(
            STORES.get(store, store),
            [
                Bar(
                    label,
                    data["many_clients"][mode]["rps_median"],
                    floor=data["many_clients"].get(FLOORS.get(mode, ""), {}).get("rps_median"),
                )
                for mode, label in SCENARIOS.items()
                if mode in data["many_clients"]
            ],
        )
        for store, data in http.items()
    ]
    return bar_chart(
        f"Requests a second with {clients} clients, per store",
        "POST /v2/orders over HTTP, every client sending as fast as answers come back; median of the rounds",
        "requests per second (more is better)",
        groups,
        _footer(results),
        floor_label=FLOOR_LABEL,
        unit="req/s",
    )


def _chosen_database(by_vendor: dict[str, Any]) -> tuple[str, Any]:
    """The figures a chart draws of a part run on several databases: PostgreSQL's when there."""
    vendor = "postgresql" if "postgresql" in by_vendor else next(iter(by_vendor))
    return vendor, by_vendor[vendor]


def page_depth(results: dict[str, Any]) -> str | None:
    pagination = results.get("pagination", {})
    if not pagination:
        return None
    vendor, data = _chosen_database(pagination)
    lines = [
        Line(label, sorted((int(depth), page["p50_ms"]) for depth, page in data["pages"][name].items()))
        for name, label in PAGINATORS.items()
        if name in data["pages"]
    ]
    database = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}.get(vendor, vendor)
    return line_chart(
        "Time of a 20-row page against its depth",
        f"{database}, {data['rows']:,} orders, each page requested through Django's test client; median of the rounds",
        "rows before the page (depth)",
        "milliseconds per page",
        lines,
        _footer(results),
    )


def purge(results: dict[str, Any]) -> str | None:
    runs = results.get("purge", {})
    if not runs:
        return None
    _, data = _chosen_database(runs)
    names = {"before": "Batches of SELECT then DELETE", "after": "idempotency_purge"}
    groups = [
        Group(
            f"{names.get(run['variant'], run['variant'])}, "
            + (f"{run['load_rate']:,.0f} keyed requests/s" if run["load_rate"] else "as many requests as can be sent")
            + f": {run['deleted_per_second']:,} records deleted/s",
            [
                Bar("alone", run["baseline"]["p50_ms"], run["baseline"]["p99_ms"]),
                Bar("during the purge", run["during"]["p50_ms"], run["during"]["p99_ms"]),
            ],
        )
        for run in data["runs"]
    ]
    return bar_chart(
        "Keyed requests while expired keys are purged",
        f"{data['rows']:,} records, {data['expired']:,} of them expired, deleted in batches of {data['batch_size']:,}",
        "milliseconds per claim and stored answer (bar: median; diamond: p99)",
        groups,
        _footer(results),
    )


def filters(results: dict[str, Any]) -> str | None:
    from .filter_backends import BACKENDS, BAD_QUERY, QUERIES, scenario_name

    lists = results.get("filters", {})
    if not lists:
        return None
    _, data = _chosen_database(lists)
    labels = dict(zip(BACKENDS, ("StrictFilterBackend", "DjangoFilterBackend"), strict=True))
    groups = [
        Group(
            query,
            [
                # Medians only: a CPU p99 over 150 requests is a garbage collection or a busy neighbour.
                Bar(labels[backend], data["cpu"][scenario_name(backend, query)]["p50_ms"])
                for backend in BACKENDS
            ],
        )
        for query in [*QUERIES, BAD_QUERY[0]]
        if scenario_name(BACKENDS[0], query) in data["cpu"]
    ]
    return bar_chart(
        f"A {data['filters']}-filter list: StrictFilterBackend against DjangoFilterBackend",
        f"{data['rows']:,} invoices, the same FilterSet, view and paginator; CPU time of the request",
        "milliseconds of CPU per request (median)",
        groups,
        _footer(results),
    )


CHARTS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "overhead.svg": overhead,
    "throughput.svg": throughput,
    "page-depth.svg": page_depth,
    "purge.svg": purge,
    "filters.svg": filters,
}


def draw(results: dict[str, Any], directory: Path) -> list[Path]:
    """Every chart the results have the figures for, written to ``directory``; the paths written."""
    # The same figures whether they come from a run (integer depths) or from its JSON (strings).
    results = json.loads(json.dumps(results, default=str))
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, chart in CHARTS.items():
        svg = chart(results)
        if svg is not None:
            path = directory / name
            path.write_text(svg, encoding="utf-8")
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.charts", description="Draw the SVG charts of a saved benchmark run."
    )
    parser.add_argument("results", type=Path, help="the JSON a run wrote (var/benchmarks/results.json unless --json)")
    parser.add_argument("directory", type=Path, help="where to write the charts, e.g. docs/images")
    args = parser.parse_args(argv)
    written = draw(json.loads(args.results.read_text()), args.directory)
    for path in written:
        print(path)
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
