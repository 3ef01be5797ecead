// One home per message. A text used in more than one place is written once in platform.json's
// `messages` table and referred to by key wherever a message may stand (errorMessage values,
// upload and inference messages): {"$message": "fieldRequired"}. The registry resolves the
// references at load, so ajv-errors, the renderers and the server only ever see the texts; an
// unknown key is a schema error (file, pointer, reason).

import { isPlainObject } from './json';
import { formatPointer } from './pointer';
import type { IssueSink } from './refs';

export const MESSAGE_REF = '$message';

function messageKey(node: unknown): string | undefined {
  if (!isPlainObject(node)) return undefined;
  const keys = Object.keys(node);
  return keys.length === 1 && keys[0] === MESSAGE_REF && typeof node[MESSAGE_REF] === 'string'
    ? node[MESSAGE_REF]
    : undefined;
}

/**
 * A deep copy of `node` with every {"$message": key} replaced by the text of `messages[key]`.
 * Unknown keys are reported to `onIssue` (pointer relative to `node`) and left as the key.
 */
export function resolveMessages(
  node: unknown,
  messages: Readonly<Record<string, string>>,
  onIssue: IssueSink = () => {},
  path: string[] = [],
): unknown {
  const key = messageKey(node);
  if (key !== undefined) {
    if (Object.prototype.hasOwnProperty.call(messages, key)) return messages[key];
    onIssue(
      formatPointer([...path, MESSAGE_REF]),
      `unknown message "${key}" (not in platform.json messages)`,
    );
    return key;
  }
  if (Array.isArray(node))
    return node.map((v, i) => resolveMessages(v, messages, onIssue, [...path, String(i)]));
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = resolveMessages(v, messages, onIssue, [...path, k]);
  return out;
}
