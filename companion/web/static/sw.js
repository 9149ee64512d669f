// Service worker: keeps an offline shell so that an installed dashboard opens, says
// "reconnecting" and comes back by itself while the companion is out of reach.
// Live data is never cached: /api/ requests always go to the network.
const SHELL = "companion-shell-v1";
const SHELL_FILES = ["/offline", "/static/app.css", "/static/offline.js", "/static/icons/icon.svg", "/static/icons/icon-192.png"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(SHELL_FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== SHELL).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match("/offline")));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(fetch(request).catch(() => caches.match(request)));
  }
});
