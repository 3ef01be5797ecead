// The validator rjsf is given. The engine validates (validateAppData, with the spec's messages) and
// hands rjsf its errors as extraErrors, and the forms are `noValidate`; so rjsf itself needs no
// validation, only `isValid` to pick a branch of oneOf/anyOf/if, which section schemas never have:
// the engine resolves conditions before it builds them (section-schemas.test.ts holds that for
// every problem). @rjsf/validator-ajv8 would compile schemas with ajv in the browser (new Function),
// which the CSP forbids; its precompiled variant needs the schemas at build time, and section
// schemas are built per state at run time.

import type { RJSFSchema, ValidationData, ValidatorType } from '@rjsf/utils';

export const sectionFormValidator: ValidatorType = {
  validateFormData(): ValidationData<unknown> {
    return { errors: [], errorSchema: {} };
  },
  rawValidation() {
    return { errors: [] };
  },
  isValid(schema: RJSFSchema): boolean {
    throw new Error(
      `A section schema asked rjsf to choose a branch (${Object.keys(schema).join(', ')}); ` +
        'the engine resolves conditions before rjsf draws a section.',
    );
  },
};
