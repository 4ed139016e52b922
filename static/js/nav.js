/* Main navigation: on narrow screens the menu folds behind a "Menu" button (CSS .nav-collapsible); without
 * JavaScript it simply stays open. Loaded right after the header so the page never shows it unfolded first. */
(function () {
  "use strict";
  var bar = document.querySelector(".topbar");
  var button = document.getElementById("nav-toggle");
  if (!bar || !button) { return; }
  bar.classList.add("nav-collapsible");
  button.hidden = false;
  button.addEventListener("click", function () {
    var open = bar.classList.toggle("nav-open");
    button.setAttribute("aria-expanded", open ? "true" : "false");
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && bar.classList.contains("nav-open")) {
      bar.classList.remove("nav-open");
      button.setAttribute("aria-expanded", "false");
      button.focus();
    }
  });
})();
