// Progressive enhancement: a copy button where the browser can copy.
document.querySelectorAll("[data-copy]").forEach(function (button) {
  if (!navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    var input = document.querySelector(button.getAttribute("data-copy"));
    navigator.clipboard.writeText(input.value).then(function () {
      document.getElementById("copied").textContent = button.getAttribute("data-copied") || "Link copied.";
    });
  });
});
