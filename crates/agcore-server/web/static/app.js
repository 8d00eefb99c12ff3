// agcore management page: small progressive enhancements (served as a file:
// the Content-Security-Policy allows no inline script).
"use strict";

// The agent form: the database field applies to MySQL and SQLite only.
function wireBackend() {
  const backend = document.getElementById("backend");
  const location = document.getElementById("backend_location");
  if (!backend || !location || backend.disabled) return;
  const sync = () => { location.disabled = backend.value === "server"; };
  backend.addEventListener("change", sync);
  sync();
}

document.addEventListener("DOMContentLoaded", () => {
  wireBackend();
});
