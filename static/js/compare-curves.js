// The compare page's plot: entries' rate curves (or one band per group of repeats), the seeds'
// reference rows, and below them each curve as a ratio to the baseline. The axes, the rate,
// the zoom and the log scales change in place and are written back into the address.
(function () {
  "use strict";

  var COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2",
                "#be185d", "#4d7c0f", "#1e293b", "#b45309", "#7c3aed", "#0f766e"];
  // The controls the page redraws for; the others (baseline, references) reload the table.
  var IN_PLACE = ["x", "rate", "zoom", "xlog", "ylog", "fraction"];
  // Runs whose lengths differ more than this many times: the short ones would be a sliver at
  // the left of the long ones, so the page opens with each run drawn against its own length.
  var WIDE_SPREAD = 100;
  // A reference row (no curve) in the fraction view: its terminal rate over its last quarter.
  var REFERENCE_TAIL = 0.25;

  // Plotly reads <a href>, <b>, <span style> and entities in trace names as markup: a label
  // holds what entrants typed, so it is escaped to show as the text it is.
  function plain(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function interp(at, xs, ys) {
    if (!xs.length) return NaN;
    if (at <= xs[0]) return ys[0];
    if (at >= xs[xs.length - 1]) return ys[ys.length - 1];
    var low = 0, high = xs.length - 1;
    while (high - low > 1) {
      var middle = (low + high) >> 1;
      if (xs[middle] <= at) low = middle; else high = middle;
    }
    var span = xs[high] - xs[low];
    return span > 0 ? ys[low] + (ys[high] - ys[low]) * (at - xs[low]) / span : ys[low];
  }

  function rawXs(curve, state) { return state.x === "time" ? curve.t : curve.x; }

  // On x: rows or seconds, or in the fraction view each run's share of its own length.
  function xsOf(curve, state) {
    var xs = rawXs(curve, state);
    if (!state.fraction || !xs.length) return xs;
    var end = xs[xs.length - 1];
    return end > 0 ? xs.map(function (at) { return at / end; }) : xs;
  }

  // Where each drawn run ends on the chosen x, rows or seconds: the spread of the lengths.
  function lengths(data, state) {
    var ends = [];
    data.items.forEach(function (item) {
      if (item.kind === "reference") {
        var end = state.x === "time" ? item.elapsed : item.rows;
        if (end > 0) ends.push(end);
        return;
      }
      var curve = item.curves[state.rate];
      if (!curve || !curve.x.length) return;
      var xs = rawXs(curve, state);
      if (xs[xs.length - 1] > 0) ends.push(xs[xs.length - 1]);
    });
    if (ends.length < 2) return null;
    return { low: Math.min.apply(null, ends), high: Math.max.apply(null, ends) };
  }

  function wide(data, state) {
    var spread = lengths(data, state);
    return Boolean(spread && spread.high / spread.low > WIDE_SPREAD);
  }

  function find(items, key) {
    for (var i = 0; i < items.length; i++) if (items[i].key === key) return items[i];
    return null;
  }

  // The baseline as a function of x: its curve where it has one, else its terminal rate.
  function baselineAt(data, state) {
    var base = find(data.items, state.base);
    if (!base) return null;
    var curve = base.curves[state.rate];
    if (curve) {
      var xs = xsOf(curve, state);
      return function (at) { return interp(at, xs, curve.y); };
    }
    var level = state.rate === "cumulative" ? base.average_rate : base.terminal_rate;
    level = level || base.average_rate || base.terminal_rate;
    return level ? function () { return level; } : null;
  }

  function referenceTrace(item, state, color) {
    var end = state.x === "time" ? item.elapsed : item.rows;
    var level = state.rate === "cumulative" ? item.average_rate : item.terminal_rate;
    if (!end || !level) return null;
    return {
      x: state.fraction ? [1 - REFERENCE_TAIL, 1] : [end * 0.9, end], y: [level, level], name: plain(item.label), type: "scatter",
      mode: "lines+markers", line: { color: color, width: 2, dash: "dash" },
      hovertemplate: "%{y:,.0f} rows/s<extra>" + plain(item.label) + "</extra>",
    };
  }

  function traces(data, state, base) {
    var out = [], ratios = [];
    data.items.forEach(function (item, index) {
      var color = COLORS[index % COLORS.length];
      if (item.kind === "reference") {
        var line = referenceTrace(item, state, color);
        if (line) out.push(line);
        return;
      }
      var curve = item.curves[state.rate];
      if (!curve || item.grouped) return;
      var xs = xsOf(curve, state);
      out.push({
        x: xs, y: curve.y, name: plain(item.label), type: "scatter", mode: "lines",
        line: { color: color, width: 1.5 },
        hovertemplate: "%{x:,.0f}: %{y:,.0f} rows/s<extra>" + plain(item.label) + "</extra>",
      });
      if (base && item.key !== state.base) {
        ratios.push({
          x: xs, y: xs.map(function (at, i) { return curve.y[i] / base(at); }),
          name: plain(item.label) + " / baseline", type: "scatter", mode: "lines", yaxis: "y2",
          showlegend: false, line: { color: color, width: 1 },
          hovertemplate: "%{y:.2f}x<extra>" + plain(item.label) + "</extra>",
        });
      }
    });
    data.bands.forEach(function (band, index) {
      var variant = band.variants[state.rate + "-" + state.x];
      if (!variant) return;
      if (state.fraction) variant = Object.assign({}, variant, { x: xsOf({ x: variant.x, t: variant.x }, state) });
      var color = COLORS[(data.items.length + index) % COLORS.length];
      out.push({ x: variant.x, y: variant.low, type: "scatter", mode: "lines", showlegend: false,
                 line: { width: 0 }, hoverinfo: "skip", name: plain(band.label) + " min" });
      out.push({ x: variant.x, y: variant.high, type: "scatter", mode: "lines", fill: "tonexty",
                 fillcolor: "rgba(100, 116, 139, 0.25)", line: { width: 0 },
                 name: plain(band.label) + " (min-max)", hoverinfo: "skip" });
      out.push({ x: variant.x, y: variant.median, type: "scatter", mode: "lines",
                 line: { color: color, width: 2 }, name: plain(band.label) + " median",
                 hovertemplate: "%{y:,.0f} rows/s<extra>median</extra>" });
    });
    return { main: out, ratios: ratios };
  }

  // The x range of the zoom presets: the first 10% of the longest run, or from the earliest
  // start of an entry's terminal-rate window to the end.
  function zoomRange(data, state) {
    var end = 0, start = Infinity;
    data.items.forEach(function (item) {
      var curve = item.curves[state.rate];
      if (!curve || !curve.x.length) return;
      var xs = xsOf(curve, state);
      end = Math.max(end, xs[xs.length - 1]);
      if (item.terminal_start) {
        var at = state.x === "time" ? interp(item.terminal_start, curve.x, curve.t) : item.terminal_start;
        if (state.fraction) {
          var raw = rawXs(curve, state);
          at = at / raw[raw.length - 1];
        }
        start = Math.min(start, at);
      }
    });
    if (!end) return null;
    if (state.zoom === "start") return [0, end * 0.1];
    if (state.zoom === "terminal" && start < end) return [start, end];
    return null;
  }

  function yRange(series, range, log) {
    var low = Infinity, high = -Infinity;
    series.forEach(function (trace) {
      for (var i = 0; i < trace.x.length; i++) {
        var x = trace.x[i], y = trace.y[i];
        if (range && (x < range[0] || x > range[1])) continue;
        if (!isFinite(y) || (log && y <= 0)) continue;
        low = Math.min(low, y); high = Math.max(high, y);
      }
    });
    if (!isFinite(low)) return null;
    if (log) return [Math.log10(low) - 0.05, Math.log10(high) + 0.05];
    return [0, high * 1.05];
  }

  function axisRange(range, log) {
    if (!range) return null;
    if (!log) return range;
    return [Math.log10(Math.max(range[0], 1)), Math.log10(Math.max(range[1], 1))];
  }

  function draw(element, data, state) {
    var base = baselineAt(data, state);
    var drawn = traces(data, state, base);
    var range = zoomRange(data, state);
    var withRatios = drawn.ratios.length > 0;
    var xlog = state.xlog && !state.fraction;
    var layout = {
      margin: { t: 30, r: 20, b: 60, l: 80 },
      xaxis: {
        title: { text: state.fraction
          ? "fraction of each run's " + (state.x === "time" ? "elapsed time" : "rows")
          : state.x === "time" ? "elapsed seconds" : "rows inserted" },
        type: xlog ? "log" : "linear", tickformat: state.fraction ? ".0%" : xlog ? ",~r" : ",d",
        anchor: withRatios ? "y2" : "y",
      },
      yaxis: {
        title: { text: "rows/s (" + state.rate + ")" }, type: state.ylog ? "log" : "linear",
        tickformat: state.ylog ? ",~r" : ",d", domain: withRatios ? [0.34, 1] : [0, 1],
      },
      legend: { orientation: "h", y: -0.18 },
      hovermode: "closest",
    };
    if (range) {
      layout.xaxis.range = axisRange(range, xlog);
      var yr = yRange(drawn.main, range, state.ylog);
      if (yr) layout.yaxis.range = yr;
    } else if (!state.ylog) {
      layout.yaxis.rangemode = "tozero";
    }
    if (withRatios) {
      layout.yaxis2 = { title: { text: "x baseline" }, domain: [0, 0.28], type: "log",
                        tickformat: ",~r", dtick: "D2" };
      layout.shapes = [{ type: "line", xref: "paper", x0: 0, x1: 1, yref: "y2", y0: 1, y1: 1,
                         line: { color: "#64748b", width: 1, dash: "dot" } }];
    }
    var config = window.IIBenchPlots.config("iibench-compare");
    window.Plotly.react(element, drawn.main.concat(drawn.ratios), window.IIBenchTheme.layout(layout), config);
    element.dataset.state = [state.x, state.rate, state.zoom, state.xlog, state.ylog].join(" ");
    element.dataset.fraction = state.fraction ? "1" : "";
    element.dataset.zoomRange = range ? range.join(" ") : "";
    say(data, state);
    var caption = document.getElementById("compare-caption");
    if (caption) {
      caption.textContent = (state.rate === "interval" ? "Interval" : "Cumulative") +
        " insertion rate against " + (state.x === "time" ? "elapsed time" : "rows inserted") + ".";
    }
  }

  function figure(value) { return Math.round(value).toLocaleString("en"); }

  // Above the plot: why the x axis is what it is when the runs' lengths differ widely.
  function say(data, state) {
    var note = document.getElementById("compare-note");
    if (!note) return;
    var spread = lengths(data, state);
    if (!spread || spread.high / spread.low <= WIDE_SPREAD) {
      note.hidden = !state.fraction;
      note.textContent = state.fraction ? "Each curve is drawn against the fraction of its own run." : "";
      return;
    }
    var unit = state.x === "time" ? " s" : " rows";
    var span = "The runs' lengths differ more than " + WIDE_SPREAD + "-fold (" + figure(spread.low) +
      " to " + figure(spread.high) + unit + "): ";
    note.hidden = false;
    if (state.fraction) {
      note.textContent = span + "each curve is drawn against the fraction of its own run, so every " +
        "one spans the plot; reference rows show their terminal rate over their last quarter. " +
        "Untick \u201cfraction of each run\u201d for absolute " + (state.x === "time" ? "time." : "rows.");
    } else {
      note.textContent = span + "the shorter runs sit at the far left. Tick \u201cfraction of each " +
        "run\u201d to draw each against its own length" + (state.xlog ? "." : ", or \u201clog x\u201d.");
    }
  }

  // The fraction view is the default where the lengths spread widely; the address keeps a
  // reader's choice otherwise (fraction=1, or fraction=0 to turn the default off).
  var askedFraction = new URLSearchParams(window.location.search).get("fraction");
  var chosenFraction = askedFraction === "1" ? true : askedFraction === "0" ? false : null;

  function fractionFor(data, state) {
    return chosenFraction === null ? wide(data, state) : chosenFraction;
  }

  // The same canonical order as the server's CompareState.query().
  function address(form, state) {
    var parts = [];
    var ids = form.elements.ids.value;
    if (ids) parts.push("ids=" + ids);
    var refs = form.querySelector("input[name=refs]");
    if (refs && refs.value) parts.push("refs=" + refs.value);
    if (state.base) parts.push("base=" + state.base);
    if (state.x !== "rows") parts.push("x=" + state.x);
    if (state.zoom !== "all") parts.push("zoom=" + state.zoom);
    if (state.rate !== "interval") parts.push("rate=" + state.rate);
    if (state.xlog) parts.push("xlog=1");
    if (state.ylog) parts.push("ylog=1");
    if (chosenFraction !== null && chosenFraction !== wide(data, state)) {
      parts.push("fraction=" + (chosenFraction ? "1" : "0"));
    }
    form.querySelectorAll("input[name=group]").forEach(function (group) {
      parts.push("group=" + group.value);
    });
    return "?" + parts.join("&");
  }

  function readForm(form, state) {
    return {
      base: state.base,
      x: form.elements.x.value, rate: form.elements.rate.value, zoom: form.elements.zoom.value,
      xlog: form.elements.xlog.checked, ylog: form.elements.ylog.checked,
      fraction: state.fraction,
    };
  }

  var element = document.getElementById("compare-curves");
  var source = document.getElementById("compare-data");
  if (!element || !source) return;
  var data = JSON.parse(source.textContent);
  var state = Object.assign({}, data.state);
  state.fraction = fractionFor(data, state);
  var form = document.getElementById("compare-view");
  if (form && form.elements.fraction) form.elements.fraction.checked = state.fraction;
  draw(element, data, state);
  if (!form) return;
  form.addEventListener("change", function (event) {
    if (IN_PLACE.indexOf(event.target.name) === -1) {
      form.submit();
      return;
    }
    if (event.target.name === "fraction") chosenFraction = event.target.checked;
    state = readForm(form, state);
    // Another x axis may spread the lengths otherwise: the default follows unless chosen.
    state.fraction = fractionFor(data, state);
    form.elements.fraction.checked = state.fraction;
    draw(element, data, state);
    window.history.replaceState(null, "", address(form, state));
    // The table's "use as baseline" links keep the view the reader has now.
    document.querySelectorAll("a[data-base]").forEach(function (link) {
      var next = Object.assign({}, state, { base: link.dataset.base });
      link.setAttribute("href", address(form, next));
    });
  });
})();
