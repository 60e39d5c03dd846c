import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

const read = (stdout: NodeJS.WriteStream): TerminalSize => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });

/** The terminal's size, updated on resize; `fixed` wins (tests, and the bench's fake terminal). */
export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => fixed ?? read(stdout));
  useEffect(() => {
    if (fixed) return;
    const onResize = (): void => setSize(read(stdout));
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed]);
  return fixed ?? size;
}
