/* A "Copy" button on every code block marked data-copy (the API docs' curl and Python examples). */
(function () {
  "use strict";

  function copyText(text, done) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(text, done); });
    } else {
      fallback(text, done);
    }
  }

  function fallback(text, done) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selectable */ }
    document.body.removeChild(area);
  }

  Array.prototype.forEach.call(document.querySelectorAll("pre[data-copy]"), function (pre) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-button";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy this code");
    button.addEventListener("click", function () {
      copyText(pre.querySelector("code").textContent, function () {
        button.textContent = "Copied";
        window.setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
    pre.parentNode.insertBefore(button, pre);
    pre.parentNode.classList.add("copyable");
  });
})();
