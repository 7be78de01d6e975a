// The balance lines the HAProxy driver renders for each algorithm (kept in step with haproxy.ts).
import type { Algorithm } from '../../../../shared/model/schema';

export function balanceLines(algorithm: Algorithm): string[] {
  switch (algorithm) {
    case 'round-robin':
    case 'weighted-round-robin': return ['balance roundrobin'];
    case 'least-connections':
    case 'health-weighted': return ['balance leastconn'];
    case 'source-hash': return ['balance hash src,concat(:,txn.lbdesk_sport)', 'hash-type consistent', 'tcp-request content set-var(txn.lbdesk_sport) src_port'];
  }
}
