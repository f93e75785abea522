// What every page shares: the reader's colour scheme for the plots, board rows readable as
// cards on a narrow screen, and the focus on a form's error summary.
(function () {
  "use strict";

  var scheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  // Plotly draws its own colours: the plots read the page's scheme for theirs.
  function dark() { return Boolean(scheme && scheme.matches); }

  var COLOURS = {
    light: { ink: "#1f2933", grid: "#e4e7eb", line: "#9aa5b1", paper: "#ffffff", button: "#e4e7eb", buttonInk: "#1f2933" },
    // Plotly paints the active menu button its own near-white (#F4FAFF, not configurable): in the
    // dark scheme the buttons' text is dark, on a mid grey for the inactive ones, so both read.
    dark: { ink: "#e4e7eb", grid: "#334155", line: "#64748b", paper: "#111827", button: "#94a3b8", buttonInk: "#0f172a" },
  };

  // The layout's colours for the scheme; what a plot set itself (a band, an annotation) stays.
  function layout(given) {
    var colours = COLOURS[dark() ? "dark" : "light"];
    given.paper_bgcolor = colours.paper;
    given.plot_bgcolor = colours.paper;
    given.font = Object.assign({ color: colours.ink }, given.font || {});
    Object.keys(given).forEach(function (key) {
      if (!/^[xy]axis\d*$/.test(key)) return;
      given[key] = Object.assign(
        { gridcolor: colours.grid, zerolinecolor: colours.line, linecolor: colours.line },
        given[key]);
    });
    if (!given.xaxis) given.xaxis = { gridcolor: colours.grid, zerolinecolor: colours.line };
    if (!given.yaxis) given.yaxis = { gridcolor: colours.grid, zerolinecolor: colours.line };
    given.legend = Object.assign({ bgcolor: "rgba(0,0,0,0)" }, given.legend || {});
    (given.updatemenus || []).forEach(function (menu) {
      menu.bgcolor = colours.button;
      menu.bordercolor = colours.line;
      menu.font = Object.assign({ color: colours.buttonInk }, menu.font || {});
    });
    return given;
  }

  window.IIBenchTheme = { dark: dark, layout: layout };

  // The site's one duration format, as the server says it (format_exact_duration in
  // submissions/measures/figures.py): "17.3 s", "4m 05s", "2h 03m 09s", "10d 7h 04m 12s".
  function pad(value) { return (value < 10 ? "0" : "") + value; }
  function duration(seconds) {
    if (seconds === null || seconds === undefined || !isFinite(seconds)) return "—";
    if (seconds < 59.95) return Math.max(seconds, 0).toFixed(1) + " s";
    var whole = Math.round(seconds);
    var days = Math.floor(whole / 86400), hours = Math.floor((whole % 86400) / 3600);
    var minutes = Math.floor((whole % 3600) / 60), secs = whole % 60;
    if (days) return days + "d " + hours + "h " + pad(minutes) + "m " + pad(secs) + "s";
    if (hours) return hours + "h " + pad(minutes) + "m " + pad(secs) + "s";
    return minutes + "m " + pad(secs) + "s";
  }
  window.IIBenchDuration = duration;

  // A board cell says which column it is in, for the card layout of narrow screens.
  document.querySelectorAll("table.board, table.entries-found, table.leaders-table").forEach(function (table) {
    var labels = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
      return th.textContent.replace(/[▲▼]/g, "").trim();
    });
    table.querySelectorAll("tbody tr").forEach(function (row) {
      Array.prototype.forEach.call(row.children, function (cell, index) {
        if (labels[index] && !cell.hasAttribute("colspan")) cell.dataset.label = labels[index];
      });
    });
  });

  // After a refused form, the reader starts at what to fix (the summary also has autofocus).
  var summary = document.getElementById("error-summary") || document.getElementById("form-refusal");
  if (summary && document.activeElement !== summary) summary.focus();
})();
