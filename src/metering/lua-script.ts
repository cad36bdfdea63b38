import { createHash } from 'node:crypto';
import { Command } from 'ioredis';
import type { RedisClient } from '../stores/redis-client';
import type { Deadline, DeadlineQueue, Expiring } from '../util/deadline-queue';

/** The message of ioredis' own command timeout, so both kinds of timeout read the same. */
export const COMMAND_TIMED_OUT = 'Command timed out';

const UTF8 = { replyEncoding: 'utf8' } as const;
// ioredis reads replies as bytes; a command with no reply encoding keeps bulk strings as Buffers
// and integers as numbers, and skips the walk that decodes the reply (convertBufferToString).
const RAW = { replyEncoding: null } as const;
type ReplyOptions = typeof UTF8 | typeof RAW;

/**
 * Told of a reply that came after its command's deadline: the caller was told the command failed,
 * but Redis ran it (a stall, not a loss), so what it did may have to be undone. It gets what the
 * command sent (`[script, key count, ...keys, ...args]`, as text): a command that held an object of
 * its request for this kept that object alive as long as ioredis keeps commands, and V8 then made
 * such objects in the old generation (docs/gateway-performance.md, step 47).
 */
export interface LateReplies {
  late(reply: unknown, sent: readonly unknown[]): void;
}

/**
 * An ioredis command whose deadline is an entry in the caller's DeadlineQueue rather than a
 * timer of its own (see deadline-queue.ts); at the deadline it fails as ioredis' would.
 */
class TimedCommand extends Command implements Expiring {
  deadline: Deadline | undefined = undefined;
  /** Who hears of a reply after the deadline (one object per store, no closure per command). */
  lateTo: LateReplies | undefined = undefined;
  private expired = false;

  private readonly raw: boolean;

  constructor(name: 'evalsha' | 'eval', args: (string | number)[], reply: ReplyOptions) {
    // ioredis copies the arguments through Array.prototype.flat, which in V8 makes a runtime call
    // per element: ≈ 12k instructions for a reserve's nine. These are flat: slice copies them (the
    // command must not keep the caller's array literal: V8 then pretenures that literal's site, see
    // docs/gateway-performance.md, step 32), and they are made text as ioredis would (EVAL and
    // EVALSHA have no argument transformer of its own).
    super(name, [], reply);
    this.raw = reply === RAW;
    this.args = args.slice();
    this.stringifyArguments();
  }

  /**
   * A raw reply goes on as a copy, so the parser's array dies while the parser runs, as it does
   * when ioredis decodes a reply into a new one. Handed on itself, it lived to the caller's parse,
   * and V8 pretenured its allocation site: every reply array was then made in the old generation
   * (≈ 120 bytes a request) to die there, and full GCs came with it (docs/gateway-performance.md,
   * step 34). `slice` is a builtin with no allocation site of its own.
   */
  override transformReply(result: Buffer | Buffer[]): string | string[] | Buffer | Buffer[] {
    const reply = this.raw && Array.isArray(result) ? result.slice() : super.transformReply(result);
    // ioredis still reads the reply of a command that already failed by its deadline.
    if (this.expired) this.lateTo?.late(reply, this.args);
    return reply;
  }

  expire(): void {
    this.expired = true;
    this.reject(new Error(COMMAND_TIMED_OUT));
  }

  /** Answered (or failed) in time. */
  settled(): void {
    this.deadline?.cancel();
  }
}

/** EVALSHA names the script by its digest, EVAL sends its text. */
function send(
  redis: RedisClient,
  script: LuaScript,
  name: 'evalsha' | 'eval',
  keys: readonly string[],
  args: readonly (string | number)[],
  deadlines: DeadlineQueue | undefined,
  lateTo: LateReplies | undefined,
): TimedCommand {
  const head = name === 'evalsha' ? script.sha : script.lua;
  const command = new TimedCommand(name, [head, script.numberOfKeys, ...keys, ...args], script.reply);
  if (deadlines) command.deadline = deadlines.start(command);
  if (lateTo) command.lateTo = lateTo;
  void redis.sendCommand(command);
  return command;
}

/** The command's reply through `parse`, or its error through `onError`; either way its deadline ends. */
function answered<T>(
  command: TimedCommand,
  parse: (reply: unknown) => T,
  onError: (err: unknown) => T | Promise<T>,
): Promise<T> {
  return (command.promise as Promise<unknown>).then(
    (reply) => {
      command.settled();
      return parse(reply);
    },
    (err: unknown) => {
      command.settled();
      return onError(err);
    },
  );
}

/**
 * A Lua script run with EVALSHA (only the 40-byte digest on the wire), falling back to EVAL when
 * the server answers NOSCRIPT (restart, failover, SCRIPT FLUSH); EVAL also caches it again.
 * Either way a call is one round trip in the common case.
 */
export class LuaScript {
  readonly sha: string;

  /** How ioredis is to read its replies: as they come when they are only integers (or nil). */
  readonly reply: ReplyOptions;

  constructor(
    readonly lua: string,
    readonly numberOfKeys: number,
    opts: { integerReply?: boolean } = {},
  ) {
    this.reply = opts.integerReply ? RAW : UTF8;
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  /**
   * The reply, through `parse`: the fallback and the parsing share one step of the promise chain
   * (each step is a promise and a microtask per call). With `deadlines`, a command not answered
   * in time fails with ioredis' timeout error; if its reply comes after all, `lateTo` hears of it.
   */
  run<T = unknown>(
    redis: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
    parse: (reply: unknown) => T = (reply) => reply as T,
    deadlines?: DeadlineQueue,
    lateTo?: LateReplies,
  ): Promise<T> {
    if (keys.length !== this.numberOfKeys)
      return Promise.reject(new Error(`script wants ${this.numberOfKeys} keys`));
    const first = send(redis, this, 'evalsha', keys, args, deadlines, lateTo);
    return answered(first, parse, (err) => {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      const again = send(redis, this, 'eval', keys, args, deadlines, lateTo);
      return answered(again, parse, (e) => {
        throw e;
      });
    });
  }
}
