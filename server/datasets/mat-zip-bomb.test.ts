// A 2 MB zip whose one member inflates to 2 GB behind a MATLAB header, uploaded as a brain tumor
// dataset: the real worker's reader refuses it from the member's sizes (over 100 times its compressed
// size) before inflating anything, the reply is a 400 in the spec's 'Error parsing file: ...' words
// naming the member, and nothing is kept. (worker/tests/unit/test_bounded_unzip.py holds the caps on
// the bytes really inflated when the sizes lie, and the worker's memory.)

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startStack, type TestStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';

const MIB = 1024 * 1024;

/**
 * A zip of one deflated member `header + repeats MiB of zeros`, sizes and CRC right: one deflate block
 * of zeros ended by a full flush (no back-reference crosses it) is repeated, so building it is quick.
 */
function zipBomb(name: string, header: Buffer, repeats: number): Buffer {
  const flushed = (data: Buffer) => deflateRawSync(data, { finishFlush: constants.Z_FULL_FLUSH });
  const zeros = Buffer.alloc(MIB);
  const blocks = [
    flushed(header),
    ...Array<Buffer>(repeats).fill(flushed(zeros)),
    deflateRawSync(Buffer.alloc(0)),
  ];
  const data = Buffer.concat(blocks);
  let crc = crc32(header);
  for (let i = 0; i < repeats; i++) crc = crc32(zeros, crc);
  const size = header.length + repeats * MIB;
  const fileName = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(fileName.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(local.length + fileName.length + data.length, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}

describe('a zip bomb uploaded as a .mat dataset', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('is refused with a 400 naming the member and its ratio, and nothing is kept', async () => {
    const header = Buffer.from(
      'MATLAB 5.0 MAT-file, Platform: GLNXA64'.padEnd(124, ' ') + '\u0000\u0001IM',
      'latin1',
    );
    const bomb = zipBomb('slices/1.mat', header, 2047);
    expect(bomb.length).toBeLessThan(3 * MIB);
    const email = 'alice@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    const body = fileUploadBody(bomb, { filename: 'slices.zip', type: 'application/zip' });
    const reply = await stack.app.inject({
      method: 'POST',
      url: `/api/upload/${user!.id}/${encodeURIComponent(email)}`,
      headers: { ...bearer(token), ...body.headers },
      payload: body.payload,
    });
    expect(reply.statusCode, reply.body).toBe(400);
    expect(reply.json().message).toMatch(
      /^Error parsing file: slices\/1\.mat in the zip unpacks to more than 2\d\d MB, over 100 times its compressed size; it is not read$/,
    );
    const dir = path.join(stack.config.dataDir, 'datasets', String(user!.id));
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);
});
