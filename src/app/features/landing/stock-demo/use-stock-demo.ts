import { useEffect, useRef, useState } from 'react';
import { fetchHistory, fetchSymbols, type HistoryRow, type SymbolFacts } from './history';
import {
  DEBOUNCE_MS,
  historyFilterOf,
  initialInputs,
  predictionMessageOf,
  type DemoInputs,
} from './demo-inputs';
import { PredictionSocket, predictionSocketUrl, type PredictionReply } from './prediction-socket';

const todayOf = () => {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
};

export interface StockDemoState {
  inputs: DemoInputs;
  today: string;
  symbols: SymbolFacts[];
  loading: boolean;
  history: HistoryRow[];
  historyMessage: string | null;
  predictions: PredictionReply['predictions'];
  historyUntil: string | null;
  predictionMessage: string | null;
  /** The prediction message only says the model is still training: a status, not an error. */
  predictionPreparing: boolean;
  socketMessage: string | null;
}

/**
 * The demo's state: any change of an input shows loading, and 1,200 ms after the last change one
 * history fetch and one prediction request are made (spec: landing demo states). A prediction error
 * is shown and clears the predictions.
 */
export function useStockDemo() {
  const [today] = useState(todayOf);
  const [inputs, setInputs] = useState<DemoInputs>(() => initialInputs(today));
  const [symbols, setSymbols] = useState<SymbolFacts[]>([]);
  const [loading, setLoading] = useState(true);
  const [history, setHistory] = useState<HistoryRow[]>([]);
  const [historyMessage, setHistoryMessage] = useState<string | null>(null);
  const [predictions, setPredictions] = useState<PredictionReply['predictions']>([]);
  const [historyUntil, setHistoryUntil] = useState<string | null>(null);
  const [predictionMessage, setPredictionMessage] = useState<string | null>(null);
  const [predictionPreparing, setPredictionPreparing] = useState(false);
  const [socketMessage, setSocketMessage] = useState<string | null>(null);
  const socket = useRef<PredictionSocket | null>(null);
  const latest = useRef(0);

  useEffect(() => {
    const controller = new AbortController();
    fetchSymbols(controller.signal).then(setSymbols, () => setSymbols([]));
    const client = new PredictionSocket(
      predictionSocketUrl(window.location),
      (reply) => {
        if (reply.id !== latest.current) return; // an answer to an older request
        setLoading(false);
        if (reply.error) {
          setPredictions([]);
          setPredictionMessage(reply.error);
          setPredictionPreparing(reply.preparing === true);
        } else {
          setPredictions(reply.predictions);
          setPredictionMessage(null);
          setPredictionPreparing(false);
          setHistoryUntil(reply.history_until ?? null);
        }
      },
      setSocketMessage,
    );
    socket.current = client;
    return () => {
      controller.abort();
      client.close();
    };
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const filter = historyFilterOf(inputs, today);
      if (!filter.ok) {
        setHistory([]);
        setHistoryMessage(filter.message);
      } else {
        fetchHistory(inputs.symbol, filter.filter, controller.signal).then(
          (result) => {
            setHistory(result.ok ? result.rows : []);
            setHistoryMessage(result.ok ? null : result.message);
          },
          () => undefined, // aborted by a newer change
        );
      }
      const request = predictionMessageOf(inputs, today);
      if (!request.ok) {
        setPredictions([]);
        setPredictionMessage(request.message);
        setPredictionPreparing(false);
        setLoading(false);
      } else if (socket.current) {
        latest.current = socket.current.request(request.message);
      }
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [inputs, today]);

  // Any change shows loading at once; the effect above waits 1,200 ms for the next one.
  const update = (change: Partial<DemoInputs>) => {
    setLoading(true);
    setInputs((current) => ({ ...current, ...change }));
  };
  const state: StockDemoState = {
    inputs,
    today,
    symbols,
    loading,
    history,
    historyMessage,
    predictions,
    historyUntil,
    predictionMessage,
    predictionPreparing,
    socketMessage,
  };
  return { state, update };
}
