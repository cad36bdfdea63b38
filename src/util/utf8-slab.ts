// node's global `Buffer` is a getter run on every read: imported instead.
import { Buffer } from 'node:buffer';
/**
 * UTF-8 bytes of a response body in one pass. Buffer.from(s) and Buffer.byteLength(s) each walk
 * the string once to size it and once more to encode it; a body written as a string is measured
 * for Content-Length and then encoded again by the socket. Here the string is encoded straight
 * into a shared slab at its worst-case size (3 bytes per UTF-16 unit) and the bytes written are
 * the length. Slab regions are never reused: a full slab is dropped and the garbage collector frees
 * it once the last body cut from it has been written (as node's own Buffer pool does).
 */
const SLAB_BYTES = 64 * 1024;

export interface Utf8Encoder {
  encode(s: string): Buffer;
}

export function createUtf8Encoder(slabBytes = SLAB_BYTES): Utf8Encoder {
  let slab = Buffer.allocUnsafeSlow(slabBytes);
  let used = 0;
  // Larger strings get a buffer of their own: a slab holds at least two worst-case bodies.
  const maxString = Math.floor(slabBytes / 6);
  return {
    encode(s) {
      if (s.length > maxString) return Buffer.from(s, 'utf8');
      const room = s.length * 3;
      if (used + room > slabBytes) {
        slab = Buffer.allocUnsafeSlow(slabBytes);
        used = 0;
      }
      const written = slab.write(s, used, room, 'utf8');
      const out = slab.subarray(used, used + written);
      used += (written + 7) & ~7; // 8-byte aligned, like node's pool
      return out;
    },
  };
}
