/**
 * The plugin body's lifecycle (issue 13): started once, at its first need; the vault's and the
 * editor's events heard before it are kept and handed to it, in order, when it is there. After an
 * unload it never starts; after a failed start nothing more is kept (no body will take it), and
 * every later use reports the failure again rather than doing nothing.
 */
export interface BodyLoaderOptions<B> {
  /** Builds the body; `stopped()` says whether the plugin was unloaded meanwhile. */
  start(stopped: () => boolean): Promise<B>;
  /** Runs once the body is current and the kept events are handed to it. */
  ready(body: B): Promise<void>;
  /** The body could not start; called at each use, never after an unload. */
  failed(error: unknown): void;
}

export class BodyLoader<B> {
  private readonly options: BodyLoaderOptions<B>;
  private starting: Promise<B> | undefined;
  private body: B | undefined;
  /** Events heard before the body was there; undefined once nothing is kept (handed over, failed or unloaded). */
  private early: Array<(body: B) => void> | undefined = [];
  private stopped = false;

  constructor(options: BodyLoaderOptions<B>) {
    this.options = options;
  }

  /** The body, if it has started. */
  get current(): B | undefined {
    return this.body;
  }

  /** How many events are kept for the body. */
  get kept(): number {
    return this.early?.length ?? 0;
  }

  /** The body, starting it on the first call; every caller waits on the same start. */
  load(): Promise<B> {
    this.starting ??= this.start();
    return this.starting.catch((error: unknown) => {
      this.early = undefined;
      if (!this.stopped) this.options.failed(error);
      throw error;
    });
  }

  /** Hands an event to the body, or keeps it until the body is there. */
  deliver(event: (body: B) => void): void {
    if (this.body !== undefined) event(this.body);
    else this.early?.push(event);
  }

  /** The plugin is unloading: the body does not start, and nothing more is kept. */
  stop(): void {
    this.stopped = true;
    this.early = undefined;
  }

  private async start(): Promise<B> {
    const body = await this.options.start(() => this.stopped);
    this.body = body;
    const early = this.early ?? [];
    this.early = undefined;
    for (const event of early) event(body);
    await this.options.ready(body);
    return body;
  }
}
