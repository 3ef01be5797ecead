// A client of any OpenAI-compatible chat-completions server (a hosted service, llama.cpp's server,
// vLLM): POST {base}/chat/completions, the first choice's message content.

export type ChatContent =
  string | ({ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } })[];

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: ChatContent;
}

/** Why a model gave no text: it timed out, answered with an error status, or answered nonsense. */
export class ChatModelError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'status' | 'unreachable' | 'malformed',
  ) {
    super(message);
  }
}

export interface ChatModel {
  readonly model: string;
  complete(messages: ChatMessage[]): Promise<string>;
}

export class OpenAiCompatibleChat implements ChatModel {
  constructor(
    private readonly baseUrl: string,
    readonly model: string,
    private readonly apiKey: string | null,
    /** A report is waited for at most this long; then the engine's text is used. */
    private readonly timeoutMs = 30_000,
  ) {}

  async complete(messages: ChatMessage[]): Promise<string> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.model, messages, temperature: 0 }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new ChatModelError('The language model did not answer in time', 'timeout');
      }
      throw new ChatModelError('The language model could not be reached', 'unreachable');
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (!response.ok) {
      throw new ChatModelError(
        `The language model answered ${response.status} ${response.statusText}`,
        'status',
      );
    }
    const content = (body as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]
      ?.message?.content;
    if (typeof content !== 'string' || content.trim() === '') {
      throw new ChatModelError('The language model answered without text', 'malformed');
    }
    return content.trim();
  }
}
