// The dialog guard of L1 actions: two functions that `chrome.scripting.executeScript` runs in a
// page's own world (MAIN), in every frame the extension may script, around one executor call.
// Each is sent to the page as its source text, so neither refers to anything outside itself.
//
// While installed, `alert` returns, `confirm` answers false and `prompt` null, at once and
// without showing anything, and a `beforeunload` handler cannot make the browser ask before
// leaving (`preventDefault`, `returnValue` and a value returned by `onbeforeunload` are noted and
// dropped). Each dialog is told to the executor with a DOM event on the top document. Past the
// budget the next dialog throws, which ends a page's `while (!confirm(…))` loop.
//
// It replaces the page's functions, not the browser's: a page that kept its own reference to the
// native `confirm` before the guard came still shows a real dialog. A page that locked
// `window.confirm` (non-configurable and read-only) to the native one is reported as `locked`,
// and the gateway does not act on it. The page's own functions come back on removal, unless the
// page replaced ours meanwhile (then its newer one stays).

export function dialogGuard() {
  return { install: installDialogGuard, remove: removeDialogGuard };
}

/**
 * Installs the guard for the call `lease` (or joins the one already there), for at most
 * `leaseMs` should nobody remove it. Answers `{ locked: [names] }`: the dialog functions it could
 * not take over because the page locked them to native code.
 */
function installDialogGuard(eventName, maxDialogs, maxChars, lease, leaseMs) {
  const KEY = "__panelotDialogGuard";
  const win = window;
  const defineProperty = Object.defineProperty;
  const own = Object.getOwnPropertyDescriptor;
  const held = own(win, KEY);
  if (held !== undefined) {
    const state = held.value;
    if (state !== null && typeof state === "object" && typeof state.join === "function") {
      state.join(lease, leaseMs);
      return { locked: state.locked };
    }
    // Not ours: whatever holds the name cannot be trusted to answer.
    return { locked: ["alert", "confirm", "prompt"] };
  }

  // What the guard calls is taken now, so the page cannot swap it during the action.
  const stringify = JSON.stringify;
  const toText = String;
  const Custom = win.CustomEvent;
  const dispatch = win.EventTarget.prototype.dispatchEvent;
  const sourceOf = Function.prototype.toString;
  const setTimer = win.setTimeout;
  const clearTimer = win.clearTimeout;
  const leases = new Map();
  const undo = [];
  const locked = [];
  let count = 0;

  const report = (detail) => {
    let target = document;
    try {
      target = win.top.document;
    } catch {
      // A cross-origin top: the executor there cannot hear this frame.
    }
    try {
      dispatch.call(target, new Custom(eventName, { detail: stringify(detail) }));
    } catch {
      // Reporting never changes the answer.
    }
  };
  const answer = (kind, args) => {
    count += 1;
    if (count > maxDialogs) {
      if (count === maxDialogs + 1) report({ kind: "stopped" });
      throw new Error(`Panelot answered ${maxDialogs} dialogs during this action and stops the next ones`);
    }
    let message = "";
    if (kind !== "beforeunload" && args.length > 0) {
      try {
        message = toText(args[0]);
      } catch {
        message = "";
      }
    }
    // UTF-16 units here; the executor cuts to characters.
    report({ kind, message: message.slice(0, maxChars * 2) });
  };
  const isNative = (value) => {
    try {
      return typeof value === "function" && sourceOf.call(value).includes("[native code]");
    } catch {
      return true;
    }
  };

  const replace = (name, fake) => {
    const before = own(win, name);
    if (before === undefined || before.configurable) {
      defineProperty(win, name, { value: fake, writable: true, enumerable: before ? before.enumerable : true, configurable: true });
      undo.push(() => {
        const now = own(win, name);
        if (now === undefined || now.value !== fake) return;
        if (before === undefined) delete win[name];
        else defineProperty(win, name, before);
      });
    } else if ("value" in before && before.writable) {
      win[name] = fake;
      undo.push(() => {
        if (win[name] === fake) win[name] = before.value;
      });
    } else if (isNative("value" in before ? before.value : undefined) || (before.get && isNative(before.get.call(win)))) {
      locked.push(name);
    }
  };
  replace("alert", function alert() {
    answer("alert", arguments);
  });
  replace("confirm", function confirm() {
    answer("confirm", arguments);
    return false;
  });
  replace("prompt", function prompt() {
    answer("prompt", arguments);
    return null;
  });

  // beforeunload: the browser asks when a listener cancels the event or sets its returnValue, or
  // when the `onbeforeunload` handler returns something. Each is noted once per event.
  const asked = new WeakSet();
  const leave = (event) => {
    if (event === null || typeof event !== "object" || asked.has(event)) return;
    asked.add(event);
    answer("beforeunload", []);
  };
  const Unload = win.BeforeUnloadEvent;
  if (typeof Unload === "function") {
    const proto = Unload.prototype;
    const preventBefore = own(proto, "preventDefault");
    defineProperty(proto, "preventDefault", {
      value: function preventDefault() {
        leave(this);
      },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    undo.push(() => {
      if (preventBefore === undefined) delete proto.preventDefault;
      else defineProperty(proto, "preventDefault", preventBefore);
    });
    const valueBefore = own(proto, "returnValue");
    if (valueBefore !== undefined && valueBefore.configurable && valueBefore.get) {
      defineProperty(proto, "returnValue", {
        get: valueBefore.get,
        set(value) {
          if (toText(value) !== "") leave(this);
        },
        enumerable: valueBefore.enumerable,
        configurable: true,
      });
      undo.push(() => defineProperty(proto, "returnValue", valueBefore));
    }
  }
  let holder = win;
  let handlerSlot;
  while (holder !== null && (handlerSlot = own(holder, "onbeforeunload")) === undefined) holder = Object.getPrototypeOf(holder);
  if (handlerSlot !== undefined && handlerSlot.get && handlerSlot.set) {
    const nativeGet = handlerSlot.get;
    const nativeSet = handlerSlot.set;
    const wrap = (handler) =>
      typeof handler !== "function"
        ? handler
        : function onbeforeunload(event) {
            const said = handler.apply(this, arguments);
            if (said !== undefined && said !== null) leave(event);
          };
    let pageHandler = nativeGet.call(win);
    let wrapped = wrap(pageHandler);
    if (wrapped !== pageHandler) nativeSet.call(win, wrapped);
    const ownBefore = own(win, "onbeforeunload");
    if (ownBefore === undefined || ownBefore.configurable) {
      defineProperty(win, "onbeforeunload", {
        get() {
          return pageHandler;
        },
        set(handler) {
          pageHandler = handler;
          wrapped = wrap(handler);
          nativeSet.call(win, wrapped);
        },
        enumerable: true,
        configurable: true,
      });
    }
    undo.push(() => {
      if (ownBefore === undefined) delete win.onbeforeunload;
      else if (ownBefore.configurable) defineProperty(win, "onbeforeunload", ownBefore);
      if (nativeGet.call(win) === wrapped) nativeSet.call(win, pageHandler);
    });
  }

  const release = (id) => {
    const timer = leases.get(id);
    if (timer === undefined) return;
    clearTimer(timer);
    leases.delete(id);
    if (leases.size > 0) return;
    delete win[KEY];
    for (const step of undo.reverse()) {
      try {
        step();
      } catch {
        // Put back as much as can be.
      }
    }
  };
  const join = (id, ms) => {
    if (!leases.has(id)) leases.set(id, setTimer(() => release(id), ms));
  };
  join(lease, leaseMs);
  defineProperty(win, KEY, { value: { join, release, locked }, enumerable: false, writable: false, configurable: true });
  return { locked };
}

/** Ends the call `lease`'s part in the guard; the last call out puts the page's functions back. */
function removeDialogGuard(lease) {
  const held = Object.getOwnPropertyDescriptor(window, "__panelotDialogGuard");
  const state = held === undefined ? null : held.value;
  if (state !== null && typeof state === "object" && typeof state.release === "function") state.release(lease);
  return null;
}
