// Surveys embed: resizes each survey frame (iframe[data-surveys-embed]) of
// this page to the height its page reports (web/static/embedded.js). Only
// messages from the frame's own window and origin are believed, and only a
// height is read from them.
(function () {
  window.addEventListener("message", function (e) {
    var d = e.data;
    if (!d || d.type !== "surveys:height" || typeof d.height !== "number") return;
    document.querySelectorAll("iframe[data-surveys-embed]").forEach(function (f) {
      if (f.contentWindow !== e.source) return;
      try {
        if (new URL(f.src).origin !== e.origin) return;
      } catch (err) {
        return;
      }
      var h = Math.max(200, Math.min(20000, Math.ceil(d.height)));
      f.style.border = "0";
      f.height = String(h);
      f.setAttribute("data-surveys-height", String(h));
    });
  });
})();
