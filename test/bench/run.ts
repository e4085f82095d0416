/** `npm run bench`: every benchmark, each against a baseline measured in the same run. */
import { fileURLToPath } from 'node:url';
import { benchGatewayThroughput } from './gatewayThroughput';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
const fixed = (value: number, digits = 1) => value.toFixed(digits);

console.log('Gateway: POST /tools/call (time_now), autocannon, 10 connections, 8 s each');
const gateway = await benchGatewayThroughput(cli);
console.table({
  'capstan serve': { 'requests/s': fixed(gateway.capstan.requestsPerSecond, 0), 'p99 ms': gateway.capstan.p99Ms },
  'bare node:http': { 'requests/s': fixed(gateway.baseline.requestsPerSecond, 0), 'p99 ms': gateway.baseline.p99Ms },
});
console.log(`throughput ratio capstan/bare: ${fixed(gateway.throughputRatio, 2)}; p99 ratio: ${fixed(gateway.p99Ratio, 2)}`);
