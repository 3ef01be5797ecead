// The CSV summary off the main thread, so a 100 MB file never freezes the page (parse-dataset.ts starts it).
import { summarizeCsv } from './csv-summary';

self.onmessage = (event: MessageEvent<Blob | string>) => {
  summarizeCsv(event.data).then(
    (parsed) => self.postMessage({ ok: true, parsed }),
    (error: unknown) =>
      self.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
};
