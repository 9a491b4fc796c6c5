/**
 * Bare HTTP POSTs for the benches that time an endpoint without an MCP client in between: Node's
 * own client (node:http) over one keep-alive agent, as fetch would reuse its connections. The
 * benches are Node programs, and the hub's scan asks for Obsidian's `requestUrl` wherever `fetch`
 * is used, which Node has not (CONTRIBUTING.md, "Lint").
 */
import { Buffer } from "node:buffer";
import { Agent, request, type IncomingHttpHeaders } from "node:http";

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface HttpPoster {
  /** POSTs `body` to `url` and resolves with the whole answer. */
  post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<PostAnswer>;
  /** Closes the kept connections. */
  close(): void;
}

export function httpPoster(): HttpPoster {
  const agent = new Agent({ keepAlive: true });
  return {
    post: (url, headers, body) =>
      new Promise<PostAnswer>((resolve, reject) => {
        const sent = request(
          url,
          { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("error", reject);
            response.on("end", () =>
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                text: Buffer.concat(chunks).toString("utf8"),
              }),
            );
          },
        );
        sent.on("error", reject);
        sent.end(body);
      }),
    close: () => agent.destroy(),
  };
}
