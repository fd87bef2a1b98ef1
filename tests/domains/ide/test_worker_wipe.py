"""The sandbox worker's wipe between runs: everything a run left goes, and nothing mounted inside the wiped folder
is walked or touched (a project whose interpreter lives under /tmp has it bound into the sandbox's /tmp)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

WORKER_SRC = Path(__file__).parents[3] / "saas_sim" / "domains" / "ide" / "sandbox" / "worker_src.py"

# Runs in a mount namespace of its own (a user namespace maps this user to root there, so no privilege is needed).
SCRIPT = r"""
import json, os, subprocess, sys
base, src = sys.argv[1], sys.argv[2]
g = {"__name__": "__saas_sim_worker_test__"}
exec(compile(open(src).read(), "worker_src", "exec"), g)
scratch, outside = base + "/scratch", base + "/outside"
os.makedirs(outside + "/lib/ro")
open(outside + "/lib/x.py", "w").write("x = 1\n")
os.chmod(outside + "/lib/ro", 0o500)
os.makedirs(scratch + "/ci/main/venv")
subprocess.run(["mount", "--bind", outside, scratch + "/ci/main/venv"], check=True)
os.makedirs(scratch + "/junk/deep")
open(scratch + "/junk/deep/f.txt", "w").write("x")
open(scratch + "/ci/left.txt", "w").write("x")
open(scratch + "/ci/main/left.txt", "w").write("x")
os.makedirs(scratch + "/locked/inner")
open(scratch + "/locked/inner/f.txt", "w").write("x")
os.chmod(scratch + "/locked/inner", 0o500)
os.chmod(scratch + "/locked", 0o500)
g["_wipe"](scratch)
found = sorted(os.path.relpath(os.path.join(root, name), scratch)
               for root, dirs, files in os.walk(scratch) for name in dirs + files)
print(json.dumps({"found": found, "ro_mode": oct(os.stat(outside + "/lib/ro").st_mode & 0o777)}))
"""


def test_a_wipe_removes_what_the_run_left_but_leaves_mounts_inside_the_folder_untouched(tmp_path: Path) -> None:
    unshare = shutil.which("unshare")
    assert unshare is not None, "util-linux unshare is needed (the sandbox's own fallback uses it too)"
    done = subprocess.run([unshare, "--user", "--map-root-user", "--mount", sys.executable, "-c", SCRIPT,
                           str(tmp_path), str(WORKER_SRC)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # The mounted folder and its contents are as they were: not removed, not made writable.
    assert result["found"] == ["ci", "ci/main", "ci/main/venv", "ci/main/venv/lib", "ci/main/venv/lib/ro",
                               "ci/main/venv/lib/x.py"]
    assert result["ro_mode"] == "0o500"
    assert (tmp_path / "outside" / "lib" / "x.py").read_text() == "x = 1\n"
