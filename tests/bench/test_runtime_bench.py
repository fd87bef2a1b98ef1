"""The runtime benchmark's world-build figure: measured on a real profile, never asserted against a limit."""

from __future__ import annotations

from saas_sim.bench.runtime import ENTERPRISE_PROFILE, world_build_seconds
from saas_sim.runtime.environment import Environment


def test_world_build_seconds_times_each_build_of_a_builtin_profile() -> None:
    env = Environment("sqlite+aiosqlite:///:memory:")
    assert ENTERPRISE_PROFILE in env.profiles, "the benchmark's large profile is missing"
    times = world_build_seconds(env, env.profiles["crm-smb"], repeats=2)
    assert len(times) == 2
    assert all(t > 0 for t in times)
