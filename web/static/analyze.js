// Progressive enhancement of the analysis page: while the tab is visible,
// ask every 5 seconds whether answers arrived (204 when none) and put the
// new summary in place of the old one, without moving the focus; a polite
// status says how many arrived. Without this script the page has a
// Refresh link.
(function () {
  var root = document.querySelector("[data-live]");
  if (!root || !window.fetch) return;
  var news = root.querySelector(".live-news");
  var note = document.querySelector(".live-auto");
  if (note) note.hidden = false;
  var url = root.getAttribute("data-live");
  var busy = false, stopped = false;

  function current() { return root.querySelector(".analysis-summary"); }

  function plural(n) { return n === 1 ? "1 new answer" : n + " new answers"; }

  // focusables lists the elements of el that can take the focus, in order.
  function focusables(el) { return el.querySelectorAll("a[href], button, input, select, textarea, [tabindex]"); }

  function swap(html) {
    var old = current();
    var t = document.createElement("template");
    t.innerHTML = html;
    var next = t.content.querySelector(".analysis-summary");
    if (!old || !next) { stopped = true; return; } // not the summary: signed out?
    var before = Number(old.getAttribute("data-total"));
    var after = Number(next.getAttribute("data-total"));
    // Keep the focus where it was: on the same link of the new summary
    // (its href and text), else on the one in the same place.
    var active = document.activeElement, same = null;
    if (active && old.contains(active)) {
      var olds = focusables(old), nexts = focusables(next);
      for (var i = 0; i < nexts.length && !same; i++) {
        if (nexts[i].getAttribute("href") === active.getAttribute("href") && nexts[i].textContent === active.textContent) same = nexts[i];
      }
      if (!same) same = nexts[Array.prototype.indexOf.call(olds, active)] || null;
    }
    var y = window.scrollY;
    old.replaceWith(next);
    // copy.js shows the new summary's copy buttons.
    next.dispatchEvent(new Event("replaced", { bubbles: true }));
    if (same) same.focus({ preventScroll: true });
    window.scrollTo(window.scrollX, y);
    if (news && after > before) news.textContent = plural(after - before);
  }

  function poll() {
    if (busy || stopped || document.hidden) return;
    var old = current();
    if (!old) return;
    busy = true;
    fetch(url + "?since=" + encodeURIComponent(old.getAttribute("data-total")), { credentials: "same-origin", redirect: "manual", headers: { Accept: "text/html" } })
      .then(function (res) {
        if (res.status === 200) return res.text().then(swap);
        if (res.status !== 204) stopped = true; // signed out (a redirect), or gone
      })
      .catch(function () { /* offline a moment: ask again later */ })
      .then(function () { busy = false; });
  }

  setInterval(poll, 5000);
  document.addEventListener("visibilitychange", poll);
})();
