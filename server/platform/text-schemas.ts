// Text that reaches the database and the log: control characters (NUL among them, which PostgreSQL
// refuses with a server error) are a field error instead, as is text longer than the column's rule.

/** No control character at all (one-line fields: names, e-mail addresses, ids). */
export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001F\\u007F]*$';
/** No control character but tab, line feed and carriage return (a message of several lines). */
const NO_CONTROL_CHARACTERS_BUT_LINES = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';

const text = <const Pattern extends string>(maxLength: number, pattern: Pattern) =>
  ({
    type: 'string',
    maxLength,
    pattern,
    errorMessage: {
      pattern: 'must not contain control characters',
      maxLength: `must be at most ${maxLength} characters`,
    },
  }) as const;

/** One line of text, at most `maxLength` characters. */
export const plainText = (maxLength: number) => text(maxLength, NO_CONTROL_CHARACTERS);

/** Text of one or more lines (tabs and line breaks allowed), at most `maxLength` characters. */
export const multilineText = (maxLength: number) => text(maxLength, NO_CONTROL_CHARACTERS_BUT_LINES);
