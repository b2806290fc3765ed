"""The benchmark charts draw every series of a run as SVG that parses (a synthetic run: no timing)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from benchmarks import charts, cli

SVG = "{http://www.w3.org/2000/svg}"


def scenario(p50: float, p99: float) -> dict[str, Any]:
    return {"n": 30, "p50_ms": p50, "p99_ms": p99}


def one_client(plain: float) -> dict[str, Any]:
    return {
        "plain": scenario(plain, plain * 3),
        "fresh_key": scenario(plain * 1.12, plain * 2),
        "replay": scenario(plain * 0.4, plain),
        "floor_fresh": scenario(plain * 1.08, plain * 2),
        "floor_replay": scenario(plain * 0.35, plain),
    }


def throughput(plain: float) -> dict[str, Any]:
    return {
        mode: {"rps_median": plain * share, "p50_ms": 1.0, "p99_ms": 2.0, "statuses": {}}
        for mode, share in (("plain", 1.0), ("fresh_key", 0.91), ("floor_fresh", 0.95))
    }


def purge_run(variant: str, rate: float, deleted_per_second: int) -> dict[str, Any]:
    return {
        "variant": variant,
        "load_rate": rate,
        "deleted_per_second": deleted_per_second,
        "baseline": {**scenario(0.8, 6.1), "rate": 1000.0},
        "during": {**scenario(1.6, 11.8), "rate": 1000.0},
    }


def synthetic_results() -> dict[str, Any]:
    """A run's results as ``python -m benchmarks`` writes them, with round figures (the depths as
    integers, as in a run; the JSON holds them as strings)."""
    depths = [0, 1_000, 10_000, 50_000, 90_000]
    queries = ["no filter", "1 filter", "2 filters", "3 filters", "null value", "bad value (refused)"]
    return {
        "plan": {"name": "quick"},
        "started_at": "2026-11-28T18:00:00+00:00",
        "machine": {"cpus": 2, "python": "3.11.7", "platform": "Linux"},
        "idempotency": {
            "http": {
                store: {
                    "workers": 2,
                    "clients": 8,
                    "one_client": one_client(plain),
                    "many_clients": throughput(400.0),
                }
                for store, plain in (("postgresql", 9.0), ("redis", 8.0))
            },
            "inprocess": {},
        },
        "pagination": {
            "postgresql": {
                "rows": 100_000,
                "pages": {
                    "keyset": {depth: scenario(1.7, 3.0) for depth in depths},
                    "cursor": {depth: scenario(1.6, 3.0) for depth in depths},
                    "limitoffset": {depth: scenario(2.0 + depth / 5_000, 40.0) for depth in depths},
                },
            }
        },
        "purge": {
            "postgresql": {
                "rows": 500_000,
                "expired": 250_000,
                "batch_size": 1_000,
                "runs": [
                    purge_run("before", 1000.0, 35_847),
                    purge_run("after", 1000.0, 122_981),
                    purge_run("after", 0.0, 53_666),
                ],
            }
        },
        "filters": {
            "postgresql": {
                "rows": 20_000,
                "filters": 50,
                "cpu": {
                    f"{backend}: {query}": scenario(20.0, 30.0)
                    for backend in ("strict", "django_filter")
                    for query in queries
                },
            }
        },
    }


def parse(path: Path) -> ElementTree.Element:
    root = ElementTree.fromstring(path.read_text(encoding="utf-8"))  # noqa: S314 (our own output)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img" and root.get("width") == "700"
    assert root.find(f"{SVG}title") is not None and root.find(f"{SVG}desc") is not None
    return root


def texts(root: ElementTree.Element) -> str:
    return " ".join("".join(node.itertext()) for node in root.iter(f"{SVG}text"))


def test_every_chart_parses_and_carries_its_series(tmp_path: Path) -> None:
    written = charts.draw(synthetic_results(), tmp_path)
    assert [path.name for path in written] == [
        "overhead.svg",
        "throughput.svg",
        "page-depth.svg",
        "purge.svg",
        "filters.svg",
    ]
    overhead = parse(tmp_path / "overhead.svg")
    labels = texts(overhead)
    for label in ("Database store (PostgreSQL)", "Redis store", "plain POST", "fresh key", "replay", "p99"):
        assert label in labels
    assert "milliseconds" in labels and "floor" in labels
    # Every bar's median, and its p99, is written out beside it and in the description.
    assert "9.00 ms (p99 27.0)" in labels and "3.20 ms (p99 8.00)" in labels
    description = overhead.findtext(f"{SVG}desc") or ""
    assert "Redis store: plain POST 8.00 ms" in description
    pages = parse(tmp_path / "page-depth.svg")
    assert len([path for path in pages.iter(f"{SVG}path") if path.get("fill") == "none"]) >= 3
    labels = texts(pages)
    for label in ("KeysetPagination (this package)", "DRF CursorPagination", "DRF LimitOffsetPagination", "depth"):
        assert label in labels
    assert "20.0 ms" in labels  # the deepest limit/offset page, at the line's end
    assert "53,666 records deleted/s" in texts(parse(tmp_path / "purge.svg"))
    assert "DjangoFilterBackend" in texts(parse(tmp_path / "filters.svg"))
    assert "req/s" in texts(parse(tmp_path / "throughput.svg"))


def test_the_charts_are_the_same_from_a_run_and_from_its_json(tmp_path: Path) -> None:
    results = synthetic_results()
    saved = tmp_path / "results.json"
    saved.write_text(json.dumps(results))
    charts.draw(results, tmp_path / "run")
    assert charts.main([str(saved), str(tmp_path / "saved")]) == 0
    for name in charts.CHARTS:
        assert (tmp_path / "run" / name).read_text() == (tmp_path / "saved" / name).read_text()


def test_a_tail_past_the_axis_is_written_out_and_the_bars_keep_their_scale(tmp_path: Path) -> None:
    results = synthetic_results()
    results["idempotency"]["http"]["postgresql"]["one_client"]["plain"] = scenario(9.0, 900.0)
    charts.draw(results, tmp_path)
    root = parse(tmp_path / "overhead.svg")
    assert "p99 900" in texts(root)
    widths = [float(rect.get("width", 0)) for rect in root.iter(f"{SVG}rect") if rect.get("height") == "18"]
    assert min(widths) > 20  # the replay's 3.2 ms bar is still visible beside a 900 ms tail


def test_a_run_without_servers_charts_the_in_process_figures(tmp_path: Path) -> None:
    results = {
        "plan": {"name": "smoke"},
        "machine": {},
        "idempotency": {"inprocess": {"sqlite": {"scenarios": one_client(3.0)}}},
    }
    assert [path.name for path in charts.draw(results, tmp_path)] == ["overhead.svg"]
    assert "Django's test client" in texts(parse(tmp_path / "overhead.svg"))


@pytest.mark.parametrize("top", [0.7, 9.0, 27.0, 123_456.0])
def test_ticks_cover_the_largest_figure_in_round_steps(top: float) -> None:
    ticks = charts.nice_ticks(top)
    assert ticks[0] == 0 and ticks[-1] >= top and len(ticks) <= 8
    step = ticks[1]
    assert re.fullmatch(r"(1|2|2\.5|5)0*", f"{step / 10 ** int(f'{step:e}'.split('e')[1]):g}")


def test_the_command_takes_a_charts_directory() -> None:
    assert cli.parse_args(["--quick", "--charts", "docs/images"]).charts == Path("docs/images")
    assert cli.parse_args(["--quick"]).charts is None
