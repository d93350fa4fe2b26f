// weir's live page: reads the /events stream (one JSON snapshot of the
// engine's Monitor a second, see engine/web/page_snapshot.go for its shape),
// keeps the last minutes of figures for the charts, and redraws the
// pipeline graph, one card per streaming table, the sinks and a table view
// of every figure. Plain JavaScript, no library, no build step.
"use strict";

(function () {
  const HISTORY_MS = 10 * 60 * 1000; // what is kept per table
  const CHART_MS = 5 * 60 * 1000;    // the most a chart shows
  const CHART_MIN_MS = 60 * 1000;    // the least (a new page fills a minute first)
  const STALL_MS = 5000;             // no frame for this long: reconnect
  const SVG = "http://www.w3.org/2000/svg";

  // history: table id → [{t, inRate, procRate, backlog, stateBytes, stateRows, inputRows}]
  const history = new Map();
  let lastSeq = 0, missed = 0, lastFrameAt = 0, graphKey = "";
  let prevRows = new Map(); // "rel:" + table name → {in, out}: its rows at the last frame
  let source = null, retryMs = 1000, retryTimer = 0;

  // ---- small DOM helpers (text only goes in through textContent) ----
  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    setAttrs(n, attrs);
    for (const k of kids) if (k != null) n.append(k);
    return n;
  }
  function svg(tag, attrs, ...kids) {
    const n = document.createElementNS(SVG, tag);
    setAttrs(n, attrs);
    for (const k of kids) if (k != null) n.append(k);
    return n;
  }
  function setAttrs(n, attrs) {
    if (!attrs) return;
    for (const [k, v] of Object.entries(attrs)) if (v != null && v !== false) n.setAttribute(k, String(v));
  }
  function setText(n, s) { if (n.textContent !== s) n.textContent = s; }

  // ---- number formats ----
  const intFmt = new Intl.NumberFormat("en-US");
  function fmtInt(n) { return intFmt.format(Math.round(n || 0)); }
  function fmtRate(r) {
    r = r || 0;
    if (r >= 1e6) return (r / 1e6).toFixed(1) + " M";
    if (r >= 1e5) return (r / 1e3).toFixed(0) + " k";
    if (r >= 1e4) return (r / 1e3).toFixed(1) + " k";
    if (r >= 100) return fmtInt(r);
    return r.toFixed(1);
  }
  function fmtBytes(b) {
    b = b || 0;
    const neg = b < 0; b = Math.abs(b);
    const units = ["B", "kB", "MB", "GB", "TB"];
    let i = 0;
    while (b >= 1000 && i < units.length - 1) { b /= 1000; i++; }
    const s = (i === 0 ? String(Math.round(b)) : b.toFixed(b < 10 ? 1 : 0)) + " " + units[i];
    return neg ? "−" + s : s;
  }
  function fmtSeconds(s) {
    if (s == null) return "—";
    const neg = s < 0; s = Math.abs(s);
    let out;
    if (s < 10) out = s.toFixed(1) + " s";
    else if (s < 120) out = Math.round(s) + " s";
    else if (s < 7200) out = Math.floor(s / 60) + " min " + Math.round(s % 60) + " s";
    else if (s < 172800) out = Math.floor(s / 3600) + " h " + Math.round((s % 3600) / 60) + " min";
    else out = Math.round(s / 86400) + " days";
    return neg ? "−" + out : out;
  }
  function fmtMs(ms) { return ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : ms.toFixed(ms < 10 ? 1 : 0) + " ms"; }
  // fmtWhen is a time of day, with its date when it is not today.
  function fmtWhen(iso) {
    const d = new Date(iso), today = new Date();
    const time = d.toLocaleTimeString([], { hour12: false });
    return d.toDateString() === today.toDateString() ? time : d.toISOString().slice(0, 10) + " " + time;
  }
  // fmtAxis is a short axis label: 500 k, 2.5 M, 0.5.
  function fmtAxis(v) {
    const trim = (x) => String(+x.toFixed(1));
    if (v >= 1e6) return trim(v / 1e6) + " M";
    if (v >= 1e3) return trim(v / 1e3) + " k";
    return trim(v);
  }
  function shortName(n) { return n.startsWith("public.") ? n.slice(7) : n; }

  // ---- the stream ----
  function connect() {
    clearTimeout(retryTimer);
    if (source) source.close();
    setConn("connecting", "connecting…");
    source = new EventSource("/events");
    source.addEventListener("open", () => { retryMs = 1000; setConn("live", "live"); });
    source.addEventListener("snapshot", (e) => {
      lastFrameAt = Date.now();
      let snap;
      try { snap = JSON.parse(e.data); } catch (err) { return; }
      onSnapshot(snap);
    });
    source.addEventListener("error", () => {
      // EventSource retries by itself while the stream is only broken; when
      // it gives up (CLOSED, e.g. the server answered with an error) retry
      // with a growing delay.
      if (source.readyState === EventSource.CLOSED) reconnectLater();
      else setConn("retrying", "reconnecting…");
    });
  }
  function reconnectLater() {
    if (source) { source.close(); source = null; }
    setConn("retrying", "disconnected, retrying in " + Math.round(retryMs / 1000) + " s…");
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 30000);
  }
  setInterval(() => {
    // A stream that went quiet (a proxy holding it, a sleeping laptop) is
    // dropped and opened again.
    if (source && source.readyState === EventSource.OPEN && lastFrameAt && Date.now() - lastFrameAt > STALL_MS) reconnectLater();
  }, 1000);
  function setConn(state, text) {
    const n = document.getElementById("conn");
    if (n.dataset.state !== state) n.dataset.state = state;
    setText(n, text);
  }

  function onSnapshot(snap) {
    if (lastSeq && snap.seq > lastSeq + 1) missed += snap.seq - lastSeq - 1;
    lastSeq = snap.seq;
    const t = Date.parse(snap.time);
    for (const tb of snap.tables) {
      let h = history.get(tb.id);
      if (!h) { h = []; history.set(tb.id, h); }
      if (h.length && t <= h[h.length - 1].t) h.length = 0; // the clock went back: start over
      h.push({ t, inRate: tb.inputRate, procRate: tb.processRate, backlog: tb.backlogRows,
        stateBytes: tb.stateBytes, stateRows: tb.stateRows, inputRows: tb.inputRows });
      while (h.length && h[0].t < t - HISTORY_MS) h.shift();
    }
    const alive = new Set(snap.tables.map((x) => x.id));
    for (const id of history.keys()) if (!alive.has(id)) history.delete(id);

    renderGraph(snap);
    renderServer(snap.server);
    renderCards(snap, t);
    renderSinks(snap.sinks);
    renderNumbers(snap, t);
    const seqEl = document.getElementById("seq");
    seqEl.dataset.seq = snap.seq;
    setText(seqEl, "snapshot #" + snap.seq + " at " + new Date(t).toLocaleTimeString() +
      (missed ? " · " + missed + " skipped" : ""));
  }

  // stateGrowth is bytes of state gained per minute over the last minute
  // of history (null until there are ten seconds of it).
  function stateGrowth(id, now) {
    const h = history.get(id);
    if (!h || h.length < 2) return null;
    let first = h[0];
    for (const p of h) { if (p.t >= now - 60000) { first = p; break; } }
    const last = h[h.length - 1];
    const dt = (last.t - first.t) / 60000;
    if (dt < 10 / 60) return null;
    return (last.stateBytes - first.stateBytes) / dt;
  }

  // ---- the pipeline graph ----
  const STATUS_RANK = { failed: 5, paused: 4, running: 3, idle: 2, stopped: 1, done: 0 };

  // graphModel turns a snapshot into nodes (sources, input tables, streaming
  // tables, sinks) and edges. Relations and sinks have separate name spaces,
  // hence the "rel:" and "sink:" keys.
  function graphModel(snap) {
    const nodes = new Map(), edges = [];
    const rel = (name) => "rel:" + name;
    for (const s of snap.sources) nodes.set(rel(s.name), { key: rel(s.name), name: s.name, kind: "source", sub: s.connector || "source", status: "" });
    for (const t of snap.tables) {
      const k = rel(t.name);
      const n = nodes.get(k);
      if (n && n.kind === "stream") {
        if ((STATUS_RANK[t.status] || 0) > (STATUS_RANK[n.status] || 0)) n.status = t.status;
        n.flows++;
      } else {
        nodes.set(k, { key: k, name: t.name, kind: "stream", sub: t.mode || "streaming table", status: t.status, flows: 1, id: t.id });
      }
    }
    for (const t of snap.tables) {
      for (const i of t.inputs) {
        if (!nodes.has(rel(i))) nodes.set(rel(i), { key: rel(i), name: i, kind: "table", sub: "table", status: "" });
        if (!edges.some((e) => e.from === rel(i) && e.to === rel(t.name))) edges.push({ from: rel(i), to: rel(t.name) });
      }
    }
    for (const s of snap.sinks) {
      const k = "sink:" + s.name;
      nodes.set(k, { key: k, name: s.name, kind: "sink", sub: s.connector || "sink", status: s.status });
      if (s.from) {
        if (!nodes.has(rel(s.from))) nodes.set(rel(s.from), { key: rel(s.from), name: s.from, kind: "table", sub: "table", status: "" });
        edges.push({ from: rel(s.from), to: k });
      }
    }
    return { nodes, edges };
  }

  // layout puts each node in a column by its depth (inputs at 0, a
  // streaming table one right of its deepest input, a sink right of its
  // table) and orders each column by where its inputs sit.
  function layout(model) {
    const preds = new Map();
    for (const n of model.nodes.keys()) preds.set(n, []);
    for (const e of model.edges) preds.get(e.to).push(e.from);
    const depth = new Map(), visiting = new Set();
    function d(k) {
      if (depth.has(k)) return depth.get(k);
      if (visiting.has(k)) return 0; // a cycle cannot happen; do not loop if it does
      visiting.add(k);
      let v = 0;
      for (const p of preds.get(k)) v = Math.max(v, d(p) + 1);
      visiting.delete(k);
      depth.set(k, v);
      return v;
    }
    const cols = [];
    for (const k of model.nodes.keys()) (cols[d(k)] = cols[d(k)] || []).push(k);
    const row = new Map();
    cols.forEach((col, ci) => {
      const order = (k) => {
        const ps = preds.get(k).filter((p) => row.has(p));
        return ps.length ? ps.reduce((a, p) => a + row.get(p), 0) / ps.length : -1;
      };
      (col || []).sort((a, b) => order(a) - order(b) || a.localeCompare(b));
      (col || []).forEach((k, i) => row.set(k, i));
    });
    return { cols: cols.map((c) => c || []), preds };
  }

  const NODE_W = 196, NODE_H = 58, COL_GAP = 84, ROW_GAP = 20, PAD = 16;

  function renderGraph(snap) {
    const box = document.getElementById("graph");
    const model = graphModel(snap);
    if (model.nodes.size === 0) {
      if (graphKey !== "empty") {
        box.replaceChildren(el("p", { class: "empty" }, "No sources, streaming tables or sinks yet. Create one over SQL and it appears here."));
        graphKey = "empty";
      }
      return;
    }
    const key = JSON.stringify([[...model.nodes.values()].map((n) => [n.key, n.kind, n.sub, n.flows]), model.edges]);
    if (key !== graphKey) {
      graphKey = key;
      box.replaceChildren(drawGraph(model));
    }
    // Each frame: the states and which edges carry rows now (the rows a
    // table read, or wrote for its sinks, grew since the last frame).
    const rows = new Map();
    for (const t of snap.tables) {
      const r = rows.get("rel:" + t.name) || { in: 0, out: 0 };
      rows.set("rel:" + t.name, { in: r.in + t.inputRows, out: r.out + t.outputRows });
    }
    const grew = (k, f) => prevRows.has(k) && rows.has(k) && rows.get(k)[f] > prevRows.get(k)[f];
    for (const g of box.querySelectorAll("g.node")) {
      const n = model.nodes.get(g.dataset.key);
      if (!n) continue;
      const st = n.status || "none";
      if (g.dataset.status !== st) {
        g.dataset.status = st;
        g.setAttribute("class", "node kind-" + n.kind + " status-" + st);
        setText(g.querySelector(".node-sub"), nodeSub(n));
        setText(g.querySelector("title"), nodeTitle(n));
      }
    }
    for (const p of box.querySelectorAll("path.edge")) {
      const flowing = p.dataset.to.startsWith("sink:") ? grew(p.dataset.from, "out") : grew(p.dataset.to, "in");
      p.classList.toggle("flowing", flowing);
    }
    prevRows = rows;
    const svgEl = box.querySelector("svg");
    if (svgEl) svgEl.setAttribute("aria-label", graphLabel(model));
  }

  function nodeSub(n) { return n.status ? n.sub + " · " + n.status : n.sub; }
  function nodeTitle(n) {
    const kind = { source: "source", table: "table", stream: "streaming table", sink: "sink" }[n.kind];
    return kind + " " + n.name + (n.status ? " (" + n.status + ")" : "") + (n.flows > 1 ? ", " + n.flows + " flows" : "");
  }
  function graphLabel(model) {
    const parts = model.edges.map((e) => shortName(model.nodes.get(e.from).name) + " to " + shortName(model.nodes.get(e.to).name));
    return "Pipeline graph with " + model.nodes.size + " nodes" + (parts.length ? ": " + parts.join(", ") : "") + ". The tables below give every figure.";
  }

  function drawGraph(model) {
    const { cols } = layout(model);
    const rows = Math.max(...cols.map((c) => c.length));
    const W = PAD * 2 + cols.length * NODE_W + (cols.length - 1) * COL_GAP;
    const H = PAD * 2 + rows * NODE_H + (rows - 1) * ROW_GAP;
    const pos = new Map();
    cols.forEach((col, ci) => {
      const off = ((rows - col.length) * (NODE_H + ROW_GAP)) / 2; // centre short columns
      col.forEach((k, ri) => pos.set(k, { x: PAD + ci * (NODE_W + COL_GAP), y: PAD + off + ri * (NODE_H + ROW_GAP) }));
    });
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "group", class: "graph-svg" }); // a group, not an img: it holds links
    root.append(svg("defs", null, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }))));
    for (const e of model.edges) {
      const a = pos.get(e.from), b = pos.get(e.to);
      const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x - 2, y2 = b.y + NODE_H / 2;
      const mx = (x1 + x2) / 2;
      root.append(svg("path", { class: "edge", d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, "marker-end": "url(#arrow)", "data-from": e.from, "data-to": e.to }));
    }
    for (const [k, n] of model.nodes) {
      const p = pos.get(k);
      const st = n.status || "none";
      const g = svg("g", { class: `node kind-${n.kind} status-${st}`, transform: `translate(${p.x},${p.y})`, "data-key": k, "data-node": n.name, "data-kind": n.kind, "data-status": st },
        svg("title", null, nodeTitle(n)),
        svg("rect", { class: "node-box", width: NODE_W, height: NODE_H, rx: 10 }),
        svg("rect", { class: "node-bar", width: 6, height: NODE_H - 16, x: 8, y: 8, rx: 3 }),
        svg("text", { class: "node-kind", x: 24, y: 19 }, { source: "SOURCE", table: "TABLE", stream: "STREAMING TABLE", sink: "SINK" }[n.kind]),
        svg("text", { class: "node-name", x: 24, y: 37 }, clip(shortName(n.name), 22)),
        svg("text", { class: "node-sub", x: 24, y: 51 }, nodeSub(n)));
      if (n.kind === "stream") root.append(svg("a", { href: "#card-" + cssId(n.id), "aria-label": nodeTitle(n) }, g));
      else root.append(g);
    }
    return root;
  }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "…" : s; }
  function cssId(id) { return id.replace(/[^A-Za-z0-9_-]/g, "_"); }

  // ---- server figures ----
  function renderServer(sv) {
    const box = document.getElementById("server");
    const errs = Object.entries(sv.errors || {});
    const present = sv.connections || sv.queries || sv.storeBytes || errs.length;
    if (!present) {
      if (!box.querySelector(".empty")) box.replaceChildren(el("p", { class: "empty" }, "No server figures yet."));
      return;
    }
    const nErr = errs.reduce((a, [, n]) => a + n, 0);
    const errText = errs.sort().map(([c, n]) => c + "xxx: " + fmtInt(n)).join(", ");
    box.replaceChildren(
      tile("Connections", fmtInt(sv.connections), "connections"),
      tile("Statements", fmtInt(sv.queries), "queries"),
      tile("Errors", fmtInt(nErr), "errors", errText || "none"),
      tile("Store size", fmtBytes(sv.storeBytes), "storeBytes"));
  }
  function tile(label, value, field, note) {
    return el("div", { class: "tile" }, el("div", { class: "tile-label" }, label),
      el("div", { class: "tile-value", "data-field": field }, value), note ? el("div", { class: "tile-note" }, note) : null);
  }

  // ---- one card per streaming table job ----
  const cards = new Map(); // id → {root, parts}

  function renderCards(snap, now) {
    const box = document.getElementById("cards");
    if (!snap.tables.length) {
      cards.clear();
      if (!box.querySelector(".empty")) box.replaceChildren(el("p", { class: "empty panel" }, "No streaming tables yet."));
      return;
    }
    const want = snap.tables.map((t) => t.id);
    for (const id of [...cards.keys()]) if (!want.includes(id)) cards.delete(id);
    const order = [];
    for (const t of snap.tables) {
      let c = cards.get(t.id);
      if (!c) { c = makeCard(t); cards.set(t.id, c); }
      updateCard(c, t, now);
      order.push(c.root);
    }
    const cur = [...box.children];
    if (cur.length !== order.length || cur.some((n, i) => n !== order[i])) box.replaceChildren(...order);
  }

  const KPIS = [
    ["inputRows", "Input rows"],
    ["inputRate", "Input rows/s"],
    ["processRate", "Processed rows/s"],
    ["backlog", "Backlog"],
    ["lag", "Watermark lag"],
    ["state", "State"],
    ["growth", "State growth"],
    ["late", "Late rows"],
    ["rejected", "Rejected rows"],
    ["outputRows", "Output rows"],
  ];

  function makeCard(t) {
    const parts = {};
    const kpis = el("div", { class: "kpis" });
    for (const [f, label] of KPIS) {
      parts[f] = el("div", { class: "kpi-value", "data-field": f });
      parts[f + "Note"] = el("div", { class: "kpi-note" });
      kpis.append(el("div", { class: "kpi kpi-" + f }, el("div", { class: "kpi-label" }, label), parts[f], parts[f + "Note"]));
    }
    parts.status = el("span", { class: "badge" });
    parts.mode = el("span", { class: "badge badge-plain" });
    parts.epoch = el("span", { class: "epoch", "data-field": "epoch" });
    parts.inputs = el("p", { class: "reads" });
    parts.error = el("div", { class: "error", role: "alert", hidden: true });
    parts.rateChart = el("div", { class: "chart" });
    parts.backlogChart = el("div", { class: "chart" });
    parts.expectations = el("div");
    parts.batches = el("div");
    parts.answers = el("dl", { class: "answers" });
    const title = t.flow ? [shortName(t.name), el("span", { class: "flow" }, " · flow " + t.flow)] : [shortName(t.name)];
    const root = el("article", { class: "card panel", id: "card-" + cssId(t.id), "data-id": t.id, "aria-labelledby": "h-" + cssId(t.id) },
      el("header", { class: "card-head" },
        el("h3", { id: "h-" + cssId(t.id), title: t.name }, ...title), parts.epoch, parts.status, parts.mode),
      parts.inputs, parts.error, kpis,
      el("div", { class: "charts" },
        el("figure", null, el("figcaption", null, el("span", { class: "key key-in" }), "input ", el("span", { class: "key key-proc" }), "processed rows/s"), parts.rateChart),
        el("figure", null, el("figcaption", null, el("span", { class: "key key-backlog" }), "backlog rows"), parts.backlogChart)),
      el("div", { class: "card-cols" },
        el("section", null, el("h4", null, "Expectations"), parts.expectations),
        el("section", null, el("h4", null, "Recent batches"), parts.batches)),
      el("details", { class: "answers-box", open: true }, el("summary", null, "The seven answers (EXPLAIN)"), parts.answers));
    return { root, parts, answersKey: null, expKey: null, batchKey: null };
  }

  function updateCard(c, t, now) {
    const p = c.parts;
    setText(p.status, t.status);
    if (c.root.dataset.status !== t.status) c.root.dataset.status = t.status;
    p.status.className = "badge status-" + t.status;
    setText(p.mode, t.mode || "—");
    setText(p.inputs, t.inputs.length ? "reads " + t.inputs.map(shortName).join(", ") : "reads no stream");
    p.error.hidden = !t.lastError;
    setText(p.error, t.lastError ? "Last error: " + t.lastError : "");

    setText(p.inputRows, fmtInt(t.inputRows));
    setText(p.inputRate, fmtRate(t.inputRate));
    setText(p.processRate, fmtRate(t.processRate));
    // Behind: rows wait and the last epoch processed slower than they came.
    const behind = t.backlogRows > 0 && t.processRate < t.inputRate * 0.9;
    setText(p.processRateNote, behind ? "behind the input" : "");
    setText(p.backlog, fmtInt(t.backlogRows) + " rows");
    setText(p.backlogNote, t.files ? fmtInt(t.files.files) + " files, " + fmtBytes(t.files.bytes) + " unread" : "");
    setText(p.lag, fmtSeconds(t.watermarkLagSeconds));
    setText(p.lagNote, t.watermark ? "at " + fmtWhen(t.watermark) : "no watermark");
    setText(p.state, fmtBytes(t.stateBytes));
    setText(p.stateNote, fmtInt(t.stateRows) + " rows");
    const g = stateGrowth(t.id, now);
    setText(p.growth, g == null ? "—" : (g > 0 ? "+" : "") + fmtBytes(g) + "/min");
    setText(p.growthNote, g == null ? "measuring…" : "over the last minute");
    setText(p.late, fmtInt(t.lateRows));
    setText(p.rejected, fmtInt(t.rejectedRows));
    setText(p.rejectedNote, !t.expectations.length ? "no expectations"
      : "dropped by an expectation" + (t.warnedRows ? "; " + fmtInt(t.warnedRows) + " kept with a warning" : ""));
    setText(p.outputRows, fmtInt(t.outputRows));
    setText(p.epoch, "epoch " + fmtInt(t.epoch) + (t.lastBatchMs ? " · last batch " + fmtMs(t.lastBatchMs) : ""));
    c.root.querySelector(".kpi-late").classList.toggle("warn", t.lateRows > 0);
    c.root.querySelector(".kpi-rejected").classList.toggle("warn", t.rejectedRows > 0);
    c.root.querySelector(".kpi-processRate").classList.toggle("warn", behind);

    const h = history.get(t.id) || [];
    drawChart(p.rateChart, h, now, [{ key: "inRate", cls: "line-in", label: "input" }, { key: "procRate", cls: "line-proc", label: "processed" }], fmtRate, false, 1);
    drawChart(p.backlogChart, h, now, [{ key: "backlog", cls: "line-backlog", label: "backlog" }], fmtInt, true, 10);

    const expKey = JSON.stringify(t.expectations);
    if (expKey !== c.expKey) {
      c.expKey = expKey;
      p.expectations.replaceChildren(t.expectations.length
        ? scroll(dataTable(["Expectation", "On violation", "Passed", "Failed"], t.expectations.map((e) => [e.name, e.action, fmtInt(e.passed), fmtInt(e.failed)]), "Expectations of " + t.name))
        : el("p", { class: "empty" }, "No expectations on this table."));
    }
    const recent = t.batches.slice(-6).reverse();
    const batchKey = recent.map((b) => b.epoch).join(",");
    if (batchKey !== c.batchKey) {
      c.batchKey = batchKey;
      p.batches.replaceChildren(recent.length
        ? scroll(dataTable(["Epoch", "Rows in", "Rows out", "Duration", "read / process / commit"],
          recent.map((b) => [fmtInt(b.epoch), fmtInt(b.inputRows), fmtInt(b.outputRows), fmtMs(b.durationMs), fmtMs(b.readMs) + " / " + fmtMs(b.processMs) + " / " + fmtMs(b.commitMs)]),
          "Recent batches of " + t.name))
        : el("p", { class: "empty" }, "No batch history yet."));
    }
    const answersKey = t.answers.join("\n");
    if (answersKey !== c.answersKey) {
      c.answersKey = answersKey;
      if (!t.answers.length) p.answers.replaceChildren(el("p", { class: "empty" }, "No plan to explain (the table is not running)."));
      else p.answers.replaceChildren(...t.answers.flatMap((a) => {
        const i = a.indexOf(":");
        return i < 0 ? [el("dd", null, a)] : [el("dt", null, a.slice(0, i)), el("dd", null, a.slice(i + 1).trim())];
      }));
    }
  }

  // scroll wraps a table that may be wider than its card.
  function scroll(table) { return el("div", { class: "scroll" }, table); }
  function dataTable(heads, rows, caption) {
    return el("table", { class: "data" }, el("caption", { class: "sr" }, caption),
      el("thead", null, el("tr", null, ...heads.map((x) => el("th", { scope: "col" }, x)))),
      el("tbody", null, ...rows.map((r) => el("tr", null, ...r.map((x) => el("td", null, x))))));
  }

  // drawChart draws series of history h over the last CHART_MS as SVG lines
  // (area under the first when area is set), y from 0 to a round maximum.
  function drawChart(box, h, now, series, fmt, area, minMax) {
    const W = 320, H = 96, L = 44, R = 6, T = 8, B = 18;
    const span = Math.min(CHART_MS, Math.max(CHART_MIN_MS, h.length ? now - h[0].t : 0));
    const pts = h.filter((p) => p.t >= now - span);
    let max = 0;
    for (const p of pts) for (const s of series) max = Math.max(max, p[s.key] || 0);
    max = niceCeil(Math.max(max, minMax));
    const x = (t) => L + ((t - (now - span)) / span) * (W - L - R);
    const spanText = fmtSpan(span);
    const y = (v) => T + (1 - v / max) * (H - T - B);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", role: "img",
      "aria-label": series.map((s) => s.label + " " + fmt(pts.length ? pts[pts.length - 1][s.key] : 0)).join(", ") + " (last " + spanText + ", peak " + fmt(max) + ")" });
    for (const f of [0, 0.5, 1]) {
      root.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(max * f), y2: y(max * f) }));
      root.append(svg("text", { class: "axis", x: L - 6, y: y(max * f) + 3, "text-anchor": "end" }, fmtAxis(max * f)));
    }
    root.append(svg("text", { class: "axis", x: L, y: H - 4 }, "−" + spanText));
    root.append(svg("text", { class: "axis", x: W - R, y: H - 4, "text-anchor": "end" }, "now"));
    if (pts.length >= 1) {
      for (const s of series) {
        const line = pts.map((p) => x(p.t).toFixed(1) + "," + y(p[s.key] || 0).toFixed(1));
        if (pts.length === 1) line.unshift((x(pts[0].t) - 2).toFixed(1) + "," + y(pts[0][s.key] || 0).toFixed(1));
        if (area) root.append(svg("polygon", { class: "area " + s.cls, points: `${x(pts[0].t).toFixed(1)},${y(0)} ${line.join(" ")} ${x(pts[pts.length - 1].t).toFixed(1)},${y(0)}` }));
        root.append(svg("polyline", { class: "line " + s.cls, points: line.join(" ") }));
      }
    } else {
      root.append(svg("text", { class: "axis", x: W / 2, y: H / 2, "text-anchor": "middle" }, "waiting for figures…"));
    }
    box.replaceChildren(root);
  }
  function fmtSpan(ms) {
    const s = Math.round(ms / 1000);
    return s % 60 === 0 ? s / 60 + " min" : s >= 60 ? Math.floor(s / 60) + " min " + (s % 60) + " s" : s + " s";
  }
  function niceCeil(v) {
    if (!(v > 0)) return 1;
    const e = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * e) return m * e;
    return 10 * e;
  }

  // ---- sinks ----
  function renderSinks(sinks) {
    const box = document.getElementById("sinks");
    if (!sinks.length) {
      if (!box.querySelector(".empty")) box.replaceChildren(el("p", { class: "empty" }, "No sinks yet."));
      return;
    }
    box.replaceChildren(el("ul", { class: "sinks" }, ...sinks.map((s) => el("li", { class: "sink", "data-sink": s.name },
      el("span", { class: "badge status-" + s.status }, s.status),
      el("strong", { title: s.name }, shortName(s.name)),
      el("span", { class: "muted" }, " " + s.connector + " · from " + shortName(s.from) + " · last epoch " + (s.lastEpoch < 0 ? "—" : fmtInt(s.lastEpoch))),
      s.lastError ? el("div", { class: "error" }, "Last error: " + s.lastError) : null))));
  }

  // ---- the table view of every figure ----
  function renderNumbers(snap, now) {
    const box = document.getElementById("numbers");
    const parts = [];
    parts.push(snap.tables.length ? figureTable("Streaming tables",
      ["Streaming table", "Status", "Reads from", "Input rows", "Input rows/s", "Processed rows/s", "Backlog rows", "Unread files", "Watermark lag", "State rows", "State size", "State growth/min", "Late rows", "Rejected rows", "Output rows", "Epoch", "Last error"],
      snap.tables.map((t) => {
        const g = stateGrowth(t.id, now);
        return { id: t.id, cells: [
          ["name", t.flow ? t.name + " (flow " + t.flow + ")" : t.name], ["status", t.status], ["inputs", t.inputs.join(", ") || "—"],
          ["inputRows", fmtInt(t.inputRows)], ["inputRate", fmtRate(t.inputRate)], ["processRate", fmtRate(t.processRate)],
          ["backlogRows", fmtInt(t.backlogRows)], ["files", t.files ? fmtInt(t.files.files) + " (" + fmtBytes(t.files.bytes) + ")" : "—"],
          ["watermarkLag", fmtSeconds(t.watermarkLagSeconds)], ["stateRows", fmtInt(t.stateRows)], ["stateBytes", fmtBytes(t.stateBytes)],
          ["stateGrowth", g == null ? "—" : fmtBytes(g)], ["lateRows", fmtInt(t.lateRows)], ["rejectedRows", fmtInt(t.rejectedRows)],
          ["outputRows", fmtInt(t.outputRows)], ["epoch", fmtInt(t.epoch)], ["lastError", t.lastError || "—"]] };
      })) : el("p", { class: "empty" }, "No streaming tables yet."));
    if (snap.sources.length) parts.push(figureTable("Sources", ["Source", "Connector"],
      snap.sources.map((s) => ({ id: s.name, cells: [["name", s.name], ["connector", s.connector]] }))));
    if (snap.sinks.length) parts.push(figureTable("Sinks", ["Sink", "Status", "Connector", "Reads from", "Last epoch", "Last error"],
      snap.sinks.map((s) => ({ id: s.name, cells: [["name", s.name], ["status", s.status], ["connector", s.connector], ["from", s.from],
        ["lastEpoch", s.lastEpoch < 0 ? "—" : fmtInt(s.lastEpoch)], ["lastError", s.lastError || "—"]] }))));
    // Rebuilt each frame but only swapped in when a figure changed, so a
    // screen reader's position is not reset every second for nothing.
    const fresh = el("div", null, ...parts);
    if (fresh.innerHTML !== box.innerHTML) box.replaceChildren(...fresh.childNodes);
  }
  function figureTable(caption, heads, rows) {
    return el("div", { class: "scroll" }, el("table", { class: "data figures" }, el("caption", null, caption),
      el("thead", null, el("tr", null, ...heads.map((x) => el("th", { scope: "col" }, x)))),
      el("tbody", null, ...rows.map((r) => el("tr", { "data-id": r.id }, ...r.cells.map(([f, v], i) =>
        i === 0 ? el("th", { scope: "row", "data-field": f }, v) : el("td", { "data-field": f }, v)))))));
  }

  // render draws a snapshot as if it came from the stream (the tests use
  // it to show every part at once; so may a console).
  window.weirPage = { render: onSnapshot };
  connect();
})();
