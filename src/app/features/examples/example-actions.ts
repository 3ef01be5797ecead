import { ApiError } from '../../api/client';
import {
  copyToUser,
  createFromExample,
  type Category,
  type CreatedApplication,
} from '../../api/applications';
import { workspacePath } from '../../routing/workspace-path';
import type { Example } from '../../api/get-examples';
import { copiedToProfile, EXAMPLE_MESSAGES } from './example-messages';

/** What the page does after an action: open a page, ask for a login, or say something. */
export type ExampleOutcome =
  | { kind: 'navigate'; path: string }
  | { kind: 'login'; message: string }
  | { kind: 'success'; message: string }
  | { kind: 'error'; message: string };

export interface ExampleActor {
  /** The signed-in user's id, or null for a visitor. */
  userId: number | null;
  /** GET /application-categories/all, or null while not loaded (spec: "category id 0"). */
  categories: Category[] | null;
}

const body = (example: Example, userId: number) => ({
  app_problem_id: example.problem_id,
  app_name: example.app_name,
  user_id: userId,
  app_data: example.app_data,
});

/**
 * A reply that arrived but refused (an error status, or success without an application) gets the
 * "Failed to ..." text; no reply at all (network error, unreachable server: the applications client
 * rejects with status 0) gets "An error occurred ...".
 */
async function call(
  request: () => Promise<CreatedApplication>,
  texts: { refused: string; error: string },
): Promise<CreatedApplication | { message: string }> {
  try {
    const created = await request();
    return created && typeof created.id === 'number' ? created : { message: texts.refused };
  } catch (error) {
    return { message: error instanceof ApiError && error.status > 0 ? texts.refused : texts.error };
  }
}

/** The listed problem of the example, from the loaded categories (its workspace and name). */
function problemOf(example: Example, categories: Category[]) {
  return categories.flatMap((category) => category.app_problems).find((p) => p.id === example.problem_id);
}

/** Start: a login, then loaded categories, then create the application and open its workspace. */
export async function startExample(example: Example, actor: ExampleActor): Promise<ExampleOutcome> {
  if (actor.userId === null)
    return { kind: 'login', message: EXAMPLE_MESSAGES.loginToStart(example.problem_name) };
  const problem = actor.categories && problemOf(example, actor.categories);
  if (!problem) return { kind: 'error', message: EXAMPLE_MESSAGES.categoriesNotLoaded };
  const userId = actor.userId;
  const created = await call(() => createFromExample(body(example, userId)), {
    refused: EXAMPLE_MESSAGES.startRefused,
    error: EXAMPLE_MESSAGES.startError,
  });
  if ('message' in created) return { kind: 'error', message: created.message };
  // The brain tumor problem's workspace is 'developmentbio': its own workspace route.
  return { kind: 'navigate', path: workspacePath(problem, created) };
}

/** Copy to profile: the same application as Start, without leaving the gallery. */
export async function copyExampleToProfile(example: Example, actor: ExampleActor): Promise<ExampleOutcome> {
  if (actor.userId === null) return { kind: 'login', message: EXAMPLE_MESSAGES.loginToCopy };
  if (!actor.categories || !problemOf(example, actor.categories)) {
    return { kind: 'error', message: EXAMPLE_MESSAGES.categoriesNotLoaded };
  }
  const userId = actor.userId;
  const copied = await call(() => copyToUser(body(example, userId)), {
    refused: EXAMPLE_MESSAGES.copyRefused,
    error: EXAMPLE_MESSAGES.copyError,
  });
  if ('message' in copied) return { kind: 'error', message: copied.message };
  return { kind: 'success', message: copiedToProfile(copied.app_name) };
}

/** The example's app_data as formatted JSON, the text Copy to clipboard writes. */
export const exampleClipboardText = (example: Example): string => JSON.stringify(example.app_data, null, 2);
