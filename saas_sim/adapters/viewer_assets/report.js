// Builds the report from the embedded JSON. Trajectory text is data: it only ever reaches the page through
// textContent and attribute values, never as markup.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("saas-sim-data").textContent);
  const episodes = data.episodes;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else node.setAttribute(key, String(value));
    }
    for (const child of children || []) if (child) node.appendChild(child);
    return node;
  }
  function json(value) {
    return value === undefined ? "" : JSON.stringify(value, null, 2);
  }
  function short(value) {
    const text = value === null || value === undefined ? "∅" : typeof value === "string" ? value : JSON.stringify(value);
    return text.length > 400 ? text.slice(0, 400) + "…" : text;
  }
  function fmtScore(score) {
    return score === null || score === undefined ? "invalid" : Number(score).toFixed(3);
  }

  function gradeView(ep) {
    const grade = ep.grade;
    if (!grade) return el("p", { className: "warning", text: "not graded: the trajectory has no footer" });
    const head = el("p", {}, [
      el("span", { className: "score", text: "score " + fmtScore(grade.score) }),
      el("span", { className: "goal-score", text: grade.goal_score === null || grade.goal_score === undefined
        ? "" : "  goals " + fmtScore(grade.goal_score) }),
      el("span", { className: "attribution " + grade.attribution, text: grade.attribution }),
      el("span", { className: "flags", text: (grade.valid ? "" : "  invalid") + (grade.truncated ? "  truncated" : "") }),
    ]);
    const rows = (grade.checks || []).map((c) => {
      const violated = c.kind === "constraint" && c.score < 1;
      const weight = c.kind === "goal" ? String(c.weight) : "cap " + (c.cap === null || c.cap === undefined ? 0 : c.cap);
      return el("tr", { className: "check " + c.kind + (violated ? " violated" : ""), "data-check": c.name }, [
        el("td", { className: "check-name", text: c.name }), el("td", { text: c.kind }), el("td", { text: weight }),
        el("td", { className: "check-score", text: Number(c.score).toFixed(2) }), el("td", { text: c.detail }),
      ]);
    });
    const table = el("table", { className: "checks" }, [
      el("thead", {}, [el("tr", {}, ["check", "kind", "weight", "score", "detail"].map((t) => el("th", { text: t })))]),
      el("tbody", {}, rows),
    ]);
    const violations = el("ul", { className: "violations" }, (grade.violations || []).map((v) =>
      el("li", { className: "violation", "data-violation": v.name }, [
        el("span", { className: "violation-name", text: v.name }),
        el("span", { text: " (cap " + v.cap + "): " + v.detail }),
      ])));
    const parts = [el("h3", { text: "Grade" }), head, table];
    if ((grade.violations || []).length) parts.push(el("h3", { text: "Violations" }), violations);
    if (grade.error) parts.push(el("pre", { className: "grade-error", text: grade.error }));
    return el("div", { className: "grade" }, parts);
  }

  function diffView(step) {
    if (step.diff === null) return el("p", { className: "no-diff", text: "no verified state diff for this step" });
    if (!step.diff.length) return el("p", { className: "no-change", text: "no state change" });
    const rows = [];
    for (const change of step.diff) {
      const fields = change.fields.length ? change.fields : [{ path: "", before: null, after: null }];
      for (const f of fields) {
        rows.push(el("tr", { className: "field-change " + change.change, "data-table": change.table,
          "data-id": change.id, "data-path": f.path }, [
          el("td", { className: "entity", text: change.table + " " + change.id }),
          el("td", { className: "change", text: change.change }),
          el("td", { className: "path", text: f.path }),
          el("td", { className: "before", text: short(f.before) }),
          el("td", { className: "after", text: short(f.after) }),
        ]));
      }
    }
    return el("table", { className: "diff" }, [
      el("thead", {}, [el("tr", {}, ["entity", "change", "field", "before", "after"].map((t) => el("th", { text: t })))]),
      el("tbody", {}, rows),
    ]);
  }

  function stepView(step) {
    const status = step.ok ? el("span", { className: "badge status ok", text: "ok" })
      : el("span", { className: "badge status error", text: (step.error && step.error.code) || "error" });
    const head = el("div", { className: "step-head" }, [
      el("span", { className: "step-index", text: "#" + step.index }),
      el("span", { className: "tool", text: step.tool }),
      status,
      step.fault ? el("span", { className: "badge fault", text: "fault: " + step.fault }) : null,
      step.replayed ? el("span", { className: "badge replayed", text: "replayed" }) : null,
      el("span", { className: "sim-time", text: step.sim_time }),
    ]);
    const body = [head, el("pre", { className: "args", text: json(step.args) })];
    if (step.ok) {
      body.push(el("details", {}, [el("summary", { text: "result" }), el("pre", { className: "result", text: json(step.result) })]));
    } else if (step.error) {
      body.push(el("pre", { className: "error", text: (step.error.code || "") + ": " + (step.error.message || "") +
        (step.error.details ? "\n" + json(step.error.details) : "") }));
    }
    if (step.effect) body.push(el("pre", { className: "effect", text: json(step.effect) }));
    if (step.events.length) {
      body.push(el("p", { className: "events", text: "events: " + step.events.map((e) => e[0] + " v" + e[1]).join(", ") }));
    }
    body.push(diffView(step));
    return el("li", { className: "step " + (step.ok ? "ok" : "failed"), "data-index": step.index }, body);
  }

  function turnView(turn) {
    const calls = (turn.tool_calls || []).map((c) => c.name + " " + (c.arguments || "") + "  [" + (c.call_id || "") + "]");
    const usage = turn.usage ? "  tokens " + turn.usage.total_tokens : "";
    const body = [el("div", { className: "step-head" }, [
      el("span", { className: "badge model", text: "model #" + turn.index }),
      el("span", { className: "sim-time", text: (turn.finish_reason || "") + usage }),
    ])];
    if (turn.content) body.push(el("pre", { className: "model-content", text: turn.content }));
    if (calls.length) body.push(el("pre", { className: "model-calls", text: calls.join("\n") }));
    if (turn.error) body.push(el("pre", { className: "error", text: turn.error }));
    return el("li", { className: "model-turn", "data-turn": turn.index }, body);
  }

  function timeline(ep) {
    const turns = (ep.model_turns || []).slice().sort((a, b) => a.before_step - b.before_step || a.index - b.index);
    const items = [];
    let t = 0;
    for (const step of ep.steps) {
      while (t < turns.length && turns[t].before_step <= step.index) items.push(turnView(turns[t++]));
      items.push(stepView(step));
    }
    while (t < turns.length) items.push(turnView(turns[t++]));
    return el("ol", { className: "timeline" }, items);
  }

  function episodeView(ep, n) {
    const h = ep.header;
    const attribution = ep.grade ? ep.grade.attribution : "ungraded";
    const score = ep.grade && ep.grade.score !== null && ep.grade.score !== undefined ? ep.grade.score : "";
    const parts = [
      el("h2", { text: ep.label }),
      el("p", { className: "meta", text: h.scenario + "  seed " + h.seed + "  world " + h.world + "  " +
        ep.steps.length + " steps" + (h.faults ? "  faults on" : "") }),
    ];
    if (ep.warning) parts.push(el("p", { className: "warning", role: "alert", text: "state diffs: " + ep.warning }));
    parts.push(el("details", {}, [el("summary", { text: "instructions" }), el("pre", { text: h.instructions || "" })]));
    parts.push(gradeView(ep));
    parts.push(el("h3", { text: "Steps" }));
    if (ep.agent) {
      const usage = ep.agent.usage ? "  tokens " + ep.agent.usage.total_tokens : "";
      parts.push(el("p", { className: "agent meta", text: "agent " + ep.agent.agent + "  model turns " + ep.agent.turns +
        usage + "  stopped: " + ep.agent.stop + (ep.agent.error ? " (" + ep.agent.error + ")" : "") }));
    }
    parts.push(timeline(ep));
    return el("section", { className: "episode", id: "episode-" + n, "data-scenario": h.scenario,
      "data-attribution": attribution, "data-score": score }, parts);
  }

  function checkboxes(fieldsetId, name, values) {
    const box = document.getElementById(fieldsetId);
    for (const value of values) {
      const input = el("input", { type: "checkbox", name: name, value: value, checked: "" });
      box.appendChild(el("label", {}, [input, document.createTextNode(" " + value)]));
    }
  }

  const sections = episodes.map(episodeView);
  const main = document.getElementById("episodes");
  for (const s of sections) main.appendChild(s);
  const uniq = (xs) => Array.from(new Set(xs)).sort();
  checkboxes("filter-scenario", "scenario", uniq(sections.map((s) => s.dataset.scenario)));
  checkboxes("filter-attribution", "attribution", uniq(sections.map((s) => s.dataset.attribution)));

  function checked(name) {
    return new Set(Array.from(document.querySelectorAll("input[name=" + name + "]:checked")).map((i) => i.value));
  }
  function apply() {
    const scenarios = checked("scenario"), attributions = checked("attribution");
    const lo = parseFloat(document.getElementById("score-min").value);
    const hi = parseFloat(document.getElementById("score-max").value);
    const invalid = document.getElementById("score-invalid").checked;
    let shown = 0;
    for (const s of sections) {
      const score = s.dataset.score === "" ? null : parseFloat(s.dataset.score);
      const inRange = score === null ? invalid : (isNaN(lo) || score >= lo) && (isNaN(hi) || score <= hi);
      const visible = scenarios.has(s.dataset.scenario) && attributions.has(s.dataset.attribution) && inRange;
      s.hidden = !visible;
      if (visible) shown += 1;
    }
    document.getElementById("summary").textContent = "showing " + shown + " of " + sections.length + " episodes";
  }
  document.getElementById("filters").addEventListener("input", apply);
  document.getElementById("filters").addEventListener("change", apply);
  apply();
})();
