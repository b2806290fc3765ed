"""The README's benchmark set-up works as written, in a fresh virtualenv (issue 17, item 5).

Its ``pip install -e ".[bench]"`` once left out the ``openapi`` extra that the example service
imports, and ``python -m benchmarks`` then failed with ``No module named 'drf_spectacular'``;
the other tests, run from a virtualenv with every extra, could not see it. This test copies the
checkout as a fresh clone has it (no virtualenv, no ``var/``, no build metadata), makes a new
virtualenv, runs the install line the README shows (the extras resolved by pip, never
``--no-deps``), then ``python -m benchmarks --smoke``: the same imports as ``--quick``, on
SQLite, in seconds. pip's own cache and the configured indexes make the install take seconds
when the wheels were installed once on the machine.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What a fresh clone does not hold (.gitignore) and the copy leaves out.
NOT_IN_A_CLONE = (
    ".git",
    ".venvs",
    ".venv",
    "var",
    "site",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".schemathesis",
    "htmlcov",
    ".coverage*",
    "node_modules",
)

pytestmark = pytest.mark.fresh_virtualenv


def documented_install() -> list[str]:
    """The README's install line of the benchmarks, as its words."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Benchmarks", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"`(pip install [^`]*\.\[bench\][^`]*)`", section)
    assert match, "the README's Benchmarks section shows no pip install of the bench extra"
    return shlex.split(match.group(1))


def documented_run() -> list[str]:
    """The README's benchmark command, its environment variables aside."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Benchmarks", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"^(?:\w+=\S+ )*(python -m benchmarks[^\n]*)$", section, re.M)
    assert match, "the README's Benchmarks section shows no python -m benchmarks command"
    return shlex.split(match.group(1))


def test_every_page_shows_the_same_install_line() -> None:
    line = shlex.join(documented_install())
    for page in ("docs/performance.md", "benchmarks/README.md"):
        assert line.replace("'", '"') in (ROOT / page).read_text(), f"{page} shows another install line than README.md"


def test_the_readme_set_up_runs_in_a_fresh_virtualenv(tmp_path: Path) -> None:
    clone = tmp_path / "checkout"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE))
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    # The process's own virtualenv and services stay out: the new one stands alone, on SQLite.
    env = {
        name: value
        for name, value in os.environ.items()
        if name
        not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env["PATH"] = f"{environment / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    install = documented_install()
    assert install[:2] == ["pip", "install"] and "--no-deps" not in install
    installed = subprocess.run(
        [str(python), "-m", *install, "--quiet"], cwd=clone, env=env, capture_output=True, text=True, timeout=900
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]

    run = documented_run()
    assert run[:3] == ["python", "-m", "benchmarks"], run
    # --smoke instead of the README's --quick: the same modules imported, no server, seconds.
    smoke = [str(python), "-m", "benchmarks", *[arg for arg in run[3:] if arg != "--quick"], "--smoke"]
    ran = subprocess.run(smoke, cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert re.search(r"^\d+ targets, \d+ met; results in ", ran.stdout, re.M), ran.stdout[-3000:]
    # The extras the example service needs are those the virtualenv got from pip, not this process's.
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import drf_spectacular, django_filters, whitenoise, psycopg, django_redis, pyinstrument, "
            "django_api_conventions as p; print(p.__file__)",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    assert Path(probe.stdout.strip()).is_relative_to(clone), probe.stdout
    assert sys.prefix != str(environment)
