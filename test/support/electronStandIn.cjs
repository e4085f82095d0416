/**
 * A stand-in for the `electron` module, preloaded with `node --require` so the built dist/main.cjs
 * can be started under plain Node: Electron's binary cannot be downloaded on these machines. It
 * answers just enough of the API for the app to start (lock, ready, paths, window, menu, IPC,
 * session), records nothing, and reports an error dialog on stderr. It proves that the bundle
 * loads and wires the real host and gateway, not that Chromium renders the window.
 */
const Module = require('node:module');

const paths = new Map();
/** Any property is a function returning another such proxy, so unused API surface just works. */
const anything = () =>
  new Proxy(function () {}, {
    get: (_target, key) => (key === 'then' ? undefined : anything()),
    apply: () => anything(),
    construct: () => anything(),
  });

const app = new Proxy(
  {
    isPackaged: false,
    setPath: (name, value) => paths.set(name, value),
    getPath: (name) => paths.get(name) ?? require('node:os').tmpdir(),
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    getVersion: () => '0.0.0-stand-in',
    exit: (code) => process.exit(code),
    quit: () => process.exit(0),
  },
  { get: (target, key) => (key in target ? target[key] : anything()) },
);

const electron = new Proxy(
  {
    app,
    dialog: { showErrorBox: (title, message) => process.stderr.write(`error dialog: ${title}: ${message}\n`) },
    BrowserWindow: Object.assign(function () { return anything(); }, { getAllWindows: () => [] }),
  },
  { get: (target, key) => (key in target ? target[key] : anything()) },
);

const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'electron' ? electron : load.call(this, request, ...rest);
};
