// The HAProxy the engine benches compare against: mode tcp, one frontend, one server.
export interface At {
  address: string;
  port: number;
}

export function haproxyTcp(front: At, server: At, opts: { threads?: number; maxconn?: number } = {}): string {
  return `global
  nbthread ${opts.threads ?? 1}
  maxconn ${opts.maxconn ?? 4000}
defaults
  mode tcp
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend fe
  bind ${front.address}:${front.port}
  default_backend be
backend be
  server s1 ${server.address}:${server.port}
`;
}
