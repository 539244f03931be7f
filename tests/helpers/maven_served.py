"""A Maven repository served on loopback, for the central class path's tests: jars compiled here and laid out as
Maven lays them out, with what Maven itself needs to resolve (the pinned maven-dependency-plugin, JUnit) served from
Debian's ``/usr/share/maven-repo`` behind them. Every path asked for is recorded."""

from __future__ import annotations

import posixpath
import subprocess
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DEBIAN_REPOSITORY = Path("/usr/share/maven-repo")
NS = 'xmlns="http://maven.apache.org/POM/4.0.0"'


def publish(
    repository: Path,
    coordinates: str,
    sources: dict[str, str],
    dependencies: tuple[str, ...] = (),
    classpath: tuple[Path, ...] = (),
) -> Path:
    """Compile *sources* (``path.java`` → text) into the jar of *coordinates* (``group:artifact:version``) in
    *repository*, with a pom naming *dependencies* (compile scope); the jar's path."""
    group, artifact, version = coordinates.split(":")
    folder = repository.joinpath(*group.split("."), artifact, version)
    folder.mkdir(parents=True, exist_ok=True)
    work = folder / ".build"
    for relative, text in sources.items():
        (work / "src" / relative).parent.mkdir(parents=True, exist_ok=True)
        (work / "src" / relative).write_text(text)
    argv = ["javac", "--release", "8", "-nowarn", "-d", str(work / "classes")]
    if classpath:
        argv += ["-cp", ":".join(map(str, classpath))]
    subprocess.run([*argv, *map(str, (work / "src").rglob("*.java"))], check=True, capture_output=True)
    jar = folder / f"{artifact}-{version}.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        for path in sorted((work / "classes").rglob("*.class")):
            archive.write(path, str(path.relative_to(work / "classes")))
    subprocess.run(["rm", "-rf", str(work)], check=True)
    needed = "".join(
        f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version></dependency>"
        for g, a, v in (d.split(":") for d in dependencies)
    )
    (folder / f"{artifact}-{version}.pom").write_text(
        f"<project {NS}><modelVersion>4.0.0</modelVersion><groupId>{group}</groupId><artifactId>{artifact}"
        f"</artifactId><version>{version}</version><dependencies>{needed}</dependencies></project>\n"
    )
    return jar


class MavenServer:
    """``with MavenServer(root) as server:`` serves *root*, then Debian's Maven repository, at ``server.url``."""

    def __init__(self, root: Path):
        self.root = root
        self.requested: list[str] = []
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self._answer(True)

            def do_HEAD(self) -> None:  # noqa: N802
                self._answer(False)

            def _answer(self, body: bool) -> None:
                path = posixpath.normpath(self.path.split("?", 1)[0]).lstrip("/")
                served.requested.append(path)
                found = next(
                    (
                        base / path
                        for base in (served.root, DEBIAN_REPOSITORY)
                        if ".." not in path.split("/") and (base / path).is_file()
                    ),
                    None,
                )
                if found is None:
                    self.send_error(404)
                    return
                data = found.read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> MavenServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def settings(path: Path, url: str) -> Path:
    """A ``settings.xml`` whose one mirror, of every repository, is *url*."""
    path.write_text(
        "<settings><mirrors><mirror><id>loopback</id><mirrorOf>*</mirrorOf>"
        f"<url>{url}</url></mirror></mirrors></settings>\n"
    )
    return path
