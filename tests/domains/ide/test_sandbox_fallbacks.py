"""The weaker sandboxes (no bubblewrap): unshare, then rlimits only. Each still runs as the run user,
enforces the limits and the wall timeout, and records its name in every report."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saas_sim.domains.ide.sandbox import CACHE, WorkerPool, run_pytest, run_python, run_user
from saas_sim.domains.ide.sandbox.report import Isolation

FILES = {
    "acme/__init__.py": "",
    "acme/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from acme.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}


@pytest.fixture(params=["unshare", "rlimits"])
def pool(request: pytest.FixtureRequest) -> Iterator[WorkerPool]:
    isolation: Isolation = request.param
    CACHE.clear()
    made = WorkerPool(isolation=isolation, max_workers=1)
    yield made
    made.close()


def test_tests_run_and_the_report_names_the_weaker_sandbox(pool: WorkerPool) -> None:
    report = run_pytest(FILES, selection=None, timeout_s=20, pool=pool)
    assert report.tests == {"tests/test_calc.py::test_add": "passed"}
    assert report.sandbox == pool.isolation


def test_children_run_as_the_run_user_in_a_private_copy(pool: WorkerPool) -> None:
    report = run_python(FILES, code="import os, tempfile\nprint(os.getuid(), os.getcwd(), tempfile.gettempdir())\n"
                                    "open('acme/calc.py', 'w').write('x')", timeout_s=20, pool=pool)
    uid, cwd, tmp = report.output.split()
    assert int(uid) == run_user().uid
    assert cwd.endswith("/tree") and tmp.startswith(cwd.rsplit("/", 1)[0])
    again = run_python(FILES, code="print(open('acme/calc.py').read()[:7])", timeout_s=20, pool=pool)
    assert again.output == "def add\n"


def test_limits_and_the_wall_timeout_hold(pool: WorkerPool) -> None:
    assert run_python(FILES, code="while True:\n    pass\n", timeout_s=1.5, pool=pool).status == "timeout"
    hog = run_python(FILES, code="x = bytearray(8 << 30)", timeout_s=10, pool=pool)
    assert (hog.status, hog.limit) == ("resource_limit", "memory")
    bomb = run_python(FILES, code="import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n"
                                  "        pass\n", timeout_s=2, pool=pool)
    assert bomb.status in ("timeout", "resource_limit")
    assert run_python(FILES, code="print('ok')", timeout_s=10, pool=pool).output == "ok\n"


def test_unshare_has_no_network() -> None:
    pool = WorkerPool(isolation="unshare", max_workers=1)
    try:
        report = run_python(FILES, code="import socket\ns = socket.socket()\ns.settimeout(2)\n"
                                        "print(s.connect_ex(('1.1.1.1', 80)))", timeout_s=10, pool=pool)
        assert report.output.strip() != "0"
    finally:
        pool.close()
