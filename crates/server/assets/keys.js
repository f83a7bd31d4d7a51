// The one-time reveal of a new API key (docs/API.md, "Web pages"): a modal dialog whose close
// control stays disabled until the warning is acknowledged, and which blanks the key a fixed
// time after it opened, whatever the user is doing.
(function () {
  'use strict';
  var dialog = document.getElementById('reveal');
  if (!dialog) {
    return;
  }
  // The page came from the form post: make this history entry a plain GET of the list, so that
  // a reload or a return to it asks for the list and never posts the form again.
  history.replaceState(null, '', '/keys');

  var lifetime = Number(dialog.getAttribute('data-lifetime-ms')) || 90000;
  var secret = document.getElementById('reveal-secret');
  var field = document.getElementById('reveal-key');
  var copy = document.getElementById('reveal-copy');
  var timer = document.getElementById('reveal-timer');
  var status = document.getElementById('reveal-status');
  var ack = document.getElementById('reveal-ack');
  var close = document.getElementById('reveal-close');
  var ticker = null;
  var blanked = false;

  // Both clocks: the wall clock keeps running while the computer sleeps, the monotonic one is
  // immune to the wall clock being set back; the key goes when either says its time is up.
  var openedWall = Date.now();
  var openedMono = performance.now();
  function elapsed() {
    return Math.max(Date.now() - openedWall, performance.now() - openedMono);
  }

  function blank(why) {
    if (blanked) {
      return;
    }
    blanked = true;
    field.value = '';
    secret.parentNode.removeChild(secret);
    status.textContent = why;
    if (dialog.open) {
      ack.focus();
    }
    if (ticker !== null) {
      clearInterval(ticker);
    }
  }

  function tick() {
    var left = lifetime - elapsed();
    if (left <= 0) {
      blank('The key was removed from this page ' + Math.round(lifetime / 1000) +
        ' seconds after it appeared. If you did not copy it, revoke it and generate a new one.');
      return;
    }
    timer.textContent = 'Disappears in ' + Math.ceil(left / 1000) + ' s.';
  }

  ack.addEventListener('change', function () {
    close.disabled = !ack.checked;
  });
  close.addEventListener('click', function () {
    if (ack.checked) {
      dialog.close();
    }
  });
  // Escape closes a modal dialog: not before the warning is acknowledged. `closedby="none"`
  // stops it where supported; elsewhere the cancel is refused, and where a browser does not let
  // a page refuse it (no user activation yet), the dialog opens again.
  dialog.addEventListener('cancel', function (event) {
    if (!ack.checked) {
      event.preventDefault();
    }
  });
  dialog.addEventListener('close', function () {
    if (!ack.checked) {
      dialog.showModal();
      return;
    }
    // Closed for good: the key does not stay in the page.
    blank('The key was removed from this page.');
  });

  // A modal dialog keeps focus from the page, but lets Tab leave for the browser's own
  // controls; cycling inside the dialog keeps keyboard users where the decision is.
  dialog.addEventListener('keydown', function (event) {
    if (event.key !== 'Tab') {
      return;
    }
    var items = Array.prototype.filter.call(
      dialog.querySelectorAll('button, input, a[href], [tabindex]'),
      function (item) {
        return !item.disabled && item.tabIndex >= 0 && item.getClientRects().length > 0;
      });
    if (items.length === 0) {
      return;
    }
    var first = items[0];
    var last = items[items.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      last.focus();
      event.preventDefault();
    } else if (!event.shiftKey && document.activeElement === last) {
      first.focus();
      event.preventDefault();
    }
  });

  copy.addEventListener('click', function () {
    var text = field.value;
    if (!text) {
      return;
    }
    function copied() {
      status.textContent = 'Copied to the clipboard.';
    }
    function byHand() {
      field.focus();
      field.select();
      var done = false;
      try {
        done = document.execCommand('copy');
      } catch (e) {
        done = false;
      }
      status.textContent = done ? 'Copied to the clipboard.' :
        'Copying failed: the key is selected, copy it with Ctrl+C (or ⌘C).';
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(copied, byHand);
    } else {
      byHand();
    }
  });

  close.disabled = true;
  ack.checked = false;
  dialog.showModal();
  tick();
  ticker = setInterval(tick, 250);
  setTimeout(tick, lifetime);
  document.addEventListener('visibilitychange', tick);
  window.addEventListener('focus', tick);
}());
