/**
 * An environment as a process gets it (process.env, a child's env): a name may be present with no
 * value, and nothing here changes it. One name for every layer that may import src/process.
 */
export type Env = Readonly<Record<string, string | undefined>>;
