/* The course site's own script: it runs after MathJax's configuration and before
   MathJax itself (deferred) and the widget renderer. */

/* 1. The widget renderer (embed.js of @jupyter-widgets/html-manager) typesets the
   math of HTMLMath widgets with MathJax 2's MathJax.Hub.Queue; the site serves
   MathJax 3.  Until MathJax 3 has started, its own start-up typesets the whole
   page; afterwards each call becomes a MathJax 3 typeset of that element. */
window.MathJax = Object.assign(window.MathJax || {}, {
  Hub: { Queue: function () {} },
  startup: {
    ready: function () {
      MathJax.startup.defaultReady();
      MathJax.Hub = {
        Queue: function (job) {
          var element = job && job[2];
          MathJax.startup.promise = MathJax.startup.promise.then(function () {
            return MathJax.typesetPromise(element ? [element] : undefined);
          });
        },
      };
    },
  },
});

/* 2. The theme's navigation toggles are <summary> elements holding only an icon:
   give each a name a screen reader can say (axe: summary-name). */
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("summary").forEach(function (summary) {
    if (!summary.textContent.trim() && !summary.getAttribute("aria-label")) {
      var item = summary.closest("li");
      var link = item && item.querySelector("a");
      var name = link ? link.textContent.trim() : "";
      summary.setAttribute("aria-label", name ? "Show or hide the pages of " + name
                                              : "Show or hide");
    }
  });
});

/* 2b. myst-nb names the toggle of a folded output "Toggle hidden content"
   (aria-label) while it shows "Show the answer: ..." (a prediction's answer,
   tools/site.py): a name that differs from the visible text (axe:
   label-content-name-mismatch).  The visible text is the better name. */
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("details.hide > summary[aria-label]").forEach(function (summary) {
    if (summary.textContent.trim()) {
      summary.removeAttribute("aria-label");
    }
  });
});

/* 3. Docutils writes a docstring's References as <div class="citation-list"
   role="list"> whose entries have role doc-biblioentry, not listitem, which a
   list may not hold (axe: aria-required-children): drop the list role. */
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll('.citation-list[role="list"]').forEach(function (list) {
    list.removeAttribute("role");
  });
});

/* 4. The widget renderer draws each slider's handle as an ARIA slider without a
   name (axe: aria-input-field-name); name it after the slider's own label, as
   the widget's description reads on screen ("k", "grade at rank 2"). */
function nameSliderHandles(root) {
  root.querySelectorAll(".widget-slider .noUi-handle").forEach(function (handle) {
    if (handle.getAttribute("aria-label") || handle.getAttribute("aria-labelledby")) {
      return;
    }
    var slider = handle.closest(".widget-slider");
    var label = slider && slider.querySelector(".widget-label");
    var text = label ? label.textContent.trim() : "";
    handle.setAttribute("aria-label", text || "slider");
  });
}
new MutationObserver(function () {
  nameSliderHandles(document);
}).observe(document.documentElement, { childList: true, subtree: true });
