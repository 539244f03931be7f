"""``benchsmith serve`` in a process of its own on loopback, for the serve tests and bench/serve_load.py."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_D4J = ROOT / "data" / "fixtures" / "defects4j"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_tokens(path: Path, count: int = 2) -> list[str]:
    tokens = [secrets.token_hex(16) for _ in range(count)]
    path.write_text("# benchsmith serve tokens\n" + "\n".join(tokens) + "\n")
    return tokens


class Server:
    """One ``benchsmith serve`` process over *datasets*, its store under *store*; ``start`` waits for its health."""

    def __init__(self, datasets: list[Path], store: Path, token_file: Path, repos: Path, *extra: str):
        self.datasets, self.store, self.token_file, self.repos, self.extra = datasets, store, token_file, repos, extra
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log = store.parent / f"{store.name}.server.log"

    def start(self, timeout: float = 60.0) -> Server:
        command = [sys.executable, "-m", "benchsmith.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        for dataset in self.datasets:
            command += ["--dataset", str(dataset)]
        command += ["--token-file", str(self.token_file), "--store", str(self.store), "--repos", str(self.repos)]
        command += ["--defects4j", str(FIXTURE_D4J), "--timeout", "30", *self.extra]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=os.environ)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited ({self.process.returncode}): {self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/v1/health", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the server did not answer within {timeout} s: {self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup (its sandboxed children are reaped by the jail's next holder)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def metric(self, token: str, name: str) -> float:
        text = httpx.get(f"{self.url}/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=10).text
        return sum(float(line.split()[-1]) for line in text.splitlines() if line.split(" ")[0] == name)
