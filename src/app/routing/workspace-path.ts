/** Spec section 2: names in workspace paths are lower-cased with spaces replaced by hyphens. */
export const pathName = (name: string): string => name.trim().toLowerCase().replace(/\s+/g, '-');

/**
 * The workspace of an application: /development/{problem}/{id}/{name}, or /developmentbio/... for a
 * problem whose schema file names the brain tumor workspace.
 */
export function workspacePath(
  problem: { name: string; workspace: string },
  app: { id: number; app_name: string },
): string {
  return `/${problem.workspace}/${pathName(problem.name)}/${app.id}/${pathName(app.app_name)}`;
}
