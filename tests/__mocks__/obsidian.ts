/**
 * A small fake of the `obsidian` module for tests (mapped by jest's moduleNameMapper). It holds
 * only what our code uses; grow it on demand. Real behaviour is tested through the Node host and
 * the emulator.
 */

/** Options of requestUrl, as in Obsidian's API. */
export interface RequestUrlParam {
  url: string;
  method?: string;
  contentType?: string;
  body?: string | ArrayBuffer;
  headers?: Record<string, string>;
  throw?: boolean;
}

/** Response of requestUrl, as in Obsidian's API. */
export interface RequestUrlResponse {
  status: number;
  headers: Record<string, string>;
  arrayBuffer: ArrayBuffer;
  text: string;
  json: unknown;
}

/** The fake requestUrl: a jest function tests can program; by default it fails loudly. */
export const requestUrl = jest.fn((_request: RequestUrlParam | string): Promise<RequestUrlResponse> => {
  return Promise.reject(new Error("requestUrl is not programmed in this test"));
});

/** Obsidian's normalizePath: forward slashes, no duplicate or edge slashes, NBSP to space. */
export function normalizePath(path: string): string {
  let out = path.replace(/[\\/]+/g, "/").replace(/\u00A0|\u202F/g, " ");
  if (out !== "/") out = out.replace(/^\/+|\/+$/g, "");
  return out === "" ? "/" : out;
}

/** Platform flags; tests flip them to exercise the mobile path. */
export const Platform = {
  isDesktop: true,
  isDesktopApp: true,
  isMobile: false,
  isMobileApp: false,
};

/** Records every notice so tests can assert what the user was told. */
export class Notice {
  static readonly shown: string[] = [];
  message: string;
  constructor(message: string | DocumentFragment, _duration?: number) {
    this.message = typeof message === "string" ? message : (message.textContent ?? "");
    Notice.shown.push(this.message);
  }
  setMessage(message: string): this {
    this.message = message;
    return this;
  }
  hide(): void {
    /* nothing to hide in tests */
  }
}

/** Minimal Component with owned cleanups, as in Obsidian. */
export class Component {
  private readonly cleanups: Array<() => unknown> = [];
  load(): void {
    this.onload();
  }
  onload(): void {
    /* overridden */
  }
  unload(): void {
    while (this.cleanups.length > 0) this.cleanups.pop()?.();
    this.onunload();
  }
  onunload(): void {
    /* overridden */
  }
  register(cleanup: () => unknown): void {
    this.cleanups.push(cleanup);
  }
}

/** Minimal Plugin: records what it registers. */
export class Plugin extends Component {
  constructor(
    readonly app: unknown,
    readonly manifest: unknown,
  ) {
    super();
  }
}
