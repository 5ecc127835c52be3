// memoria's retrieved-subgraph page (render/subgraph). Every text that
// comes from the graph reaches the document through textContent or an
// attribute D3 sets, never as markup: nothing in this file parses a string
// as HTML (TestPageScriptWritesText checks).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("memoria-data").textContent);
  var MAX_FULL = 500; // beyond this many nodes the lowest scores fade
  var LABELS = 40; // labels shown without "every label": seeds and the best scores

  document.title = "memoria · " + data.title;
  d3.select("#title").text(data.title);
  d3.select("#notes").selectAll("p").data(data.notes).join("p").text(function (d) { return d; });

  var t10 = d3.schemeTableau10, palette = [t10[0], t10[1], t10[4], t10[6], t10[5], t10[3], t10[7], t10[8], t10[9]]; // red is the seeds'
  var colourOf = {};
  data.retrievers.forEach(function (r, i) { colourOf[r] = palette[i % palette.length]; });
  var SEED = "#e15759", GHOST = "#ffffff", ROUTE = "#bab0ac";

  var nodes = data.nodes.map(function (n, i) { return Object.assign({ index0: i }, n); });
  var byId = new Map(nodes.map(function (n) { return [n.id, n]; }));
  var links = data.links.map(function (l, i) {
    return Object.assign({ index0: i, kept: l.fate === "kept" }, l, { source: byId.get(l.source), target: byId.get(l.target) });
  }).filter(function (l) { return l.source && l.target; });

  // Readability: the best-scored MAX_FULL nodes (seeds first) stay; the
  // rest fade, and so do links that touch them.
  var order = nodes.slice().sort(function (a, b) {
    return (b.seed - a.seed) || ((b.score == null ? -1 : b.score) - (a.score == null ? -1 : a.score)) || (a.index0 - b.index0);
  });
  order.forEach(function (n, i) { n.rankAll = i; n.faded = i >= MAX_FULL; n.labelled = n.seed || i < LABELS; });
  var faded = order.length - Math.min(order.length, MAX_FULL);
  var maxScore = d3.max(nodes, function (n) { return n.score == null ? 0 : Math.abs(n.score); }) || 1;
  var radius = d3.scaleSqrt().domain([0, maxScore]).range([4, 16]);
  function r(n) { return n.ghost ? 4 : n.seed ? Math.max(10, radius(Math.abs(n.score || 0))) : radius(Math.abs(n.score || 0)); }
  var maxT = d3.max(links, function (l) { return l.t == null ? l.weight : l.t; }) || 1;
  var width = d3.scaleLinear().domain([0, maxT]).range([1, 6]).clamp(true);

  function hitsKept(n) { return n.hits.filter(function (h) { return !h.cut; }); }
  function shared(n) { return data.mode === "compare" && hitsKept(n).length > 1; }
  function fill(n) {
    if (n.ghost) { return GHOST; }
    if (n.seed && data.mode !== "compare") { return SEED; }
    var hs = hitsKept(n);
    if (data.mode === "activation") { return colourOf[data.retrievers[0]]; }
    return hs.length ? colourOf[hs[0].retriever] : ROUTE;
  }
  function linkColour(l) {
    if (!l.kept) { return "#888"; }
    if (data.mode === "compare" && l.retrievers.length === 1) { return colourOf[l.retrievers[0]]; }
    return "#666";
  }

  // Legend.
  var legend = [];
  if (data.mode === "compare") {
    data.retrievers.forEach(function (name) { legend.push({ kind: "node", colour: colourOf[name], text: name + "'s hits" }); });
    legend.push({ kind: "shared", text: "shared hit: a slice per retriever that ranks it, dark ring" });
    legend.push({ kind: "node", colour: ROUTE, text: "on a route, not a hit" });
  } else {
    legend.push({ kind: "node", colour: SEED, text: "seed (size: R)" });
    legend.push({ kind: "node", colour: colourOf[data.retrievers[0]], text: data.mode === "activation" ? "reached (size: activation, the best T into it)" : data.retrievers[0] + "'s hits (size: score)" });
    if (data.mode === "ranking") { legend.push({ kind: "node", colour: ROUTE, text: "on a route, not a hit" }); }
  }
  legend.push({ kind: "ghost", text: "not in the result, reached only by a dashed edge" });
  legend.push({ kind: "kept", text: data.mode === "activation" ? "kept hop (width: T)" : "route hop" });
  legend.push({ kind: "miss", text: data.mode === "activation" ? "lost candidate or near miss (dashed)" : "hop only to hits beyond the top K (dashed)" });
  var li = d3.select("#legend").selectAll("div").data(legend).join("div").attr("class", "legend-item");
  var sw = li.append("svg").attr("width", 22).attr("height", 14);
  sw.filter(function (d) { return d.kind === "node" || d.kind === "ghost" || d.kind === "shared"; }).append("circle")
    .attr("cx", 11).attr("cy", 7).attr("r", 5)
    .attr("fill", function (d) { return d.kind === "ghost" ? GHOST : d.kind === "shared" ? "#ddd" : d.colour; })
    .attr("class", function (d) { return d.kind === "ghost" ? "ghost" : d.kind === "shared" ? "shared-ring" : null; });
  sw.filter(function (d) { return d.kind === "kept" || d.kind === "miss"; }).append("line")
    .attr("x1", 1).attr("y1", 7).attr("x2", 21).attr("y2", 7)
    .attr("class", function (d) { return "link " + (d.kind === "miss" ? "miss" : "kept"); });
  li.append("span").text(function (d) { return d.text; });

  // The drawing.
  var svg = d3.select("#graph");
  var box = svg.node().getBoundingClientRect();
  var W = box.width || 960, H = box.height || 600;
  svg.attr("viewBox", [0, 0, W, H].join(" "));
  svg.append("defs").selectAll("marker").data(["kept", "miss"]).join("marker")
    .attr("id", function (d) { return "arrow-" + d; })
    .attr("viewBox", "0 -5 10 10").attr("refX", 10).attr("refY", 0)
    .attr("markerUnits", "userSpaceOnUse").attr("markerWidth", 9).attr("markerHeight", 9).attr("orient", "auto")
    .append("path").attr("d", "M0,-5L10,0L0,5").attr("fill", function (d) { return d === "kept" ? "#666" : "#999"; });
  var view = svg.append("g").attr("class", "view");
  var linkLayer = view.append("g").attr("class", "links");
  var nodeLayer = view.append("g").attr("class", "nodes");
  var zoom = d3.zoom().scaleExtent([0.02, 12]).on("zoom", function (ev) { view.attr("transform", ev.transform); });
  svg.call(zoom).on("dblclick.zoom", null);

  var sim = d3.forceSimulation(nodes)
    .force("link", d3.forceLink(links).id(function (n) { return n.id; }).distance(function (l) { return l.kept ? 70 : 90; }).strength(0.6))
    .force("charge", d3.forceManyBody().strength(function (n) { return n.faded ? -30 : -260; }).distanceMax(600))
    .force("collide", d3.forceCollide(function (n) { return r(n) + 3; }))
    .force("x", d3.forceX(W / 2).strength(0.04))
    .force("y", d3.forceY(H / 2).strength(0.04))
    .stop();
  var ticks = Math.ceil(Math.log(sim.alphaMin()) / Math.log(1 - sim.alphaDecay()));
  for (var i = 0; i < ticks; i++) { sim.tick(); }

  var showMisses = true, allLabels = false, pinned = null;
  var linkSel, nodeSel;

  function render() {
    var vn = nodes.filter(function (n) { return showMisses || !n.ghost; });
    var visible = new Set(vn);
    var vl = links.filter(function (l) { return (showMisses || l.kept) && visible.has(l.source) && visible.has(l.target); });
    linkSel = linkLayer.selectAll("line.link").data(vl, function (l) { return l.index0; }).join("line")
      .attr("class", function (l) { return "link " + (l.kept ? "kept" : "miss " + l.fate) + (l.source.faded || l.target.faded ? " faded" : ""); })
      .attr("data-fate", function (l) { return l.fate; })
      .attr("stroke", linkColour)
      .attr("stroke-width", function (l) { return l.kept ? width(l.t == null ? l.weight : l.t) : 1.2; })
      .attr("marker-end", function (l) { return "url(#arrow-" + (l.kept ? "kept" : "miss") + ")"; })
      .on("mouseover", function (ev, l) { showTip(ev, linkLines(l)); })
      .on("mousemove", moveTip)
      .on("mouseout", hideTip)
      .on("click", function (ev, l) { ev.stopPropagation(); pin(linkLines(l), null); });
    nodeSel = nodeLayer.selectAll("g.node").data(vn, function (n) { return n.index0; }).join(function (enter) {
      var g = enter.append("g");
      g.each(function (n) {
        var s = d3.select(this);
        var hs = hitsKept(n);
        if (data.mode === "compare" && hs.length > 1) {
          var arc = d3.arc().innerRadius(0).outerRadius(r(n));
          s.selectAll("path.slice").data(d3.pie().value(1).sort(null)(hs)).join("path").attr("class", "slice")
            .attr("d", arc).attr("fill", function (p) { return colourOf[p.data.retriever]; });
          s.append("circle").attr("class", "shared-ring").attr("r", r(n) + 2).attr("fill", "none");
        } else {
          s.append("circle").attr("class", "dot").attr("r", r(n)).attr("fill", fill(n));
        }
        if (n.seed) { s.append("circle").attr("class", "seed-ring").attr("r", r(n) + 4).attr("fill", "none"); }
        s.append("text").attr("class", "label").attr("x", r(n) + 5).attr("y", 4).text(labelText(n));
      });
      return g;
    })
      .attr("class", function (n) {
        return "node" + (n.seed ? " seed" : "") + (n.ghost ? " ghost" : "") + (shared(n) ? " shared" : "") + (n.faded ? " faded" : "");
      })
      .attr("data-id", function (n) { return n.id; })
      .on("mouseover", function (ev, n) { showTip(ev, nodeLines(n)); })
      .on("mousemove", moveTip)
      .on("mouseout", hideTip)
      .on("click", function (ev, n) { ev.stopPropagation(); pin(nodeLines(n), n); })
      .call(d3.drag()
        .on("start", function (ev, n) { if (!ev.active) { sim.alphaTarget(0.2).restart(); } n.fx = n.x; n.fy = n.y; })
        .on("drag", function (ev, n) { n.fx = ev.x; n.fy = ev.y; })
        .on("end", function (ev, n) { if (!ev.active) { sim.alphaTarget(0); } n.fx = null; n.fy = null; }));
    nodeSel.select("text.label").attr("display", function (n) { return (allLabels && !n.faded) || n.labelled ? null : "none"; });
    place();
    var hidden = nodes.length - vn.length;
    d3.select("#counts").text(vn.length + " nodes, " + vl.length + " edges" +
      (hidden ? " (" + hidden + " ghost nodes hidden)" : "") +
      (faded ? " · " + faded + " low-scored nodes faded beyond " + MAX_FULL : ""));
  }

  function place() {
    linkSel.each(function (l) {
      var dx = l.target.x - l.source.x, dy = l.target.y - l.source.y, len = Math.hypot(dx, dy) || 1;
      var back = r(l.target) + (l.target.seed ? 5 : 2);
      d3.select(this).attr("x1", l.source.x).attr("y1", l.source.y)
        .attr("x2", l.target.x - dx / len * back).attr("y2", l.target.y - dy / len * back);
    });
    nodeSel.attr("transform", function (n) { return "translate(" + n.x + "," + n.y + ")"; });
  }
  sim.on("tick", place);

  function labelText(n) {
    var t = n.id;
    if (n.labels.length) { t += " " + n.labels[0]; }
    if (n.text) { t += "  " + (n.text.length > 28 ? n.text.slice(0, 27) + "…" : n.text); }
    return t;
  }

  // Details: a list of [kind, text] lines, each drawn as its own element.
  function nodeLines(n) {
    var out = [["head", n.id], ["labels", n.labels.length ? n.labels.join(", ") : "(no labels)"]];
    if (n.text) { out.push(["text", n.text]); }
    if (n.seed) { out.push(["role", "seed"]); }
    if (n.ghost) { out.push(["role", "not in the result"]); }
    if (shared(n)) { out.push(["role", "shared by " + hitsKept(n).map(function (h) { return h.retriever; }).join(", ")]); }
    n.lines.forEach(function (s) { out.push(["score", s]); });
    n.formulas.forEach(function (s) { out.push(["formula", s]); });
    return out;
  }
  function linkLines(l) {
    var out = [["head", l.source.id + " → " + l.target.id], ["labels", l.type + (l.kept ? "" : " · " + l.fate)]];
    if (l.line) { out.push(["score", l.line]); }
    if (l.formula) { out.push(["formula", l.formula]); }
    if (l.tags.length) { out.push(["tags", "tags: " + l.tags.join(", ")]); }
    if (l.claimed_by) { out.push(["score", "claimed by " + l.claimed_by]); }
    if (data.mode === "compare") { out.push(["score", "on the routes of " + l.retrievers.join(", ")]); }
    return out;
  }
  function fillLines(sel, lines) {
    sel.selectAll("div.line").data(lines).join("div")
      .attr("class", function (d) { return "line " + d[0]; })
      .text(function (d) { return d[1]; });
  }

  var tip = d3.select("#tooltip");
  function showTip(ev, lines) {
    fillLines(tip, lines);
    tip.classed("on", true);
    moveTip(ev);
  }
  function moveTip(ev) {
    var x = ev.clientX + 14, y = ev.clientY + 14;
    var w = tip.node().offsetWidth, h = tip.node().offsetHeight;
    if (x + w > window.innerWidth) { x = Math.max(0, ev.clientX - w - 14); }
    if (y + h > window.innerHeight) { y = Math.max(0, ev.clientY - h - 14); }
    tip.style("left", x + "px").style("top", y + "px");
  }
  function hideTip() { tip.classed("on", false); }

  var details = d3.select("#details");
  function pin(lines, n) {
    pinned = n;
    details.selectAll("*").remove();
    details.append("h2").text(lines[0][1]);
    fillLines(details.append("div"), lines.slice(1));
    if (n) {
      details.append("h3").text("Properties");
      var keys = Object.keys(n.properties).sort();
      var rows = details.append("table").attr("class", "props").selectAll("tr").data(keys).join("tr");
      rows.append("th").text(function (k) { return k; });
      rows.append("td").text(function (k) {
        var v = n.properties[k];
        return typeof v === "string" ? v : JSON.stringify(v);
      });
      if (!keys.length) { details.append("p").attr("class", "hint").text("(none)"); }
      if (n.hits.length) {
        details.append("h3").text("Hits");
        fillLines(details.append("div"), n.hits.map(function (h) {
          return ["score", h.retriever + " #" + h.rank + (h.cut ? " (beyond the top K)" : "")];
        }));
      }
    }
    nodeSel.classed("pinned", function (m) { return m === pinned; });
  }
  svg.on("click", function () {
    pinned = null;
    nodeSel.classed("pinned", false);
  });

  d3.select("#show-misses").on("change", function () { showMisses = this.checked; render(); });
  d3.select("#show-labels").on("change", function () { allLabels = this.checked; render(); });
  d3.select("#reset-zoom").on("click", fit);

  function fit() {
    var xs = d3.extent(nodes, function (n) { return n.x; }), ys = d3.extent(nodes, function (n) { return n.y; });
    if (xs[0] == null) { return; }
    var pad = 60, bw = xs[1] - xs[0] + 2 * pad, bh = ys[1] - ys[0] + 2 * pad;
    var k = Math.min(2, W / bw, H / bh);
    svg.call(zoom.transform, d3.zoomIdentity.translate(W / 2, H / 2).scale(k)
      .translate(-(xs[0] + xs[1]) / 2, -(ys[0] + ys[1]) / 2));
  }

  render();
  fit();
  window.__memoriaReady = true;
})();
