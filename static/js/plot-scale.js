// What the rate plots share: the linear / log toggle of the y axis.
(function () {
  "use strict";

  function scaleButtons(axes) {
    axes = axes || ["yaxis"];
    function scale(type) {
      var update = {};
      axes.forEach(function (axis) {
        update[axis + ".type"] = type;
        // The linear range means nothing on a log axis (and back): let Plotly find it again.
        update[axis + ".autorange"] = true;
        // On a log axis: ticks at 1, 2 and 5 of each power of ten, rates below 1/s as such.
        update[axis + ".dtick"] = type === "log" ? "D2" : null;
        update[axis + ".tickformat"] = type === "log" ? ",~r" : ",d";
      });
      return update;
    }
    // Top left: the top right is Plotly's own toolbar.
    return {
      type: "buttons", direction: "right", x: 0, xanchor: "left", y: 1.02, yanchor: "bottom",
      showactive: true, active: 0,
      buttons: [
        { label: "linear", method: "relayout", args: [scale("linear")] },
        { label: "log", method: "relayout", args: [scale("log")] },
      ],
    };
  }

  // Plotly's toolbar saves PNG; one more button saves SVG, for a blog post or a paper.
  function config(filename) {
    return {
      responsive: true, displaylogo: false,
      toImageButtonOptions: { format: "png", filename: filename, scale: 2 },
      modeBarButtonsToAdd: [{
        name: "Download as SVG", icon: window.Plotly.Icons.disk,
        click: function (gd) {
          window.Plotly.downloadImage(gd, { format: "svg", filename: filename });
        },
      }],
    };
  }

  window.IIBenchPlots = { scaleButtons: scaleButtons, config: config };
})();
