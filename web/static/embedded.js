// Surveys embed, the framed side: a respondent page shown in a frame tells
// the page around it its height (only that), so that web/static/embed.js
// fits the frame to it. Outside a frame it does nothing.
(function () {
  if (window.parent === window) return;
  function tell() {
    window.parent.postMessage({ type: "surveys:height", height: document.documentElement.scrollHeight }, "*");
  }
  window.addEventListener("load", tell);
  if (window.ResizeObserver) new ResizeObserver(tell).observe(document.body);
})();
