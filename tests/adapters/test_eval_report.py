"""The eval report's HTML: it parses, needs no network, holds the three plots and the figures, and escapes data."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from saas_sim.adapters.eval_report import SCORE_BINS, render_html, write_html
from saas_sim.runtime.eval_stats import EpisodeResult, summarize

HOSTILE_SCENARIO = 'crm/<script>alert("x")</script>@1'
HOSTILE_CHECK = 'reply&<img src=x onerror="alert(1)">'


class Page(HTMLParser):
    """Every start tag with its attributes, the text by element id, and all text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def count(self, tag: str, cls: str | None = None) -> int:
        return sum(1 for t, a in self.tags if t == tag and (cls is None or a.get("class") == cls))


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def report(rows: list[EpisodeResult], trials: int = 2) -> dict[str, Any]:
    summary = summarize(rows, trials=trials, resamples=200)
    scenarios = sorted({r.scenario for r in rows})
    return {**summary, "run": {"agent": "random:<1>", "scenario": "*", "scenarios": scenarios, "seeds": [0, 1],
                               "trials": trials},
            "episodes_planned": len(rows), "episodes_finished": len(rows), "complete": True, "resamples": 200}


def row(scenario: str, seed: int, trial: int, score: float | None, checks: dict[str, float],
        attribution: str | None = None) -> EpisodeResult:
    attribution = attribution or ("success" if score == 1.0 else "agent_failure")
    return EpisodeResult(scenario, seed, trial, "random:1", score, score, checks, [], attribution, 4)


def rows_of_two_scenarios() -> list[EpisodeResult]:
    out = []
    for seed in (0, 1):
        for trial in (0, 1):
            out.append(row("support/b@2", seed, trial, 1.0 if trial == 0 else 0.25, {"goal": 1.0 - 0.75 * trial}))
            out.append(row(HOSTILE_SCENARIO, seed, trial, 0.0, {HOSTILE_CHECK: 0.0, "scope": float(seed)}))
    return out


def test_the_page_parses_and_holds_the_three_plots() -> None:
    page = parse(render_html(report(rows_of_two_scenarios())))
    svgs = [a.get("id") for t, a in page.tags if t == "svg"]
    assert svgs == ["pass-k", "score-distribution", "check-failures"]
    assert page.count("rect", "bar") == 2 * SCORE_BINS  # one histogram row per scenario
    assert page.count("polyline", "curve") == 3  # all, crm, support
    assert page.count("circle") == 3 * 2  # each curve at k = 1 and 2
    failing = {HOSTILE_CHECK, "scope", "goal"}
    assert page.count("rect", "cell") == 2 * len(failing)


def test_the_page_shows_the_figures() -> None:
    data = report(rows_of_two_scenarios())
    text = "".join(parse(render_html(data)).text)
    overall = data["overall"]
    assert f"{overall['mean_score']:.3f}" == "0.312"
    low, high = overall["ci"]
    for figure in ("0.312", f"[{low:.3f}, {high:.3f}]", "mean goal score", "pass^1", "pass^2", "Failures per check",
                   "agent_failure"):
        assert figure in text
    assert f"{overall['pass_hat_k']['2']:.3f}" in text
    assert "8 of 8 episodes finished" in text


def test_text_from_the_report_is_escaped_data() -> None:
    html = render_html(report(rows_of_two_scenarios()))
    page = parse(html)
    assert page.count("script") == 0 and page.count("img") == 0
    assert not any(name.startswith("on") for _, attrs in page.tags for name in attrs)
    text = "".join(page.text)
    assert HOSTILE_SCENARIO in text and HOSTILE_CHECK in text and "random:<1>" in text


def test_the_page_needs_no_network() -> None:
    html = render_html(report(rows_of_two_scenarios()))
    page = parse(html)
    assert "http:" not in html and "https:" not in html and "//" not in html.replace("://", "")
    assert page.count("link") == 0 and page.count("script") == 0
    assert not any(key in attrs for _, attrs in page.tags for key in ("src", "href"))


@pytest.mark.parametrize(("invalid", "banner"), [(0, None), (1, "warning"), (2, "harness")])
def test_a_high_environment_failure_rate_shows_a_banner(invalid: int, banner: str | None) -> None:
    # 40 episodes: 1 invalid is 2.5% (a warning), 2 invalid in 20 is 10% (the harness is the problem).
    total = 40 if invalid < 2 else 20
    rows = [row("crm/a@1", i, 0, 1.0, {"goal": 1.0}) for i in range(total - invalid)]
    rows += [row("crm/a@1", 100 + i, 0, None, {}, "harness_error") for i in range(invalid)]
    page = parse(render_html(report(rows, trials=1)))
    classes = Counter(a.get("class") for t, a in page.tags if t == "div")
    if banner is None:
        assert not any(c and c.startswith("banner") for c in classes)
    else:
        assert classes[f"banner {banner}"] == 1
    text = "".join(page.text)
    assert ("the harness, not the model, is the problem" in text) == (banner == "harness")


def test_a_run_where_no_check_failed_says_so(tmp_path: Path) -> None:
    path = write_html(report([row("crm/a@1", 0, 0, 1.0, {"goal": 1.0})], trials=1), tmp_path / "r" / "report.html")
    page = parse(path.read_text(encoding="utf-8"))
    assert "no check failed in any episode" in "".join(page.text)
    assert page.count("rect", "cell") == 0


def test_token_usage_is_shown_when_an_llm_played() -> None:
    data = report(rows_of_two_scenarios())
    assert parse(render_html(data)).count("table", "usage") == 0
    data["usage"] = {"total_tokens": 1234}
    page = parse(render_html(data))
    assert page.count("table", "usage") == 1 and "1234" in "".join(page.text)
