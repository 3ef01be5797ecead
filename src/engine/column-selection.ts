// Fields that pick dataset columns (x-field options "columns") hold only columns of the dataset the
// application names, whichever kind it is (a shipped sample, an upload, a fetched link).

import { declaredFieldNames, firstDeclaration } from './conditions';
import { isPlainObject } from './json';
import { joinPointer } from './pointer';
import type { AppData, FieldError, Problem } from './types';

/** A column name as CSV headers leave it ('Close\r', ' Close') and as a selection may carry it. */
const bare = (name: string) => name.replace(/\r/g, '').trim();

/**
 * One error per selected value that is not one of `columns`, on the selecting field's path, in the
 * platform's notAColumn words. Values that are not strings are left to the schema's type rules.
 */
export function columnSelectionErrors(
  problem: Problem,
  appData: AppData,
  columns: readonly string[],
): FieldError[] {
  const known = new Set(columns.map(bare));
  const words = problem.platform.messages.notAColumn;
  const errors: FieldError[] = [];
  for (const key of problem.formKeys) {
    const form = appData?.[key];
    if (!isPlainObject(form)) continue;
    for (const name of declaredFieldNames(problem.forms[key]!.schema)) {
      const schema = firstDeclaration(problem.forms[key]!.schema, name);
      if (schema?.['x-field']?.options !== 'columns' || form[name] === undefined) continue;
      const chosen = Array.isArray(form[name]) ? (form[name] as unknown[]) : [form[name]];
      for (const value of chosen) {
        if (typeof value !== 'string' || bare(value) === '' || known.has(bare(value))) continue;
        errors.push({
          path: joinPointer(`/${key}`, name),
          field: name,
          message: words.replace('{column}', bare(value)),
          keyword: 'x-column',
        });
      }
    }
  }
  return errors;
}
