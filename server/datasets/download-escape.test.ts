// A CSV upload downloaded again: cells that a spreadsheet would run as formulas come back as text.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startStack, type TestStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';

describe('downloading an uploaded CSV', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
  }, 120_000);
  afterAll(async () => stack?.close());

  it('escapes formula cells (=, +, -, @) and keeps numbers and text', async () => {
    const email = 'sheet@example.com';
    const token = await stack.userToken(email);
    const user = (await stack.services.repositories.users.findByEmail(email))!;
    const csv =
      'Day,Sales,Note\n1,-1.5,"=HYPERLINK(""http://evil.example"",""click"")"\n2,+3,@SUM(A1:A2)\n3,4,+cmd|calc\n';
    const body = fileUploadBody(csv, { filename: 'sales.csv' });
    const upload = await stack.app.inject({
      method: 'POST',
      url: `/api/upload/${user.id}/${encodeURIComponent(email)}`,
      headers: { ...bearer(token), ...body.headers },
      payload: body.payload,
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const download = await stack.app.inject({ url: upload.json().url as string, headers: bearer(token) });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(download.body).toBe(
      'Day,Sales,Note\n1,-1.5,"\'=HYPERLINK(""http://evil.example"",""click"")"\n2,+3,"\'@SUM(A1:A2)"\n3,4,"\'+cmd|calc"\n',
    );
  });
});
