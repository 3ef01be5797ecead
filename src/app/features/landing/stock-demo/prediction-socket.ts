// The demo's WebSocket client (spec section 7: stock-price-prediction/ws/predict, secure when the page
// is): one connection, reopened with back-off when it drops, with the spec's texts for each failure.

export interface PredictionMessage {
  symbol: string;
  model: string;
  period: string;
  date?: string;
  start_date?: string;
  end_date?: string;
}

export interface PredictionReply {
  predictions: { date: string; predicted_price: number }[];
  period: string | null;
  error: string | null;
  history_until?: string;
  /** Set when the error only says the model is still training (a wait, not a failure). */
  preparing?: boolean;
  id?: number;
}

export const SOCKET_TEXTS = {
  error: (detail: string) => `WebSocket error: ${detail}`,
  connect: (detail: string) => `Failed to connect to WebSocket server: ${detail}`,
  notOpen: 'WebSocket connection not established. Reconnecting...',
  send: (detail: string) => `Failed to send request: ${detail}`,
} as const;

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15_000;

export function predictionSocketUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/stock-price-prediction/ws/predict`;
}

/**
 * Sends prediction requests and hands each reply to `onReply`; `onProblem` gets the spec's texts
 * (null once the connection works again). A request made while the socket is not open is kept and
 * sent when it opens; only the latest one is kept, since a newer request replaces an older one.
 */
export class PredictionSocket {
  private socket: WebSocket | null = null;
  private delay = FIRST_DELAY_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private waiting: PredictionMessage & { id: number } = null as never;
  private hasWaiting = false;
  private closed = false;
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly onReply: (reply: PredictionReply) => void,
    private readonly onProblem: (text: string | null) => void,
  ) {
    this.open();
  }

  /** Sends the request now, or when the connection opens; returns its id (replies carry it). */
  request(message: PredictionMessage): number {
    const id = this.nextId++;
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      this.waiting = { ...message, id };
      this.hasWaiting = true;
      this.onProblem(SOCKET_TEXTS.notOpen);
      if (!socket || socket.readyState === WebSocket.CLOSED) this.reconnectSoon();
      return id;
    }
    try {
      socket.send(JSON.stringify({ ...message, id }));
    } catch (error) {
      this.onProblem(SOCKET_TEXTS.send(error instanceof Error ? error.message : String(error)));
    }
    return id;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close();
  }

  private open(): void {
    if (this.closed) return;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.onProblem(SOCKET_TEXTS.connect(error instanceof Error ? error.message : String(error)));
      this.reconnectSoon();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.delay = FIRST_DELAY_MS;
      this.onProblem(null);
      if (this.hasWaiting) {
        this.hasWaiting = false;
        try {
          socket.send(JSON.stringify(this.waiting));
        } catch (error) {
          this.onProblem(SOCKET_TEXTS.send(error instanceof Error ? error.message : String(error)));
        }
      }
    };
    socket.onmessage = (event: MessageEvent) => {
      try {
        this.onReply(JSON.parse(String(event.data)) as PredictionReply);
      } catch {
        this.onProblem(SOCKET_TEXTS.error('the server sent a reply that is not JSON'));
      }
    };
    socket.onerror = () => {
      this.onProblem(SOCKET_TEXTS.error(`the connection to ${this.url} failed`));
    };
    socket.onclose = () => {
      if (this.socket === socket) this.socket = null;
      this.reconnectSoon();
    };
  }

  private reconnectSoon(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open();
    }, this.delay);
    this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
  }
}
