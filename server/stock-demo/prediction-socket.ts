import type { FastifyInstance } from 'fastify';
import { checkPredictionRequest } from '../../src/engine/stock-demo';
import type { PredictionAnswer, PredictionService } from './prediction-service';

/** Messages one connection may send per window before it is told to wait. */
const MESSAGES_PER_WINDOW = 30;
const WINDOW_MS = 60_000;

const INVALID_JSON = 'Send a JSON object: symbol, model, period, and date or start_date and end_date.';
const TOO_MANY = 'Too many prediction requests on this connection; wait a minute and try again.';

/**
 * WebSocket /stock-price-prediction/ws/predict (spec section 7): the browser sends
 * {symbol, model, period, date | start_date and end_date} as JSON, the server answers each message
 * with {predictions: [{date, predicted_price}], period, error} (error null on success, predictions
 * empty on error), plus history_until, `preparing: true` when the error only says the model is still
 * training, and the message's own `id` when it sent one. Public.
 */
export async function predictionSocket(
  app: FastifyInstance,
  { predictions }: { predictions: PredictionService },
) {
  app.get('/stock-price-prediction/ws/predict', { websocket: true, schema: { hide: true } }, (socket) => {
    let sent: number[] = [];
    socket.on('message', (data, isBinary) => {
      const send = (answer: PredictionAnswer, id: unknown) => {
        if (socket.readyState !== socket.OPEN) return;
        socket.send(JSON.stringify(validId(id) ? { ...answer, id } : answer));
      };
      const now = Date.now();
      sent = sent.filter((t) => now - t < WINDOW_MS);
      sent.push(now);
      if (sent.length > MESSAGES_PER_WINDOW) return send(refusal(TOO_MANY), null);
      let raw: unknown;
      try {
        raw = isBinary ? undefined : JSON.parse(data.toString());
      } catch {
        raw = undefined;
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        return send(refusal(INVALID_JSON), null);
      const id = (raw as { id?: unknown }).id;
      const checked = checkPredictionRequest(raw, new Date().toISOString().slice(0, 10));
      if (!checked.ok)
        return send({ ...refusal(checked.message), field: checked.field } as PredictionAnswer, id);
      predictions.predict(checked.request).then(
        (answer) => send(answer, id),
        (error: unknown) => {
          app.log.error({ err: error }, 'demo prediction failed');
          send(refusal('The prediction failed on the server; try again later.', checked.request.period), id);
        },
      );
    });
  });
}

const refusal = (error: string, period: PredictionAnswer['period'] = null): PredictionAnswer => ({
  predictions: [],
  period,
  error,
});

const validId = (id: unknown) =>
  (typeof id === 'string' && id.length <= 64) || (typeof id === 'number' && Number.isFinite(id));
