// Generated running configs of about 4,500 lines, one per command-driven dialect, in the shape a
// box prints: the vendor bench (bench/vendor.ts) imports and plans on them.

/** A box's shape: a header and globals, 500 real servers (7 lines each), 50 virtual servers of 10. */
function adx(): string {
  const out = ['!Building configuration...', '!Current configuration : 123456 bytes', '!', 'ver 12.5.02T403', '!', 'server source-ip 192.0.2.250 255.255.255.0 192.0.2.1', '!'];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  for (let r = 0; r < 500; r++) {
    out.push(`server real rs${r} ${nets[r % 3]}.${1 + Math.floor(r / 3)}`, ' port http', ' port http keepalive', ' port http url "HEAD /health"', ` weight ${1 + (r % 5)} 0`, ` port http server-id ${1000 + r}`, '!');
  }
  for (let v = 0; v < 50; v++) {
    const binds = Array.from({ length: 10 }, (_, i) => `rs${v * 10 + i} http`).join(' ');
    out.push(`server virtual vs${v} 203.0.113.${100 + v}`, ' port http', ' port http sticky', ' predictor round-robin', ` bind http ${binds}`, '!');
  }
  while (out.length < 4500) out.push(`ip route 198.51.100.${out.length % 250}/32 192.0.2.1`);
  out.push('end', '');
  return out.join('\n');
}

/** A box's shape: a header and globals, 500 servers (5 lines), 50 service groups of 10 (one monitor), 50 virtual servers. */
function a10(): string {
  const out = ['!Current configuration: 123456 bytes', '!version 4.1.4-GR1-P5, build 81 (Aug-31-2021,11:22)', '!', 'hostname vThunder', '!', 'health monitor hm-http', '  method http url GET /health', '!'];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  for (let r = 0; r < 500; r++) out.push(`slb server s${r} ${nets[r % 3]}.${1 + Math.floor(r / 3)}`, `  weight ${1 + (r % 5)}`, '  port 80 tcp', '    health-check-disable', '!');
  for (let g = 0; g < 50; g++) {
    out.push(`slb service-group sg${g} tcp`, '  method least-connection', '  health-check hm-http');
    for (let i = 0; i < 10; i++) out.push(`  member s${g * 10 + i} 80`);
    out.push('!');
  }
  for (let v = 0; v < 50; v++) out.push(`slb virtual-server vs${v} 203.0.113.${100 + v}`, '  port 80 http', '    source-nat auto', `    service-group sg${v}`, '!');
  while (out.length < 4500) out.push(`ip route 198.51.100.${out.length % 250} /32 192.0.2.1`);
  out.push('end', '');
  return out.join('\n');
}

/** A box's shape: a header and globals, 500 servers, 50 service groups of 10 with a monitor, 50 lb vservers. */
function netscaler(): string {
  const out = ['#NS13.1 Build 37.38', '# Last modified by `save config`, Mon May 03 12:34:56 2555', '', 'set ns config -IPAddress 192.0.2.250 -netmask 255.255.255.0', ''];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  for (let r = 0; r < 500; r++) out.push(`add server srv${r} ${nets[r % 3]}.${1 + Math.floor(r / 3)}`);
  for (let g = 0; g < 50; g++) out.push(`add serviceGroup sg${g} HTTP -maxClient 0 -maxReq 0 -cip DISABLED -usip NO -useproxyport YES -cltTimeout 180 -svrTimeout 360 -CKA NO -TCPB NO -CMP NO`);
  for (let v = 0; v < 50; v++) out.push(`add lb vserver vs${v} HTTP 203.0.113.${100 + v} 80 -persistenceType NONE -lbMethod ROUNDROBIN -cltTimeout 180`);
  for (let v = 0; v < 50; v++) out.push(`bind lb vserver vs${v} sg${v}`);
  out.push('add lb monitor mon_http HTTP -respCode 200 -httpRequest "GET /health" -LRTM DISABLED');
  for (let g = 0; g < 50; g++) {
    for (let i = 0; i < 10; i++) out.push(`bind serviceGroup sg${g} srv${g * 10 + i} 80${i % 2 ? ` -weight ${1 + (i % 5)}` : ''}`);
    out.push(`bind serviceGroup sg${g} -monitorName mon_http`);
  }
  while (out.length < 4500) out.push(`add route 198.51.100.${out.length % 250} 255.255.255.255 192.0.2.1`);
  out.push('');
  return out.join('\n');
}

/** A box's shape: 300 nodes, 60 pools of 5 members, 60 virtual servers, then routes to 4,500 lines. */
function f5(): string {
  const out = ['#TMSH-VERSION: 15.1.0.4', ''];
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  const addr = (n: number) => `${nets[n % 3]}.${1 + Math.floor(n / 3)}`;
  for (let n = 0; n < 300; n++) out.push(`ltm node /Common/web${n} {`, `    address ${addr(n)}`, '}');
  for (let p = 0; p < 60; p++) {
    out.push(`ltm pool /Common/pool${p} {`, '    load-balancing-mode least-connections-member', '    members {');
    for (let i = 0; i < 5; i++) out.push(`        /Common/web${p * 5 + i}:80 {`, `            address ${addr(p * 5 + i)}`, ...(i % 2 ? ['            ratio 2'] : []), '        }');
    out.push('    }', '    monitor /Common/http', '}');
  }
  for (let v = 0; v < 60; v++) {
    out.push(`ltm virtual /Common/vs${v} {`, `    destination /Common/203.0.113.${100 + (v % 150)}:${8000 + v}`, '    ip-protocol tcp', '    mask 255.255.255.255',
      `    pool /Common/pool${v}`, '    profiles {', '        /Common/http { }', '        /Common/tcp { }', '    }', '    source 0.0.0.0/0', '    translate-address enabled', '    translate-port enabled', '}');
  }
  for (let r = 0; out.length < 4500; r++) out.push(`net route /Common/r${r} {`, `    gw 192.0.2.1`, `    network 198.51.100.${r % 250}/32`, '}');
  out.push('');
  return out.join('\n');
}

export const CONFIGS: Record<string, { generate: () => string; file: string }> = {
  adx: { generate: adx, file: 'bench.cfg' },
  a10: { generate: a10, file: 'bench.cfg' },
  netscaler: { generate: netscaler, file: 'bench.conf' },
  f5: { generate: f5, file: 'bench.conf' },
};
