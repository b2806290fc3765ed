"""Redis Cluster and Sentinel set-ups started from the ``redis-server`` binary, for the tests.

Each server lives in a temporary directory on a free loopback port, without persistence, and
is killed at the end. Where ``redis-server``/``redis-cli`` are missing the tests that need them
skip with a message; under ``CI=true`` (or ``REQUIRE_BACKENDS`` naming ``redis-topologies``)
they fail instead: CI must not lose them silently.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .servers import free_port

SERVICE = "mymaster"
INSTALL = "apt-get install redis-server (redis-server and redis-cli)"
# Fast failovers: a master silent for 1 s is down; a failover is retried after 3 s.
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 3000


def required() -> bool:
    names = {name.strip() for name in os.environ.get("REQUIRE_BACKENDS", "").split(",")}
    return "redis-topologies" in names or os.environ.get("CI", "").lower() in ("true", "1")


def binaries_missing() -> str | None:
    """Why the topologies cannot start here, or None."""
    missing = [name for name in ("redis-server", "redis-cli") if shutil.which(name) is None]
    return f"{' and '.join(missing)} not installed: {INSTALL}" if missing else None


def skip_or_fail_if_missing() -> None:
    why = binaries_missing()
    if why is None:
        return
    if required():
        pytest.fail(f"Redis Cluster/Sentinel tests are required (CI=true) but {why}")
    pytest.skip(why)


def cli(port: int, *args: str, timeout: float = 10) -> str:
    return subprocess.run(
        ["redis-cli", "-h", "127.0.0.1", "-p", str(port), *args], capture_output=True, text=True, timeout=timeout
    ).stdout.strip()


def wait_until(what: str, condition: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {seconds} s")
        time.sleep(0.05)


def replicas_online(port: int) -> int:
    info = cli(port, "info", "replication")
    return sum(1 for line in info.splitlines() if line.startswith("slave") and "state=online" in line)


@dataclass
class Server:
    directory: Path
    port: int
    args: list[str]
    process: subprocess.Popen[bytes] | None = None

    def start(self, *extra: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                "redis-server",
                *self.args,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
                "--logfile",
                str(self.directory / "log"),
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_until(f"redis-server on port {self.port} answering", self._answers, 20)

    def _answers(self) -> bool:
        assert self.process is not None and self.process.poll() is None, f"redis-server :{self.port} exited"
        return cli(self.port, "ping") == "PONG"

    def kill(self) -> None:
        """SIGKILL: no goodbye to the replicas or the sentinels."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Topology:
    directory: Path
    servers: list[Server] = field(default_factory=list)

    def add(self, name: str, *args: str) -> Server:
        server = Server(self.directory / name, free_port(), list(args))
        self.servers.append(server)
        return server

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclass
class Cluster(Topology):
    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{server.port}" for server in self.servers[:3])


@contextmanager
def redis_cluster() -> Iterator[Cluster]:
    """3 masters, 3 replicas: ``redis-cli --cluster create``, then ``cluster_state:ok`` everywhere."""
    skip_or_fail_if_missing()
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="redis-cluster-")))
    try:
        for number in range(6):
            # The bus port on a free port of its own: the default (port + 10000) may be taken or > 65535.
            cluster.add(
                f"node{number}",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "2000",
                "--cluster-port",
                str(free_port()),
            ).start()
        nodes = [f"127.0.0.1:{server.port}" for server in cluster.servers]
        created = subprocess.run(
            ["redis-cli", "--cluster", "create", *nodes, "--cluster-replicas", "1", "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert created.returncode == 0, created.stdout + created.stderr
        wait_until(
            "cluster_state:ok on every node",
            lambda: all("cluster_state:ok" in cli(server.port, "cluster", "info") for server in cluster.servers),
            30,
        )
        # A replica syncs after the cluster is ok: until then WAIT counts none.
        wait_until(
            "every master's replica in sync",
            lambda: sorted(replicas_online(server.port) for server in cluster.servers) == [0, 0, 0, 1, 1, 1],
            30,
        )
        yield cluster
    finally:
        cluster.stop()


@dataclass
class SentinelSetup(Topology):
    sentinels: list[Server] = field(default_factory=list)
    data: list[Server] = field(default_factory=list)  # the master first, at the start

    def url(self, db: int = 0) -> str:
        return "redis+sentinel://" + ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels) + f"/{SERVICE}/{db}"

    def master_port(self) -> int:
        reply = cli(self.sentinels[0].port, "sentinel", "get-master-addr-by-name", SERVICE).split()
        return int(reply[1])

    def master(self) -> Server:
        port = self.master_port()
        return next(server for server in self.data if server.port == port)

    def replicas_online(self, port: int) -> int:
        return replicas_online(port)

    def switches(self) -> int:
        """The failovers the sentinels made so far: the ones asked for, and any of a master
        that did not answer them for DOWN_AFTER_MS (under load)."""
        log = (self.sentinels[0].directory / "log").read_text()
        return sum(1 for line in log.splitlines() if "+switch-master" in line)

    def fail_over(self, seconds: float = 60, *, lag: float = 0.0) -> tuple[int, int]:
        """SIGKILL the master; wait for the sentinels to promote a replica; start the old master
        again as a replica of the new one. Returns (old port, new port).

        ``lag`` > 0: the replicas stop receiving the master's writes ``lag`` seconds before it
        dies (a test-only fault: their links are cut and they cannot reconnect, their
        ``masterauth`` being wrong until the master is dead), so the writes that the master
        acknowledged in between are lost with it, as when replicas lag behind over a network.
        """
        old = self.master()
        replicas = [server for server in self.data if server is not old]
        if lag > 0:
            for replica in replicas:
                cli(replica.port, "config", "set", "masterauth", "lagging-on-purpose")
            cli(old.port, "client", "kill", "type", "replica")
            time.sleep(lag)
        old.kill()
        if lag > 0:
            for replica in replicas:
                cli(replica.port, "config", "set", "masterauth", "")
        wait_until("a replica promoted by the sentinels", lambda: self.master_port() != old.port, seconds)
        new_port = self.master_port()
        wait_until(
            "the new master answering as master", lambda: "role:master" in cli(new_port, "info", "replication"), seconds
        )
        old.start("--replicaof", "127.0.0.1", str(new_port))

        def settled() -> bool:
            # The sentinels' master of now: on a busy machine a master slow to answer may be
            # failed over again meanwhile (see switches()).
            port = self.master_port()
            return (
                "role:master" in cli(port, "info", "replication") and self.replicas_online(port) == len(self.data) - 1
            )

        try:
            wait_until("the master of the sentinels with every replica in sync", settled, seconds)
        except TimeoutError as exc:
            states = {server.port: cli(server.port, "info", "replication") for server in self.data}
            raise TimeoutError(f"{exc}; the servers' replication: {states}") from None
        return old.port, new_port


@contextmanager
def redis_sentinel(replicas: int = 2, sentinels: int = 3) -> Iterator[SentinelSetup]:
    """1 master, ``replicas`` replicas, ``sentinels`` sentinels with quorum 2."""
    skip_or_fail_if_missing()
    setup = SentinelSetup(Path(tempfile.mkdtemp(prefix="redis-sentinel-")))
    try:
        master = setup.add("master")
        master.start()
        setup.data.append(master)
        for number in range(replicas):
            replica = setup.add(f"replica{number}")
            replica.start("--replicaof", "127.0.0.1", str(master.port))
            setup.data.append(replica)
        wait_until("the replicas in sync", lambda: setup.replicas_online(master.port) == replicas, 30)
        for number in range(sentinels):
            directory = setup.directory / f"sentinel{number}"
            directory.mkdir()
            config = directory / "sentinel.conf"
            config.write_text(
                f"sentinel monitor {SERVICE} 127.0.0.1 {master.port} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {SERVICE} {replicas}\n"
            )
            sentinel = setup.add(f"sentinel{number}", str(config), "--sentinel")
            sentinel.start()
            setup.sentinels.append(sentinel)
        # Every sentinel knows the others and the replicas before anything fails over.
        wait_until(
            "the sentinels discovering each other and the replicas",
            lambda: all(
                f"sentinels={sentinels}" in cli(s.port, "info", "sentinel")
                and f"slaves={replicas}" in cli(s.port, "info", "sentinel")
                for s in setup.sentinels
            ),
            30,
        )
        yield setup
    finally:
        setup.stop()
