// The offline shell: try the companion again every few seconds and go back to it when it answers.
(() => {
  "use strict";
  const retry = () => fetch("/api/session", { cache: "no-store", credentials: "same-origin" })
    .then((r) => { if (r.ok) location.replace("/"); })
    .catch(() => null);
  setInterval(retry, 3000);
  window.addEventListener("online", retry);
})();
