// refbench web app: small progressive enhancements. Nothing here inserts text as markup:
// it only toggles classes on elements the server rendered.
(function () {
  "use strict";

  function chainMembers(el) {
    var chain = el.getAttribute("data-chain");
    if (chain === null) { return [el]; }
    return document.querySelectorAll('.tnedoc [data-chain="' + chain + '"], .chips [data-chain="' + chain + '"]');
  }

  function setHover(el, on) {
    chainMembers(el).forEach(function (m) { m.classList.toggle("hl", on); });
  }

  document.addEventListener("mouseover", function (ev) {
    var el = ev.target.closest && ev.target.closest("[data-np]");
    if (el) { setHover(el, true); }
  });
  document.addEventListener("mouseout", function (ev) {
    var el = ev.target.closest && ev.target.closest("[data-np]");
    if (el) { setHover(el, false); }
  });

  // Mark the selected NP and its complements once its links are shown.
  function markSelection() {
    var panel = document.querySelector(".nplinks");
    document.querySelectorAll(".tnedoc .np, .chips .np").forEach(function (el) {
      el.classList.remove("selected", "complement");
    });
    if (!panel) { return; }
    var anchor = panel.getAttribute("data-anchor");
    var comps = (panel.getAttribute("data-complements") || "").split(" ");
    document.querySelectorAll(".tnedoc [data-np], .chips [data-np]").forEach(function (el) {
      var id = el.getAttribute("data-np");
      if (id === anchor) { el.classList.add("selected"); }
      else if (comps.indexOf(id) >= 0) { el.classList.add("complement"); }
    });
  }
  document.addEventListener("htmx:afterSwap", markSelection);
  document.addEventListener("DOMContentLoaded", markSelection);

  // Keyboard: j / k (or arrow keys with alt) for next / previous instance.
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || ev.ctrlKey || ev.metaKey) { return; }
    var link = null;
    if (ev.key === "j") { link = document.getElementById("next"); }
    if (ev.key === "k") { link = document.getElementById("prev"); }
    if (link) { window.location.href = link.href; }
  });
  // An optional chart (the task's figure, the documents' scores) is drawn on its own request,
  // not while the page waits; one that turns out not to exist is taken off the page.
  function dropChart(img) {
    var fig = img.closest("figure");
    var section = img.closest("#charts");
    if (fig) { fig.remove(); }
    if (section && !section.querySelector("figure")) { section.remove(); }
  }
  document.querySelectorAll("figure[data-optional] img").forEach(function (img) {
    img.addEventListener("error", function () { dropChart(img); });
  });
})();
