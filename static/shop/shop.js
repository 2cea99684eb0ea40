// What htmx does not do by itself for shoppers who cannot see the page change, or who wait on a
// slow network (docs/shop.md, "Security and accessibility"). Without JavaScript none of this is
// needed: every form is a plain POST and the page that comes back says what happened.
(() => {
  "use strict";

  // The one polite live region (templates/base.html). It sits outside <main> so no swap, not even
  // an error page's, replaces it: a screen reader only speaks a region it already knew of.
  // Nothing to say empties it: words left from an earlier change are not what this one did.
  let saying = null;
  function say(text) {
    const region = document.getElementById("live-region");
    if (!region) return;
    // Emptied first and filled a moment later, so the same words twice in a row are said twice.
    window.clearTimeout(saying);
    region.textContent = "";
    if (text) saying = window.setTimeout(() => { region.textContent = text; }, 100);
  }

  function words(element) {
    return element.textContent.replace(/\s+/g, " ").trim();
  }

  // What a swapped-in part says happened: its [data-announce] messages and field errors; an error
  // page that replaced <main> is named by its heading. Leaving out what the focus is on: a screen
  // reader reads the element the focus lands on (a removed line's message, an error page's heading)
  // and the description it names (a wrong field's error, aria-describedby), and the region saying
  // it too had it spoken twice.
  function whatHappened(swapped, failed, focused) {
    const described = new Set(((focused && focused.getAttribute("aria-describedby")) || "").split(/\s+/));
    const unread = (element) => !(focused && focused.contains(element)) && !(element.id && described.has(element.id));
    const parts = [...swapped.querySelectorAll("[data-announce]")].filter(unread).map(words).filter(Boolean);
    if (parts.length === 0 && failed) {
      const heading = swapped.querySelector("h1");
      if (heading && unread(heading)) parts.push(words(heading));
    }
    return parts.join(" ");
  }

  // The field the keyboard was in (or the form's first field, when it was the button) gets the focus
  // back after the swap, unless the new content put it somewhere on purpose (autofocus).
  let focusAfterSwap = null;

  document.addEventListener("htmx:beforeRequest", (event) => {
    const { elt, target } = event.detail;
    target.setAttribute("aria-busy", "true");
    const active = document.activeElement;
    focusAfterSwap = null;
    if (active && elt.contains(active)) {
      focusAfterSwap = active.id || (elt.querySelector("input[id]:not([type=hidden]), select[id]") || {}).id || null;
    }
  });

  // After a swap the target is usually a new element without aria-busy; after a failure nothing
  // was swapped, and the old one must say it is no longer busy.
  document.addEventListener("htmx:afterRequest", (event) => {
    event.detail.target.removeAttribute("aria-busy");
  });

  document.addEventListener("htmx:afterSettle", (event) => {
    const swapped = event.target;
    if (!(swapped instanceof Element) || swapped.id === "cart-count") return;  // the header's count, out of band
    const active = document.activeElement;
    if (focusAfterSwap && (!active || active === document.body)) {
      const field = document.getElementById(focusAfterSwap);
      if (field) field.focus();
    }
    focusAfterSwap = null;
    // An error page took the form's place: the keyboard goes on from its heading, not the page's top.
    const heading = event.detail.failed && swapped.querySelector("h1");
    if (heading && (!document.activeElement || document.activeElement === document.body)) {
      heading.setAttribute("tabindex", "-1");
      heading.focus();
    }
    // Said once the focus has settled (htmx's autofocus included), so the region knows what it reads.
    const focused = document.activeElement === document.body ? null : document.activeElement;
    say(whatHappened(swapped, event.detail.failed, focused));
  });

  // No answer at all (the network is down, the server unreachable): nothing is swapped, so say so,
  // aloud and on the page, at the top of the part that was to change (replaced by its next swap).
  const UNREACHABLE = "The shop could not be reached, so nothing changed. Check your connection and try again.";
  function unreachable(event) {
    const target = event.detail.target;
    target.removeAttribute("aria-busy");
    let notice = target.querySelector(".request-failed");
    if (!notice) {
      notice = document.createElement("p");
      notice.className = "notice notice-error request-failed";
      target.prepend(notice);
    }
    notice.textContent = UNREACHABLE;
    say(UNREACHABLE);
  }
  document.addEventListener("htmx:sendError", unreachable);
  document.addEventListener("htmx:timeout", unreachable);

  // A select whose choice loads a page part (the cart history's version, [data-load-on-pick]). A
  // closed select changes its value, and fires change, on every arrow key: loading on change made a
  // keyboard shopper wait for a load per version stepped past. So keys only step, and Enter sends
  // the form (its button still does, as without JavaScript); a pick from the open list, by pointer,
  // touch or a screen reader's own list, fires change once and loads at once. Not on blur: Tab to the
  // form's own button, or back to Previous, would load under the shopper's feet.
  const STEPS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"]);
  function steps(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return false;  // Alt+ArrowDown opens the list
    return STEPS.has(event.key) || (event.key.length === 1 && event.key !== " ");  // letters: type-ahead
  }
  let stepped = null;  // the select the keyboard last moved, so its change is a step and not a pick
  function picker(target) {
    return target instanceof HTMLSelectElement && target.matches("[data-load-on-pick]") ? target : null;
  }
  document.addEventListener("keydown", (event) => {
    const select = picker(event.target);
    if (!select) return;
    if (event.key === "Enter" && select.form) {
      event.preventDefault();
      stepped = null;
      select.form.requestSubmit();
    } else if (steps(event)) {
      stepped = select;
    }
  });
  document.addEventListener("pointerdown", (event) => {
    if (picker(event.target)) stepped = null;
  });
  document.addEventListener("change", (event) => {
    const select = picker(event.target);
    if (select && select !== stepped && select.form) select.form.requestSubmit();
  });
})();
