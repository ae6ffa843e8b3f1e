// The browser's Back and Forward on a survey of several pages. Each page
// after the first is the answer to a POST (Next, Back), which the browser
// would send again when it comes back to it ("Confirm Form Resubmission").
// The server gives each page the address that shows it again
// (data-page-url: its token and its answers, sealed); putting it in place
// of the POST makes the history hold pages the browser can simply load.
// Without this script the pages work as before; Back asks first.
(function () {
  "use strict";
  var form = document.querySelector("form[data-page-url]");
  if (!form || !window.history || !history.replaceState) return;
  history.replaceState(history.state, "", form.getAttribute("data-page-url"));
})();
