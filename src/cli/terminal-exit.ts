/**
 * No native abort when the terminal went away. Node, as it exits, puts each of stdin, stdout and
 * stderr that was a terminal when it started back in that terminal's first mode (tcsetattr, in
 * its C++ ResetStdio). When the terminal was closed meanwhile (a run goes on after SIGHUP, to its
 * end) that call fails, and Node 20 and 22 abort on the failure: "Assertion failed ...
 * node::ResetStdio" with a native stack trace, exit by SIGABRT, after a run that ended well
 * (Node 24 ignores the error since nodejs/node#58200).
 *
 * ResetStdio leaves alone a descriptor that is closed (fstat fails with EBADF). So, as the process
 * exits, each descriptor that was a terminal at the start and is one no longer (a hung-up terminal
 * answers no terminal request) is closed: there is nothing to restore on a terminal that is gone.
 * A terminal that is still there is restored as always.
 */
import { closeSync } from 'node:fs';
import { isatty } from 'node:tty';

/** Arms the check at exit; call once, early, in the CLI's process. */
export function releaseGoneTerminalAtExit(): void {
  const terminals = [0, 1, 2].filter((fd) => isatty(fd));
  if (terminals.length === 0) return;
  process.on('exit', () => {
    for (const fd of terminals) {
      if (isatty(fd)) continue;
      try {
        closeSync(fd);
      } catch {
        // Already closed: nothing for Node to restore either.
      }
    }
  });
}
