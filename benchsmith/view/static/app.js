// benchsmith view: the page. Plain JavaScript, no framework, nothing fetched from the network. The data are scripts
// beside this file (data/meta.js, data/rows-*.js, data/detail/*.js, data/transcripts/*.js) that call the BS.*
// functions below; the table's rows load at start, a candidate's details and a transcript when opened.
"use strict";
(function () {
  const BS = (window.BS = {});
  let meta = null;
  const chunks = [], details = {}, transcripts = {}, loads = {}, missing = [];
  let T = null; // the table, as columns over every row
  const PAGE = 50;

  BS.meta = (m) => { meta = m; };
  BS.rows = (n, columns) => { chunks[n] = columns; };
  BS.detail = (n, d) => { details[n] = d; };
  BS.transcript = (n, t) => { transcripts[n] = t; };
  BS.missing = (src) => { missing.push(src); };

  function load(src) {
    if (!loads[src]) {
      loads[src] = new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = src;
        s.onload = () => resolve();
        s.onerror = () => reject(new Error(src + " is missing from the site's folder"));
        document.head.appendChild(s);
      });
    }
    return loads[src];
  }

  // --- a small DOM helper --------------------------------------------------------------------------------------
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return el;
  }
  const main = () => document.getElementById("main");
  function show(...nodes) { const m = main(); m.replaceChildren(...nodes); window.scrollTo(0, 0); }
  function failure(message) { return h("p", { class: "error", role: "alert" }, message); }
  const statusBadge = (s) => h("span", { class: "status " + s }, s);
  const fmt = (v) => (v === null || v === undefined ? "n/a" : String(v));

  window.addEventListener("error", (e) => {
    const box = document.getElementById("notices");
    if (box) box.appendChild(failure("The page hit an error: " + e.message));
  });

  // --- start: the table's rows, then the route ------------------------------------------------------------------
  BS.start = function () {
    if (!meta) {
      show(failure((missing[0] || "data/meta.js") + " is missing or did not load: this folder is not a complete " +
        "site; write it again with benchsmith view."));
      return;
    }
    document.title = "benchsmith: " + meta.runs.map((r) => r.name).join(", ");
    document.getElementById("title").textContent = "benchsmith run: " + meta.runs.map((r) => r.name).join(", ");
    const box = document.getElementById("notices");
    for (const n of meta.notices) box.appendChild(h("p", { class: "notice" }, n));
    Promise.all(meta.rowFiles.map(load)).then(() => {
      T = table();
      route();
      window.BS_READY_MS = performance.now(); // the table is drawn and answers: what bench/view_scale.py measures
    }, (err) => show(failure(err.message + ": the instance table cannot be shown.")));
    window.addEventListener("hashchange", route);
  };

  function table() {
    const n = meta.rows, t = { n };
    const wide = { r: Uint16Array, i: Uint32Array, p: Uint16Array, m: Uint16Array, g: Uint16Array, s: Uint8Array,
      tp: Int32Array, tf: Int32Array, t: Float32Array, f: Uint8Array };
    for (const [k, Kind] of Object.entries(wide)) t[k] = new Kind(n);
    t.c = new Array(n); t.x = new Array(n);
    let at = 0;
    for (const chunk of chunks) {
      const len = chunk.c.length;
      for (const k of Object.keys(wide)) t[k].set(chunk[k], at);
      for (let j = 0; j < len; j++) { t.c[at + j] = chunk.c[j]; t.x[at + j] = chunk.x[j]; }
      at += len;
    }
    chunks.length = 0; // the typed columns hold it all now
    t.d = meta.dictionaries;
    t.lower = {};
    return t;
  }

  function route() {
    const [path, query] = (location.hash.slice(1) || "/summary").split("?");
    const params = new URLSearchParams(query || "");
    const parts = path.split("/").filter(Boolean);
    for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.id === "nav-" + parts[0]);
    try {
      if (parts[0] === "instances") instances(params);
      else if (parts[0] === "candidate") candidate(Number(parts[1]));
      else if (parts[0] === "agents") agents();
      else if (parts[0] === "transcript") transcript(Number(parts[1]));
      else summary();
    } catch (err) {
      show(failure("This page could not be drawn: " + err.message));
      throw err;
    }
    document.body.dataset.ready = "1";
  }

  // --- summary ---------------------------------------------------------------------------------------------------
  function summary() {
    const nodes = [];
    for (const run of meta.runs) {
      const section = h("section", { class: "run" }, h("h2", {}, run.name), h("p", { class: "muted" }, run.file));
      for (const n of run.notices) section.appendChild(h("p", { class: "notice" }, n));
      for (const [label, counts] of Object.entries(run.statuses)) {
        const links = Object.entries(counts).map(([s, c]) =>
          h("a", { href: "#/instances?run=" + enc(run.name) + "&status=" + s }, statusBadge(s), " " + c));
        section.appendChild(h("p", { class: "counts" }, h("b", {}, label + ": "), links));
        const flagged = run.suspicious[label];
        if (flagged && flagged.candidates) {
          section.appendChild(h("p", { class: "notice" }, "Plausible but suspicious: " + flagged.candidates +
            " candidates of " + flagged.instances + " instances (" + Object.entries(flagged.primitives)
            .map(([k, v]) => k + " " + v).join(", ") + "). ",
          h("a", { href: "#/instances?run=" + enc(run.name) + "&flag=suspicious" }, "show them")));
        }
      }
      const report = h("div", { class: "report" });
      report.innerHTML = run.html; // written by benchsmith from the report's Markdown, every text escaped
      section.appendChild(report);
      section.appendChild(h("div", {}, run.plots.map((p) => h("img", { class: "plot", src: p, alt: p }))));
      nodes.push(section);
    }
    show(...nodes);
  }
  const enc = encodeURIComponent;

  // --- instances -------------------------------------------------------------------------------------------------
  const FILTERS = [["run", "r", "run"], ["project", "p", "project"], ["status", "s", "status"],
    ["model", "m", "model"], ["strategy", "g", "strategy"]];
  const FLAGS = { suspicious: 1, duplicate: 2, transcript: 4, "no log": 8, "no code": 16 };
  const COLUMNS = [["run", "r", "9%"], ["instance", "i", "22%"], ["candidate", "c", "11%"], ["model", "m", "8%"],
    ["strategy", "g", "7%"], ["status", "s", "8%"], ["tests", "tf", "6%"], ["seconds", "t", "6%"],
    ["flags", "f", "7%"], ["reason", "x", "16%"]];

  function lowered(key) { // the dictionary's strings, lower-cased once
    if (!T.lower[key]) T.lower[key] = T.d[key].map((v) => v.toLowerCase());
    return T.lower[key];
  }

  function select(params) {
    const want = {};
    for (const [name, col] of FILTERS) {
      const v = params.get(name);
      if (v !== null && v !== "") want[col] = T.d[col].indexOf(v);
    }
    const flag = FLAGS[params.get("flag")] || 0;
    const q = (params.get("q") || "").toLowerCase();
    const inst = q ? lowered("i") : null;
    const out = new Uint32Array(T.n);
    let k = 0;
    outer: for (let j = 0; j < T.n; j++) {
      for (const col in want) if (T[col][j] !== want[col]) continue outer;
      if (flag && !(T.f[j] & flag)) continue;
      if (q && inst[T.i[j]].indexOf(q) < 0 && T.c[j].toLowerCase().indexOf(q) < 0 &&
          T.x[j].toLowerCase().indexOf(q) < 0) continue;
      out[k++] = j;
    }
    let rows = out.subarray(0, k);
    const sort = params.get("sort");
    if (sort) {
      const dir = params.get("dir") === "desc" ? -1 : 1;
      let key;
      if (["r", "i", "p", "m", "g", "s"].includes(sort)) {
        const order = rankOf(sort);
        key = (j) => order[T[sort][j]];
      } else if (sort === "c" || sort === "x") key = (j) => T[sort][j];
      else key = (j) => T[sort][j];
      rows = Uint32Array.from(rows).sort((a, b) => { const x = key(a), y = key(b); return x < y ? -dir : x > y ? dir : a - b; });
    }
    return rows;
  }

  function rankOf(col) { // each dictionary entry's place in sorted order, so sorting compares numbers
    const values = T.d[col], order = values.map((_, n) => n).sort((a, b) => (values[a] < values[b] ? -1 : values[a] > values[b] ? 1 : 0));
    const rank = new Uint32Array(values.length);
    order.forEach((n, place) => { rank[n] = place; });
    return rank;
  }

  function instances(params) {
    const rows = select(params);
    const page = Math.max(0, Math.min(Number(params.get("page") || 0), Math.ceil(rows.length / PAGE) - 1));
    const go = (changes) => {
      const next = new URLSearchParams(params);
      for (const [k, v] of Object.entries(changes)) { if (v === "" || v === null) next.delete(k); else next.set(k, v); }
      if (!("page" in changes)) next.delete("page");
      location.hash = "#/instances?" + next.toString();
    };
    const filters = h("div", { class: "filters" });
    for (const [name, col] of FILTERS) {
      const options = [h("option", { value: "" }, "any " + name)].concat(
        T.d[col].map((v) => h("option", { value: v, selected: params.get(name) === v ? "selected" : null }, v || "(none)")));
      filters.appendChild(h("label", {}, name + " ", h("select", { id: "filter-" + name, onchange: (e) => go({ [name]: e.target.value }) }, options)));
    }
    filters.appendChild(h("label", {}, "flag ", h("select", { id: "filter-flag", onchange: (e) => go({ flag: e.target.value }) },
      [h("option", { value: "" }, "any")].concat(Object.keys(FLAGS).map((f) =>
        h("option", { value: f, selected: params.get("flag") === f ? "selected" : null }, f))))));
    let timer = null;
    const search = h("input", { type: "search", id: "filter-q", placeholder: "search instance, candidate, reason",
      value: params.get("q") || "", oninput: (e) => { clearTimeout(timer); timer = setTimeout(() => go({ q: e.target.value }), 250); } });
    filters.appendChild(h("label", {}, "search ", search));

    const head = h("tr", {}, COLUMNS.map(([label, col, width]) => {
      const sorted = params.get("sort") === col;
      const arrow = sorted ? (params.get("dir") === "desc" ? " ▼" : " ▲") : "";
      return h("th", { class: "sortable", style: "width:" + width, "data-col": col,
        onclick: () => go({ sort: col, dir: sorted && params.get("dir") !== "desc" ? "desc" : "asc" }) }, label + arrow);
    }));
    const body = h("tbody", {});
    for (const j of rows.subarray(page * PAGE, page * PAGE + PAGE)) body.appendChild(row(j));
    const pages = Math.max(1, Math.ceil(rows.length / PAGE));
    const pager = h("div", { class: "pager" },
      h("button", { id: "prev", disabled: page === 0 ? "disabled" : null, onclick: () => go({ page: page - 1 }) }, "‹ previous"),
      h("span", { id: "count" }, rows.length ? `${page * PAGE + 1}–${Math.min(rows.length, page * PAGE + PAGE)} of ${rows.length.toLocaleString("en")} candidates` +
        (rows.length < T.n ? ` (filtered from ${T.n.toLocaleString("en")})` : "") : "no candidate matches"),
      h("button", { id: "next", disabled: page >= pages - 1 ? "disabled" : null, onclick: () => go({ page: page + 1 }) }, "next ›"));
    show(h("h2", {}, "Instances"), filters, pager, h("table", { id: "rows" }, h("thead", {}, head), body));
    const q = document.getElementById("filter-q");
    if (params.has("q")) { q.focus(); q.setSelectionRange(q.value.length, q.value.length); }
  }

  function row(j) {
    const d = T.d, status = d.s[T.s[j]];
    const flags = Object.entries(FLAGS).filter(([, bit]) => T.f[j] & bit).map(([name]) =>
      h("span", { class: "flag " + name.replace(" ", "-") }, name));
    return h("tr", { "data-row": j, onclick: () => { location.hash = "#/candidate/" + j; } },
      h("td", {}, d.r[T.r[j]]), h("td", { title: d.i[T.i[j]] }, d.i[T.i[j]]),
      h("td", {}, h("a", { href: "#/candidate/" + j }, T.c[j])), h("td", {}, d.m[T.m[j]]), h("td", {}, d.g[T.g[j]]),
      h("td", {}, statusBadge(status)), h("td", {}, `${T.tp[j]}/${T.tp[j] + T.tf[j]}`),
      h("td", {}, T.t[j].toFixed(2)), h("td", {}, flags), h("td", { title: T.x[j] }, T.x[j]));
  }

  // --- one candidate ---------------------------------------------------------------------------------------------
  function detailFile(j) {
    const starts = meta.detailStarts;
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid] <= j) lo = mid; else hi = mid - 1; }
    return [lo, starts[lo]];
  }

  function candidate(j) {
    if (!(j >= 0 && j < T.n)) { show(failure("There is no candidate " + j + " in this run.")); return; }
    const [n, start] = detailFile(j);
    const src = "data/detail/d-" + String(n).padStart(5, "0") + ".js";
    show(h("p", { class: "muted" }, "Loading " + src + " …"));
    load(src).then(() => {
      const chunk = details[n];
      drawCandidate(j, chunk.rows[j - start], chunk.strings);
      document.body.dataset.ready = "1";
    }, (err) => show(failure(err.message + ": this candidate's code, failing tests and log cannot be shown; its row " +
      "in the table says " + T.d.s[T.s[j]] + " (" + T.x[j] + ").")));
  }

  function drawCandidate(j, c, strings) {
    const facts = h("dl", { class: "facts" });
    const fact = (k, ...v) => { facts.appendChild(h("dt", {}, k)); facts.appendChild(h("dd", {}, ...v)); };
    fact("verdict", statusBadge(c.status), c.reason ? "  " + c.reason : "");
    fact("tests", `${c.passed} passed, ${c.failed} failed` + (c.compiled ? "" : " (did not compile)"));
    if (c.regression !== null) fact("regression tests", c.regression ? "passed" : "failed");
    fact("model / strategy", `${c.model || "(none)"} / ${c.strategy || "(none)"}` + (c.iteration ? `, attempt ${c.iteration}` : ""));
    fact("time", `${c.seconds.toFixed(2)} s` + (c.runner ? ` (${c.runner} runner` + (c.node ? ` on ${c.node})` : ")") : ""));
    if (c.rank) fact("rank", `${c.rank.rank} (similarity ${c.rank.similarity.toFixed(4)}${c.rank.pruned ? ", pruned" : ""})`);
    fact("screen flags", c.suspicious.length ? c.suspicious.map((s) => h("span", { class: "flag suspicious" }, s)) : "none");
    if (c.duplicateOf) fact("duplicate of", c.duplicateRow !== null ? h("a", { href: "#/candidate/" + c.duplicateRow }, c.duplicateOf) : c.duplicateOf, " (shares its verdict)");
    if (c.transcript !== null) fact("agent", h("a", { href: "#/transcript/" + c.transcript, id: "to-transcript" }, "the transcript, step by step"));

    const parts = [h("p", {}, h("a", { href: "javascript:history.back()" }, "‹ back")),
      h("h2", {}, c.instance + " · " + c.candidate), c.title ? h("p", { class: "muted" }, c.title) : null,
      h("p", { class: "muted" }, "run " + c.run), facts];
    if (c.failing.length) {
      parts.push(h("h3", {}, `Failing tests (${c.failingTotal})`));
      parts.push(h("table", { class: "failing", id: "failing" }, h("tbody", {}, c.failing.map(([name, message]) =>
        h("tr", {}, h("td", {}, name), h("td", { class: "message" }, message || "(no message in the log)"))))));
      if (c.failingTotal > c.failing.length) parts.push(h("p", { class: "muted" }, `and ${c.failingTotal - c.failing.length} more`));
    }
    if (c.compiler.length) {
      parts.push(h("h3", {}, "The compiler's first errors"), h("pre", { class: "wrap", id: "compiler" }, c.compiler.join("\n")));
    }
    if (c.status === "timeout") parts.push(h("p", { class: "error" }, "Timed out: " + (c.reason || "the tests did not finish in time")));
    parts.push(h("h3", {}, "Code"));
    const code = c.code !== null ? strings[c.code] : null, ref = c.reference !== null ? strings[c.reference] : null;
    if (code === null) parts.push(h("p", { class: "notice" }, "Its code is not in this site: the candidates file was not given to benchsmith view (--candidates) or does not hold it."));
    else if (ref === null) parts.push(h("p", { class: "muted" }, c.referenceLabel ? "" : "Shown as written (no dataset given, or its ground truth is hidden)."), h("pre", { id: "code" }, code));
    else parts.push(h("p", { class: "muted" }, "Against " + c.referenceLabel + ":"), diff(ref, code));
    parts.push(h("h3", {}, "Log (its last lines)"));
    if (c.log.found) parts.push(h("p", { class: "muted" }, c.log.path), h("pre", { id: "log" }, c.log.tail || "(empty)"));
    else parts.push(h("p", { class: "notice", id: "log-missing" }, "The log is missing: " + (c.log.path || "the results name none") +
      " was not found, nor the same file in the logs folder beside the results file."));
    show(...parts.filter(Boolean));
  }

  function diff(a, b) { // lines of a (the reference) against b (the candidate): a longest common subsequence
    const x = a.split("\n"), y = b.split("\n");
    let pre = 0; while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
    let suf = 0; while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
    const xs = x.slice(pre, x.length - suf), ys = y.slice(pre, y.length - suf), out = h("pre", { class: "diff", id: "diff" });
    const line = (cls, text) => out.appendChild(h("div", { class: cls }, text));
    x.slice(0, pre).forEach((t) => line("same", t));
    if (xs.length * ys.length > 4e6) { xs.forEach((t) => line("del", t)); ys.forEach((t) => line("add", t)); }
    else {
      const n = xs.length, m = ys.length, L = new Uint32Array((n + 1) * (m + 1));
      for (let i = n - 1; i >= 0; i--) for (let k = m - 1; k >= 0; k--)
        L[i * (m + 1) + k] = xs[i] === ys[k] ? L[(i + 1) * (m + 1) + k + 1] + 1 : Math.max(L[(i + 1) * (m + 1) + k], L[i * (m + 1) + k + 1]);
      let i = 0, k = 0;
      while (i < n && k < m) {
        if (xs[i] === ys[k]) { line("same", xs[i]); i++; k++; }
        else if (L[(i + 1) * (m + 1) + k] >= L[i * (m + 1) + k + 1]) line("del", xs[i++]);
        else line("add", ys[k++]);
      }
      while (i < n) line("del", xs[i++]);
      while (k < m) line("add", ys[k++]);
    }
    x.slice(x.length - suf).forEach((t) => line("same", t));
    return out;
  }

  // --- agents ----------------------------------------------------------------------------------------------------
  function agents() {
    if (!meta.transcripts.length) { show(h("h2", {}, "Agents"), h("p", { class: "notice" }, "No transcripts in this site (benchsmith view --transcripts adds an agent run's).")); return; }
    show(h("h2", {}, "Agents"), h("table", { id: "transcripts" },
      h("thead", {}, h("tr", {}, ["run", "task", "agent", "model", "passed", "iterations", "events"].map((c) => h("th", {}, c)))),
      h("tbody", {}, meta.transcripts.map((t) => h("tr", {}, h("td", {}, t.run),
        h("td", {}, h("a", { href: "#/transcript/" + t.n }, t.task)), h("td", {}, t.agent), h("td", {}, t.model),
        h("td", {}, t.passed ? statusBadge("plausible") : statusBadge("wrong")), h("td", {}, fmt(t.iterations)), h("td", {}, t.events))))));
  }

  function transcript(n) {
    const src = "data/transcripts/t-" + String(n).padStart(5, "0") + ".js";
    show(h("p", { class: "muted" }, "Loading " + src + " …"));
    load(src).then(() => { drawTranscript(transcripts[n]); document.body.dataset.ready = "1"; },
      (err) => show(failure(err.message + ": this transcript cannot be shown.")));
  }

  function block(text, open) {
    const pre = h("pre", { class: "wrap" }, typeof text === "string" ? text : JSON.stringify(text, null, 2));
    return open ? pre : h("details", {}, h("summary", {}, `${String(text).length.toLocaleString("en")} characters`), pre);
  }

  function drawTranscript(t) {
    const steps = [];
    let purpose = "";
    for (const e of t.events) {
      const it = e.iteration !== undefined ? ` (iteration ${e.iteration})` : "";
      if (e.kind === "request") {
        purpose = e.purpose || "";
        const reflect = /reflect/.test(purpose);
        steps.push(h("div", { class: "step request" }, h("h4", {}, (reflect ? "Asked to reflect" : "Prompt") + it + " · " + purpose),
          (e.messages || []).map((m) => h("div", {}, h("span", { class: "role" }, m.role), block(m.content, false)))));
      } else if (e.kind === "answer") {
        const reflect = /reflect/.test(purpose);
        steps.push(h("div", { class: "step " + (reflect ? "reflection" : "answer") }, h("h4", {}, (reflect ? "Reflection" : "Model answer") + it),
          h("pre", { class: "wrap" }, e.content || "(no text)"),
          (e.tool_calls || []).length ? h("p", { class: "muted" }, "asks for tools: " + e.tool_calls.map((c) => c.name || (c.function && c.function.name) || JSON.stringify(c)).join(", ")) : null));
      } else if (e.kind === "tool") {
        steps.push(h("div", { class: "step tool" }, h("h4", {}, "Tool call: " + (e.name || "(unreadable)") + "(" + JSON.stringify(e.arguments || {}) + ")" + it +
          (e.independent ? " · made unasked" : "") + (e.skipped ? " · over the budget, not run" : "")),
          e.thought ? h("p", {}, e.thought) : null, e.error ? h("p", { class: "error" }, e.error) : null, block(e.output || "(no output)", false)));
      } else if (e.kind === "attempt") {
        steps.push(h("div", { class: "step attempt" }, h("h4", {}, "Attempt" + it + ": ",
          e.row !== undefined ? h("a", { href: "#/candidate/" + e.row }, e.candidate_id) : e.candidate_id || "(no candidate)"),
        h("p", { class: "muted" }, (e.code_found ? "" : "no code found. ") + (e.extraction || ""))));
      } else if (e.kind === "verdict") {
        steps.push(h("div", { class: "step verdict " + (e.passed ? "passed" : "failed") }, h("h4", {}, "Verdict" + it + ": ",
          statusBadge(e.passed ? "plausible" : e.compiled === false ? "uncompilable" : "wrong"), ` ${fmt(e.tests_passed)} passed, ${fmt(e.tests_failed)} failed`),
        h("pre", { class: "wrap" }, e.text || "")));
      } else {
        steps.push(h("div", { class: "step" }, h("h4", {}, (e.kind || "event") + it), block(e, true)));
      }
    }
    show(h("p", {}, h("a", { href: "#/agents" }, "‹ all transcripts")), h("h2", { id: "transcript-title" }, t.task_id),
      h("p", { class: "muted" }, `${t.agent || ""} · ${t.model || ""} · ${t.passed ? "passed" : "did not pass"} after ${fmt(t.iterations)} iterations`),
      h("div", { id: "steps" }, steps));
  }
})();
