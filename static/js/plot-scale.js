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
      });
      return update;
    }
    return {
      type: "buttons", direction: "right", x: 1, xanchor: "right", y: 1.18, yanchor: "top",
      showactive: true, active: 0,
      buttons: [
        { label: "linear", method: "relayout", args: [scale("linear")] },
        { label: "log", method: "relayout", args: [scale("log")] },
      ],
    };
  }

  window.IIBenchPlots = { scaleButtons: scaleButtons };
})();
