import type { ChildProcess } from 'node:child_process';

export function freePort(): Promise<number>;
export function startRedisProcess(options: {
  port: number;
  dir: string;
  appendfsync?: 'always' | 'everysec';
}): Promise<ChildProcess>;
