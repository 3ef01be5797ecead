import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../db/database';
import { FileMissing, LocalFileStore, type FileStore } from '../storage/file-store';
import { CONTENT_TYPE_BY_EXTENSION, IMAGE_KINDS, type ImageKind } from './image-kinds';

/** A stored image's name: random, so names cannot be guessed or collide, and the extension of its kind. */
export const IMAGE_NAME_PATTERN = '^[a-f0-9]{32}\\.(png|jpg|gif|svg)$';
const IMAGE_NAME = new RegExp(IMAGE_NAME_PATTERN);

/**
 * Uploaded images: the bytes in the file store under images/ (DATA_DIR/images, published when the
 * store is shared, so every server serves them), a row per image in `images`.
 */
export class ImageStore {
  private readonly files: FileStore;

  constructor(
    private readonly db: Queryable,
    dataDir: string,
    files?: FileStore,
  ) {
    this.files = files ?? new LocalFileStore(dataDir);
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
    const file = this.files.pathOf(`images/${name}`);
    await mkdir(path.dirname(file), { recursive: true });
    // The file first, published: a row never names a file that is not there.
    await writeFile(file, input.bytes, { flag: 'wx', mode: 0o640 });
    await this.files.put(`images/${name}`);
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
      // Uploaded to another server: fetched from the shared store first.
      return { bytes: await readFile(await this.files.fetch(`images/${name}`)), contentType };
    } catch (error) {
      if (error instanceof FileMissing || (error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}
