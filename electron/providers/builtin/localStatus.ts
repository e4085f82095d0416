import { statfs } from 'node:fs/promises';
import os from 'node:os';
import { defineTool } from '../../catalog/tool';

export async function diskUsage(path: string) {
  const stats = await statfs(path);
  const totalBytes = stats.blocks * stats.bsize;
  const freeBytes = stats.bavail * stats.bsize;
  const usedBytes = totalBytes - stats.bfree * stats.bsize;
  return { path, totalBytes, freeBytes, usedBytes, usedPercent: totalBytes ? round((usedBytes / totalBytes) * 100) : 0 };
}

export const memoryUsage = () => {
  const totalBytes = os.totalmem();
  const freeBytes = os.freemem();
  return { totalBytes, freeBytes, usedBytes: totalBytes - freeBytes };
};

const round = (value: number) => Math.round(value * 10) / 10;

export const localStatusTool = (dataDir: string) =>
  defineTool<Record<string, never>>({
    name: 'local_status',
    title: 'Local status',
    description:
      'Status of the gateway host: OS, release, architecture, hostname, uptime, load, memory, disk usage of the data volume and runtime versions.',
    riskLevel: 'low',
    needConfirm: false,
    mutating: false,
    tags: ['system', 'status', 'health', 'disk', 'memory'],
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    returnExample: {
      os: 'Linux',
      release: '6.1.0-27-amd64',
      arch: 'x64',
      hostname: 'ops-desk-3',
      uptimeSeconds: 86422,
      loadAverage: [0.31, 0.28, 0.22],
      memory: { totalBytes: 25769803776, freeBytes: 17179869184, usedBytes: 8589934592 },
      disk: {
        path: '/home/ops/.config/Capstan',
        totalBytes: 270582939648,
        freeBytes: 85899345920,
        usedBytes: 184683593728,
        usedPercent: 68.3,
      },
      runtime: { node: '24.22.3', v8: '13.6.233.17', sqlite: '3.54.1', electron: null },
      checkedAt: '2026-11-30T09:15:02.118Z',
    },
    run: async () => ({
      os: os.type(),
      release: os.release(),
      arch: os.arch(),
      hostname: os.hostname(),
      uptimeSeconds: Math.round(os.uptime()),
      loadAverage: os.loadavg().map(round),
      memory: memoryUsage(),
      disk: await diskUsage(dataDir),
      runtime: {
        node: process.versions.node,
        v8: process.versions.v8,
        sqlite: process.versions.sqlite ?? null,
        electron: process.versions.electron ?? null,
      },
      checkedAt: new Date().toISOString(),
    }),
  });
