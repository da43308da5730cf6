"""A real container engine for the container tests: find or start dockerd, make the base, build the image, run it.

The Dockerfile's base is `python:3.12.7-slim-bookworm@sha256:…` from Docker Hub. Where that cannot be pulled (this
project's CI has no route to Docker Hub), a LOCAL STAND-IN is built: Debian bookworm made with `debootstrap` from the
machine's Debian mirror, with Debian's python3 (3.11), pip and venv, `python`/`pip` on PATH like the official image,
and the machine's CA bundle (so pip inside reaches PyPI through this network). It is passed to the Dockerfile as
`--build-arg BASE_IMAGE=…`; everything after FROM is the released Dockerfile, unchanged. The stand-in's root file
system is cached as a tarball (KHAOS_CONTAINER_CACHE, default ~/.cache/khaos-action/container) and rebuilt from
nothing when absent, as on a clean CI machine.

Every step prints what it does (run pytest with -s, or read the captured output of a failure).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERD_FLAGS = ["--iptables=false", "--bridge=none"]
STORAGE_DRIVERS = ("overlay2", "vfs")
"""overlay2 where the kernel and file system allow it (a container start in ~1 s); vfs, which works everywhere but
copies the whole image for every layer and every container (~40 s a container on a loaded 2-core machine), else."""
STANDIN_PACKAGES = ["python3", "python3-venv", "python3-pip", "ca-certificates"]
STANDIN_RECIPE = 2  # bump when the stand-in's recipe below changes (it keys the cache)


class EngineUnavailable(Exception):
    """No container engine can run here; the tests skip with this reason."""


NOTES: list[str] = []
"""Everything said, repeated in pytest's terminal summary (tests/container/conftest.py) so -q runs show it too."""


def say(message: str) -> None:
    NOTES.append(message)
    print(f"[container] {message}", file=sys.stderr, flush=True)


def pinned_base() -> str:
    text = (ROOT / "Dockerfile").read_text()
    match = re.search(r"^ARG BASE_IMAGE=(\S+)$", text, re.MULTILINE)
    assert match, "the Dockerfile declares ARG BASE_IMAGE=<pinned base>"
    return match[1]


def run(args: list[str], *, timeout: float = 600, check: bool = True, **kwargs) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])} … exited {proc.returncode}:\n{proc.stdout[-3000:]}\n"
                           f"{proc.stderr[-3000:]}")
    return proc


@dataclass
class Engine:
    docker: str
    started: subprocess.Popen | None = None
    log_path: Path | None = None
    created_images: list[str] = field(default_factory=list)

    def __call__(self, *args: str, timeout: float = 600, check: bool = True,
                 **kwargs) -> subprocess.CompletedProcess[str]:
        return run([self.docker, *args], timeout=timeout, check=check, **kwargs)

    def has_image(self, ref: str) -> bool:
        return self("image", "inspect", ref, check=False, timeout=60).returncode == 0

    def storage_driver(self) -> str:
        return self("info", "--format", "{{.Driver}}", timeout=60).stdout.strip()

    def image_size(self, ref: str) -> int:
        return int(self("image", "inspect", "--format", "{{.Size}}", ref).stdout.strip())

    def remove_image(self, ref: str) -> None:
        self("image", "rm", "--force", ref, check=False, timeout=300)

    def close(self) -> None:
        for ref in self.created_images:
            self.remove_image(ref)
        if self.started is not None:
            # Our own daemon: also the build stages the classic builder leaves untagged. On a shared daemon they
            # stay (a prune could take another session's build in progress).
            self("image", "prune", "--force", check=False, timeout=300)
            say(f"stopping the dockerd this test session started (pid {self.started.pid})")
            self.started.terminate()
            try:
                self.started.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.started.kill()


def _apt_install(packages: list[str]) -> None:
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return
    say(f"installing {' '.join(packages)} from Debian packages")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update", "-qq"], env=env, timeout=600, check=False)
    run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], env=env, timeout=900, check=False)


def find_engine() -> Engine:
    """A working docker CLI talking to a daemon: the one running, or a dockerd started here (root only)."""
    if not shutil.which("dockerd") or not shutil.which("docker"):
        _apt_install(["docker.io"])
    docker = shutil.which("docker")
    if not docker:
        raise EngineUnavailable("no docker CLI and docker.io could not be installed (needs root and apt)")
    if run([docker, "info"], check=False, timeout=60).returncode == 0:
        say("using the running Docker daemon")
        return Engine(docker)
    dockerd = shutil.which("dockerd")
    if not dockerd or os.geteuid() != 0:
        raise EngineUnavailable("no Docker daemon running and dockerd cannot be started here (needs root)")
    failures = []
    for driver in STORAGE_DRIVERS:
        log_path = Path(tempfile.gettempdir()) / f"khaos-dockerd-{os.getpid()}-{driver}.log"
        say(f"starting dockerd {' '.join(DOCKERD_FLAGS)} --storage-driver={driver} (log: {log_path})")
        with open(log_path, "w") as log:
            proc = subprocess.Popen([dockerd, *DOCKERD_FLAGS, f"--storage-driver={driver}"], stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if run([docker, "info"], check=False, timeout=30).returncode == 0:
                return Engine(docker, started=proc, log_path=log_path)
            time.sleep(1)
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)
        failures.append(f"{driver}: {log_path.read_text()[-600:]}")
    raise EngineUnavailable("dockerd did not start: " + " | ".join(failures))


# ---- the base ---------------------------------------------------------------------------------------------------

def _mirror() -> str:
    """The Debian mirror this machine's apt uses (deb822 or one-line sources)."""
    for path in sorted(Path("/etc/apt").glob("sources.list*")) + sorted(Path("/etc/apt/sources.list.d").glob("*")):
        if not path.is_file():
            continue
        text = path.read_text(errors="ignore")
        for match in re.finditer(r"^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", text, re.MULTILINE):
            uri = match[1].rstrip("/")
            if "security" not in uri:
                return uri
    return "http://deb.debian.org/debian"


def _ca_bundle() -> Path | None:
    for candidate in (os.environ.get("PIP_CERT"), os.environ.get("SSL_CERT_FILE"), os.environ.get("REQUESTS_CA_BUNDLE"),
                      "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def cache_dir() -> Path:
    path = Path(os.environ.get("KHAOS_CONTAINER_CACHE") or Path.home() / ".cache" / "khaos-action" / "container")
    path.mkdir(parents=True, exist_ok=True)
    return path


def standin_key() -> str:
    bundle = _ca_bundle()
    recipe = json.dumps([STANDIN_RECIPE, STANDIN_PACKAGES, _mirror(),
                         hashlib.sha256(bundle.read_bytes()).hexdigest() if bundle else None])
    return hashlib.sha256(recipe.encode()).hexdigest()[:12]


def _build_standin_rootfs(tarball: Path) -> None:
    if not shutil.which("debootstrap"):
        _apt_install(["debootstrap"])
    if not shutil.which("debootstrap") or os.geteuid() != 0:
        raise EngineUnavailable("the pinned base cannot be pulled and debootstrap (root) is not available to build "
                                "the local bookworm stand-in")
    mirror = _mirror()
    with tempfile.TemporaryDirectory(prefix="khaos-bookworm-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        say(f"debootstrap --variant=minbase bookworm from {mirror} (about 3 minutes)")
        started = time.monotonic()
        run(["debootstrap", "--variant=minbase", f"--include={','.join(STANDIN_PACKAGES)}", "bookworm", str(rootfs),
             mirror], timeout=1500)
        # Like the official python image: `python` and `pip` on PATH, pip may install into the system interpreter.
        (rootfs / "usr/local/bin/python").symlink_to("/usr/bin/python3")
        for marker in rootfs.glob("usr/lib/python3*/EXTERNALLY-MANAGED"):
            marker.unlink()
        bundle = _ca_bundle()
        if bundle:  # this network's CA bundle, so pip inside the build reaches PyPI as it does on this machine
            shutil.copyfile(bundle, rootfs / "etc/ssl/certs/ca-certificates.crt")
        for junk in ("var/cache/apt", "var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/locale",
                     "usr/share/info", "var/log"):
            shutil.rmtree(rootfs / junk, ignore_errors=True)
            (rootfs / junk).mkdir(parents=True, exist_ok=True)
        partial = tarball.with_suffix(".partial")
        run(["tar", "--numeric-owner", "--one-file-system", "-C", str(rootfs), "-czf", str(partial), "."],
            timeout=900)
        partial.rename(tarball)
        say(f"stand-in root file system cached at {tarball} ({tarball.stat().st_size / 1e6:.0f} MB compressed, "
            f"{time.monotonic() - started:.0f} s)")


def ensure_base(engine: Engine) -> tuple[str, bool]:
    """The base to build on and whether it is the local stand-in (True) or the pinned image itself (False)."""
    pinned = pinned_base()
    if engine.has_image(pinned) or engine("pull", pinned, check=False, timeout=120).returncode == 0:
        say(f"base: the pinned {pinned}")
        return pinned, False
    tag = f"khaos-local/python-bookworm-standin:{standin_key()}"
    say(f"base: the pinned {pinned} cannot be pulled here; using a LOCAL STAND-IN for it, {tag} "
        "(Debian bookworm from debootstrap, Debian's python3 3.11)")
    if engine.has_image(tag):
        return tag, True
    tarball = cache_dir() / f"bookworm-standin-{standin_key()}.tar.gz"
    with open(cache_dir() / "standin.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test session on this machine may be building it
        if not tarball.exists():
            _build_standin_rootfs(tarball)
        else:
            say(f"stand-in root file system from the cache: {tarball}")
        if not engine.has_image(tag):
            engine("import",
                   "--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                   "--change", "ENV LANG=C.UTF-8",
                   "--change", "ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt",
                   "--change", 'CMD ["python3"]', str(tarball), tag, timeout=900)
    return tag, True


def build(engine: Engine, base: str, tag: str, *build_args: str, no_cache: bool = False) -> float:
    """`docker build` of the repository's Dockerfile; returns the seconds it took."""
    started = time.monotonic()
    args = ["build", "--network", "host", "--build-arg", f"BASE_IMAGE={base}", "--tag", tag]
    if no_cache:
        args.append("--no-cache")
    for arg in build_args:
        args += ["--build-arg", arg]
    env = {**os.environ, "DOCKER_BUILDKIT": "0"}  # the classic builder: the Debian daemon here has no BuildKit CLI
    engine(*args, str(ROOT), timeout=1800, env=env)
    engine.created_images.append(tag)
    seconds = time.monotonic() - started
    say(f"built {tag}{' (no cache)' if no_cache else ''} in {seconds:.0f} s")
    return seconds
