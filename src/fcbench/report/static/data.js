/* Data sources of the fcbench report page: the blocks embedded in the page (fcbench report -f html)
   or the JSON endpoints of fcbench view. Both answer the same questions with promises:
   report(), query(filters, offset, limit), observation(n), raw(n), position(filters, n) (where
   observation n is in the filtered list, and its neighbours) and cases(filters) (the case ids with
   a matching observation; null when the source cannot tell, and then the page says so). */
(function () {
  "use strict";

  function keep(o, f) {
    if (f.target && o.column !== f.target) { return false; }
    if (f.mode && o.mode !== f.mode) { return false; }
    if (f.category && o.category !== f.category) { return false; }
    if (f.tag && o.tags.indexOf(f.tag) < 0) { return false; }
    if (f.decision && o.decision !== f.decision) { return false; }
    if (f.anomaly && o.anomalies.indexOf(f.anomaly) < 0) { return false; }
    if (f.result && o.result !== f.result) { return false; }
    if (f.failure && !(o.failure === f.failure || (o.failure || "").split(":")[0] === f.failure)) { return false; }
    if (f.case && o.case_id !== f.case) { return false; }
    if (f.q && (o.search || "").indexOf(f.q.toLowerCase()) < 0) { return false; }
    return true;
  }

  /* The list order: failures first, then provider or harness errors, then passes; by number within. */
  var RANK = {fail: 0, not_scored: 1, pass: 2};
  function listOrder(obs) {
    return obs.slice().sort(function (a, b) { return (RANK[a.result] - RANK[b.result]) || (a.n - b.n); });
  }

  /* Where observation n sits in a list of numbers, and its neighbours (null at either end). */
  function neighbours(numbers, n) {
    var index = numbers.indexOf(n);
    return {index: index, total: numbers.length, prev: index > 0 ? numbers[index - 1] : null,
      next: index >= 0 && index + 1 < numbers.length ? numbers[index + 1] : null};
  }

  function decompress(text) {
    var binary = atob(text.trim());
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  function readBlock(id) {
    var el = document.getElementById(id);
    if (!el) { return Promise.resolve(null); }
    if (el.type === "application/json") { return Promise.resolve(JSON.parse(el.textContent)); }
    return decompress(el.textContent).then(JSON.parse);
  }

  function searchText(o, cases) {
    var c = cases[o.case_id] || {};
    return [c.prompt || "", JSON.stringify(o.outcome), o.turns.length ? JSON.stringify(o.turns) : "",
      o.error || ""].join("\n").toLowerCase();
  }

  function expand(value, blobs) {
    if (Array.isArray(value)) { return value.map(function (v) { return expand(v, blobs); }); }
    if (value && typeof value === "object") {
      var keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === "$blob" && typeof value.$blob === "string" && value.$blob in blobs) {
        return expand(blobs[value.$blob], blobs);
      }
      var out = {};
      keys.forEach(function (k) { out[k] = expand(value[k], blobs); });
      return out;
    }
    return value;
  }

  /* The rows of obs-data: on a large page their detail fields are indices into obs-values (each
     distinct value stored once), seq is left out where it equals n and the column is derived; an
     observation whose detail was left out gets a notice instead. */
  function decodeRows(rows, values, report) {
    var note = (report && report.left_out_note) || "The detail of this observation is left out of this page.";
    var several = report && report.several_modes;
    rows.forEach(function (o) {
      if (values) {
        if (!("seq" in o)) { o.seq = o.n; }
        o.column = several ? o.target + " [" + o.mode + "]" : o.target;
        ["outcome", "verdict", "turns", "error", "reasons", "request", "response"].forEach(function (k) {
          o[k] = values[o[k]];
        });
      }
      if (o.left_out) {
        o.outcome = {kind: "left_out", message: note};
        o.turns = [];
      }
    });
    return rows;
  }

  function embedded() {
    var cache = {};
    function once(id) {
      if (id === "obs-data" && !cache[id]) {
        cache[id] = Promise.all([readBlock(id), readBlock("obs-values"), once("report-data")]).then(function (r) {
          return decodeRows(r[0] || [], r[1], r[2]);
        });
      }
      return cache[id] || (cache[id] = readBlock(id));
    }
    var searchable = null;
    var ordered = null;
    function inOrder() {
      ordered = ordered || once("obs-data").then(listOrder);
      return ordered;
    }
    var blobs = null;
    function blobTable() {
      blobs = blobs || once("raw-data").then(function (pairs) {
        var table = Object.create(null);
        (pairs || []).forEach(function (p) { table[p[0]] = p[1]; });
        return table;
      });
      return blobs;
    }
    function withSearch(obs) {
      if (searchable) { return searchable; }
      searchable = once("case-data").then(function (cases) {
        obs.forEach(function (o) { o.search = searchText(o, cases || {}); });
        return obs;
      });
      return searchable;
    }
    var lastKey = null;
    var lastMatch = null;
    function matching(f) {
      var key = JSON.stringify(f);
      if (key !== lastKey) {
        lastKey = key;
        lastMatch = inOrder().then(function (obs) {
          return f.q ? withSearch(obs) : obs;
        }).then(function (obs) { return obs.filter(function (o) { return keep(o, f); }); });
      }
      return lastMatch;
    }
    return {
      kind: "embedded",
      report: function () { return once("report-data"); },
      query: function (f, offset, limit) {
        return matching(f).then(function (matched) {
          return {total: matched.length, offset: offset, rows: matched.slice(offset, offset + limit)};
        });
      },
      position: function (f, n) {
        return matching(f).then(function (matched) { return neighbours(matched.map(function (o) { return o.n; }), n); });
      },
      cases: function (f) {
        return matching(f).then(function (matched) {
          var found = Object.create(null);
          matched.forEach(function (o) { found[o.case_id + "\u0000" + o.column] = true; found[o.case_id] = true; });
          return found;
        });
      },
      observation: function (n) {
        return Promise.all([once("obs-data"), once("case-data")]).then(function (r) {
          var o = r[0][n];
          return o ? {obs: o, "case": (r[1] || {})[o.case_id] || null} : null;
        });
      },
      raw: function (n) {
        if (!document.getElementById("raw-data")) {
          return Promise.resolve({note: "Raw bodies are not embedded in this page."});
        }
        return Promise.all([once("obs-data"), blobTable()]).then(function (r) {
          var o = r[0][n];
          if (o.left_out) { return {note: o.outcome.message}; }
          return {request: expand(o.request, r[1]), response: expand(o.response, r[1])};
        });
      }
    };
  }

  function api(base) {
    function get(path) {
      return fetch(base + path).then(function (response) {
        if (!response.ok) { throw new Error(path + ": HTTP " + response.status); }
        return response.json();
      });
    }
    function query(f, offset, limit) {
      var p = new URLSearchParams();
      Object.keys(f).forEach(function (k) { if (f[k]) { p.set(k, f[k]); } });
      p.set("offset", String(offset));
      p.set("limit", String(limit));
      return get("/observations?" + p.toString());
    }
    var PAGE = 500;
    var SCAN_PAGES = 40;
    /* The neighbours of n: the filtered list read a page at a time until n is found (at most
       SCAN_PAGES pages; further on, the position is unknown). */
    function position(f, n) {
      var numbers = [];
      function page(offset, left) {
        return query(f, offset, PAGE).then(function (res) {
          res.rows.forEach(function (o) { numbers.push(o.n); });
          var found = neighbours(numbers, n);
          var more = offset + res.rows.length < res.total && res.rows.length > 0;
          if (found.index >= 0 && (found.next !== null || !more)) { found.total = res.total; return found; }
          if (!more || left <= 1) { return {index: found.index, total: res.total, prev: found.prev, next: null}; }
          return page(offset + res.rows.length, left - 1);
        });
      }
      return page(0, SCAN_PAGES);
    }
    return {
      kind: "api",
      report: function () { return get("/report"); },
      query: query,
      position: position,
      cases: function () { return Promise.resolve(null); },
      observation: function (n) { return get("/observations/" + encodeURIComponent(n)); },
      raw: function (n) { return get("/observations/" + encodeURIComponent(n) + "/raw"); }
    };
  }

  window.fcbenchSource = function () {
    var config = JSON.parse(document.getElementById("source-config").textContent);
    return config.api ? api(config.api) : embedded();
  };
}());
