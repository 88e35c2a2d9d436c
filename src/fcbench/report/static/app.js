/* The fcbench report page: ranking, case x target matrix, worst cases, breakdowns, filters,
   observation list and one observation's own view (at the top, with previous / next within the
   filter). Every filter narrows every part of the page, and the counts say how much is shown.
   Everything that comes from a run (model output above all) is assigned with textContent only.
   The address keeps the view (#obs=N, #case=ID&target=LABEL, any filter), so a link restores it. */
(function () {
  "use strict";
  var PAGE = 200;
  var MATRIX_PAGE = 500;
  var MAX_SHOWN = 200000;
  var src = window.fcbenchSource();
  var controls = Array.prototype.slice.call(document.querySelectorAll("#filters [data-filter]"));
  var WORST_PAGE = 50;
  var OBS_FILTERS = ["decision", "result", "anomaly", "failure", "q"];
  var state = {"case": null, offset: 0, open: null, matrixRows: MATRIX_PAGE, worstShown: WORST_PAGE,
    worstSort: null, matrixSort: null, matches: null, place: null};
  var report = null;
  var querySeq = 0;

  function byId(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }
  var SEARCH_DELAY_MS = 200;

  function pretty(value) {
    if (value === null || value === undefined || value === "") { return "(none)"; }
    var text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
    return text.length > MAX_SHOWN ? text.slice(0, MAX_SHOWN) + "\n… (" + (text.length - MAX_SHOWN) +
      " more characters not shown)" : text;
  }
  function short(value) { return value === undefined ? "(absent)" : JSON.stringify(value); }

  function filters() {
    var f = {};
    controls.forEach(function (c) { if (c.value) { f[c.dataset.filter] = c.value; } });
    if (state["case"]) { f["case"] = state["case"]; }
    return f;
  }
  function setControl(control, value) {
    if (control.tagName === "SELECT" && value &&
        !Array.prototype.some.call(control.options, function (o) { return o.value === value; })) {
      var option = el("option", value);
      option.value = value;
      control.appendChild(option);
    }
    control.value = value;
  }

  function writeHash() {
    var p = new URLSearchParams();
    var f = filters();
    Object.keys(f).forEach(function (k) { p.set(k, f[k]); });
    if (state.offset) { p.set("offset", String(state.offset)); }
    if (state.open !== null) { p.set("obs", String(state.open)); }
    var text = p.toString();
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
  }
  function readHash() {
    var p = new URLSearchParams(location.hash.slice(1));
    controls.forEach(function (c) { setControl(c, p.get(c.dataset.filter) || ""); });
    state["case"] = p.get("case") || null;
    state.offset = Math.max(0, parseInt(p.get("offset") || "0", 10) || 0);
    state.open = p.get("obs") === null ? null : parseInt(p.get("obs"), 10);
  }

  function colour(n, d) { return d ? "hsl(" + Math.round(120 * n / d) + ", 65%, 72%)" : "#d9d9d9"; }

  function modeOf(column) { return (report.column_modes || {})[column]; }
  function nameOf(column) { return (report.names || {})[column] || column; }
  function obsLevel(f) { return OBS_FILTERS.some(function (k) { return Boolean(f[k]); }); }
  function columnShown(column, f) {
    return (!f.target || f["case"] || column === f.target) && (!f.mode || modeOf(column) === f.mode);
  }

  /* Worst first: the lowest pass rate, then the most scorable repeats. */
  function worstFirst(a, b) {
    var ra = a[1] ? a[0] / a[1] : 2;
    var rb = b[1] ? b[0] / b[1] : 2;
    return (ra - rb) || (b[1] - a[1]);
  }

  function matrixRows(m, f, columns) {
    var rows = m.rows.filter(function (r) {
      return (!f.category || r[1] === f.category) && (!f.tag || r[2].indexOf(f.tag) >= 0) &&
        (!state.matches || state.matches[r[0]]) && columns.some(function (i) { return Boolean(r[3][i]); });
    });
    if (state.matrixSort !== null && columns.indexOf(state.matrixSort) >= 0) {
      var i = state.matrixSort;
      rows = rows.slice().sort(function (a, b) {
        var ca = a[3][i] || [0, 0];
        var cb = b[3][i] || [0, 0];
        return worstFirst(ca, cb) || (a[0] < b[0] ? -1 : 1);
      });
    }
    return rows;
  }

  function matrixCell(r, i, f) {
    var m = report.matrix;
    var cell = r[3][i];
    var td;
    if (!cell) {
      td = el("td", "–", "matrix-cell absent");
    } else {
      td = el("td", cell[1] ? cell[0] + "/" + cell[1] : "err " + cell[2], "matrix-cell");
      td.dataset["case"] = r[0];
      td.style.background = colour(cell[0], cell[1]);
      td.title = nameOf(m.columns[i]) + ": " + cell[0] + "/" + cell[1] + " passed" +
        (cell[2] ? ", " + cell[2] + " provider or harness error(s)" : "");
      if (state["case"] === r[0] && f.target === m.columns[i]) { td.classList.add("selected"); }
    }
    td.dataset.column = m.columns[i];
    return td;
  }

  function renderMatrix() {
    var m = report.matrix;
    var f = filters();
    var table = byId("matrix-table");
    var columns = [];
    m.columns.forEach(function (c, i) { if (columnShown(c, f)) { columns.push(i); } });
    var head = el("tr");
    head.appendChild(el("th", "Case"));
    head.appendChild(el("th", "Category"));
    columns.forEach(function (i) {
      var th = el("th", nameOf(m.columns[i]), "sort-head");
      th.dataset.column = m.columns[i];
      th.dataset.index = String(i);
      th.title = "Sort by this target, worst first";
      head.appendChild(th);
    });
    table.tHead.textContent = "";
    table.tHead.appendChild(head);
    var rows = matrixRows(m, f, columns);
    var body = document.createDocumentFragment();
    rows.slice(0, state.matrixRows).forEach(function (r) {
      var tr = el("tr", null, "matrix-row");
      tr.dataset["case"] = r[0];
      tr.appendChild(el("th", r[0]));
      tr.appendChild(el("td", r[1]));
      columns.forEach(function (i) { tr.appendChild(matrixCell(r, i, f)); });
      body.appendChild(tr);
    });
    table.tBodies[0].textContent = "";
    table.tBodies[0].appendChild(body);
    var shown = Math.min(rows.length, state.matrixRows);
    byId("matrix-count").textContent = rows.length + " of " + m.rows.length + " cases" +
      (shown < rows.length ? ", the first " + shown + " shown" : "") +
      (obsLevel(f) && !state.matches ? " (the decision, result, anomaly, failure and search filters narrow the " +
        "observations below, not this matrix)" : "") + ".";
    byId("matrix-more").hidden = shown >= rows.length;
    state.casesShown = rows.length;
  }

  /* Every failing case x target, filtered like the rest; "50 of N" with a way to show more. */
  function worstRows(f) {
    var rows = (report.worst || []).filter(function (r) {
      return columnShown(r[1], {target: f.target, mode: f.mode}) && (!f.category || r[2] === f.category) &&
        (!f.tag || r[8].indexOf(f.tag) >= 0) && (!f["case"] || r[0] === f["case"]) &&
        (!state.matches || state.matches[r[0] + "\u0000" + r[1]]);
    });
    var sort = state.worstSort;
    if (sort) {
      rows = rows.slice().sort(function (a, b) {
        var x = sort.key === 4 ? (a[5] ? a[4] / a[5] : 2) - (b[5] ? b[4] / b[5] : 2) || b[5] - a[5] :
          String(a[sort.key]).localeCompare(String(b[sort.key]));
        return sort.dir * x;
      });
    }
    return rows;
  }

  function renderWorst() {
    if (!report.worst) { return; }
    var f = filters();
    var rows = worstRows(f);
    var frag = document.createDocumentFragment();
    rows.slice(0, state.worstShown).forEach(function (r) {
      var tr = el("tr", null, "worst-row");
      tr.dataset["case"] = r[0];
      tr.dataset.column = r[1];
      [r[0], nameOf(r[1]), r[2], r[3], r[4] + "/" + r[5], r[6], r[7]].forEach(function (v) { tr.appendChild(el("td", v)); });
      frag.appendChild(tr);
    });
    var body = document.querySelector("#worst-table tbody");
    body.textContent = "";
    body.appendChild(frag);
    var shown = Math.min(rows.length, state.worstShown);
    byId("worst-count").textContent = shown + " of " + rows.length + " failing case x target rows shown" +
      (rows.length < report.worst.length ? " (" + report.worst.length + " before the filters)" : "") + ".";
    byId("worst-more").hidden = shown >= rows.length;
    byId("worst-all").hidden = shown >= rows.length;
  }

  /* The parts drawn with the page (ranking, figures, breakdowns, anomalies, errors) follow the filters too. */
  function columnOf(target, mode) { return report.several_modes ? target + " [" + mode + "]" : target; }
  function filterStatic() {
    var f = filters();
    var targeted = document.querySelectorAll("#ranking [data-target], #summary [data-target], #confusion [data-target], " +
      "#breakdowns [data-target], #charts [data-target]");
    Array.prototype.forEach.call(targeted, function (node) {
      node.hidden = !columnShown(node.dataset.target, {target: f.target, mode: f.mode});
    });
    document.querySelectorAll("#breakdown-table tbody tr").forEach(function (tr) {
      var cat = tr.dataset.category;
      var tag = tr.dataset.tag;
      tr.hidden = Boolean(f.category || f.tag) && !((cat !== undefined && cat === f.category) ||
        (tag !== undefined && tag === f.tag));
    });
    document.querySelectorAll("#anomalies-table tbody tr, #errors tbody tr").forEach(function (tr) {
      var cells = tr.cells;
      var column = columnOf(cells[0].textContent, cells[1].textContent);
      tr.hidden = !columnShown(column, {target: f.target, mode: f.mode}) ||
        Boolean(f.anomaly && tr.dataset.code !== undefined && tr.dataset.code !== f.anomaly);
    });
  }

  function renderSummary(total) {
    var f = filters();
    var any = Object.keys(f).length > 0;
    byId("filter-summary").textContent = (any ? "Filtered: " : "No filter: ") + total + " of " + report.count +
      " observations, " + state.casesShown + " of " + report.matrix.rows.length + " cases.";
  }

  /* Everything that follows the filters, redrawn. */
  function update() {
    var f = filters();
    var g = {};
    Object.keys(f).forEach(function (k) { if (k !== "case") { g[k] = f[k]; } });
    var wanted = obsLevel(g) ? src.cases(g) : Promise.resolve(null);
    return wanted.then(function (matches) {
      state.matches = matches;
      renderMatrix();
      renderWorst();
      filterStatic();
      return refresh(false);
    });
  }

  function renderRows(res) {
    var body = document.querySelector("#obs-table tbody");
    var frag = document.createDocumentFragment();
    res.rows.forEach(function (o) {
      var tr = el("tr", null, "obs-row");
      tr.dataset.n = String(o.n);
      if (o.n === state.open) { tr.classList.add("open"); }
      [o.n, o.case_id, o.column, o.mode, o.repeat, o.decision].forEach(function (v) { tr.appendChild(el("td", v)); });
      tr.appendChild(el("td", o.result === "not_scored" ? "not scored" : o.result, "result-" + o.result));
      tr.appendChild(el("td", o.failure || ""));
      tr.appendChild(el("td", o.reasons.join("; ")));
      tr.appendChild(el("td", o.anomalies.join(", ")));
      frag.appendChild(tr);
    });
    body.textContent = "";
    body.appendChild(frag);
    var last = res.offset + res.rows.length;
    byId("obs-count").textContent = res.total + " matching observation(s)" +
      (res.total > res.rows.length ? ", showing " + (res.rows.length ? res.offset + 1 : 0) + "–" + last : "") + ".";
    byId("obs-prev").hidden = res.offset <= 0;
    byId("obs-next").hidden = last >= res.total;
  }

  function refresh(openFirst) {
    var mine = ++querySeq;
    byId("obs-count").textContent = "Loading…";
    var f = filters();
    byId("obs-selection").textContent = f["case"] ? "Case " + f["case"] + (f.target ? " × " + f.target : "") + "." : "All cells.";
    byId("obs-clear").hidden = !f["case"];
    return src.query(f, state.offset, PAGE).then(function (res) {
      if (mine !== querySeq) { return; }
      renderRows(res);
      renderSummary(res.total);
      if (openFirst && res.rows.length) { openObservation(res.rows[0].n); }
    }).catch(function (err) { byId("obs-count").textContent = "Could not read observations: " + err; });
  }

  function applyFilters() {
    state.offset = 0;
    state.worstShown = WORST_PAGE;
    writeHash();
    return update();
  }

  /* Expected and actual side by side: one table per call, a row for the tool and one per argument. */
  function expectedCalls(expected) {
    if (!expected) { return null; }
    if (expected.kind === "tool") { return [expected]; }
    if (expected.kind === "tools") { return expected.calls; }
    return [];
  }
  function expectedArgs(call) {
    var args = call && call.arguments;
    if (!args || typeof args !== "object") { return {}; }
    if (args.requiredEquals || args.oneOf) { return args.requiredEquals || {}; }
    return args;
  }
  function verdictKeys(list, prefix, several) {
    var out = {};
    (list || []).forEach(function (item) {
      var key = typeof item === "string" ? item : item.key;
      if (several) {
        if (key.indexOf(prefix) !== 0) { return; }
        key = key.slice(prefix.length);
      }
      out[key] = item;
    });
    return out;
  }
  function compareRow(body, label, expected, actual, status) {
    var tr = el("tr", null, "st-" + status);
    tr.appendChild(el("th", label));
    tr.appendChild(el("td", expected));
    tr.appendChild(el("td", actual));
    tr.appendChild(el("td", status));
    body.appendChild(tr);
  }
  /* Without the suite: the calls the verdict says were right, else one unknown call per call made
     when a call was expected, else none. */
  function guessedCalls(o, info, calls) {
    var kind = info && info.expected_kind;
    if (kind === "text" || kind === "clarification") { return []; }
    if ((o.verdict || {}).decision === "correct_call") { return calls.map(function (c) { return {name: c.name}; }); }
    return (calls.length ? calls : [null]).map(function () { return {name: "(a call, tool not recorded)"}; });
  }

  /* A recovery conversation's own row: what its scenario asks for and how it ended. */
  function recoveryRow(body, o, info) {
    var rv = (o.verdict || {}).recovery;
    if (!rv) { return; }
    var spec = (info && info.recovery) || {};
    var wanted = spec.success ? spec.success.replace(/_/g, " ") + (spec.expect_call ? " (" + spec.expect_call + ")" : "") +
      (spec.forbid_tools && spec.forbid_tools.length ? "; never " + spec.forbid_tools.join(", ") : "") : "success";
    compareRow(body, "Conversation", wanted, rv.outcome + ": " + (rv.reasons || []).join("; "),
      rv.success && !(rv.failed_turns || []).length ? "ok" : "wrong");
  }

  function renderCompare(o, info) {
    var body = document.querySelector("#obs-compare tbody");
    body.textContent = "";
    renderCompareCalls(body, o, info);
    recoveryRow(body, o, info);
  }

  function renderCompareCalls(body, o, info) {
    var v = o.verdict || {};
    var expected = info && info.expected;
    var calls = o.outcome.kind === "tool_calls" ? o.outcome.calls || [] : [];
    var wanted = expectedCalls(expected);
    byId("obs-expected-note").textContent = expected ? "Expected: " + expected.kind +
      (expected.kind === "clarification" ? " asking for " + (expected.missing || []).join(", ") : "") +
      (info.note ? ". Note: " + info.note : "") + "." :
      "The suite of this run could not be read: expected values come from the verdict alone.";
    if (!wanted) { wanted = guessedCalls(o, info, calls); }
    var several = Math.max(wanted.length, calls.length) > 1;
    var total = Math.max(wanted.length, calls.length);
    if (!total) {
      var kind = expected ? expected.kind : (info && info.expected_kind) || "(unknown)";
      var actual = o.outcome.kind + (o.outcome.text ? ": " + o.outcome.text : "") +
        (o.outcome.message ? ": " + o.outcome.message : "");
      compareRow(body, "Answer", kind, actual, o.result === "pass" ? "ok" : (o.result === "fail" ? "wrong" : "not scored"));
      return;
    }
    for (var i = 0; i < total; i += 1) {
      var want = wanted[i];
      var got = calls[i];
      var prefix = "calls[" + i + "].";
      var wrong = verdictKeys(v.wrong, prefix, several);
      var missing = verdictKeys(v.missing, prefix, several);
      var unexpected = verdictKeys(v.unexpected, prefix, several);
      var toolStatus = !want ? "unexpected" : (!got ? "missing" : (want.name === got.name ? "ok" : "wrong"));
      compareRow(body, several ? "Call " + (i + 1) + ": tool" : "Tool", want ? want.name : "(none)",
        got ? got.name : "(no call)", toolStatus);
      var exp = expectedArgs(want);
      var act = got && got.arguments && typeof got.arguments === "object" ? got.arguments : {};
      if (got && got.parse_error) {
        compareRow(body, "arguments", "", got.raw_arguments || "", "wrong");
      }
      var keys = [];
      [exp, act, wrong, missing, unexpected].forEach(function (m) {
        Object.keys(m).forEach(function (k) { if (keys.indexOf(k) < 0) { keys.push(k); } });
      });
      keys.forEach(function (k) {
        var has = Object.prototype.hasOwnProperty;
        var status = has.call(wrong, k) ? (wrong[k].note ? "tolerated" : "wrong") :
          has.call(missing, k) ? "missing" : has.call(unexpected, k) ? "unexpected" :
          has.call(act, k) ? "ok" : "not given";
        var e = has.call(wrong, k) ? wrong[k].expected : (has.call(exp, k) ? exp[k] : undefined);
        compareRow(body, k, e === undefined ? (status === "unexpected" ? "(not expected)" : "—") : JSON.stringify(e),
          short(has.call(act, k) ? act[k] : undefined), status);
      });
    }
  }

  /* What a recovery conversation's verdict says of each turn: the forbidden tools, the failed
     turns with their reasons, and whether the whole conversation failed. */
  function turnVerdicts(o, info) {
    var rv = (o.verdict || {}).recovery;
    if (!rv) { return null; }
    var forbidden = ((info && info.recovery) || {}).forbid_tools || [];
    var why = {};
    (rv.reasons || []).forEach(function (r) {
      var m = /^turn (\d+): (.*)$/.exec(r);
      if (m) { why[m[1]] = m[2]; }
      var named = /^called forbidden tool\(s\): (.*)$/.exec(r);
      if (named && !forbidden.length) { forbidden = named[1].split(", "); }
    });
    return {rv: rv, forbidden: forbidden, failed: rv.failed_turns || [], why: why};
  }

  function callLine(c, marks) {
    var text = "call " + c.name + " " + (c.parse_error ? String(c.raw_arguments) +
      "  (arguments did not parse: " + c.parse_error + ")" : JSON.stringify(c.arguments, null, 2));
    var key = c.name + " " + JSON.stringify(c.arguments);
    if (marks && marks.forbidden.indexOf(c.name) >= 0) {
      return el("pre", text + "\n✗ forbidden in this scenario", "call-bad");
    }
    if (marks && marks.rv.outcome === "repeated_same_error" && marks.errored[key]) {
      return el("pre", text + "\n✗ re-sent after it failed", "call-bad");
    }
    return el("pre", text);
  }

  function turnBadge(t, last, marks, calls) {
    if (!marks) { return null; }
    var bad = calls.filter(function (c) { return marks.forbidden.indexOf(c.name) >= 0; });
    var text = marks.failed.indexOf(t.turn) >= 0 ? "fail: " + (marks.why[String(t.turn)] || "this turn's decision was wrong") :
      bad.length ? "fail: called forbidden " + bad.map(function (c) { return c.name; }).join(", ") :
      last && !marks.rv.success ? "fail: " + marks.rv.outcome + " (" + (marks.rv.reasons || []).join("; ") + ")" :
      last ? "ok: " + marks.rv.outcome : "ok";
    return el("span", text, text.indexOf("fail") === 0 ? "turn-verdict verdict-fail" : "turn-verdict verdict-ok");
  }

  function missingCall(o, info, marks) {
    var spec = (info && info.recovery) || {};
    if (!marks || marks.rv.success || spec.success !== "repaired_call" || !spec.expect_call) { return null; }
    return el("div", "✗ missing: the repaired call " + spec.expect_call + " was never made successfully", "call-bad");
  }

  function renderTranscript(o, info) {
    var box = byId("obs-transcript");
    box.textContent = "";
    var opening = el("div", null, "turn");
    opening.appendChild(el("h5", "User"));
    opening.appendChild(el("pre", info && info.prompt ? info.prompt : "(prompt not recorded)"));
    box.appendChild(opening);
    var turns = o.turns && o.turns.length ? o.turns : [{turn: 1, outcome: o.outcome, results: []}];
    var marks = turnVerdicts(o, info);
    if (marks) { marks.errored = {}; }
    turns.forEach(function (t, i) {
      var div = el("div", null, "turn");
      div.dataset.turn = String(t.turn);
      var head = el("h5", "Turn " + t.turn + (t.finish_reason ? " (finish: " + t.finish_reason + ")" : "") + " ");
      var out = t.outcome || {};
      var calls = out.kind === "tool_calls" ? out.calls || [] : [];
      var badge = turnBadge(t, i === turns.length - 1, marks, calls);
      if (badge) { head.appendChild(badge); div.classList.add(badge.classList.contains("verdict-fail") ? "turn-fail" : "turn-ok"); }
      div.appendChild(head);
      if (out.kind === "tool_calls") {
        calls.forEach(function (c) { div.appendChild(callLine(c, marks)); });
      } else if (out.kind === "provider_error") {
        div.appendChild(el("pre", "provider error " + out.code + ": " + (out.message || ""), "tool-error"));
      } else {
        div.appendChild(el("pre", out.kind + ": " + (out.text || "")));
      }
      (t.results || []).forEach(function (r, k) {
        div.appendChild(el("div", "tool result sent back for " + r.name + (r.is_error ? " (error" +
          (r.error_code ? " " + r.error_code : "") + ")" : ""), r.is_error ? "tool-error" : ""));
        div.appendChild(el("pre", pretty(r.content)));
        var c = calls[k];
        if (marks && r.is_error && c) { marks.errored[c.name + " " + JSON.stringify(c.arguments)] = true; }
      });
      box.appendChild(div);
    });
    var missing = missingCall(o, info, marks);
    if (missing) { box.appendChild(missing); }
  }

  /* Raw bodies: one exchange, or one per turn ({"exchanges": [...]}), each labelled with its turn. */
  function showRaw(raw) {
    var request = raw.request;
    var exchanges = raw.exchanges || (request && typeof request === "object" && Array.isArray(request.exchanges) ?
      request.exchanges : null);
    if (raw.note || !exchanges) {
      byId("obs-request-title").textContent = "Raw request";
      byId("obs-response-title").textContent = "Raw response";
      byId("obs-request").textContent = raw.note || pretty(raw.request);
      byId("obs-response").textContent = raw.note || pretty(raw.response);
      return;
    }
    function part(key) {
      return exchanges.map(function (e, i) {
        return "── turn " + (i + 1) + " " + key + " ──\n" + pretty(e && typeof e === "object" ? e[key] : null);
      }).join("\n\n");
    }
    byId("obs-request-title").textContent = "Raw request of each turn (" + exchanges.length + ")";
    byId("obs-response-title").textContent = "Raw response of each turn (" + exchanges.length + ")";
    byId("obs-request").textContent = part("request");
    byId("obs-response").textContent = part("response");
  }

  function showDetail(o, info) {
    byId("obs-view").hidden = false;
    byId("obs-detail").hidden = false;
    byId("obs-title").textContent = "#" + o.n + " · " + o.case_id + " · " + nameOf(o.column) + " · " + o.mode +
      " · repeat " + o.repeat + " · " + o.decision + " · " + (o.result === "not_scored" ? "not scored" : o.result) +
      (o.seq === null || o.seq === undefined ? "" : " · seq " + o.seq) +
      (typeof o.latency_ms === "number" ? " · " + Math.round(o.latency_ms) + " ms" : "");
    byId("obs-link").href = "#obs=" + o.n;
    renderCompare(o, info);
    var reasons = byId("obs-reasons");
    reasons.textContent = "";
    (o.reasons.length ? o.reasons : [o.result === "pass" ? "(passed)" : "(none)"]).forEach(function (r) {
      reasons.appendChild(el("li", r));
    });
    byId("obs-prompt").textContent = info && info.prompt ? info.prompt : "(none)";
    renderTranscript(o, info);
    byId("obs-outcome").textContent = pretty(o.outcome);
    byId("obs-verdict").textContent = pretty(o.verdict);
    byId("obs-error").textContent = pretty(o.error);
    byId("obs-request").textContent = "loading…";
    byId("obs-response").textContent = "loading…";
    src.raw(o.n).then(function (raw) {
      if (state.open === o.n) { showRaw(raw); }
    }).catch(function (err) { byId("obs-request").textContent = "Could not read the raw bodies: " + err; });
  }

  /* Where the open observation is in the current filter: "3 of 45", and its neighbours. */
  function showPosition(n) {
    state.place = null;
    byId("obs-before").disabled = true;
    byId("obs-after").disabled = true;
    byId("obs-position").textContent = "";
    return src.position(filters(), n).then(function (place) {
      if (state.open !== n) { return; }
      state.place = place;
      byId("obs-before").disabled = place.prev === null;
      byId("obs-after").disabled = place.next === null;
      byId("obs-position").textContent = place.index >= 0 ?
        "Observation " + (place.index + 1) + " of " + place.total + " in the current filter." :
        "Not in the current filter (" + place.total + " observations match it).";
    });
  }

  function openObservation(n, top) {
    state.open = n;
    writeHash();
    document.querySelectorAll("#obs-table tr.obs-row").forEach(function (tr) {
      tr.classList.toggle("open", tr.dataset.n === String(n));
    });
    showPosition(n);
    return src.observation(n).then(function (d) {
      if (!d) { byId("obs-detail").hidden = true; byId("obs-count").textContent = "No observation #" + n + "."; return; }
      if (state.open === n) {
        showDetail(d.obs, d["case"]);
        if (top !== false) { byId("obs-view").scrollIntoView({block: "start"}); }
      }
    });
  }

  function closeObservation() {
    state.open = null;
    byId("obs-view").hidden = true;
    byId("obs-detail").hidden = true;
    writeHash();
    byId("drilldown").scrollIntoView({block: "start"});
  }

  function restore() {
    readHash();
    if (state.open === null) { byId("obs-view").hidden = true; }
    return update().then(openPending);
  }

  function openPending() {
    if (state.open !== null) { return openObservation(state.open); }
    if (state["case"]) {
      var first = document.querySelector("#obs-table tr.obs-row");
      if (first) { return openObservation(parseInt(first.dataset.n, 10)); }
    }
    return null;
  }

  function sortRanking(th) {
    var table = th.closest("table");
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var dir = th.dataset.dir === "asc" ? -1 : 1;
    th.dataset.dir = dir === 1 ? "asc" : "desc";
    var numeric = th.dataset.sort === "num";
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    rows.sort(function (a, b) {
      var x = a.cells[index].dataset.value || a.cells[index].textContent;
      var y = b.cells[index].dataset.value || b.cells[index].textContent;
      return dir * (numeric ? (parseFloat(x) || 0) - (parseFloat(y) || 0) : x.localeCompare(y));
    });
    rows.forEach(function (tr) { table.tBodies[0].appendChild(tr); });
  }

  function selectCell(caseId, column) {
    controls.forEach(function (c) { c.value = ""; });
    state["case"] = caseId;
    setControl(byId("filter-target"), column);
    state.offset = 0;
    state.open = null;
    writeHash();
    return update().then(openPending);
  }

  function wireViews() {
    byId("obs-close").addEventListener("click", closeObservation);
    byId("obs-before").addEventListener("click", function () {
      if (state.place && state.place.prev !== null) { openObservation(state.place.prev); }
    });
    byId("obs-after").addEventListener("click", function () {
      if (state.place && state.place.next !== null) { openObservation(state.place.next); }
    });
    document.querySelectorAll("#ranking-table th[data-sort]").forEach(function (th) {
      th.classList.add("sort-head");
      th.addEventListener("click", function () { sortRanking(th); });
    });
    byId("ranking-table").addEventListener("click", function (event) {
      var seg = event.target.closest(".seg");
      var row = event.target.closest("tr.rank-row");
      if (!seg || !row) { return; }
      controls.forEach(function (c) { c.value = ""; });
      state["case"] = null;
      setControl(byId("filter-target"), row.dataset.target);
      var kind = seg.dataset.kind;
      if (kind === "pass") { setControl(byId("filter-result"), "pass"); } else if (byId("filter-failure")) {
        setControl(byId("filter-failure"), kind);
      }
      applyFilters().then(function () { byId("filters").scrollIntoView({block: "start"}); });
    });
    document.querySelector("#worst-table thead").addEventListener("click", function (event) {
      var th = event.target.closest("th[data-key]");
      if (!th) { return; }
      var key = parseInt(th.dataset.key, 10);
      var sort = state.worstSort;
      state.worstSort = {key: key, dir: sort && sort.key === key ? -sort.dir : 1};
      renderWorst();
    });
    document.querySelector("#worst-table tbody").addEventListener("click", function (event) {
      var tr = event.target.closest("tr.worst-row");
      if (tr) { selectCell(tr.dataset["case"], tr.dataset.column); }
    });
    byId("worst-more").addEventListener("click", function () { state.worstShown += WORST_PAGE; renderWorst(); });
    byId("worst-all").addEventListener("click", function () { state.worstShown = Infinity; renderWorst(); });
    byId("matrix-table").tHead.addEventListener("click", function (event) {
      var th = event.target.closest("th[data-index]");
      if (!th) { return; }
      state.matrixSort = parseInt(th.dataset.index, 10);
      renderMatrix();
    });
  }

  function wire() {
    var typing = null;
    function searchTyped() {  /* the search box applies ~200 ms after the last key, not at each one */
      clearTimeout(typing);
      typing = setTimeout(applyFilters, SEARCH_DELAY_MS);
    }
    controls.forEach(function (c) {
      c.addEventListener(c.tagName === "INPUT" ? "input" : "change", c.tagName === "INPUT" ? searchTyped : applyFilters);
    });
    byId("filter-reset").addEventListener("click", function () {
      controls.forEach(function (c) { c.value = ""; });
      state["case"] = null;
      applyFilters();
    });
    byId("obs-clear").addEventListener("click", function () {
      state["case"] = null;
      setControl(byId("filter-target"), "");
      applyFilters();
    });
    byId("matrix-more").addEventListener("click", function () { state.matrixRows += MATRIX_PAGE; renderMatrix(); });
    byId("matrix-table").addEventListener("click", function (event) {
      var td = event.target.closest("td.matrix-cell[data-case]");
      if (td) { selectCell(td.dataset["case"], td.dataset.column); }
    });
    document.querySelector("#obs-table tbody").addEventListener("click", function (event) {
      var tr = event.target.closest("tr.obs-row");
      if (tr) { openObservation(parseInt(tr.dataset.n, 10)); }
    });
    byId("obs-prev").addEventListener("click", function () {
      state.offset = Math.max(0, state.offset - PAGE); writeHash(); refresh(false);
    });
    byId("obs-next").addEventListener("click", function () {
      state.offset += PAGE; writeHash(); refresh(false);
    });
    window.addEventListener("hashchange", restore);
    wireViews();
  }

  src.report().then(function (data) {
    report = data;
    if (data.raw_note) { byId("raw-note").textContent = data.raw_note; byId("raw-note").hidden = false; }
    byId("obs-note").textContent = "All " + data.count + " observations of the run are included" +
      (src.kind === "api" ? " (read from the run by fcbench view)." : " in this page.");
    wire();
    readHash();
    if (!obsLevel(filters())) { renderMatrix(); renderWorst(); filterStatic(); }
    window.fcbenchReady = performance.now();
    return update().then(openPending).then(function () { window.fcbenchObservationsReady = performance.now(); });
  }).catch(function (err) { byId("obs-note").textContent = "Could not read the run's data: " + err; });
}());
