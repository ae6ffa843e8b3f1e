// Progressive enhancement of the theme page (templates/pages/theme.html):
// as a colour, the font, the corners or the logo's place changes, the
// preview takes the stylesheet the server writes of the form's theme
// (/theme/preview/<spec>.css, internal/theme), so the preview and the
// respondents' pages share one source; and the contrast table is the
// server's, of the form's theme: the page that "Preview and check the
// contrast" answers (nothing saved), its table put in place.
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
  var timer = 0, asked = 0;
  function check() {
    var data = new FormData(form);
    data.delete("image");
    data.set("do", "preview");
    var n = ++asked;
    fetch(form.action, { method: "POST", body: data, credentials: "same-origin" }).then(function (r) {
      return r.text();
    }).then(function (html) {
      if (n !== asked) return; // a later change asked again
      var doc = new DOMParser().parseFromString(html, "text/html");
      var table = doc.getElementById("contrast-table"), verdict = doc.getElementById("contrast-verdict");
      if (!table || !verdict) return;
      document.getElementById("contrast-table").innerHTML = table.innerHTML;
      document.getElementById("contrast-verdict").textContent = verdict.textContent;
    }).catch(function () {});
  }
  function changed(e) {
    if (e.target && e.target.type === "file") return;
    update();
    clearTimeout(timer);
    timer = setTimeout(check, 300);
  }
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
})();
