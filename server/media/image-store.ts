import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../db/database';
import { CONTENT_TYPE_BY_EXTENSION, IMAGE_KINDS, type ImageKind } from './image-kinds';

/** A stored image's name: random, so names cannot be guessed or collide, and the extension of its kind. */
export const IMAGE_NAME_PATTERN = '^[a-f0-9]{32}\\.(png|jpg|gif|svg)$';
const IMAGE_NAME = new RegExp(IMAGE_NAME_PATTERN);

/** Uploaded images: the bytes under DATA_DIR/images, a row per image in `images`. */
export class ImageStore {
  private readonly dir: string;

  constructor(
    private readonly db: Queryable,
    dataDir: string,
  ) {
    this.dir = path.join(dataDir, 'images');
  }

  /** Keeps already checked bytes of the given kind; returns the new image's name. */
  async save(input: {
    userId: number;
    kind: ImageKind;
    bytes: Uint8Array;
    description: string | null;
  }): Promise<string> {
    const { contentType, extension } = IMAGE_KINDS[input.kind];
    const name = `${randomBytes(16).toString('hex')}.${extension}`;
    await mkdir(this.dir, { recursive: true });
    // The file first: a row never names a file that is not there.
    await writeFile(path.join(this.dir, name), input.bytes, { flag: 'wx', mode: 0o640 });
    await this.db.query(
      `insert into images (name, user_id, content_type, byte_size, description) values ($1, $2, $3, $4, $5)`,
      [name, input.userId, contentType, input.bytes.length, input.description],
    );
    return name;
  }

  /** The image's bytes and content type, or null when there is no such image. */
  async read(name: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    if (!IMAGE_NAME.test(name)) return null;
    const { rows } = await this.db.query<{ content_type: string }>(
      `select content_type from images where name = $1`,
      [name],
    );
    const contentType = rows[0]?.content_type ?? null;
    if (!contentType || contentType !== CONTENT_TYPE_BY_EXTENSION[name.split('.')[1]!]) return null;
    try {
      return { bytes: await readFile(path.join(this.dir, name)), contentType };
    } catch {
      return null;
    }
  }
}
