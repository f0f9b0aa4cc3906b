// Another OAuth authorization server on 127.0.0.1, for a remote server that names it after the sign-in:
// metadata of its own (PKCE, a revocation endpoint, no registration) and a record of every request it got.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtherAuthorizationServer {
  origin: string;
  /** Every request: `METHOD path authorization body`. */
  seen: string[];
  close(): Promise<void>;
}

export async function startOtherAuthorizationServer(): Promise<OtherAuthorizationServer> {
  const seen: string[] = [];
  let origin = '';
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''} ${body}`);
      response.setHeader('content-type', 'application/json');
      if (request.url === '/.well-known/oauth-authorization-server') {
        response.end(JSON.stringify({ issuer: `${origin}/`, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, revocation_endpoint: `${origin}/revoke`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] }));
      } else response.end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/** Makes the remote fixture name `origin` as its authorization server from now on, refusing every token it issued. */
export async function nameAuthorizationServer(fixtureUrl: string, origin: string): Promise<void> {
  const answer = await fetch(new URL('/__name-authorization-server', fixtureUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `${origin}/` }) });
  if (!answer.ok) throw new Error(`the fixture did not switch: ${answer.status}`);
}
