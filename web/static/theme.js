// Progressive enhancement of the theme page (templates/pages/theme.html):
// as a colour, the font, the corners or the logo's place changes, the
// preview takes the stylesheet the server writes of the form's theme
// (/theme/preview/<spec>.css, internal/theme), so the preview and the
// respondents' pages share one source. The contrast of each pair is
// checked by the server: "Preview and check the contrast" shows it.
(function () {
  var form = document.getElementById("theme-form");
  if (!form) return;
  function value(name) {
    var el = form.elements[name];
    return el ? String(el.value || "") : "";
  }
  function spec() {
    var parts = [value("primary"), value("background"), value("text")].map(function (c) { return c.replace(/^#/, "").toLowerCase(); });
    parts.push(value("font"), value("corners"), value("logo"));
    var image = form.getAttribute("data-image") || "";
    var remove = form.elements.removeImage;
    if (image && !(remove && remove.checked)) parts.push(image);
    return parts.join("-");
  }
  function update() {
    var href = "/theme/preview/" + spec() + ".css";
    var link = document.getElementById("theme-css");
    if (!link) {
      link = document.createElement("link");
      link.rel = "stylesheet";
      link.id = "theme-css";
      document.head.appendChild(link);
    }
    if (link.getAttribute("href") !== href) link.setAttribute("href", href);
  }
  form.addEventListener("input", update);
  form.addEventListener("change", update);
})();
