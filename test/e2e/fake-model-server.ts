/**
 * A fake model server on 127.0.0.1 that the real agent CLIs talk to in the end-to-end tier:
 * the Anthropic Messages API (Claude Code), the OpenAI Responses API (Codex) and the Gemini
 * API (Gemini CLI), streamed as each CLI expects (docs/design/agent-clis.md sections 5 and 9).
 *
 * It scripts the main conversation of each API: a request that offers tools is the agent's
 * conversation, and the number of tool results it already carries is the step. A request
 * without tools (titles, Gemini's router) is a side call and gets a trivial answer. The
 * working directory the CLI announces tells where the scripted edit goes.
 *
 * Claude Code driven interactively (the `shannon` provider) goes on after a Stop hook's block
 * in the same conversation: the request then carries the hook's reason as "Stop hook feedback".
 * `Behaviour.continued` scripts what the agent does after each block (Anthropic only): the
 * number of feedbacks in the request picks the turn, and the step counts the tool results after
 * the last one. A turn can require a text in the feedback (the failing checks' report), and a
 * step can be held until the test releases it (to look at the agent's screen mid-run).
 *
 * A voter (bestof's `[vote]`, src/vote/prompts.ts) is the same CLI asked to judge: when the
 * latest user text of a main request is one of our vote prompts (`## Candidate X` sections
 * with fenced material; `FINAL RANKING:` instructions for a ranking, **Strengths**, **Weaknesses**
 * and **Risks** for a cross-review), the server answers with plain text (no tool use), by the
 * API's `Behaviour.taste`: words, best first; a candidate's place is that of the first word its
 * section contains. The prompt it read is logged, so a test can check what the voter was shown.
 *
 * Every request is logged (method, path, API, step, what was answered) for the tests.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Api = 'anthropic' | 'openai' | 'gemini';

/** What the server does in one step of the main conversation. */
export type Step =
  | { readonly kind: 'write'; readonly path: string; readonly content: string }
  /** `held`: not answered until `release()` (see `whenHeld`). */
  | { readonly kind: 'text'; readonly text: string; readonly held?: boolean }
  | { readonly kind: 'error'; readonly status: 401 | 429 }
  | { readonly kind: 'hang' };

export interface Behaviour {
  /** Steps of the main conversation, by the number of tool results in the request. */
  readonly steps: readonly Step[];
  /** The first `failFirst.count` main requests get this error instead of a step. */
  readonly failFirst?: { readonly status: 401 | 429; readonly count: number };
  /**
   * Anthropic only: the turns after a Stop hook blocked. `continued[n - 1]` runs once the request
   * carries n Stop hook feedbacks; `steps` above is the turn before any block.
   */
  readonly continued?: readonly Turn[];
  /**
   * How this API votes: words, best first. A ballot puts first the candidate whose section (its
   * fenced material) contains the earliest of these words; ties, and sections with none of them,
   * keep the order they were shown in.
   */
  readonly taste?: readonly string[];
}

/** What the agent does after a Stop hook's block. */
export interface Turn {
  /** The last feedback must contain this, or the agent only answers that it did not get it. */
  readonly requires?: string;
  readonly steps: readonly Step[];
}

export interface LoggedRequest {
  readonly api: Api | 'unknown';
  readonly method: string;
  readonly path: string;
  readonly main: boolean;
  readonly step: number;
  /** How many Stop hook feedbacks the request carried (Anthropic; 0 for the others). */
  readonly turn: number;
  readonly answer: string;
  readonly cwd: string | undefined;
  /** Claude Code's `x-claude-code-session-id` header. */
  readonly session: string | undefined;
  /** A voter's call: what it was asked, the prompt as found in the request, and the labels it answered, best first. */
  readonly vote?: VoteAsked;
}

export interface VoteAsked {
  readonly kind: VotePromptKind;
  /** The user text that holds our prompt (without the CLI's own additions around it). */
  readonly prompt: string;
  /** The labels shown, in the order they were shown. */
  readonly shown: readonly string[];
  /** The labels by the API's taste, best first (the ranking answered, or the order of the reviews). */
  readonly ranked: readonly string[];
}

export type VotePromptKind = 'ranking' | 'review';

export interface FakeModelServer {
  readonly port: number;
  readonly url: string;
  readonly requests: LoggedRequest[];
  /** Sets what each API does from now on. */
  script(api: Api, behaviour: Behaviour): void;
  /** Resolves once a `held` step's request is waiting (rejects after `timeoutMs`, saying so). */
  whenHeld(timeoutMs: number): Promise<void>;
  /** Answers the held requests, and every held step after them until the next `script()`. */
  release(): void;
  close(): Promise<void>;
}

/** The usual script: write one file, then say it is done. */
export function editScript(path: string, content: string, text = 'Done: the file is written.'): Behaviour {
  return {
    steps: [
      { kind: 'write', path, content },
      { kind: 'text', text },
    ],
  };
}

/**
 * The interactive scenario: write `first` and stop; once a Stop hook blocks with feedback that
 * contains `requires`, write `second` and say it is done (held until `release()` when `hold`).
 */
export function blockedOnceScript(path: string, first: string, second: string, requires: string, options: { hold?: boolean } = {}): Behaviour {
  return {
    steps: [
      { kind: 'write', path, content: first },
      { kind: 'text', text: 'First attempt written.' },
    ],
    continued: [
      {
        requires,
        steps: [
          { kind: 'write', path, content: second },
          { kind: 'text', text: 'Done: fixed after the feedback.', held: options.hold ?? false },
        ],
      },
    ],
  };
}

type Body = Record<string, unknown>;

export interface FakeServerOptions {
  /** Appends every request (path and raw body) to this file, one JSON line each: for debugging. */
  readonly dumpFile?: string;
}

export async function startFakeModelServer(options: FakeServerOptions = {}): Promise<FakeModelServer> {
  const behaviours = new Map<Api, Behaviour>();
  const failures = new Map<Api, number>();
  const requests: LoggedRequest[] = [];
  const hung = new Set<ServerResponse>();
  let released = false;
  let waiting: (() => void)[] = [];
  let heldListeners: (() => void)[] = [];

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    if (options.dumpFile) appendFileSync(options.dumpFile, `${JSON.stringify({ method: req.method, path: req.url, headers: req.headers, body: raw })}\n`);
    const body = parseBody(raw);
    const api = apiOf(req.method ?? 'GET', url.pathname);
    let turn = 0;
    const log = (main: boolean, step: number, answer: string, cwd?: string, vote?: VoteAsked) =>
      requests.push({
        api,
        method: req.method ?? 'GET',
        path: url.pathname + url.search,
        main,
        step,
        turn,
        answer,
        cwd,
        session: header(req, 'x-claude-code-session-id'),
        ...(vote ? { vote } : {}),
      });

    if (api === 'unknown') {
      // Claude Code's warm-up (HEAD /), model lists, and anything else: a harmless 200.
      log(false, 0, 'ok');
      if (url.pathname.endsWith('/models')) return json(res, 200, { data: [], models: [], has_more: false });
      return json(res, 200, {});
    }
    if (api === 'anthropic' && url.pathname.endsWith('/count_tokens')) {
      log(false, 0, 'count_tokens');
      return json(res, 200, { input_tokens: 1000 });
    }
    const main = isMainConversation(api, body, url.pathname);
    const cwd = announcedCwd(raw);
    if (!main) {
      log(false, 0, 'side call', cwd);
      return sideCall(api, url.pathname, res);
    }
    const behaviour = behaviours.get(api) ?? { steps: [{ kind: 'text', text: 'Nothing scripted.' }] };
    const asked = votePrompt(latestUserTexts(api, body));
    if (asked) {
      // A voter: answered by the taste, in plain text, whatever the scripted steps are.
      const ranked = byTaste(asked.sections, behaviour.taste ?? []);
      const vote: VoteAsked = { kind: asked.kind, prompt: asked.prompt, shown: [...asked.sections.keys()], ranked };
      log(true, toolResults(api, body), `vote ${asked.kind}`, cwd, vote);
      const model = typeof body.model === 'string' ? body.model : undefined;
      return answer(api, res, { model, text: voteAnswer(asked.kind, ranked) }, `vote_${requests.length}`);
    }
    let step = toolResults(api, body);
    let steps = behaviour.steps;
    if (api === 'anthropic' && behaviour.continued) {
      const feedback = stopHookFeedback(body);
      turn = feedback.count;
      if (turn > 0) {
        const scripted = behaviour.continued[Math.min(turn, behaviour.continued.length) - 1]!;
        step = feedback.toolResultsAfter;
        if (scripted.requires !== undefined && !feedback.last.includes(scripted.requires)) {
          log(true, step, 'feedback without the required text', cwd);
          return answer(
            api,
            res,
            { text: `The Stop hook's feedback did not carry "${scripted.requires}": it was ${JSON.stringify(feedback.last.slice(0, 300))}` },
            `${turn}_${step}`,
          );
        }
        steps = scripted.steps;
      }
    }
    const failed = failures.get(api) ?? 0;
    if (behaviour.failFirst && failed < behaviour.failFirst.count) {
      failures.set(api, failed + 1);
      log(true, step, `error ${behaviour.failFirst.status}`, cwd);
      return apiError(api, behaviour.failFirst.status, res);
    }
    const scripted = steps[Math.min(step, steps.length - 1)]!;
    const model = typeof body.model === 'string' ? body.model : undefined;
    // Ids of tool calls must stay unique in a conversation that goes on after a block.
    const id = turn > 0 ? `${turn}_${step}` : String(step);
    log(true, step, scripted.kind === 'error' ? `error ${scripted.status}` : scripted.kind, cwd);
    switch (scripted.kind) {
      case 'error':
        return apiError(api, scripted.status, res);
      case 'hang':
        // Headers and nothing more: the CLI waits until bestof's timeout kills it.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        hung.add(res);
        return;
      case 'text':
        if (scripted.held && !released) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            for (const listener of heldListeners) listener();
            heldListeners = [];
          });
        }
        return answer(api, res, { model, text: scripted.text }, id);
      case 'write': {
        const path = cwd && !scripted.path.startsWith('/') ? `${cwd.replace(/\/$/, '')}/${scripted.path}` : scripted.path;
        return answer(api, res, { model, write: { path, relative: scripted.path, content: scripted.content } }, id);
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    script(api, behaviour) {
      behaviours.set(api, behaviour);
      failures.set(api, 0);
      released = false;
    },
    whenHeld(timeoutMs) {
      if (waiting.length > 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`fake model server: no held request came within ${timeoutMs} ms (requests so far: ${JSON.stringify(requests)})`)),
          timeoutMs,
        );
        heldListeners.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    release() {
      released = true;
      for (const resolve of waiting) resolve();
      waiting = [];
    },
    async close() {
      released = true;
      for (const resolve of waiting) resolve();
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function apiOf(method: string, path: string): Api | 'unknown' {
  if (method === 'POST' && /\/v1\/messages/.test(path)) return 'anthropic';
  if (method === 'POST' && /\/v1\/responses$/.test(path)) return 'openai';
  if (method === 'POST' && /\/v1beta\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path)) return 'gemini';
  return 'unknown';
}

function isMainConversation(api: Api, body: Body, path: string): boolean {
  if (api === 'gemini') {
    // The router and JSON-mode calls go to :generateContent with a JSON response type.
    if (!path.endsWith(':streamGenerateContent')) return false;
    const tools = body.tools;
    return Array.isArray(tools) && tools.length > 0;
  }
  const tools = body.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/** How many tool results the conversation already holds: the step of the script. */
function toolResults(api: Api, body: Body): number {
  const text = JSON.stringify(api === 'anthropic' ? body.messages : api === 'openai' ? body.input : body.contents);
  const pattern =
    api === 'anthropic' ? /"type":"tool_result"/g : api === 'openai' ? /"type":"(function_call_output|custom_tool_call_output)"/g : /"functionResponse":/g;
  return text ? (text.match(pattern) ?? []).length : 0;
}

/**
 * The Stop hook feedbacks in an Anthropic request (Claude Code puts each block's reason in a user
 * message: a system reminder holding "Stop hook feedback:\n<reason>"), the last one's text, and
 * the tool results after it.
 */
function stopHookFeedback(body: Body): { count: number; last: string; toolResultsAfter: number } {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  let count = 0;
  let last = '';
  let lastIndex = -1;
  messages.forEach((message, index) => {
    const text = JSON.stringify(message);
    const found = text.split('Stop hook feedback:').length - 1;
    if (found === 0 || (message as { role?: unknown }).role !== 'user') return;
    count += found;
    lastIndex = index;
    const content = (message as { content?: unknown }).content;
    const plain = typeof content === 'string' ? content : JSON.stringify(content);
    last = plain.slice(plain.lastIndexOf('Stop hook feedback:'));
  });
  const after = JSON.stringify(messages.slice(lastIndex + 1));
  return { count, last, toolResultsAfter: (after.match(/"type":"tool_result"/g) ?? []).length };
}

/**
 * The texts of the latest user message, one per block (Anthropic `messages[].content` text
 * blocks, OpenAI Responses `input[]` items' `input_text`, Gemini `contents[].parts[].text`).
 */
function latestUserTexts(api: Api, body: Body): string[] {
  const list = api === 'anthropic' ? body.messages : api === 'openai' ? body.input : body.contents;
  if (!Array.isArray(list)) return [];
  const user = (list as unknown[])
    .filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && (m as { role?: unknown }).role === 'user')
    .at(-1);
  if (!user) return [];
  const blocks: unknown = api === 'gemini' ? user.parts : user.content;
  if (typeof blocks === 'string') return [blocks];
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((b) => {
    const text = (b as { text?: unknown }).text;
    const type = (b as { type?: unknown }).type;
    // Anthropic: `text` blocks (not tool results); OpenAI: `input_text`; Gemini parts have no type.
    return typeof text === 'string' && (type === undefined || type === 'text' || type === 'input_text') ? [text] : [];
  });
}

interface FoundVotePrompt {
  readonly kind: VotePromptKind;
  readonly prompt: string;
  /** Label → the fenced material of its `## Candidate <label>` section, in the order shown. */
  readonly sections: Map<string, string>;
}

/**
 * One of our vote prompts among the texts, found by its markers outside the fences: `## Candidate X`
 * sections, and `FINAL RANKING:` (a ranking) or the review's **Strengths** list (a cross-review).
 * A CLI may put its own reminders in the same text: `<system-reminder>` blocks are cut out.
 */
function votePrompt(texts: readonly string[]): FoundVotePrompt | undefined {
  for (const raw of [...texts].reverse()) {
    const prompt = raw.replace(/<system-reminder>[\s\S]*?<\/system-reminder>\s*/g, '').trim();
    const sections = new Map<string, string[]>();
    const outside: string[] = [];
    let current: string[] | undefined;
    let fence: string | undefined;
    for (const line of prompt.split('\n')) {
      const opens = /^(`{3,})/.exec(line);
      if (opens && fence === undefined) {
        fence = opens[1];
        continue;
      }
      if (fence !== undefined) {
        if (line.trim() === fence) fence = undefined;
        else current?.push(line);
        continue;
      }
      outside.push(line);
      const heading = /^## Candidate ([A-Z]+)$/.exec(line);
      if (heading) sections.set(heading[1]!, (current = []));
      else if (/^## /.test(line)) current = undefined;
    }
    if (sections.size === 0) continue;
    const instructions = outside.join('\n');
    const kind: VotePromptKind | undefined = /^FINAL RANKING:$/m.test(instructions)
      ? 'ranking'
      : instructions.includes('**Strengths**, **Weaknesses** and **Risks**')
        ? 'review'
        : undefined;
    if (kind) return { kind, prompt, sections: new Map([...sections].map(([label, lines]) => [label, lines.join('\n')])) };
  }
  return undefined;
}

/** The labels best first: by the earliest word of `taste` each section contains; ties keep the shown order. */
function byTaste(sections: ReadonlyMap<string, string>, taste: readonly string[]): string[] {
  const place = (label: string): number => {
    const text = (sections.get(label) ?? '').toLowerCase();
    const found = taste.findIndex((word) => text.includes(word.toLowerCase()));
    return found === -1 ? taste.length : found;
  };
  return [...sections.keys()]
    .map((label, shown) => ({ label, shown, place: place(label) }))
    .sort((a, b) => a.place - b.place || a.shown - b.shown)
    .map((e) => e.label);
}

/** What a voter answers: a ballot that ends with the ranking, or one review section per label. */
function voteAnswer(kind: VotePromptKind, ranked: readonly string[]): string {
  if (kind === 'ranking') return `I ranked the drafts by which one I would rather read.\n\nFINAL RANKING:\n${ranked.join('\n')}\n`;
  return ranked
    .map((label, i) => `## ${label}\n\n**Strengths**\n- a clear scene\n\n**Weaknesses**\n- ${i === 0 ? 'little' : 'the ending is thin'}\n\n**Risks**\n- none\n`)
    .join('\n');
}

/** The working directory as each CLI announces it to the model. */
function announcedCwd(raw: string): string | undefined {
  const patterns = [
    /Primary working directory: (\/[^\s"\\]+)/, // Claude Code
    /<cwd>(\/[^<]+)<\/cwd>/, // Codex
    /Workspace Directories:\**(?:\s|\\n|-)*(\/[^\s"\\]+)/, // Gemini CLI (a list, one per line)
  ];
  for (const pattern of patterns) {
    const found = pattern.exec(raw)?.[1];
    if (found) return found;
  }
  return undefined;
}

interface Reply {
  /** The model the request asked for: the Anthropic API names it in its answer. */
  readonly model?: string | undefined;
  readonly text?: string;
  readonly write?: { readonly path: string; readonly relative: string; readonly content: string };
}

/** `id` makes the ids of the message and its tool call. */
function answer(api: Api, res: ServerResponse, reply: Reply, id: string): void {
  switch (api) {
    case 'anthropic':
      return anthropicStream(res, reply, id);
    case 'openai':
      return openaiStream(res, reply, id);
    case 'gemini':
      return geminiStream(res, reply);
  }
}

function sse(res: ServerResponse, events: readonly (readonly [string | undefined, unknown])[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [event, data] of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

// --- Anthropic Messages API (section 5.2) ---

function anthropicStream(res: ServerResponse, reply: Reply, step: number | string): void {
  const id = `msg_fake${step}`; // `step`: the step, or `<turn>_<step>` after a Stop hook's block
  const events: [string, unknown][] = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          content: [],
          model: reply.model ?? 'claude-fake',
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1000, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
    ],
  ];
  let stop = 'end_turn';
  if (reply.write) {
    stop = 'tool_use';
    const input = JSON.stringify({ file_path: reply.write.path, content: reply.write.content });
    events.push(
      [
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_fake${step}`, name: 'Write', input: {} } },
      ],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: input } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    );
  } else {
    events.push(
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text ?? '' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    );
  }
  events.push(
    ['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 50 } }],
    ['message_stop', { type: 'message_stop' }],
  );
  sse(res, events);
}

// --- OpenAI Responses API (section 5.3) ---

function openaiStream(res: ServerResponse, reply: Reply, step: number | string): void {
  const responseId = `resp_fake${step}`;
  let item: Record<string, unknown>;
  const events: [string, unknown][] = [];
  if (reply.write) {
    // Codex edits through its shell tool; the command runs in the worktree (its cwd).
    const script = `mkdir -p "$(dirname '${reply.write.relative}')" && cat > '${reply.write.relative}' <<'BESTOF_EOF'\n${reply.write.content}BESTOF_EOF`;
    item = {
      type: 'function_call',
      id: `fc_fake${step}`,
      call_id: `call_fake${step}`,
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: script }),
      status: 'completed',
    };
    events.push([
      'response.output_item.added',
      { type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } },
    ]);
  } else {
    const text = reply.text ?? '';
    const msgId = `msg_fake${step}`;
    item = { type: 'message', id: msgId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    events.push(
      [
        'response.output_item.added',
        { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: msgId, role: 'assistant', status: 'in_progress', content: [] } },
      ],
      [
        'response.content_part.added',
        { type: 'response.content_part.added', item_id: msgId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      ],
      ['response.output_text.delta', { type: 'response.output_text.delta', item_id: msgId, output_index: 0, content_index: 0, delta: text }],
      ['response.output_text.done', { type: 'response.output_text.done', item_id: msgId, output_index: 0, content_index: 0, text }],
    );
  }
  const usage = {
    input_tokens: 1000,
    input_tokens_details: { cached_tokens: 200 },
    output_tokens: 50,
    output_tokens_details: { reasoning_tokens: 10 },
    total_tokens: 1050,
  };
  sse(res, [
    ['response.created', { type: 'response.created', response: { id: responseId, object: 'response', status: 'in_progress', output: [] } }],
    ...events,
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response: { id: responseId, object: 'response', status: 'completed', output: [item], usage } }],
  ]);
}

// --- Gemini API (section 5.3) ---

const GEMINI_USAGE = { promptTokenCount: 1000, candidatesTokenCount: 50, totalTokenCount: 1050, cachedContentTokenCount: 0 };

function geminiStream(res: ServerResponse, reply: Reply): void {
  const part = reply.write
    ? { functionCall: { name: 'write_file', args: { file_path: reply.write.path, content: reply.write.content } } }
    : { text: reply.text ?? '' };
  sse(res, [
    [
      undefined,
      {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: GEMINI_USAGE,
        modelVersion: 'gemini-2.5-flash',
      },
    ],
  ]);
}

function sideCall(api: Api, path: string, res: ServerResponse): void {
  if (api === 'anthropic') return anthropicStream(res, { text: 'A title' }, 0);
  if (api === 'openai') return openaiStream(res, { text: 'ok' }, 0);
  // Gemini's router asks for JSON with a complexity score (section 9).
  const text = JSON.stringify({ complexity_reasoning: 'a small task', complexity_score: 1 });
  const body = {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: GEMINI_USAGE,
    modelVersion: 'gemini-2.5-flash',
  };
  if (path.endsWith(':streamGenerateContent')) return sse(res, [[undefined, body]]);
  return json(res, 200, body);
}

function apiError(api: Api, status: 401 | 429, res: ServerResponse): void {
  const retryAfter: Record<string, string> = status === 429 ? { 'retry-after': '1' } : {};
  if (api === 'anthropic') {
    const type = status === 429 ? 'rate_limit_error' : 'authentication_error';
    const message = status === 429 ? 'This request would exceed your rate limit.' : 'invalid x-api-key';
    return json(res, status, { type: 'error', error: { type, message }, request_id: 'req_fake' }, retryAfter);
  }
  if (api === 'openai') {
    const error =
      status === 429
        ? { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' }
        : { message: 'Incorrect API key provided: sk-fake.', type: 'invalid_request_error', code: 'invalid_api_key' };
    return json(res, status, { error }, retryAfter);
  }
  const error =
    status === 429
      ? { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' }
      : {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
        };
  return json(res, error.code, { error }, retryAfter);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string): Body {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Body) : {};
  } catch {
    return {};
  }
}
