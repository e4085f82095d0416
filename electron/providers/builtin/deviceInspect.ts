import os from 'node:os';
import { defineTool } from '../../catalog/tool';
import { memoryUsage } from './localStatus';

function networkInterfaces() {
  return Object.entries(os.networkInterfaces()).flatMap(([name, addresses]) =>
    (addresses ?? []).map(({ family, address, cidr, mac, internal }) => ({ name, family, address, cidr, mac, internal })),
  );
}

function cpus() {
  const list = os.cpus();
  const models = [...new Set(list.map((cpu) => cpu.model.trim()))];
  return { count: list.length, models, speedMHz: list[0]?.speed ?? null };
}

export const deviceInspectTool = defineTool<Record<string, never>>({
  name: 'device_inspect',
  title: 'Inspect device',
  description: 'Hardware and network inventory of the gateway host: network interfaces with addresses, CPUs and memory.',
  riskLevel: 'low',
  needConfirm: false,
  mutating: false,
  tags: ['device', 'network', 'hardware', 'cpu', 'inventory'],
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  returnExample: {
    interfaces: [
      { name: 'lo', family: 'IPv4', address: '127.0.0.1', cidr: '127.0.0.1/8', mac: '00:00:00:00:00:00', internal: true },
      { name: 'eth0', family: 'IPv4', address: '10.20.3.41', cidr: '10.20.3.41/24', mac: '52:54:00:12:34:56', internal: false },
    ],
    cpus: { count: 8, models: ['AMD EPYC 7B13'], speedMHz: 2450 },
    memory: { totalBytes: 25769803776, freeBytes: 17179869184, usedBytes: 8589934592 },
  },
  run: () => ({ interfaces: networkInterfaces(), cpus: cpus(), memory: memoryUsage() }),
});
