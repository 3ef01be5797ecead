import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { JobEventRecord } from './jobs-repository';

export type JobEventListener = (event: JobEventRecord) => void;

/**
 * Carries job events to subscribed browsers and stop requests to whichever process runs the job.
 * In-process for the embedded default; Redis pub/sub when workers run in other processes.
 */
export interface JobEventBus {
  publish(jobId: number, event: JobEventRecord): Promise<void>;
  subscribe(jobId: number, listener: JobEventListener): () => void;
  requestStop(jobId: number): Promise<void>;
  onStopRequest(handler: (jobId: number) => void): void;
  close(): Promise<void>;
}

export class LocalJobEventBus implements JobEventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(jobId: number, event: JobEventRecord) {
    this.emitter.emit(`job:${jobId}`, event);
  }

  subscribe(jobId: number, listener: JobEventListener) {
    this.emitter.on(`job:${jobId}`, listener);
    return () => void this.emitter.off(`job:${jobId}`, listener);
  }

  async requestStop(jobId: number) {
    this.emitter.emit('stop', jobId);
  }

  onStopRequest(handler: (jobId: number) => void) {
    this.emitter.on('stop', handler);
  }

  async close() {
    this.emitter.removeAllListeners();
  }
}

export class RedisJobEventBus implements JobEventBus {
  private readonly local = new LocalJobEventBus();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  /** The subscription to the two channels; null after it failed (made again at the next use). */
  private ready: Promise<unknown> | null;

  constructor(
    redisUrl: string,
    private readonly prefix = 'qml',
  ) {
    this.publisher = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
    this.subscriber = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
    this.ready = this.subscribeChannels();
    this.subscriber.on('message', (channel: string, message: string) => {
      const data = JSON.parse(message) as { jobId: number; event?: JobEventRecord };
      if (channel === `${prefix}:job-events` && data.event) void this.local.publish(data.jobId, data.event);
      if (channel === `${prefix}:job-stop`) void this.local.requestStop(data.jobId);
    });
  }

  /**
   * Subscribes to the channels. With Redis away at start the failure is handled here (an unhandled
   * rejection would end the process) and the next publish or stop request subscribes again.
   */
  private subscribeChannels(): Promise<unknown> {
    const attempt = this.subscriber.subscribe(`${this.prefix}:job-events`, `${this.prefix}:job-stop`);
    attempt.catch(() => {
      if (this.ready === attempt) this.ready = null;
    });
    return attempt;
  }

  async publish(jobId: number, event: JobEventRecord) {
    await (this.ready ??= this.subscribeChannels());
    await this.publisher.publish(`${this.prefix}:job-events`, JSON.stringify({ jobId, event }));
  }

  subscribe(jobId: number, listener: JobEventListener) {
    return this.local.subscribe(jobId, listener);
  }

  async requestStop(jobId: number) {
    await (this.ready ??= this.subscribeChannels());
    await this.publisher.publish(`${this.prefix}:job-stop`, JSON.stringify({ jobId }));
  }

  onStopRequest(handler: (jobId: number) => void) {
    this.local.onStopRequest(handler);
  }

  async close() {
    await this.local.close();
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
