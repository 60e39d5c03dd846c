/**
 * An environment as a process gets it (process.env, a child's env): a name may be present with no
 * value, and nothing here changes it. A leaf every layer may import (it imports nothing): one name
 * for the environment everywhere.
 */
export type Env = Readonly<Record<string, string | undefined>>;
