// Progressive enhancement: a copy button where the browser can copy.
// data-copy names what to copy: a field (its value), a link (its full
// address) or any other element (its text); the status line beside it
// (data-status, else #copied) says so.
document.querySelectorAll("[data-copy]").forEach(function (button) {
  if (!navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    var source = document.querySelector(button.getAttribute("data-copy"));
    var text = source.value !== undefined ? source.value : source.href !== undefined ? source.href : source.textContent;
    navigator.clipboard.writeText(text).then(function () {
      var status = document.querySelector(button.getAttribute("data-status") || "#copied");
      if (status) status.textContent = button.getAttribute("data-copied") || "Link copied.";
    });
  });
});
