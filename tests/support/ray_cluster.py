"""A two-node Ray cluster on this machine, started the way docs/RAY.md tells users to.

``ray start --head`` makes the head node and ``ray start --address=HEAD`` a second node
(a second raylet on the same host), each with ``num_cpus`` CPUs. The cluster uses Ray's
token authentication with a token of its own, written in its temporary folder
(``RAY_AUTH_MODE=token``, ``RAY_AUTH_TOKEN_PATH``): ``env`` holds those variables, and
every process that talks to the cluster (the nodes, the driver) needs them.

:meth:`TwoNodeCluster.stop` ends exactly this cluster's processes: those whose command
line names its temporary folder or its head's port, and their children. It never runs
``ray stop``, which would end every Ray process of the user on the machine.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RAY = Path(sys.executable).with_name("ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class TwoNodeCluster:
    address: str  # HOST:PORT of the head's GCS
    temp_dir: Path
    env: dict[str, str]  # os.environ plus the cluster's token settings

    @classmethod
    def start(cls, num_cpus: int = 1) -> TwoNodeCluster:
        # A short path: Ray's Unix sockets live under it (108-byte limit).
        temp_dir = Path(tempfile.mkdtemp(prefix="crl", dir="/tmp"))
        token = temp_dir / "auth_token"
        token.write_text(secrets.token_hex(32))
        env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
        port = free_port()
        cluster = cls(f"127.0.0.1:{port}", temp_dir, env)
        common = [f"--num-cpus={num_cpus}", "--disable-usage-stats"]
        try:
            cluster._ray(
                "start", "--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp_dir}", *common
            )
            cluster._ray("start", f"--address={cluster.address}", *common)
            cluster.wait_for_nodes(2)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _ray(self, *args: str) -> str:
        done = subprocess.run([str(RAY), *args], env=self.env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"ray {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def node_ids(self) -> set[str]:
        """The ids of the cluster's live nodes (from ``ray status``)."""
        try:
            return set(re.findall(r"node_([0-9a-f]{56})", self._ray("status", f"--address={self.address}")))
        except RuntimeError:  # not answering yet
            return set()

    def wait_for_nodes(self, count: int, timeout: float = 60.0) -> set[str]:
        deadline = time.monotonic() + timeout
        while len(ids := self.node_ids()) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the cluster at {self.address} has {len(ids)} of {count} nodes")
            time.sleep(1.0)
        return ids

    def _pids(self) -> list[int]:
        marks = re.compile(re.escape(str(self.temp_dir)) + "|:" + self.address.rsplit(":", 1)[1] + r"(?!\d)")
        parent: dict[int, int] = {}
        roots = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if marks.search(cmdline):
                roots.append(int(entry.name))
        found, todo = set(), list(roots)
        while todo:
            pid = todo.pop()
            if pid not in found and pid != os.getpid():
                found.add(pid)
                todo.extend(child for child, ppid in parent.items() if ppid == pid)
        return sorted(found)

    def stop(self) -> None:
        """End this cluster's processes (SIGTERM, then SIGKILL) and delete its folder."""
        for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
            pids = self._pids()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while pids and time.monotonic() < deadline:
                pids = [pid for pid in pids if Path(f"/proc/{pid}").exists() and not _zombie(pid)]
                time.sleep(0.2)
            if not pids:
                break
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False
