// labelcheck.js is appended to a pivot page by the browser tests (a
// <script> after the page's own): it measures every visible node label as
// the browser draws it (getBBox, moved by its node's translate) and writes
// into the DOM how many there are and whose, how many pairs of them intersect, the
// first such pair, and how long the page took to get here (its script's
// layout and label placement included), for --dump-dom to read.
//
// Chromium lays text out at the size it shows on screen, so a label's box
// depends on the zoom: far out (a big graph fitted to the window, its
// labels a pixel high) the font's metrics are rounded to whole pixels and
// a 10-unit line measures 27. The labels are measured where they are read:
// at 1:1 (10 px), and as the page first shows them when they are 5 px high
// at least.
(function () {
  var ms = performance.now(), svg = document.getElementById("graph"), nodes = svg.querySelectorAll(".node");
  var fitted = svg.getAttribute("viewBox"), vb = svg.viewBox.baseVal;
  var fitScale = Math.min(svg.clientWidth / vb.width, svg.clientHeight / vb.height);
  function measure() {
    var boxes = [];
    nodes.forEach(function (g) {
      var t = g.querySelector("text");
      if (!t || !t.textContent || getComputedStyle(t).display === "none") return;
      var b = t.getBBox(), m = g.transform.baseVal.consolidate().matrix;
      boxes.push({x0: b.x + m.e, y0: b.y + m.f, x1: b.x + b.width + m.e, y1: b.y + b.height + m.f, text: t.textContent, id: g.getAttribute("data-id")});
    });
    var overlaps = 0, first = "";
    for (var i = 0; i < boxes.length; i++) {
      for (var j = i + 1; j < boxes.length; j++) {
        var a = boxes[i], b = boxes[j];
        if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) {
          if (!overlaps) first = a.text + " | " + b.text;
          overlaps++;
        }
      }
    }
    return {visible: boxes.length, overlaps: overlaps, first: first, ids: boxes.map(function (b) { return b.id; }).join(" ")};
  }
  var results = [];
  if (fitScale >= 0.5) results.push(measure());
  svg.setAttribute("viewBox", [vb.x, vb.y, svg.clientWidth, svg.clientHeight].join(" "));
  results.push(measure());
  svg.setAttribute("viewBox", fitted);
  var out = document.createElement("div"), overlaps = 0, first = "";
  results.forEach(function (r) { overlaps += r.overlaps; first = first || r.first; });
  out.id = "label-check";
  out.setAttribute("data-nodes", nodes.length);
  out.setAttribute("data-visible", results[0].visible);
  out.setAttribute("data-labelled", results[0].ids);
  out.setAttribute("data-overlaps", overlaps);
  out.setAttribute("data-first", first);
  out.setAttribute("data-scales", results.length);
  out.setAttribute("data-ms", ms.toFixed(0));
  document.body.appendChild(out);
})();
