/**
 * A real terminal for the UI's smoke test: a tmux server on a private socket, one session,
 * read with capture-pane and driven with send-keys. Never the user's own tmux server.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** Quotes one word for the shell that tmux runs the command with. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export class TmuxSession {
  readonly socket = `bestof-test-${process.pid}-${randomBytes(3).toString('hex')}`;
  private lastScreen = '';

  /** Starts `argv` in a new detached session; after it ends, the pane shows EXIT=<code> and stays. */
  constructor(
    argv: readonly string[],
    options: {
      readonly cwd: string;
      readonly env: Record<string, string>;
      readonly unset?: readonly string[];
      readonly columns?: number;
      readonly rows?: number;
    },
  ) {
    const env = [...(options.unset ?? []).flatMap((name) => ['-u', name]), ...Object.entries(options.env).map(([k, v]) => `${k}=${v}`)];
    const command = `env ${env.map(shellQuote).join(' ')} ${argv.map(shellQuote).join(' ')}; echo "EXIT=$?"; sleep 600`;
    this.tmux('new-session', '-d', '-s', 'main', '-x', String(options.columns ?? 120), '-y', String(options.rows ?? 40), '-c', options.cwd, command);
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  screen(): string {
    this.lastScreen = this.tmux('capture-pane', '-p', '-t', 'main');
    return this.lastScreen;
  }

  /** tmux key names: Down, Enter, Escape, C-c, or plain text. */
  press(...keys: string[]): void {
    for (const key of keys) this.tmux('send-keys', '-t', 'main', key);
  }

  /** Polls the screen until `test` passes; gives up after a generous limit, showing the last screen. */
  async waitFor(test: (screen: string) => boolean, what: string, limitMs = 60_000): Promise<string> {
    const deadline = Date.now() + limitMs;
    while (Date.now() < deadline) {
      const screen = this.screen();
      if (test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`gave up waiting for ${what}; the screen shows:\n${this.lastScreen}`);
  }

  /** Ends the server and removes its socket file (tmux leaves it behind). */
  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
    rmSync(join(process.env.TMUX_TMPDIR ?? tmpdir(), `tmux-${process.getuid?.() ?? 0}`, this.socket), { force: true });
  }
}
