"""nginx in front of the example service, from the recipe in deploy/nginx/ (docs/deployment.md).

Nothing is installed here: :func:`find_nginx` says whether the machine has nginx, and
tests/conftest.py decides whether its absence skips the ``nginx`` tests or fails the run.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .servers import REPOSITORY, free_port

DEPLOY = REPOSITORY / "deploy"
API_TEMPLATE = DEPLOY / "nginx" / "api.conf.template"
MAIN_TEMPLATE = DEPLOY / "nginx" / "nginx.conf.template"
GUNICORN_CONFIG = DEPLOY / "gunicorn.conf.py"
_PLACEHOLDER = re.compile(r"@[A-Z_]+@")
#: The placeholders of the deprecation maps, empty: no version is deprecated.
NO_DEPRECATIONS = {"deprecation_map": "", "sunset_map": "", "deprecation_link_map": ""}


def find_nginx() -> str | None:
    """nginx on the PATH, or in /usr/sbin (where Debian puts it, and not always on a user's PATH)."""
    return shutil.which("nginx", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"]))


def render(template: str, **values: str) -> str:
    """``@NAME@`` placeholders replaced by ``values[NAME.lower()]``; a placeholder left is an error."""
    text = template
    for name, value in values.items():
        text = text.replace(f"@{name.upper()}@", value)
    left = sorted(set(_PLACEHOLDER.findall(text)))
    if left:
        raise ValueError(f"placeholders without a value: {', '.join(left)}")
    return text


@dataclass
class Nginx:
    url: str
    prefix: Path
    process: subprocess.Popen[bytes]

    @property
    def access_log(self) -> Path:
        return self.prefix / "access.log"

    def log_lines(self) -> list[str]:
        return self.access_log.read_text().splitlines()


def _stop(process: subprocess.Popen[bytes]) -> None:
    # SIGQUIT would wait for open connections; SIGTERM is nginx's fast shutdown. Its workers
    # are in its process group: a master that does not stop in time is killed with them.
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@contextmanager
def nginx_front(
    upstream: str,
    folder: Path,
    *,
    client_timeout: str = "1s",
    upstream_timeout: str = "2s",
    deprecation_maps: Mapping[str, str] | None = None,
) -> Iterator[Nginx]:
    """nginx on a free loopback port in front of ``upstream`` (``host:port``), in the prefix ``folder``.

    ``deprecation_maps``: what the service's ``deprecations --nginx`` prints (see
    :func:`service_deprecation_maps`); without it, nginx's own answers carry no deprecation headers.
    """
    nginx = find_nginx()
    assert nginx, "nginx is not installed"
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tmp").mkdir(exist_ok=True)
    # Run as root, nginx's workers become nobody: they must reach the temporary files' folder.
    folder.chmod(0o755)
    url = f"http://127.0.0.1:{port}"
    (folder / "api.conf").write_text(
        render(
            API_TEMPLATE.read_text(),
            listen=f"127.0.0.1:{port}",
            upstream=upstream,
            problem_base_url=f"{url}/problems",
            client_timeout=client_timeout,
            upstream_timeout=upstream_timeout,
            access_log="access.log",
            **{name.lower(): value for name, value in (deprecation_maps or NO_DEPRECATIONS).items()},
        )
    )
    (folder / "nginx.conf").write_text(render(MAIN_TEMPLATE.read_text()))
    command = [nginx, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"]
    process = subprocess.Popen(command, start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while True:
            assert process.poll() is None, f"nginx exited at start-up: {(folder / 'error.log').read_text()[-2000:]}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.05)
        yield Nginx(url, folder, process)
    finally:
        _stop(process)
