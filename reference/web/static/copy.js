// The copy control of the tokens page, and the page's one other need: once
// a new token is shown, reloading must not post the form again (which would
// make another token), so the page's address becomes a plain GET.
(function () {
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.getAttribute("data-copy"));
      field.select();
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
      } else {
        document.execCommand("copy");
        done();
      }
    });
  });
  if (document.querySelector("[data-testid=new-token]") && window.history.replaceState) {
    window.history.replaceState(null, "", "/settings/tokens");
  }
})();
