"""The sandbox under hostile input: every attack is a recorded outcome, never an exception, and the host is safe."""

from __future__ import annotations

import json
from typing import Any

import pytest

from saas_sim.domains.ide.sandbox import CACHE, call_function, detect_isolation, run_pytest, run_python, run_user
from saas_sim.domains.ide.sandbox.runner import HIDDEN_PLACEHOLDER

PROJECT = {
    "acme/__init__.py": "",
    "acme/calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": "from acme.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
                          "def test_wrong():\n    assert add(2, 2) == 5\n",
}


JUDGE = {"_grader/test_judge.py": "import pytest\nfrom acme.calc import add\n\n\ndef _same(a, b):\n"
                                  "    return type(a) is type(b) and a == b\n\n\n"
                                  "def test_one():\n    assert _same(add(2, 3), 5)\n"
                                  "    with pytest.raises(TypeError):\n        add(1, None)\n"}


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    CACHE.clear()


def py(code: str, timeout_s: float = 10.0, files: dict[str, str] | None = None, stdin: str = ""):  # type: ignore[no-untyped-def]
    return run_python(files if files is not None else PROJECT, code=code, timeout_s=timeout_s, stdin=stdin)


def _utf8(value: object) -> bool:
    """Whether every string of a report (keys too) encodes as UTF-8, as the event log needs."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class TestLoneSurrogatesFromRuns:
    """Agent code can put a lone surrogate into what a run reports (`raise Exception("\\ud800")`); the
    report must still be UTF-8 text, or recording it is a harness error any agent could cause."""

    def test_a_failure_head_with_a_lone_surrogate_is_escaped(self) -> None:
        files = {**PROJECT, "tests/test_sur.py": 'def test_sur():\n    raise Exception("\\ud800")\n'}
        report = run_pytest(files, selection=["tests/test_sur.py"], timeout_s=20)
        assert report.tests == {"tests/test_sur.py::test_sur": "failed"}
        assert _utf8(report.model_dump(mode="json"))
        assert "Exception: \\ud800" in report.failures["tests/test_sur.py::test_sur"]

    def test_a_node_id_with_a_lone_surrogate_is_escaped(self) -> None:
        conftest = ("def pytest_collection_modifyitems(items):\n    for item in items:\n"
                    "        item.__class__ = type('F', (type(item),), {'nodeid': property(lambda s: 'x\\udcff')})\n")
        report = run_pytest({**PROJECT, "conftest.py": conftest}, selection=None, timeout_s=20)
        assert report.tests and _utf8(report.model_dump(mode="json"))
        assert all(nodeid.endswith("\\udcff") for nodeid in report.tests)

    @pytest.mark.parametrize("body", ["return '\\ud800'", "return {'\\ud800': ['\\udfff']}",
                                      "raise ValueError('\\ud800')"])
    def test_a_function_result_with_a_lone_surrogate_is_escaped(self, body: str) -> None:
        files = {**PROJECT, "acme/calc.py": f"def add(a, b):\n    {body}\n"}
        report = call_function(files, module="acme.calc", function="add", inputs=[[1, 2]], timeout_s=20)
        assert report.results and _utf8(report.model_dump(mode="json"))
        assert "\\ud800" in str(report.results[0])


class TestIsolation:
    def test_this_host_has_bubblewrap_and_the_run_user(self) -> None:
        # .ci/setup_sandbox.sh installs both; a weaker sandbox here would be a set-up regression.
        assert detect_isolation() == "bwrap"
        assert run_user().name == "saas-sim-run"

    def test_child_runs_unprivileged_in_the_tree_copy(self) -> None:
        report = py("import os; print(os.getuid(), os.geteuid(), os.getcwd())")
        assert report.status == "ok"
        uid, euid, cwd = report.output.split()
        assert int(uid) == int(euid) == run_user().uid != 0
        assert cwd.endswith("/tree")
        assert report.sandbox == "bwrap"

    def test_network_is_unreachable(self) -> None:
        report = py("import socket\ns = socket.socket()\ns.settimeout(2)\nprint(s.connect_ex(('1.1.1.1', 80)))\n"
                    "print(socket.getaddrinfo.__name__)\ntry:\n    socket.getaddrinfo('example.com', 80)\n"
                    "except OSError as e:\n    print('dns', type(e).__name__)\n")
        assert report.status == "ok"
        lines = report.output.split()
        assert lines[0] != "0"  # ENETUNREACH, never a connection
        assert "dns" in lines

    def test_the_repository_and_host_files_are_not_visible(self) -> None:
        report = py(
            "import os\nfor p in ['/work/main/README.md', '/work/main/saas_sim/domains/ide/sandbox/runner.py',"
            " '/etc/passwd', '/root/.bash_history', '/work/notes']:\n"
            "    print(p, os.path.exists(p))\n"
        )
        assert report.status == "ok"
        assert "True" not in report.output, report.output

    def test_the_interpreter_is_read_only(self) -> None:
        report = py("import os, pytest\ntry:\n    open(os.path.join(os.path.dirname(pytest.__file__), 'x.py'), 'w')\n"
                    "    print('wrote')\nexcept OSError as e:\n    print('refused', e.errno)\n")
        assert "refused" in report.output and "wrote" not in report.output

    def test_environment_is_scrubbed_and_deterministic(self) -> None:
        report = py("import os, time\nprint(sorted(os.environ))\nprint(hash('abc'), time.tzname[0])")
        assert "SAAS_SIM" not in report.output and "PG" not in report.output.split("\n")[0]
        again = run_python({**PROJECT, "x.txt": "other tree"}, code="print(hash('abc'))", timeout_s=10)
        assert report.output.split("\n")[1].split()[0] == again.output.strip()
        assert report.output.split("\n")[1].split()[1] == "UTC"


    def test_a_run_holds_no_capabilities(self) -> None:
        # The worker's own user namespace grants every capability in it; the worker drops them all.
        report = py("for line in open('/proc/self/status'):\n"
                    "    if line.startswith(('CapInh', 'CapPrm', 'CapEff', 'CapAmb')):\n"
                    "        print(line.split()[1])\n")
        assert report.status == "ok"
        assert [int(v, 16) for v in report.output.split()] == [0, 0, 0, 0], report.output

    def test_a_run_holding_its_processes_leaves_other_episodes_runs_free_to_fork(self) -> None:
        # RLIMIT_NPROC counts processes per user namespace and uid. Every run is the same run user, so
        # without a namespace per worker a run holding its 64 (within its own limits) made the forks of
        # every other concurrent run fail: another episode's tests then failed, and its grade with them.
        import threading

        from saas_sim.domains.ide.sandbox import WorkerPool

        pool = WorkerPool(max_workers=2)
        try:
            warm = [threading.Thread(target=run_python, args=(PROJECT,),
                                     kwargs={"code": f"import time\ntime.sleep(0.3)\nprint({i})", "timeout_s": 10,
                                             "pool": pool}) for i in range(2)]
            for t in warm:
                t.start()
            for t in warm:
                t.join()
            assert pool.started == 2
            hog = ("import subprocess\nheld = []\nwhile True:\n    try:\n"
                   "        held.append(subprocess.Popen(['sleep', '600']))\n    except OSError:\n        break\n"
                   "print('held', len(held), flush=True)\nwhile True:\n    pass\n")
            reports: dict[str, Any] = {}
            hog_thread = threading.Thread(target=lambda: reports.setdefault(
                "hog", run_python(PROJECT, code=hog, timeout_s=8, pool=pool)))
            hog_thread.start()
            # Only the pool's own processes count: another test process's sandboxes (pytest-xdist's other
            # worker) are the same run user, and counting them could let the victim start before the hog holds 60.
            _wait_for_processes_of(run_user().uid, at_least=60, timeout_s=6,
                                   under=[w.proc.pid for w in list(pool._all)])
            victim = run_python(
                {**PROJECT, "other.txt": "another episode"}, timeout_s=8, pool=pool,
                code="import subprocess, sys\nprint(subprocess.run([sys.executable, '-c', 'print(42)'], "
                     "capture_output=True, text=True).stdout.strip())")
            hog_thread.join()
            assert (victim.status, victim.output) == ("ok", "42\n"), victim.output
            assert reports["hog"].status == "timeout"
            held = int(reports["hog"].output.split()[1])
            assert held >= 60, reports["hog"].output  # its own limit, less its worker and itself
        finally:
            pool.close()


class TestHostileRuns:
    @pytest.mark.parametrize("line", ["b'9' * 5000", "b'[' * 3000"])
    def test_garbage_on_the_results_pipe_is_recorded_tamper(self, line: str) -> None:
        # The record parser raised ValueError (an int past 4300 digits) or RecursionError: a harness error.
        report = py(f"import os\nos.write(3, {line} + b'\\n')\nprint('done')\n")
        assert report.tamper == ["an unreadable line on the results pipe"] and report.output == "done\n"

    def test_infinite_loop_is_a_recorded_timeout(self) -> None:
        report = py("while True:\n    pass\n", timeout_s=1.5)
        assert report.status == "timeout"
        assert py("print('after')").output == "after\n"

    def test_a_timeout_is_returned_but_never_cached(self) -> None:
        # A wall timeout can come from the host's load: the same request later must run again.
        first = py("while True:\n    pass\n", timeout_s=1.5)
        again = py("while True:\n    pass\n", timeout_s=1.5)
        assert first.status == again.status == "timeout" and again is not first
        done = py("print('cached')")
        assert py("print('cached')") is done

    def test_fork_bomb_is_contained_and_the_next_run_is_clean(self) -> None:
        report = py("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
                    timeout_s=2)
        assert report.status in ("timeout", "resource_limit")
        after = py("import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
        assert after.status == "ok"
        # pid 1 (bwrap), the worker, its zygote and this child: the bomb is gone, its zombies reaped.
        assert len(eval(after.output)) <= 4

    def test_memory_hog_is_a_resource_limit(self) -> None:
        report = py("x = bytearray(8 << 30)\n")
        assert (report.status, report.limit) == ("resource_limit", "memory")
        gradual = py("chunks = []\nwhile True:\n    chunks.append(bytearray(32 << 20))\n", timeout_s=8)
        assert gradual.status == "resource_limit"

    def test_runaway_output_is_capped_and_counted(self) -> None:
        report = py("import sys\nwhile True:\n    sys.stdout.write('x' * 4096)\n", timeout_s=1.5)
        assert report.status == "timeout"
        assert len(report.output) <= 64 << 10
        assert report.output_truncated > 0
        finite = py("print('y' * (3 << 20))")
        assert finite.status == "ok" and finite.output_truncated > 3 << 19

    def test_huge_file_is_refused_by_the_file_size_limit(self) -> None:
        report = py("open('big.bin', 'wb').write(b'0' * (64 << 20))\n")
        assert report.status in ("failed", "resource_limit")
        assert "File too large" in report.output or report.limit == "file_size"

    def test_filling_the_scratch_disk_is_a_resource_limit(self) -> None:
        code = ("i = 0\nwhile True:\n    with open(f'f{i}.bin', 'wb') as fh:\n        fh.write(b'0' * (8 << 20))\n"
                "    i += 1\n")
        report = py(code, timeout_s=8)
        assert report.status in ("resource_limit", "failed")
        assert report.limit == "disk" or "No space left" in report.output

    def test_a_daemon_that_leaves_the_process_group_is_killed(self) -> None:
        report = py("import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(600)\nprint('parent')\n")
        assert report.status == "ok"
        # Killed is what counts: a killed daemon may stay a zombie a moment, until the worker reaps it. Alive:
        # pid 1 (bwrap), the worker, its zygote and this child.
        after = py("import os\n"
                   "def alive(p):\n"
                   "    try:\n"
                   "        return open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z'\n"
                   "    except OSError:\n"
                   "        return False\n"
                   "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and alive(p)))")
        assert len(eval(after.output)) <= 4, after.output

    def test_killing_the_worker_is_a_failed_run_and_the_pool_recovers(self) -> None:
        report = py("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(5)\n")
        assert report.status in ("failed", "timeout")
        assert py("print('fresh')").output == "fresh\n"

    def test_file_changes_are_discarded_after_a_run(self) -> None:
        py("open('acme/calc.py', 'w').write('broken')\nopen('/tmp/left.txt', 'w').write('x')\n")
        report = py("import os\nprint(open('acme/calc.py').read().startswith('def add'), "
                    "os.path.exists('/tmp/left.txt'))")
        assert report.output.split() == ["True", "False"]

    def test_read_only_and_unreadable_folders_are_gone_after_a_run(self) -> None:
        py("import os\n"
           "for root in ('acme/locked', '/tmp/locked'):\n"
           "    os.makedirs(root + '/inner/deep')\n"
           "    open(root + '/inner/deep/f.txt', 'w').write('x')\n"
           "    open(root + '/g.txt', 'w').write('x')\n"
           "    os.chmod(root + '/inner/deep', 0o500)\n"
           "    os.chmod(root + '/inner', 0o000)\n"
           "    os.chmod(root, 0o500)\n")
        report = py("import os\nprint(os.path.exists('acme/locked'), os.path.exists('/tmp/locked'))")
        assert report.output.split() == ["False", "False"]

    def test_stdin_and_args_reach_the_program(self) -> None:
        report = run_python(PROJECT, code="import sys\nprint(sys.argv[1:], sys.stdin.read())", args=["a", "b"],
                            stdin="hello", timeout_s=10)
        assert report.output.strip() == "['a', 'b'] hello"

    def test_a_module_of_the_tree_runs_as_main(self) -> None:
        files = {**PROJECT, "acme/cli.py": "import sys\nif __name__ == '__main__':\n    print('cli', sys.argv[1:])\n"}
        report = run_python(files, module="acme.cli", args=["x"], timeout_s=10)
        assert (report.status, report.output) == ("ok", "cli ['x']\n")

    def test_a_test_run_that_never_ends_is_a_recorded_timeout(self) -> None:
        files = {**PROJECT, "tests/test_hang.py": "def test_hang():\n    while True:\n        pass\n"}
        report = run_pytest(files, selection=["tests/test_hang.py::test_hang"], timeout_s=1.5)
        assert report.status == "timeout"
        assert report.tests == {"tests/test_hang.py::test_hang": "failed"}


class TestRunPytest:
    def test_per_test_outcomes_and_failure_heads(self) -> None:
        report = run_pytest(PROJECT, selection=None, timeout_s=20)
        assert report.tests == {"tests/test_calc.py::test_add": "passed", "tests/test_calc.py::test_wrong": "failed"}
        assert "assert 4 == 5" in report.failures["tests/test_calc.py::test_wrong"]
        assert report.status == "failed" and report.complete

    def test_selection_and_keyword(self) -> None:
        report = run_pytest(PROJECT, selection=["tests/test_calc.py::test_add"], timeout_s=20)
        assert report.tests == {"tests/test_calc.py::test_add": "passed"}
        assert report.status == "ok"
        by_keyword = run_pytest(PROJECT, selection=None, keyword="wrong", timeout_s=20)
        assert list(by_keyword.tests) == ["tests/test_calc.py::test_wrong"]

    def test_a_selected_test_that_does_not_exist_is_failed(self) -> None:
        report = run_pytest(PROJECT, selection=["tests/test_calc.py::test_missing"], timeout_s=20)
        assert report.tests["tests/test_calc.py::test_missing"] == "failed"
        assert report.status == "failed"

    def test_same_request_is_served_from_the_cache(self) -> None:
        first = run_pytest(PROJECT, selection=None, timeout_s=20)
        second = run_pytest(PROJECT, selection=None, timeout_s=20)
        assert second is first
        changed = run_pytest({**PROJECT, "acme/calc.py": "def add(a, b):\n    return 5\n"}, selection=None,
                             timeout_s=20)
        assert changed.tests["tests/test_calc.py::test_wrong"] == "passed"

    def test_same_tree_gives_the_same_report_in_another_worker(self) -> None:
        first = run_pytest(PROJECT, selection=None, timeout_s=20)
        CACHE.clear()
        again = run_pytest(PROJECT, selection=None, timeout_s=20)
        assert first.model_dump(exclude={"wall_ms"}) == again.model_dump(exclude={"wall_ms"})

    def test_tree_ini_cannot_add_options_or_plugins(self) -> None:
        files = {**PROJECT, "pytest.ini": "[pytest]\naddopts = -p acme.evil --co\n",
                 "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-p acme.evil'\n",
                 "acme/evil.py": "raise SystemExit('loaded')\n"}
        report = run_pytest(files, selection=None, timeout_s=20)
        assert report.tests["tests/test_calc.py::test_add"] == "passed"

    @pytest.mark.parametrize("patch", [
        "getattr(getattr(sys, '_get' + 'frame')(1), 'f_globals')['_same'] = lambda a, b: True",
        "getattr(sys, '_get' + 'frame')(1).f_globals['_same'].__code__ = (lambda a, b: True).__code__",
        "import builtins; builtins.type = lambda x: int",
        "import threading; threading.Thread(target=lambda: __import__('time').sleep(5), daemon=True).start()",
    ])
    def test_agent_code_that_patches_what_a_test_judges_with_is_tamper(self, patch: str) -> None:
        module = f"import sys\n\n\ndef add(a, b):\n    {patch}\n    return a - b\n"
        hidden = {"_grader/test_judge.py": "from acme.calc import add\n\n\ndef _same(a, b):\n"
                                           "    return type(a) is type(b) and a == b\n\n\n"
                                           "def test_one():\n    assert _same(add(2, 3), 5)\n\n\n"
                                           "def test_two():\n    assert _same(add(1, 1), 2)\n"}
        report = run_pytest({**PROJECT, "acme/calc.py": module},
                            selection=["_grader/test_judge.py::test_one", "_grader/test_judge.py::test_two"],
                            timeout_s=20, extra_files=hidden, hidden=True)
        # A patched builtin may break the grader's own plugin first: then the session never ends (incomplete).
        assert report.status == "failed" and "passed" not in report.tests.values()
        assert report.tamper or not report.complete

    @pytest.mark.parametrize("reach", [
        "sys._getframe(1).f_code.co_consts",
        "[t for t in __import__('traceback').walk_stack(None)]",
        "__import__('gc').get_referrers(add)",
        "(lambda: (yield))().gi_frame",
    ])
    def test_agent_code_that_reaches_frames_or_the_heap_under_the_grader_is_tamper(self, reach: str) -> None:
        module = f"import sys\n\n\ndef add(a, b):\n    _ = {reach}\n    return a + b\n"
        report = run_pytest({**PROJECT, "acme/calc.py": module}, selection=["_grader/test_judge.py::test_one"],
                            timeout_s=20, extra_files=JUDGE, hidden=True)
        assert report.tamper and report.tests == {"_grader/test_judge.py::test_one": "failed"}

    def test_a_later_hidden_module_cannot_be_read_off_the_finder(self) -> None:
        module = ("from sys import meta_path\n\n\ndef _state(f):\n    try:\n        return repr(f.__reduce_ex__(2))\n"
                  "    except Exception:\n        return ''\n\n\n"
                  "FOUND = [_state(f) for f in meta_path if not isinstance(f, type)]\n\n\n"
                  "def add(a, b):\n    return a + b\n")
        hidden = {"_grader/test_a.py": "from acme.calc import FOUND\n\n\ndef test_a():\n"
                                       "    assert not any('SECRET' in s for s in FOUND)\n",
                  "_grader/test_b.py": "def test_b():\n    assert 'SECRET'\n"}
        report = run_pytest({**PROJECT, "acme/calc.py": module},
                            selection=["_grader/test_a.py::test_a", "_grader/test_b.py::test_b"],
                            timeout_s=20, extra_files=hidden, hidden=True)
        assert report.tests == {"_grader/test_a.py::test_a": "passed", "_grader/test_b.py::test_b": "passed"}

    def test_stdlib_that_walks_frames_for_itself_is_no_tamper_under_the_grader(self) -> None:
        module = ("import collections\nimport logging\nimport typing\n\nPair = collections.namedtuple('Pair', 'a b')\n"
                  "T = typing.TypeVar('T')\n\n\ndef add(a, b):\n    logging.getLogger('acme').warning('adding')\n"
                  "    return Pair(a, b).a + b\n")
        report = run_pytest({**PROJECT, "acme/calc.py": module}, selection=["_grader/test_judge.py::test_one"],
                            timeout_s=20, extra_files=JUDGE, hidden=True)
        assert not report.tamper and report.tests == {"_grader/test_judge.py::test_one": "passed"}

    def test_a_test_that_warns_is_no_tamper(self) -> None:
        hidden = {"_grader/test_warns.py": "import warnings\n\n\ndef test_warns():\n"
                                           "    warnings.warn('once', UserWarning)\n    assert open('acme/calc.py')\n"}
        report = run_pytest(PROJECT, selection=["_grader/test_warns.py::test_warns"], timeout_s=20,
                            extra_files=hidden, hidden=True)
        assert report.tests == {"_grader/test_warns.py::test_warns": "passed"} and not report.tamper

    def test_hidden_files_are_placeholders_on_disk(self) -> None:
        hidden = {"tests/hidden/test_secret.py": "def test_secret():\n    assert open('tests/hidden/test_secret.py')"
                                                 ".read() == " + repr(HIDDEN_PLACEHOLDER) + "\n"}
        report = run_pytest(PROJECT, selection=["tests/hidden/test_secret.py::test_secret"], timeout_s=20,
                            extra_files=hidden, hidden=True)
        assert report.tests == {"tests/hidden/test_secret.py::test_secret": "passed"}



_HEAP_SCAN = """
import ctypes, sys
wanted = sys.argv[1].encode()[::-1]  # the one copy of the needle this process makes (the argument is reversed)
needle_at = id(wanted) + sys.getsizeof(b'') - 1  # where a bytes object's data starts
found = []
with open('/proc/self/maps') as fh:
    regions = [line.split() for line in fh]
for fields in regions:
    if not fields[1].startswith('rw') or (fields[5] if len(fields) > 5 else '') not in ('', '[heap]'):
        continue
    lo, hi = (int(x, 16) for x in fields[0].split('-'))
    for start in range(lo, hi, 1 << 20):
        chunk = ctypes.string_at(start, min((1 << 20) + len(wanted), hi - start))
        at = chunk.find(wanted)
        while at != -1:
            if start + at != needle_at:
                found.append(start + at)
            at = chunk.find(wanted, at + 1)
print('found' if found else 'clean')
"""


class TestNoRunSeesAnother:
    def test_a_run_cannot_find_an_earlier_runs_files_in_its_memory(self) -> None:
        # Another episode's tree (a correct fix, a hidden file) passed through the worker; a child forked from
        # it inherited its heap, so a run could scan its own memory for what an earlier run held.
        from saas_sim.domains.ide.sandbox import WorkerPool

        token = "fixed_by_another_rollout_" + "q7w3e9" * 4
        pool = WorkerPool(max_workers=1)
        try:
            earlier = {**PROJECT, "acme/solution.py": f"SOLUTION = {token!r}\n" + "# padding\n" * 4000}
            assert run_python(earlier, code="print('ok')", timeout_s=20, pool=pool).output == "ok\n"
            printed = run_python(PROJECT, code=f"print({token[::-1]!r}[::-1])", timeout_s=20, pool=pool)
            assert printed.output == token + "\n"  # an output, too, passed through the worker
            scan = run_python(PROJECT, code=_HEAP_SCAN, args=[token[::-1]], timeout_s=60, pool=pool)
            assert scan.status == "ok", scan.output
            assert scan.output == "clean\n"
            # The scan does find what its own run holds, so "clean" is not a blind scan.
            own = run_python({**PROJECT, "acme/own.py": f"X = {token!r}\n"}, code=_HEAP_SCAN + "import acme.own\n",
                             args=[token[::-1]], timeout_s=60, pool=pool)
            assert own.output == "found\n", own.output
        finally:
            pool.close()


_ZYGOTE = """
import os, signal
me, worker = os.getpid(), os.getppid()
for n in os.listdir('/proc'):
    if n.isdigit() and int(n) not in (me, worker, 1):
        try:  # a process may end between the listing and the read (the zygote's intermediate, exiting)
            fields = open(f'/proc/{n}/stat').read().rsplit(')', 1)[1].split()
        except FileNotFoundError:
            continue
        if int(fields[1]) == worker:
            {act}
print('done')
"""

_CHILD_STATE = ("import os\nprint(os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0), "
                "open(f'/proc/{os.getppid()}/stat').read().rsplit(')', 1)[1].split()[16])")


class TestNoRunHarmsAnother:
    """A run's code has the worker's and the zygote's uid: what it does to them must not reach the next run,
    which may be another episode's grading."""

    @pytest.mark.parametrize("act", [
        "os.kill(int(n), signal.SIGKILL)",
        "os.kill(int(n), signal.SIGSTOP)",
        "os.setpriority(os.PRIO_PROCESS, int(n), 19)",
        "os.sched_setscheduler(int(n), os.SCHED_IDLE, os.sched_param(0))",
    ])
    def test_what_a_run_does_to_the_zygote_never_reaches_the_next_run(self, act: str) -> None:
        from saas_sim.domains.ide.sandbox import WorkerPool

        pool = WorkerPool(max_workers=1)
        try:
            baseline = run_python(PROJECT, code=_CHILD_STATE, timeout_s=20, pool=pool).output
            attack = run_python(PROJECT, code=_ZYGOTE.replace("{act}", act), timeout_s=20, pool=pool)
            assert attack.output == "done\n", attack.output
            after = run_python(PROJECT, code=_CHILD_STATE + "\n", timeout_s=20, pool=pool)
            assert after.status == "ok" and after.output == baseline  # same priority, policy, parent's nice
            report = run_pytest({**PROJECT, "tests/test_y.py": "def test_y():\n    assert True\n"},
                                selection=["tests/test_y.py::test_y"], timeout_s=20, pool=pool)
            assert report.status == "ok"
        finally:
            pool.close()

    def test_what_a_run_does_to_its_worker_never_reaches_the_next_run(self) -> None:
        from saas_sim.domains.ide.sandbox import WorkerPool

        pool = WorkerPool(max_workers=1)
        try:
            baseline = run_python(PROJECT, code=_CHILD_STATE, timeout_s=20, pool=pool).output
            renice = "import os\nos.setpriority(os.PRIO_PROCESS, os.getppid(), 19)\nprint('done')"
            assert run_python(PROJECT, code=renice, timeout_s=20, pool=pool).output == "done\n"
            after = run_python(PROJECT, code=_CHILD_STATE + "\n", timeout_s=20, pool=pool)
            assert after.status == "ok" and after.output == baseline
        finally:
            pool.close()

    def test_a_process_that_keeps_forking_does_not_outlive_its_run(self) -> None:
        # Each generation forks the next and exits: one pass of kills over /proc left the newest alive.
        from saas_sim.domains.ide.sandbox import WorkerPool

        hydra = ("import os\nif os.fork() == 0:\n    os.setsid()\n    while True:\n        if os.fork():\n"
                 "            os._exit(0)\nprint('started')\n")
        alive = ("import os\n"
                 "def alive(p):\n"
                 "    try:\n"
                 "        return open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z'\n"
                 "    except OSError:\n"
                 "        return False\n"
                 "print(len([p for p in os.listdir('/proc') if p.isdigit() and alive(p)]))")
        pool = WorkerPool(max_workers=1)
        try:
            for k in range(3):
                assert run_python(PROJECT, code=hydra + f"# {k}\n", timeout_s=20, pool=pool).output == "started\n"
                after = run_python(PROJECT, code=alive + f"\n# {k}\n", timeout_s=20, pool=pool)
                assert int(after.output) <= 4, after.output  # bwrap's pid 1, the worker, the zygote, this child
        finally:
            pool.close()


class TestWorkerLifetime:
    def test_a_run_survives_the_end_of_the_thread_that_started_its_worker(self) -> None:
        # bwrap's --die-with-parent follows the thread that forked the sandbox, and effect threads come and
        # go: a worker started for one thread and busy with another thread's run must not die with the first.
        import threading

        from saas_sim.domains.ide.sandbox import WorkerPool

        pool = WorkerPool(max_workers=1)
        started, leave = threading.Event(), threading.Event()

        def starter() -> None:
            pool.warm(1)
            started.set()
            leave.wait(30)

        thread = threading.Thread(target=starter)
        thread.start()
        try:
            assert started.wait(30)
            reports = []
            runner = threading.Thread(target=lambda: reports.append(run_python(
                PROJECT, code="import time\ntime.sleep(1.0)\nprint('done')", timeout_s=20, pool=pool)))
            runner.start()
            leave.set()
            thread.join()
            runner.join()
            assert reports[0].status == "ok" and reports[0].output.strip() == "done"
            assert pool.started == 1
        finally:
            leave.set()
            pool.close()

    def test_a_run_the_host_starves_is_not_timed_out_but_a_sleeping_one_is(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        # The run's clock leaves out the time it waited for a CPU: on a host busy with other work (CI's
        # tests beside the self-audit) a correct solution's tests must not time out and score 0.
        import contextlib
        import os
        import subprocess
        import sys
        from pathlib import Path

        from saas_sim.domains.ide.sandbox import WorkerPool
        from saas_sim.domains.ide.sandbox import pool as pool_module

        # The host's backstop is not under test: only the worker's own clock may time the runs out.
        monkeypatch.setattr(pool_module, "STARVATION_ALLOWANCE", 30.0)
        saved = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(saved)})  # this thread, its worker and the hogs share one CPU
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(8)]
        pool = WorkerPool(max_workers=1)
        try:
            pool.warm(1)
            # The sandbox is a session of its own, so the scheduler shares the CPU between it and the hogs'
            # session (autogroups): lower its group's weight, so that it gets about a tenth of the CPU.
            for pid in _descendants(pool._idle[0].proc.pid):
                with contextlib.suppress(OSError):  # a short-lived process may be gone by now
                    Path(f"/proc/{pid}/autogroup").write_text("10")
            busy = "x = 0\nfor i in range(1_000_000):\n    x += i\nprint('done')\n"  # about 0.1 s of CPU
            report = run_python(PROJECT, code=busy, timeout_s=1.0, pool=pool)
            assert (report.status, report.output) == ("ok", "done\n")
            asleep = run_python(PROJECT, code="import time\ntime.sleep(30)\n", timeout_s=1.0, pool=pool)
            assert asleep.status == "timeout"
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
            os.sched_setaffinity(0, saved)
            pool.close()

    def test_a_worker_keeps_its_descriptors_across_runs(self) -> None:
        # Every run used to leak the two pipes' read ends in the worker: some 500 runs in, its select() met a
        # descriptor past 1024 and the worker died under a run, scored as a failed or timed-out grading run.
        import os

        from saas_sim.domains.ide.sandbox import WorkerPool

        pool = WorkerPool(max_workers=1)
        try:
            pool.warm(1)

            def open_fds() -> dict[int, int]:
                return {p: len(os.listdir(f"/proc/{p}/fd")) for p in _descendants(pool._idle[0].proc.pid)}

            before = open_fds()
            for k in range(12):
                assert run_python(PROJECT, code=f"print({k})", timeout_s=10, pool=pool).output == f"{k}\n"
            run_pytest(PROJECT, selection=None, timeout_s=20, pool=pool)
            assert open_fds() == before and pool.started == 1
        finally:
            pool.close()

    def test_a_host_with_descriptors_past_1024_still_reads_its_workers(self) -> None:
        # A busy server or audit holds many stores, sockets and workers: select() cannot wait on a descriptor
        # numbered 1024 or more, and every reply read that way failed as a timeout.
        import os
        import resource

        from saas_sim.domains.ide.sandbox import WorkerPool

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = 1200
        if hard != resource.RLIM_INFINITY and hard < wanted:
            pytest.skip(f"the hard descriptor limit ({hard}) is below {wanted}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
        filler: list[int] = []
        pool = WorkerPool(max_workers=1)
        try:
            while not filler or filler[-1] < 1030:
                filler.append(os.open(os.devnull, os.O_RDONLY))
            pool.warm(1)
            worker = pool._idle[0]
            assert worker.proc.stdout is not None and worker.proc.stdout.fileno() >= 1024
            report = run_python(PROJECT, code="print('read')", timeout_s=10, pool=pool)
            assert (report.status, report.output) == ("ok", "read\n")
        finally:
            pool.close()
            for fd in filler:
                os.close(fd)
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    def test_a_request_the_worker_never_took_goes_to_a_fresh_one(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # A worker that dies before it takes a request (an outside kill, the OOM killer) never ran it: the
        # request is run on another worker, not scored as a failed run.
        import contextlib
        import os
        import signal

        from saas_sim.domains.ide.sandbox import WorkerPool

        pool = WorkerPool(max_workers=1)
        try:
            pool.warm(1)
            doomed = pool._idle[0]
            inside = [pid for pid in _descendants(doomed.proc.pid) if pid != doomed.proc.pid]
            for pid in inside:
                # A short-lived process (the warm-up's, ending) may be gone by now: the worker and zygote are not.
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)  # it cannot take the request
            send = doomed._send_frame

            def send_then_die(value: dict[str, object]) -> None:
                send(value)  # the request waits in the pipe, unread
                for pid in [doomed.proc.pid, *inside]:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)

            monkeypatch.setattr(doomed, "_send_frame", send_then_die)
            report = run_python(PROJECT, code="print('ran')", timeout_s=10, pool=pool)
            assert (report.status, report.output, pool.started) == ("ok", "ran\n", 2)
        finally:
            pool.close()


def _descendants(pid: int) -> list[int]:
    """`pid` and every process below it (from /proc's children lists)."""
    from pathlib import Path

    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo += [int(c) for c in task.read_text().split()]
            except OSError:  # that thread or process ended meanwhile
                continue
    return out


def _wait_for_processes_of(uid: int, *, at_least: int, timeout_s: float, under: list[int]) -> None:
    """Waits until `uid` owns at least `at_least` live processes among `under` and their descendants."""
    import time
    from pathlib import Path

    def count() -> int:
        n = 0
        for pid in {p for root in under for p in _descendants(root)}:
            status = Path(f"/proc/{pid}/status")
            try:
                uids = next(line for line in status.read_text().splitlines() if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            n += int(uids.split()[1]) == uid
        return n

    deadline = time.monotonic() + timeout_s
    while (seen := count()) < at_least:
        assert time.monotonic() < deadline, f"uid {uid} owns {seen} processes, not {at_least}"
        time.sleep(0.05)
