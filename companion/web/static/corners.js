// The table corners page: a tap on the camera's picture fills in the next corner of the form
// (per cent of the picture's width and height) and marks it with its number; "Start over" clears
// them; "Full size" shows the picture a camera pixel to a CSS pixel in a scrolling box, for a
// precise tap (a corner 15 camera pixels off still reads every wall right; 40 px does not).
// The form also works typed in by hand. Loaded by calibrate.html only.
(() => {
  "use strict";
  const pick = document.getElementById("corner-pick");
  const picture = document.getElementById("corner-picture");
  const form = document.getElementById("corners-form");
  if (!pick || !picture || !form) return;
  const fields = [1, 2, 3, 4].map((k) => [form.elements["x" + k], form.elements["y" + k]]);
  // the camera may still be starting (the picture is then a 503): ask again each second for a minute
  let tries = 0;
  const source = picture.getAttribute("src");
  const again = () => {
    if (++tries <= 60) setTimeout(() => { picture.src = `${source}?try=${tries}`; }, 1000);
  };
  picture.addEventListener("error", again);
  if (picture.complete && !picture.naturalWidth) again(); // it failed before this script ran
  const number = (input) => (input.value.trim() === "" ? NaN : Number(input.value));

  const draw = () => {
    pick.querySelectorAll(".corner-dot").forEach((dot) => dot.remove());
    fields.forEach(([x, y], i) => {
      const px = number(x), py = number(y);
      if (!(px >= 0 && px <= 100 && py >= 0 && py <= 100)) return;
      const dot = document.createElement("span");
      dot.className = "corner-dot";
      dot.textContent = String(i + 1);
      dot.style.left = px + "%";
      dot.style.top = py + "%";
      pick.append(dot);
    });
  };

  picture.addEventListener("click", (e) => {
    const box = picture.getBoundingClientRect();
    if (!box.width || !box.height) return;
    const at = fields.findIndex(([x, y]) => x.value.trim() === "" || y.value.trim() === "");
    const [x, y] = fields[at < 0 ? 0 : at];
    if (at < 0) fields.slice(1).forEach(([a, b]) => { a.value = ""; b.value = ""; }); // a fifth tap begins again
    x.value = (100 * (e.clientX - box.left) / box.width).toFixed(1);
    y.value = (100 * (e.clientY - box.top) / box.height).toFixed(1);
    draw();
  });
  const zoom = document.getElementById("corners-zoom");
  const scroll = document.getElementById("corner-scroll");
  if (zoom && scroll) {
    zoom.addEventListener("click", () => {
      const on = scroll.classList.toggle("zoomed");
      zoom.setAttribute("aria-pressed", on ? "true" : "false");
    });
  }
  form.addEventListener("input", draw);
  document.getElementById("corners-again").addEventListener("click", () => {
    fields.forEach(([x, y]) => { x.value = ""; y.value = ""; });
    draw();
  });
  draw();
})();
