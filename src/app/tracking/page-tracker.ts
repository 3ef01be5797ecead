// Usage tracking in the browser (spec workspace.md section 7 'Tracking'): a page view per path, the
// time on it every 30 seconds over the /ws socket and once more on leaving (a beacon), with the
// spec's storage names client_id and session_data (a session ends after 30 minutes without a
// view). Nothing is sent or stored when the browser asks not to be tracked (Do Not Track, Global
// Privacy Control), no third party is asked anything, and a failure never reaches the page:
// every call is fire-and-forget.

export const TRACKED_SERVICE = 'qml-studio';
export const CLIENT_ID_KEY = 'client_id';
export const SESSION_KEY = 'session_data';
const SESSION_MS = 30 * 60 * 1000;
const TICK_MS = 30_000;

interface SessionData {
  session_id: string;
  last_activity: number;
}

/** Do Not Track or Global Privacy Control: the visitor asked not to be tracked. */
export function trackingRefused(nav: Navigator = navigator): boolean {
  const gpc = (nav as Navigator & { globalPrivacyControl?: boolean }).globalPrivacyControl;
  return nav.doNotTrack === '1' || gpc === true;
}

const newId = () =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `${Date.now()}-${Math.random().toString(36).slice(2)}`;

function clientId(): string {
  let id = localStorage.getItem(CLIENT_ID_KEY);
  if (!id) {
    id = newId();
    localStorage.setItem(CLIENT_ID_KEY, id);
  }
  return id;
}

/** The session: continued while views are less than 30 minutes apart, else a new one. */
function sessionId(now: number): string {
  let data: SessionData | null = null;
  try {
    data = JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null') as SessionData | null;
  } catch {
    data = null;
  }
  const id = data && now - data.last_activity < SESSION_MS ? data.session_id : newId();
  localStorage.setItem(SESSION_KEY, JSON.stringify({ session_id: id, last_activity: now }));
  return id;
}

function browserName(agent: string): string {
  if (/Edg\//.test(agent)) return 'Edge';
  if (/Firefox\//.test(agent)) return 'Firefox';
  if (/Chrom(e|ium)\//.test(agent)) return 'Chromium';
  if (/Safari\//.test(agent)) return 'Safari';
  return 'Other';
}

const post = (url: string, body: object) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    keepalive: true,
  }).catch(() => undefined);

/** Tracks one view of `page` until the returned function ends it (the next view or leaving). */
export function trackView(page: string): () => void {
  if (trackingRefused()) return () => undefined;
  const started = Date.now();
  const viewId = newId();
  let session: string;
  try {
    session = sessionId(started);
    void post(`/api/track/pageview/${TRACKED_SERVICE}`, {
      client_id: clientId(),
      session_id: session,
      page,
      browser: browserName(navigator.userAgent),
      view_id: viewId,
    });
  } catch {
    return () => undefined; // storage unavailable: no tracking, never an error on the page
  }
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  let socket: WebSocket | null = null;
  try {
    socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/ws`);
  } catch {
    socket = null;
  }
  const tick = setInterval(() => {
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ service: TRACKED_SERVICE, page, timeSpent: seconds(), view_id: viewId }));
    }
  }, TICK_MS);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(tick);
    socket?.close();
    const body = JSON.stringify({ page, timeSpent: seconds(), view_id: viewId });
    const url = `/api/track/time/${TRACKED_SERVICE}`;
    const sent = navigator.sendBeacon?.(url, new Blob([body], { type: 'application/json' }));
    if (!sent) void post(url, JSON.parse(body) as object);
    window.removeEventListener('pagehide', end);
  };
  window.addEventListener('pagehide', end);
  return end;
}
