/* The fcbench report page: case x target matrix, filters, observation list and drill-down.
   Everything that comes from a run (model output above all) is assigned with textContent only.
   The address keeps the view (#obs=N, #case=ID&target=LABEL, any filter), so a link restores it. */
(function () {
  "use strict";
  var PAGE = 200;
  var MATRIX_PAGE = 500;
  var MAX_SHOWN = 200000;
  var src = window.fcbenchSource();
  var controls = Array.prototype.slice.call(document.querySelectorAll("#filters [data-filter]"));
  var state = {"case": null, offset: 0, open: null, matrixRows: MATRIX_PAGE};
  var report = null;
  var querySeq = 0;

  function byId(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }
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

  function renderMatrix() {
    var m = report.matrix;
    var f = filters();
    var table = byId("matrix-table");
    var columns = [];
    m.columns.forEach(function (c, i) { if (!f.target || f["case"] || c === f.target) { columns.push(i); } });
    var head = el("tr");
    head.appendChild(el("th", "Case"));
    head.appendChild(el("th", "Category"));
    columns.forEach(function (i) { var th = el("th", m.columns[i]); th.dataset.column = m.columns[i]; head.appendChild(th); });
    table.tHead.textContent = "";
    table.tHead.appendChild(head);
    var rows = m.rows.filter(function (r) {
      return (!f.category || r[1] === f.category) && (!f.tag || r[2].indexOf(f.tag) >= 0);
    });
    var body = document.createDocumentFragment();
    rows.slice(0, state.matrixRows).forEach(function (r) {
      var tr = el("tr", null, "matrix-row");
      tr.dataset["case"] = r[0];
      tr.appendChild(el("th", r[0]));
      tr.appendChild(el("td", r[1]));
      columns.forEach(function (i) {
        var cell = r[3][i];
        var td;
        if (!cell) {
          td = el("td", "–", "matrix-cell absent");
        } else {
          td = el("td", cell[1] ? cell[0] + "/" + cell[1] : "err " + cell[2], "matrix-cell");
          td.dataset["case"] = r[0];
          td.style.background = colour(cell[0], cell[1]);
          td.title = m.columns[i] + ": " + cell[0] + "/" + cell[1] + " passed" +
            (cell[2] ? ", " + cell[2] + " provider or harness error(s)" : "");
          if (state["case"] === r[0] && f.target === m.columns[i]) { td.classList.add("selected"); }
        }
        td.dataset.column = m.columns[i];
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    table.tBodies[0].textContent = "";
    table.tBodies[0].appendChild(body);
    var shown = Math.min(rows.length, state.matrixRows);
    byId("matrix-count").textContent = shown + " of " + rows.length + " case(s) shown.";
    byId("matrix-more").hidden = shown >= rows.length;
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
      if (openFirst && res.rows.length) { openObservation(res.rows[0].n); }
    }).catch(function (err) { byId("obs-count").textContent = "Could not read observations: " + err; });
  }

  function applyFilters() {
    state.offset = 0;
    renderMatrix();
    writeHash();
    return refresh(false);
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

  function renderCompare(o, info) {
    var body = document.querySelector("#obs-compare tbody");
    body.textContent = "";
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

  function renderTranscript(o, info) {
    var box = byId("obs-transcript");
    box.textContent = "";
    var opening = el("div", null, "turn");
    opening.appendChild(el("h5", "User"));
    opening.appendChild(el("pre", info && info.prompt ? info.prompt : "(prompt not recorded)"));
    box.appendChild(opening);
    var turns = o.turns && o.turns.length ? o.turns : [{turn: 1, outcome: o.outcome, results: []}];
    turns.forEach(function (t) {
      var div = el("div", null, "turn");
      div.appendChild(el("h5", "Turn " + t.turn + (t.finish_reason ? " (finish: " + t.finish_reason + ")" : "")));
      var out = t.outcome || {};
      if (out.kind === "tool_calls") {
        (out.calls || []).forEach(function (c) {
          div.appendChild(el("pre", "call " + c.name + " " + (c.parse_error ? String(c.raw_arguments) +
            "  (arguments did not parse: " + c.parse_error + ")" : JSON.stringify(c.arguments, null, 2))));
        });
      } else if (out.kind === "provider_error") {
        div.appendChild(el("pre", "provider error " + out.code + ": " + (out.message || ""), "tool-error"));
      } else {
        div.appendChild(el("pre", out.kind + ": " + (out.text || "")));
      }
      (t.results || []).forEach(function (r) {
        div.appendChild(el("div", "tool result sent back for " + r.name + (r.is_error ? " (error" +
          (r.error_code ? " " + r.error_code : "") + ")" : ""), r.is_error ? "tool-error" : ""));
        div.appendChild(el("pre", pretty(r.content)));
      });
      box.appendChild(div);
    });
  }

  function showDetail(o, info) {
    byId("obs-detail").hidden = false;
    byId("obs-title").textContent = "#" + o.n + " · " + o.case_id + " · " + o.column + " · " + o.mode +
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
      if (state.open !== o.n) { return; }
      byId("obs-request").textContent = raw.note || pretty(raw.request);
      byId("obs-response").textContent = raw.note || pretty(raw.response);
    }).catch(function (err) { byId("obs-request").textContent = "Could not read the raw bodies: " + err; });
  }

  function openObservation(n) {
    state.open = n;
    writeHash();
    document.querySelectorAll("#obs-table tr.obs-row").forEach(function (tr) {
      tr.classList.toggle("open", tr.dataset.n === String(n));
    });
    return src.observation(n).then(function (d) {
      if (!d) { byId("obs-detail").hidden = true; byId("obs-count").textContent = "No observation #" + n + "."; return; }
      if (state.open === n) { showDetail(d.obs, d["case"]); }
    });
  }

  function restore() {
    readHash();
    renderMatrix();
    return load();
  }

  function load() {
    var open = state.open;
    return refresh(open === null && Boolean(state["case"])).then(function () {
      if (open !== null) { openObservation(open); }
    });
  }

  function wire() {
    controls.forEach(function (c) {
      c.addEventListener(c.tagName === "INPUT" ? "input" : "change", applyFilters);
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
      if (!td) { return; }
      controls.forEach(function (c) { c.value = ""; });
      state["case"] = td.dataset["case"];
      setControl(byId("filter-target"), td.dataset.column);
      state.offset = 0;
      state.open = null;
      renderMatrix();
      writeHash();
      refresh(true);
      byId("drilldown").scrollIntoView();
    });
    document.querySelector("#obs-table tbody").addEventListener("click", function (event) {
      var tr = event.target.closest("tr.obs-row");
      if (tr) {
        openObservation(parseInt(tr.dataset.n, 10)).then(function () { byId("obs-detail").scrollIntoView(); });
      }
    });
    byId("obs-prev").addEventListener("click", function () {
      state.offset = Math.max(0, state.offset - PAGE); writeHash(); refresh(false);
    });
    byId("obs-next").addEventListener("click", function () {
      state.offset += PAGE; writeHash(); refresh(false);
    });
    window.addEventListener("hashchange", restore);
  }

  src.report().then(function (data) {
    report = data;
    if (data.raw_note) { byId("raw-note").textContent = data.raw_note; byId("raw-note").hidden = false; }
    byId("obs-note").textContent = "All " + data.count + " observations of the run are included" +
      (src.kind === "api" ? " (read from the run by fcbench view)." : " in this page.");
    wire();
    readHash();
    renderMatrix();
    window.fcbenchReady = performance.now();
    return load().then(function () { window.fcbenchObservationsReady = performance.now(); });
  }).catch(function (err) { byId("obs-note").textContent = "Could not read the run's data: " + err; });
}());
