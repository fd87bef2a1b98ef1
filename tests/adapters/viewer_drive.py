"""Drives the trajectory viewer's HTML report in Debian's chromium through Playwright (run in its own venv).

Usage: viewer_drive.py REPORT.html SCREENSHOT.png ATTRIBUTION

It opens the report by its file:// URL (chromium at /usr/bin/chromium, `executable_path`; Playwright downloads
nothing), reads what the page shows, unticks the ATTRIBUTION filter, reads the visible episodes again, saves a
full-page screenshot and prints one JSON object on stdout. The test (test_viewer_browser.py) asserts on it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"

EPISODES_JS = """() => Array.from(document.querySelectorAll("section.episode")).map((s) => ({
  label: s.querySelector("h2").textContent,
  scenario: s.dataset.scenario,
  attribution: s.dataset.attribution,
  visible: !s.hidden && s.offsetParent !== null,
  steps: s.querySelectorAll("li.step").length,
  timeline: Array.from(s.querySelectorAll("ol.timeline > li")).map((li) =>
    li.classList.contains("model-turn") ? "model" : "step"),
  model_text: Array.from(s.querySelectorAll("li.model-turn pre")).map((p) => p.textContent),
  score: s.querySelector(".grade .score") ? s.querySelector(".grade .score").textContent : null,
  violations: Array.from(s.querySelectorAll("li.violation .violation-name")).map((v) => v.textContent),
  warning: s.querySelector(".warning") ? s.querySelector(".warning").textContent : null,
  diffs: Array.from(s.querySelectorAll("li.step")).flatMap((li) =>
    Array.from(li.querySelectorAll("tr.field-change")).map((tr) => ({
      step: Number(li.dataset.index), table: tr.dataset.table, id: tr.dataset.id, path: tr.dataset.path,
      before: tr.querySelector("td.before").textContent, after: tr.querySelector("td.after").textContent,
    }))),
}))"""


def visible_labels(page: Page) -> list[str]:
    return [e["label"] for e in page.evaluate(EPISODES_JS) if e["visible"]]


def main() -> None:
    report, screenshot, attribution = Path(sys.argv[1]).resolve(), Path(sys.argv[2]), sys.argv[3]
    facts: dict[str, Any] = {"console_errors": [], "requests": []}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: facts["console_errors"].append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: facts["console_errors"].append(str(e)))
            page.on("request", lambda r: facts["requests"].append(r.url))
            page.goto(report.as_uri(), wait_until="load")
            page.wait_for_selector("section.episode", timeout=15_000)
            facts["title"] = page.title()
            facts["episodes"] = page.evaluate(EPISODES_JS)
            facts["summary_before"] = page.text_content("#summary")
            page.click(f"#filter-attribution input[value='{attribution}']")
            facts["visible_after_click"] = visible_labels(page)
            facts["summary_after"] = page.text_content("#summary")
            page.fill("#score-min", "0.5")
            page.dispatch_event("#score-min", "input")
            page.click(f"#filter-attribution input[value='{attribution}']")
            facts["visible_score_over_half"] = visible_labels(page)
            page.fill("#score-min", "0")
            page.dispatch_event("#score-min", "input")
            facts["alert_injected"] = page.evaluate("() => window.__pwned === true")
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
