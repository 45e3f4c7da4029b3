// WebCrypto's SubtleCrypto, wherever the SDK runs: the page's `crypto.subtle` (browsers have it in secure contexts
// only: https and localhost), or Node's, which Node 18 keeps in node:crypto (its global `crypto` is behind a flag
// until Node 19). The module's name is not a literal, so bundlers leave the import alone for browsers.

let subtle: Promise<SubtleCrypto | null> | null = null;

/** SubtleCrypto, or null where there is none (an http page): then no signed status can be verified. */
export function subtleCrypto(): Promise<SubtleCrypto | null> {
  subtle ??= (async () => {
    const own = globalThis.crypto?.subtle;
    if (own) return own;
    const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
    if (!node) return null;
    try {
      const name = "node:crypto";
      type NodeCrypto = { webcrypto?: { subtle?: SubtleCrypto } };
      const module: NodeCrypto = await import(/* @vite-ignore */ /* webpackIgnore: true */ name);
      return module.webcrypto?.subtle ?? null;
    } catch {
      return null;
    }
  })();
  return subtle;
}
