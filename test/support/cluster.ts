// A cluster on loopback: N `promptlib serve` processes on one PostgreSQL database behind a real
// nginx (Debian's) balancing round robin, as docs/scaling.md describes. Used by the cluster test
// and scripts/cluster-load.ts.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './app'
import { freePort, type ServerProcess, startServer } from './process'

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p)) ?? null

export interface Cluster {
  /** the balancer's URL: what clients call */
  url: string
  instances: ServerProcess[]
  stop(): Promise<void>
}

function nginxConfig(dir: string, port: number, upstreams: string[]): string {
  const temp = (name: string) => {
    mkdirSync(join(dir, name), { recursive: true })
    return join(dir, name)
  }
  return `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  client_max_body_size 2m;
  upstream promptlib {
${upstreams.map((u) => `    server ${u.replace('http://', '')};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://promptlib;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      # Server-Sent Events (the optimizer) go through as they are written
      proxy_buffering off;
      proxy_read_timeout 120s;
    }
  }
}
`
}

/** Starts `count` instances with `env` (DATABASE_URL must be set) and nginx in front of them. */
export async function startCluster(env: Record<string, string>, count = 3): Promise<Cluster> {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install -y nginx)')
  if (!env.DATABASE_URL) throw new Error('a cluster needs DATABASE_URL')
  // One at a time would be realistic too; together they also prove migrations and the demo
  // loader are safe when instances start at once.
  const instances = await Promise.all(
    Array.from({ length: count }, () => startServer({ TRUST_PROXY: 'true', AUTH_RATE_LIMIT: '0', LOG_LEVEL: 'warn', ...env, DATA_DIR: tempDir() })),
  )
  const dir = tempDir('promptlib-nginx-')
  const port = freePort()
  const config = join(dir, 'nginx.conf')
  writeFileSync(
    config,
    nginxConfig(
      dir,
      port,
      instances.map((i) => i.url),
    ),
  )
  const nginx = spawn(NGINX, ['-c', config, '-p', dir, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let errors = ''
  nginx.stderr.on('data', (d) => (errors += d))
  const exited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break
    } catch {}
    if (nginx.exitCode !== null || Date.now() > deadline) {
      for (const i of instances) i.kill('SIGKILL')
      throw new Error(`nginx did not start: ${errors}`)
    }
    await Bun.sleep(25)
  }
  return {
    url,
    instances,
    async stop() {
      nginx.kill('SIGQUIT')
      for (const i of instances) i.kill('SIGTERM')
      await Promise.all([exited, ...instances.map((i) => i.exited)])
    },
  }
}
