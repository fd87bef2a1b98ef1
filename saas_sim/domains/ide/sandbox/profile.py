"""The sandbox's profile: which isolation this host gives, the run user, the limits and the determinism profile.

Isolation is detected once per process, strongest first, and recorded in every report:

* `bwrap`: bubblewrap (installed by .ci/setup_sandbox.sh): new pid, net, ipc and uts namespaces, an empty
  root with the interpreter bound read-only, private size-capped tmpfs mounts for /tmp and the tree copy,
  nothing else (not the repository, not the host's /tmp);
* `unshare`: util-linux unshare (pid, net, ipc, uts and mount namespaces): private size-capped tmpfs mounts
  for /tmp and the tree copy, the interpreter made reachable for the run user; the rest of the host's file
  system stays visible (read-only to the run user where its modes say so);
* `rlimits`: rlimits, the run user and process-group kills only: the network and the host's /tmp are shared,
  and a child that leaves its process group outlives the run. The run user must be able to read the
  interpreter here (modules the worker did not pre-import cannot be imported otherwise).

Every child runs as an unprivileged user (`saas-sim-run`, created by the set-up script, else `nobody`) when the
server is root, so RLIMIT_NPROC applies (the kernel ignores it for root); a non-root server runs children as itself.
Each worker then moves into a user namespace of its own (its ids mapped to themselves), because the kernel counts
RLIMIT_NPROC per user namespace and uid: otherwise all runs would share the run user's one count, and a run holding
its limit's worth of processes would make every other episode's concurrent runs fail to fork.
"""

from __future__ import annotations

import functools
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from importlib import metadata

from saas_sim.core.canonical import stable_hash
from saas_sim.domains.ide.sandbox.report import Isolation

__all__ = [
    "ENV", "PYTEST_ARGS", "RUN_USERS", "SCRATCH", "Limits", "RunUser", "detect_isolation", "interpreter_hash",
    "interpreter_prefixes", "launch_command",
    "profile_hash", "run_user",
]

RUN_USERS = ("saas-sim-run", "nobody")
"""The unprivileged users children run as (first that exists), when the server is root."""

ENV: dict[str, str] = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "UTC",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
}
"""The whole environment of the worker and its children (nothing of the server's leaks in)."""

PYTEST_ARGS: tuple[str, ...] = (
    "-q", "-p", "no:cacheprovider", "-p", "no:stepwise", "-c", "/dev/null", "--import-mode=append",
    "--color=no", "--tb=short", "-o", "console_output_style=classic", "-W", "ignore::DeprecationWarning",
)
"""The runner's fixed arguments: no cache between runs, no tree-owned ini (`-c /dev/null`: the tree's
pytest.ini, pyproject or setup.cfg cannot add options or plugins), tree modules after the standard library."""


@dataclass(frozen=True)
class Limits:
    """The limits of one run; each is enforced by the kernel (rlimits, tmpfs size) or by the worker's poll."""

    cpu_s: int = 120
    as_bytes: int = 1 << 30
    nofile: int = 256
    fsize_bytes: int = 16 << 20
    nproc: int = 64
    rss_bytes: int = 768 << 20
    disk_bytes: int = 128 << 20
    output_cap: int = 64 << 10
    results_cap: int = 4 << 20
    head_chars: int = 1200

    def child(self, timeout_s: float) -> dict[str, int]:
        """The limits the worker applies to one child (CPU never beyond the wall timeout plus one second)."""
        return {
            "cpu_s": max(1, min(self.cpu_s, int(timeout_s) + 1)), "as_bytes": self.as_bytes, "nofile": self.nofile,
            "fsize_bytes": self.fsize_bytes, "nproc": self.nproc, "rss_bytes": self.rss_bytes,
            "disk_bytes": self.disk_bytes,
        }


@dataclass(frozen=True)
class RunUser:
    """Who children run as: a name, uid and gid (the server's own when it is not root)."""

    name: str
    uid: int
    gid: int


@functools.cache
def run_user() -> RunUser:
    """The run user: the first of RUN_USERS that exists when root, else the server's own user."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return RunUser(entry.pw_name, entry.pw_uid, entry.pw_gid)
    for name in RUN_USERS:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return RunUser(name, entry.pw_uid, entry.pw_gid)
    return RunUser("nobody", 65534, 65534)


def interpreter_prefixes() -> list[str]:
    """The folders outside /usr that hold the interpreter, its standard library and site-packages."""
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, os.path.dirname(sys.executable))}
    return sorted(p for p in prefixes if p != "/usr" and not p.startswith("/usr/"))


def _ro_binds() -> list[str]:
    """bwrap arguments for the read-only interpreter: /usr, the merged-/usr links, the Python prefixes."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/lib", "/lib64", "/sbin"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    made: set[str] = {"/", "/usr"}
    for prefix in interpreter_prefixes():
        parts = prefix.strip("/").split("/")
        for i in range(1, len(parts)):
            parent = "/" + "/".join(parts[:i])
            if parent not in made:  # bwrap would make missing parents 0700, closed to the run user
                args += ["--perms", "0755", "--dir", parent]
                made.add(parent)
        args += ["--ro-bind", prefix, prefix]
        made.add(prefix)
    for etc in ("/etc/ld.so.cache", "/etc/localtime"):
        if os.path.exists(etc):
            args += ["--ro-bind", etc, etc]
    return args


SCRATCH = "/sandbox"
"""Inside bwrap: the private tmpfs that holds the tree copy (`/sandbox/tree`), the only writable folder but /tmp."""


def _bwrap(limits: Limits) -> list[str]:
    ns = ["--unshare-all"] if os.geteuid() != 0 else [
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        # Root starts the worker as root with only these two, so that it can drop to the run user itself.
        "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
    ]
    size = str(limits.disk_bytes + (16 << 20))
    # The private /tmp first, the interpreter after it: a virtualenv under the host's /tmp (a CI clone)
    # must stay visible, and a bind is hidden by any mount made over its parent later.
    return [
        "bwrap", *ns, "--die-with-parent", "--new-session",
        "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
        *_ro_binds(),
        "--proc", "/proc", "--dev", "/dev",
        "--perms", "0777", "--size", size, "--tmpfs", SCRATCH,
        "--chdir", SCRATCH, "--",
    ]


def _unshare() -> list[str]:
    user = [] if os.geteuid() == 0 else ["--user", "--map-current-user"]
    return ["unshare", *user, "--net", "--pid", "--fork", "--mount-proc", "--ipc", "--uts", "--"]


_PROBE_TIMEOUT_S = 20.0


def _works(cmd: list[str]) -> bool:
    try:
        done = subprocess.run([*cmd, sys.executable, "-c", "pass"], capture_output=True, timeout=_PROBE_TIMEOUT_S,
                              env=ENV, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def detect_isolation() -> Isolation:
    """The strongest isolation that works on this host (probed once per process)."""
    forced = os.environ.get("SAAS_SIM_SANDBOX")  # tests and operators can ask for a weaker one
    if forced in ("unshare", "rlimits"):
        return forced  # type: ignore[return-value]
    if shutil.which("bwrap") and _works(_bwrap(Limits())):
        return "bwrap"
    if shutil.which("unshare") and _works(_unshare()):
        return "unshare"
    return "rlimits"


def launch_command(isolation: Isolation, limits: Limits) -> list[str]:
    """The command prefix that starts a worker under `isolation`."""
    if isolation == "bwrap":
        return _bwrap(limits)
    if isolation == "unshare":
        return _unshare()
    return []


@functools.cache
def interpreter_hash() -> str:
    """The interpreter and the installed distributions (the lock as installed): part of every cache key."""
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"])
    return stable_hash({"python": sys.version, "executable": os.path.realpath(sys.executable), "dists": dists})


def profile_hash(isolation: Isolation, limits: Limits) -> str:
    """The determinism profile's hash: environment, runner arguments, limits, isolation, interpreter, run user."""
    return stable_hash({
        "env": ENV, "pytest_args": list(PYTEST_ARGS), "limits": asdict(limits), "isolation": isolation,
        "interpreter": interpreter_hash(), "user": run_user().name,
    })
