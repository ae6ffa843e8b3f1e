// Progressive enhancement: a copy button where the browser can copy.
// data-copy names what to copy: a field (its value), a link (its full
// address) or any other element (its text); the status line beside it
// (data-status, else #copied) says so. A part of the page that a script
// puts in place (the analysis's live summary) sends a "replaced" event,
// and its buttons show too.
(function () {
  if (!navigator.clipboard) return;
  function show(root) {
    root.querySelectorAll("[data-copy]").forEach(function (button) { button.hidden = false; });
  }
  show(document);
  document.addEventListener("replaced", function (e) { show(e.target); });
  document.addEventListener("click", function (e) {
    var button = e.target.closest ? e.target.closest("[data-copy]") : null;
    if (!button) return;
    var source = document.querySelector(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.value !== undefined ? source.value : source.href !== undefined ? source.href : source.textContent;
    navigator.clipboard.writeText(text).then(function () {
      var status = document.querySelector(button.getAttribute("data-status") || "#copied");
      if (status) status.textContent = button.getAttribute("data-copied") || "Link copied.";
    });
  });
})();
